#!/usr/bin/env bash
# Each preset agent through a whole coding task under Paddock, as a daily user runs it: the real
# CLI from npm (scripts/test-agents caches them), its own preset and default settings, a fresh
# HOME that is not under /tmp, everything inside an empty network namespace. The model is
# tests/agents/scripted_model.py in that agent's own API shape, on 127.0.0.1:18080 of the test's
# namespace, which the sandbox reaches through a host port (--host-port 18080): the way a user
# reaches a local model server. Its script is tests/agents/whole_task_steps.json, ten shell
# steps: list and read, git status, read a file, edit it, write a test, run the tests,
# git add -A && git commit, read ~/.ssh/id_rsa, curl an unlisted host, search the project.
#
# Checked for each agent, as root and as uid 65534: every step's observed result (printed), the
# commit's files are exactly the agent's own changes, the user's tree is clean after the session
# (no placeholder anywhere), the key never reached the model server, and the session record
# names the refused host with the broker's reason.
#
# Usage: whole_task_test.sh PADDOCK_BIN SOURCE_DIR WORK_DIR [AGENT...]
# With WHOLE_TASK_MODE=bare the same task runs without Paddock (for tests/bench); the script then
# only prints "<agent> <seconds>" per run and checks nothing Paddock-specific.
# Exit 77 = skipped (npm unreachable: the agents cannot be installed).
set -uo pipefail
paddock="$1" src="$2" work_root="$3"; shift 3
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude-code codex gemini-cli opencode copilot)
mode="${WHOLE_TASK_MODE:-paddock}"
uids="${WHOLE_TASK_UIDS:-0 65534}"
cache_line="$("$src/scripts/test-agents" | tail -n 1)"
case "$cache_line" in skip:*) echo "SKIP whole-task agents: ${cache_line#skip: }"; exit 77 ;; esac
bin="$cache_line/node_modules/.bin"
case "$work_root" in /tmp/*) work_root="/var/tmp/paddock-whole-task" ;; esac
mkdir -p "$work_root"
work="$(mktemp -d "$work_root/task.XXXXXX")"
chmod 755 "$work"
runtime="$(mktemp -d /tmp/paddock-rt.XXXXXX)" runtime_user="$(mktemp -d /tmp/paddock-rt.XXXXXX)"
chown 65534:65534 "$runtime_user"
[ -n "${WHOLE_TASK_KEEP:-}" ] || trap 'rm -rf "$work" "$runtime" "$runtime_user"' EXIT
steps="$src/tests/agents/whole_task_steps.json"
port=18080
failures=0
fail() { echo "FAIL [$agent uid $uid]: $*"; failures=$((failures + 1)); }
as_user() { if [ "$uid" = 0 ]; then "$@"; else setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"; fi; }
host_git() { git -c safe.directory='*' -C "$project" "$@"; }

# A fresh user: a home with an ssh key, and a project that is a git repository with one bug.
make_user() {
  d="$work/$agent-$uid-$mode"; home="$d/home"; project="$d/project"
  mkdir -p "$home/.ssh" "$project"
  echo "PADDOCK-TEST-PRIVATE-KEY" >"$home/.ssh/id_rsa"
  printf '# Calculator\nA small calculator.\n' >"$project/README.md"
  printf 'def add(a, b):\n    return a - b\n' >"$project/calc.py"
  printf '__pycache__/\n' >"$project/.gitignore"
  git -C "$project" init -q && git -C "$project" add -A &&
    git -C "$project" -c user.name=user -c user.email=user@example.invalid commit -qm start || fail "git init"
  case "$agent" in
    gemini-cli)
      mkdir -p "$home/.gemini"
      echo '{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}' \
        >"$home/.gemini/settings.json" ;;
    opencode)
      mkdir -p "$home/.config/opencode"
      cat >"$home/.config/opencode/opencode.json" <<JSON
{"provider": {"anthropic": {"options": {"baseURL": "http://127.0.0.1:$port/v1", "apiKey": "sk-ant-paddock-test"}}},
 "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"}, "share": "disabled",
 "autoupdate": false}
JSON
      ;;
  esac
  cat >"$d/creds.yaml" <<'YAML'
version: 1
environment:
  agent_credentials: true
  pass_through: [ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL, COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_TYPE,
                 COPILOT_MODEL, COPILOT_OFFLINE]
YAML
  chown -R "$uid:$uid" "$d"
}

# The agent's own command line for the task, with its own approval setting for a
# non-interactive run. Codex runs with its own defaults: its own sandbox (bubblewrap, which needs
# user namespaces that Paddock refuses) is turned off in its Paddock-owned state by its preset
# (docs/agents.md, "What Paddock sets in the agent's state"). Bare, with no such state, the same
# setting is given on the command line so that both runs do the same work.
agent_command() {
  local codex_sandbox=()
  [ "$mode" = paddock ] || codex_sandbox=(--sandbox danger-full-access)
  case "$agent" in
    claude-code) cmd=(claude -p "Do the task." --allowedTools Bash) ;;
    codex) cmd=(codex exec --skip-git-repo-check "${codex_sandbox[@]}" -c model_provider=paddock
                -c 'model_providers.paddock.name="paddock"' -c "model_providers.paddock.base_url=\"http://127.0.0.1:$port/v1\""
                -c 'model_providers.paddock.env_key="OPENAI_API_KEY"' -c 'model_providers.paddock.wire_api="responses"'
                -m gpt-5-codex "Do the task.") ;;
    gemini-cli) cmd=(gemini -p "Do the task." --yolo --skip-trust) ;;
    opencode) cmd=(opencode run -m anthropic/claude-sonnet-4-5 "Do the task.") ;;
    # Copilot's own model provider setting (BYOK, COPILOT_PROVIDER_*), offline: no GitHub login.
    copilot) cmd=(copilot -p "Do the task." --allow-all-tools) ;;
  esac
}

# One run in a new empty network namespace with the scripted model on its loopback.
run_task() {
  agent_command
  local rt="$runtime"; [ "$uid" = 0 ] || rt="$runtime_user"
  local env=(HOME="$home" PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb
             XDG_RUNTIME_DIR="$rt" XDG_STATE_HOME="$home/.local/state" XDG_CONFIG_HOME="$home/.config"
             ANTHROPIC_API_KEY=sk-ant-paddock-test OPENAI_API_KEY=sk-paddock-test GEMINI_API_KEY=paddock-test
             ANTHROPIC_BASE_URL="http://127.0.0.1:$port" GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port"
             COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$port" COPILOT_PROVIDER_TYPE=anthropic
             COPILOT_MODEL=claude-sonnet-4 COPILOT_OFFLINE=true)
  local launch=() prefix=(env -i)
  [ "$uid" = 0 ] || prefix=(setpriv --reuid="$uid" --regid="$uid" --clear-groups env -i)
  if [ "$mode" = paddock ]; then
    launch=("$paddock" run --agent "$agent" --project "$project" --policy "$d/creds.yaml" --host-port "$port"
            --timeout 300s --)
  else
    # Bare: the same agent, the same environment, no sandbox (the preset's own settings given
    # by hand where the agent needs them to keep its state in its home). What leaves the machine
    # is refused the way the broker refuses it under Paddock, with a 403 to the tunnel (the
    # scripted model answers CONNECT so), not a connection error that agents retry with backoff,
    # and no run waits for a name lookup the empty namespace cannot answer.
    env+=(HTTPS_PROXY=http://127.0.0.1:$port HTTP_PROXY=http://127.0.0.1:$port https_proxy=http://127.0.0.1:$port
          http_proxy=http://127.0.0.1:$port NO_PROXY=localhost,127.0.0.1,::1 no_proxy=localhost,127.0.0.1,::1)
    case "$agent" in
      claude-code) env+=(CLAUDE_CONFIG_DIR="$home/.claude" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1) ;;
      codex) env+=(CODEX_HOME="$home/.codex"); mkdir -p "$home/.codex"; chown "$uid:$uid" "$home/.codex" ;;
    esac
    launch=(timeout 300)
  fi
  rm -f "$d/record" "$d/requests"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$project" && unshare --net -- sh -c '
      ip link set lo up || exit 1
      /usr/bin/python3 "$1" "$2" "$3" "$4" "$5" >"$6" 2>&1 &
      for i in $(seq 100); do grep -q ready "$6" && break; sleep 0.05; done
      shift 6; server=$!; "$@"; rc=$?; kill "$server" 2>/dev/null; exit "$rc"' sh "$src/tests/agents/scripted_model.py" "$port" "$steps" "$d/record" "$d/requests" "$d/model.log" \
      "${prefix[@]}" "${env[@]}" "${launch[@]}" "${cmd[@]}" </dev/null >"$d/out" 2>&1)
  rc=$?
  t1=$(date +%s.%N)
  seconds=$(echo "$t1 - $t0" | bc)
}

# Writes each step's name and observed result to $d/name.N and $d/result.N (one python run): the
# command's output, without the wrapping some agents put around it (Codex: "Chunk ID: ...",
# "Output:"; Gemini CLI: a JSON "output" with "<untrusted_context>", "Output: ", "Process Group
# PGID: ..."; Copilot: "<shellId: ...>").
split_results() {
  python3 - "$steps" "$d/record" "$d" <<'PY'
import json, re, sys
steps, record, d = sys.argv[1:4]
for i, s in enumerate(json.load(open(steps))):
    open("%s/name.%d" % (d, i), "w").write(s["name"])
    open("%s/result.%d" % (d, i), "w").write("")
try:
    lines = open(record).read().splitlines()
except OSError:
    lines = []
for l in lines:
    r = json.loads(l)
    out = r["result"]
    try:
        j = json.loads(out)
        if isinstance(j, dict) and isinstance(j.get("output"), str): out = j["output"]
    except ValueError:
        pass
    out = out.replace("<untrusted_context>\n", "").replace("</untrusted_context>", "")
    if out.startswith("Chunk ID:") and "\nOutput:\n" in out: out = out.split("\nOutput:\n", 1)[1]
    if out.startswith("Output: "):
        out = out[len("Output: "):]
        for tail in ("\nError: ", "\nExit Code: ", "\nSignal: ", "\nBackground PIDs: ", "\nProcess Group PGID: "):
            if tail in out: out = out.split(tail, 1)[0]
    out = re.sub(r"\n?<shellId: [^>]*>\s*$", "\n", out)
    open("%s/result.%d" % (d, r["step"]), "w").write(out)
PY
}

check_task() {
  local n; n=$(wc -l <"$d/record" 2>/dev/null || echo 0)
  [ "$rc" = 0 ] || fail "the session exited $rc"
  [ "$n" = 10 ] || { fail "the model got $n of 10 step results"; sed -n 1,60p "$d/out"; tail -n 20 "$d/model.log"; }
  local i name r
  split_results
  for i in $(seq 0 9); do
    name="$(cat "$d/name.$i")"
    r="$(cat "$d/result.$i")"
    printf '   %2d %-22s %s\n' "$((i + 1))" "$name" "$(printf '%s' "$r" | tr '\n' ' ' | cut -c1-110)"
    case "$i" in
      0) case "$r" in *"# Calculator"*) ;; *) fail "step 1 did not list and read the project" ;; esac ;;
      1) [ "$(printf '%s' "$r" | tr -d '\r' | grep -v '^$')" = status-done ] || fail "step 2: git status inside is not clean: $r" ;;
      2) case "$r" in *"def add"*) ;; *) fail "step 3 did not read calc.py" ;; esac ;;
      3) case "$r" in *"return a + b"*) ;; *) fail "step 4 did not edit calc.py" ;; esac ;;
      4) case "$r" in *written*) ;; *) fail "step 5 did not write the test" ;; esac ;;
      5) case "$r" in *OK*) ;; *) fail "step 6: the tests did not pass" ;; esac ;;
      6) [ "$(printf '%s' "$r" | tr -d '\r' | grep -v '^$' | tr '\n' ' ')" = "calc.py test_calc.py " ] ||
           fail "step 7: the commit holds more or less than the agent's own changes: $r" ;;
      7) case "$r" in *PADDOCK-TEST-PRIVATE-KEY*|*"rc=0"*) fail "step 8: the ssh key was readable" ;; esac ;;
      8) case "$r" in *403*) ;; *) fail "step 9: the unlisted host was not refused by the broker: $r" ;; esac
         case "$r" in *"rc=0"*) fail "step 9: curl succeeded" ;; esac ;;
      9) case "$r" in *"calc.py:1:def add"*) ;; *) fail "step 10 did not find the function" ;; esac ;;
    esac
  done
  # The commit is the agent's, with exactly its own files; the tree after the session is clean.
  [ "$(host_git log -1 --name-only --format= | tr '\n' ' ')" = "calc.py test_calc.py " ] ||
    fail "the last commit's files: $(host_git log -1 --name-only --format= | tr '\n' ' ')"
  local status; status="$(host_git status --porcelain --untracked-files=all --ignored=no)"
  [ -z "$status" ] || fail "the host tree is not clean after the session: $status"
  for f in .npmrc .yarnrc.yml .vscode .idea .claude .devcontainer; do
    [ ! -e "$project/$f" ] || fail "$f is left in the project"
  done
  ! grep -q PADDOCK-TEST-PRIVATE-KEY "$d/requests" || fail "the ssh key reached the model server"
  local events; events="$(ls -td "$home/.local/state/paddock/sessions"/*/ | head -n 1)events.jsonl"
  grep '"event":"net_request"' "$events" | grep '"host":"unlisted.paddock.test"' | grep -q '"decision":"deny"' ||
    fail "the session record does not name the refused host"
  grep -q '"protocol":"host_port"' "$events" || fail "the model's connections are not in the session record"
}

for uid in $uids; do
  for agent in "${agents[@]}"; do
    make_user
    run_task
    if [ "$mode" = bare ]; then
      n=$(wc -l <"$d/record" 2>/dev/null || echo 0)
      echo "$agent uid$uid bare $seconds s, $n/10 steps, exit $rc"
      continue
    fi
    echo "== $agent (uid $uid): $seconds s, exit $rc"
    before=$failures
    check_task
    [ $failures -ne $before ] || echo "   ok"
  done
done
[ "$mode" = bare ] && exit 0
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "every agent (${agents[*]}) completed the task as uid $(echo $uids | sed "s/ / and /")"
