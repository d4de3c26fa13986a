#!/usr/bin/env bash
# The agent's own state (docs/agents.md, "Its own state") with the real Claude Code and Codex CLIs
# from npm, as root and as uid 65534, each run in an empty network namespace on a fresh home that is
# not under /tmp, against the scripted model (tests/agents/scripted_model.py, the agent's own API
# shape, reached through --host-port). The user's own setup is there first: instructions
# (CLAUDE.md, AGENTS.md), a user-level MCP server, a status-line script, and the user's own stored
# login. Then, each a Paddock session:
#   1. the CLI's own view: its login status (the user's login is never shown inside) and its MCP
#      servers (the user's is there: `claude mcp list`, `codex mcp list`);
#   2. a task whose tool call plants what the CLI outside would run (a hook or notify program, a
#      rewritten status-line script, a .env); the model's first request must carry the user's
#      instructions, which the CLI read from the user's directory;
#   3. a login made inside (Codex: `codex login --with-api-key`; Claude Code has no offline login,
#      so its credentials file is written as its login writes it) and, in the next session, the
#      CLI's login status says it is logged in;
#   4. the conversation continued (`claude -p --continue`, `codex exec resume --last`): the model's
#      request carries what session 2 did, so the CLI's history was kept;
# and after all of it the user's own agent directory (and ~/.claude.json) is byte for byte what it
# was, while `paddock agent-state diff` lists what the agent changed, with what the CLI would run
# flagged. Codex runs with its own defaults throughout (no --sandbox flag): its nested sandbox is
# off in its Paddock state, so its commands run.
# Usage: agent_state_test.sh PADDOCK_BIN SOURCE_DIR WORK_DIR [AGENT...]. Exit 77 = skipped.
set -uo pipefail
paddock="$1" src="$2" work_root="$3"; shift 3
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude-code codex)
uids="${AGENT_STATE_UIDS:-0 65534}"
cache_line="$("$src/scripts/test-agents" | tail -n 1)"
case "$cache_line" in skip:*) echo "SKIP agent state: ${cache_line#skip: }"; exit 77 ;; esac
bin="$cache_line/node_modules/.bin"
case "$work_root" in /tmp/*) work_root="/var/tmp/paddock-agent-state" ;; esac
mkdir -p "$work_root"
work="$(mktemp -d "$work_root/state.XXXXXX")"
chmod 755 "$work"
runtime="$(mktemp -d /tmp/paddock-rt.XXXXXX)" runtime_user="$(mktemp -d /tmp/paddock-rt.XXXXXX)"
chown 65534:65534 "$runtime_user"
[ -n "${AGENT_STATE_KEEP:-}" ] || trap 'rm -rf "$work" "$runtime" "$runtime_user"' EXIT
steps="$src/tests/agents/agent_state_steps.json"
port=18080
failures=0
fail() { echo "FAIL [$agent uid $uid]: $*"; failures=$((failures + 1)); }

# The user's own files of this agent, as their agent CLI outside Paddock reads them: type, mode,
# link target and content digest of every entry.
manifest() {
  (cd "$home" && find .claude .claude.json .codex -printf '%y %m %p -> %l\n' 2>/dev/null | LC_ALL=C sort &&
    find .claude .claude.json .codex -type f -print0 2>/dev/null | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

make_user() {
  d="$work/$agent-$uid"; home="$d/home"; project="$d/project"
  mkdir -p "$project"
  printf '# Notes\n' >"$project/README.md"
  git -C "$project" init -q
  case "$agent" in
    claude-code)
      mkdir -p "$home/.claude"
      echo "USER-INSTRUCTIONS-7f3a: answer briefly." >"$home/.claude/CLAUDE.md"
      printf '{"statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}}\n' >"$home/.claude/settings.json"
      printf '#!/bin/sh\necho the users status line\n' >"$home/.claude/statusline.sh"
      chmod 755 "$home/.claude/statusline.sh"
      echo '{"claudeAiOauth": {"accessToken": "USERS-ACCESS-TOKEN", "refreshToken": "USERS-REFRESH-TOKEN", "expiresAt": 9999999999999, "scopes": ["user:inference"]}}' \
        >"$home/.claude/.credentials.json"
      echo '{"mcpServers": {"users-mcp-server": {"type": "stdio", "command": "/bin/true", "args": []}}}' >"$home/.claude.json" ;;
    codex)
      mkdir -p "$home/.codex"
      echo "USER-INSTRUCTIONS-7f3a: answer briefly." >"$home/.codex/AGENTS.md"
      printf '[mcp_servers.users_mcp_server]\ncommand = "/bin/true"\n' >"$home/.codex/config.toml"
      echo '{"OPENAI_API_KEY": "sk-users-own-key-outside"}' >"$home/.codex/auth.json" ;;
  esac
  cat >"$d/creds.yaml" <<'YAML'
version: 1
environment:
  agent_credentials: true
  pass_through: [ANTHROPIC_BASE_URL]
YAML
  chown -R "$uid:$uid" "$d"
  manifest >"$d/before"
}

codex_provider=(-c model_provider=paddock -c 'model_providers.paddock.name="paddock"'
                -c "model_providers.paddock.base_url=\"http://127.0.0.1:$port/v1\""
                -c 'model_providers.paddock.env_key="OPENAI_API_KEY"' -c 'model_providers.paddock.wire_api="responses"'
                -m gpt-5-codex)

# One Paddock session of the agent in a new empty network namespace with the scripted model on
# its loopback; stdin from $d/stdin when it exists. Output in $d/out, the exit code in $rc.
session() {
  local rt="$runtime"; [ "$uid" = 0 ] || rt="$runtime_user"
  local prefix=(env -i)
  [ "$uid" = 0 ] || prefix=(setpriv --reuid="$uid" --regid="$uid" --clear-groups env -i)
  local env=(HOME="$home" PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb
             XDG_RUNTIME_DIR="$rt" XDG_STATE_HOME="$home/.local/state" XDG_CONFIG_HOME="$home/.config"
             OPENAI_API_KEY=sk-paddock-test-inside ANTHROPIC_BASE_URL="http://127.0.0.1:$port")
  # A login status is asked without the key variable, which Claude Code would report instead.
  [ -n "${no_key:-}" ] || env+=(ANTHROPIC_API_KEY=sk-ant-paddock-test)
  local in=/dev/null; [ -f "$d/stdin" ] && in="$d/stdin"
  (cd "$project" && unshare --net -- sh -c '
      ip link set lo up || exit 1
      /usr/bin/python3 "$1" "$2" "$3" "$4" "$5" >>"$6" 2>&1 &
      for i in $(seq 100); do grep -q ready "$6" && break; sleep 0.05; done
      shift 6; server=$!; "$@"; rc=$?; kill "$server" 2>/dev/null; exit "$rc"' sh "$src/tests/agents/scripted_model.py" "$port" "$steps" "$d/record" "$d/requests" "$d/model.log" \
      "${prefix[@]}" "${env[@]}" "$paddock" run --agent "$agent" --project "$project" --policy "$d/creds.yaml" \
      --host-port "$port" --timeout 180s -- "$@" <"$in" >"$d/out" 2>&1)
  rc=$?
  rm -f "$d/stdin"
}

check_agent() {
  make_user
  echo "== $agent (uid $uid)"
  # 1. The CLI's own view of its login and its MCP servers.
  case "$agent" in
    claude-code) no_key=1 session claude auth status ;;
    codex) session codex login status ;;
  esac
  case "$(cat "$d/out")" in
    *'"loggedIn": false'*|*"Not logged in"*) ;;
    *) fail "the user's own login shows inside: $(head -c 600 "$d/out")" ;;
  esac
  ! grep -q "USERS-ACCESS-TOKEN\|sk-users-own" "$d/out" || fail "the user's own credential was printed inside"
  session "${agent%%-*}" mcp list
  grep -q "users.mcp.server" "$d/out" || fail "the user's MCP server is not visible inside: $(head -c 600 "$d/out")"

  # 2. The task: the tool call plants what the CLI outside would run.
  rm -f "$d/record" "$d/requests"
  case "$agent" in
    claude-code) session claude -p "Do the task." --allowedTools Bash ;;
    codex) session codex exec --skip-git-repo-check "${codex_provider[@]}" "Do the task." ;;
  esac
  [ "$rc" = 0 ] || { fail "the task session exited $rc"; sed -n 1,40p "$d/out"; }
  grep -q "planted-AGENT-STATE-MARKER" "$d/record" 2>/dev/null ||
    { fail "the planting step did not run: $(cat "$d/record" 2>/dev/null)"; sed -n 1,40p "$d/out"; tail -n 20 "$d/model.log"; }
  grep -q "USER-INSTRUCTIONS-7f3a" "$d/requests" 2>/dev/null ||
    fail "the user's instructions did not reach the model (the CLI did not read them inside)"
  grep -q "paddock: .*own sandbox is off" "$d/out" || fail "run did not say that the agent's own sandbox is off"

  # 3. A login made inside is kept for the next session.
  case "$agent" in
    claude-code)
      # The file its /login writes, written inside the sandbox (no offline login exists).
      printf '%s\n' '{"claudeAiOauth": {"accessToken": "ITS-OWN-ACCESS", "refreshToken": "ITS-OWN-REFRESH", "expiresAt": 9999999999999, "scopes": ["user:inference"]}}' >"$d/stdin"
      chown "$uid:$uid" "$d/stdin"
      session node -e 'const fs=require("fs"); fs.writeFileSync(process.env.CLAUDE_CONFIG_DIR+"/.credentials.json", fs.readFileSync(0))'
      [ "$rc" = 0 ] || fail "writing its own login inside exited $rc: $(head -c 400 "$d/out")"
      no_key=1 session claude auth status
      grep -q '"authMethod": "claude.ai"' "$d/out" || fail "the login made inside is not there in the next session: $(head -c 600 "$d/out")" ;;
    codex)
      echo "sk-its-own-login-key" >"$d/stdin"; chown "$uid:$uid" "$d/stdin"
      session codex login --with-api-key
      [ "$rc" = 0 ] || fail "codex login inside exited $rc: $(head -c 400 "$d/out")"
      session codex login status
      # (0.171 says "API key configured - sk-its-o***n-key"; older ones "Logged in using an API key".)
      grep -q "sk-its-o\|Logged in using an API key" "$d/out" || fail "the login made inside is not there in the next session: $(head -c 600 "$d/out")" ;;
  esac

  # 4. The conversation goes on in the next session: the CLI kept its history.
  rm -f "$d/requests"
  case "$agent" in
    claude-code) session claude -p --continue "Go on." --allowedTools Bash ;;
    codex) session codex exec --skip-git-repo-check "${codex_provider[@]}" resume --last "Go on." ;;
  esac
  grep -q "planted-AGENT-STATE-MARKER" "$d/requests" 2>/dev/null ||
    { fail "the continued conversation does not carry the earlier session (exit $rc)"; sed -n 1,30p "$d/out"; }

  # The user's own directory is byte for byte what it was; the agent's changes wait for review.
  manifest >"$d/after"
  diff -u "$d/before" "$d/after" >"$d/manifest.diff" || { fail "the user's own agent files changed:"; cat "$d/manifest.diff"; }
  local rt="$runtime"; [ "$uid" = 0 ] || rt="$runtime_user"
  local as=(); [ "$uid" = 0 ] || as=(setpriv --reuid="$uid" --regid="$uid" --clear-groups)
  "${as[@]}" env -i HOME="$home" PATH="/usr/bin:/bin" XDG_RUNTIME_DIR="$rt" XDG_STATE_HOME="$home/.local/state" \
    XDG_CONFIG_HOME="$home/.config" "$paddock" agent-state diff "$agent" --json >"$d/diff.json" 2>"$d/diff.err" ||
    { fail "paddock agent-state diff failed: $(cat "$d/diff.err")"; return; }
  python3 - "$d/diff.json" "$agent" "$home" <<'PY' || fail "paddock agent-state diff: $(cat "$d/diff.err") $(head -c 2000 "$d/diff.json")"
import json, sys
j = json.load(open(sys.argv[1])); agent, home = sys.argv[2], sys.argv[3]
changes = {c["path"]: {f["rule"] for f in c.get("flags", [])} for c in j["changes"]}
d = home + ("/.claude" if agent == "claude-code" else "/.codex")
settings = d + ("/settings.json" if agent == "claude-code" else "/config.toml")
want = {settings: "host-executed-keys", d + "/.env": None, d + "/evil.sh": "new-executable"}
if agent == "claude-code":
    want[d + "/statusline.sh"] = "named-by-setting"
ok = True
for path, rule in want.items():
    if path not in changes:
        print("not listed:", path); ok = False
    elif rule and rule not in changes[path]:
        print(path, "not flagged", rule, "but", sorted(changes[path])); ok = False
for c in j["changes"]:
    if "credentials" in c["path"] or c["path"].endswith("auth.json"):
        print("its own login is listed as a change to bring out:", c["path"]); ok = False
sys.exit(0 if ok else 1)
PY
}

for uid in $uids; do
  for agent in "${agents[@]}"; do
    before=$failures
    check_agent
    [ $failures -ne $before ] || echo "   ok"
  done
done
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "${agents[*]}: the user's own directory untouched, their setup visible inside, login and history kept, as uid $(echo $uids | sed "s/ / and /")"
