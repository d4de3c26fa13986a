#!/usr/bin/env bash
# The five real agent CLIs from npm (scripts/test-agents caches them outside the clone), each on
# a fresh HOME that is not under /tmp (the sandbox's private /tmp would make such a home
# writable and hide failures), under its own preset and the default profile, every run inside
# an empty network namespace: nothing here can reach a real host. For each: --version and --help
# work, and a non-interactive prompt reaches the broker and is refused there (a 403 for a model
# host the policy does not list, set with the agent's own base-URL setting where it has one)
# rather than crashing on a read-only or missing directory; what the first session wrote in the
# agent's own directories is kept in its Paddock-owned state and there for the second, and the
# user's own directory stays byte for byte as it was. All of it as root and again as uid 65534.
# Claude Code and Codex also run against a fake model API whose tool call probes the sandbox.
# Usage: real_agents_test.sh PADDOCK_BIN SOURCE_DIR WORK_DIR NO_USERNS (tests/helpers/linux). Exit 77 = skipped (npm unreachable).
set -uo pipefail
paddock="$1" src="$2" work_root="$3" no_userns="$4"
cache_line="$("$src/scripts/test-agents" | tail -n 1)"
case "$cache_line" in
  skip:*) echo "SKIP real agents: ${cache_line#skip: }"; exit 77 ;;
esac
bin="$cache_line/node_modules/.bin"
# A build tree under /tmp (a clone made there) cannot hold the fresh homes: /var/tmp can.
case "$work_root" in /tmp/*) work_root="/var/tmp/paddock-real-agents" ;; esac
mkdir -p "$work_root"
work="$(mktemp -d "$work_root/real-agents.XXXXXX")"
case "$work" in /tmp/*) echo "work dir $work is under /tmp"; exit 1 ;; esac
# The runtime dir holds the control sockets, whose paths must fit in sun_path: a short one.
runtime="$(mktemp -d /tmp/paddock-rt.XXXXXX)" runtime_user="$(mktemp -d /tmp/paddock-rt.XXXXXX)"
chown 65534:65534 "$runtime_user"
# uid 65534 runs the agents too: it must reach its homes under the work directory.
chmod 755 "$work"
trap 'rm -rf "$work" "$runtime" "$runtime_user"' EXIT
failures=0
fail() { echo "FAIL [$agent]: $*"; failures=$((failures + 1)); }

# Runs paddock in a fresh network namespace with only loopback up, with a clean environment, as
# root or (run_uid=65534) as an ordinary user with its own runtime directory.
run_uid=0
in_empty_netns() {
  local as=() rt="$runtime"
  if [ "$run_uid" != 0 ]; then as=(setpriv --reuid="$run_uid" --regid="$run_uid" --clear-groups); rt="$runtime_user"; fi
  unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh "${as[@]}" env -i \
    HOME="$home" PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb \
    XDG_RUNTIME_DIR="$rt" XDG_STATE_HOME="$home/.local/state" XDG_CONFIG_HOME="$home/.config" \
    "${extra_env[@]}" "$paddock" "$@"
}

# No crash of the kind the presets exist to prevent.
no_setup_crash() {
  if grep -qE 'EROFS|Read-only file system|ENOENT|No such file or directory|EACCES|Permission denied|Segmentation fault' "$1"; then
    fail "$2: setup failure in the output:"; sed -n 1,40p "$1"
  fi
}

# Session ids sort by second only: the newest directory by time.
latest_events() { ls -td "$home/.local/state/paddock/sessions"/*/ 2>/dev/null | head -n 1 | sed 's|/$|/events.jsonl|'; }

# Ends the prompt's session once its log shows what the check looks for (the refusal of the model
# host, or any request when the model host is listed), after a grace in which a crash would still
# show: agents retry a refused host with backoff (Codex waits for the network indefinitely), and
# waiting out each prompt's wall-time limit was most of this test's time. $1: the sessions
# listed before the prompt started; $2: the pattern; $3: the file saying the session was stopped.
stop_once_seen() {
  local before="$1" pattern="$2" stopped="$3" dir="" i
  for i in $(seq 1200); do
    if [ -z "$dir" ]; then
      dir="$(ls -td "$home/.local/state/paddock/sessions"/*/ 2>/dev/null | head -n 1)"
      case " $before " in *" $dir "*) dir="" ;; esac
    fi
    if [ -n "$dir" ]; then
      [ -e "$dir/report.json" ] && return 0
      if grep -qE "$pattern" "$dir/events.jsonl" 2>/dev/null; then
        sleep 3
        [ -e "$dir/report.json" ] && return 0
        # A stop that fails leaves the session to its wall-time limit and the checks as they were.
        in_empty_netns stop "$(basename "$dir")" >"$stopped.out" 2>&1 && mv "$stopped.out" "$stopped"
        return 0
      fi
    fi
    sleep 0.1
  done
}

check_agent() {
  agent="$1" cmd="$2" version_re="$3" state="$4" check_model="$5" prompt_timeout="$6"; shift 6
  local prompt=("$@") dir="$work/$agent"
  [ "$run_uid" = 0 ] || dir="$work/$agent-uid$run_uid"
  home="$dir/home"; local project="$dir/project"
  mkdir -p "$home" "$project"
  [ "$run_uid" = 0 ] || chown -R "$run_uid:$run_uid" "$dir"
  local failed_before=$failures
  cd "$project" || return
  echo "== $agent (uid $run_uid)"
  local out="$dir/out"
  extra_env=()
  in_empty_netns run --agent "$agent" --project "$project" --timeout 120s -- "$cmd" --version >"$out" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { fail "--version exited $rc"; sed -n 1,40p "$out"; }
  grep -qE "$version_re" "$out" || { fail "--version printed no version"; sed -n 1,20p "$out"; }
  no_setup_crash "$out" "--version"
  in_empty_netns run --agent "$agent" --project "$project" --timeout 120s -- "$cmd" --help >"$out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { fail "--help exited $rc"; sed -n 1,40p "$out"; }
  no_setup_crash "$out" "--help"

  # Gemini CLI asks which login to use unless settings name one (an API key here).
  if [ "$agent" = gemini-cli ]; then
    mkdir -p "$home/.gemini"; echo "$gemini_settings" >"$home/.gemini/settings.json"
    [ "$run_uid" = 0 ] || chown -R "$run_uid:$run_uid" "$home/.gemini"
  fi
  # The prompt, with a fake key under the user's opt-in and the model host pointed at a name
  # the policy does not list.
  cat >"$dir/creds.yaml" <<'YAML'
version: 1
environment:
  agent_credentials: true
  pass_through: [ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL]
YAML
  extra_env=(ANTHROPIC_API_KEY=sk-ant-paddock-test OPENAI_API_KEY=sk-paddock-test GEMINI_API_KEY=paddock-test
             COPILOT_GITHUB_TOKEN=github_pat_paddock_test ANTHROPIC_BASE_URL=https://model.paddock.test
             OPENAI_BASE_URL=https://model.paddock.test/v1 GOOGLE_GEMINI_BASE_URL=https://model.paddock.test)
  # The user's own ~/$state as the agent CLI outside Paddock would read it, before the sessions.
  local user_before; user_before="$(cd "$home" && find "$state" -printf '%y %m %p -> %l\n' | LC_ALL=C sort &&
    find "$state" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)"
  # Session 1: the prompt. Agents retry a refused model host with backoff (Codex waits for the
  # network indefinitely): the test stops the session a few seconds after the broker refused
  # (stop_once_seen), the wall-time limit ends it otherwise, and the run counts when the broker
  # refused the request and nothing crashed.
  local seen='"host":"model.paddock.test".*"decision":"deny|"decision":"deny.*"host":"model.paddock.test"'
  local stopped="$dir/stopped-by-test"
  [ "$check_model" = yes ] || seen='"event":"net_request"'
  rm -f "$stopped" "$stopped.out"
  stop_once_seen "$(ls -td "$home/.local/state/paddock/sessions"/*/ 2>/dev/null | tr '\n' ' ')" "$seen" "$stopped" &
  local watcher=$!
  in_empty_netns run --agent "$agent" --project "$project" --policy "$dir/creds.yaml" --timeout "$prompt_timeout" -- \
    "$cmd" "${prompt[@]}" </dev/null >"$out" 2>&1
  rc=$?
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
  no_setup_crash "$out" "prompt"
  local events; events="$(latest_events)"
  # Stopped by this test once the broker had refused: the report says stopped, and what the
  # agent's exit status says (SIGTERM) is not a crash.
  if [ -e "$stopped" ]; then
    grep -qE '"status": ?"stopped"' "${events%/events.jsonl}/report.json" ||
      fail "prompt: stopped by the test ($(cat "$stopped")), but the report does not say stopped: $(cat "${events%/events.jsonl}/report.json")"
    rc=0
  fi
  grep -q '"event":"net_request"' "$events" 2>/dev/null || { fail "prompt: nothing reached the broker"; sed -n 1,40p "$out"; }
  local refused=0
  grep '"event":"net_request"' "$events" | grep -q '"host":"model.paddock.test".*"decision":"deny\|"decision":"deny.*"host":"model.paddock.test"' && refused=1
  if [ "$check_model" = yes ] && [ $refused = 0 ]; then
    fail "prompt: the model request was not refused by the broker"; grep net_request "$events"; sed -n 1,40p "$out"
  fi
  if [ $rc -ge 128 ] && [ $rc -ne 124 ]; then fail "prompt: killed by signal $((rc - 128))"; sed -n 1,40p "$out"; fi
  if [ $rc -eq 124 ] && [ $refused = 0 ]; then fail "prompt: hung until the wall-time limit without a refusal"; fi
  echo "   hosts it asked for: $(grep -o '"host":"[^"]*"' "$events" | sort -u | sed 's/"host"://; s/"//g' | tr '\n' ' ')"
  # What the agent wrote in its directory is kept in its Paddock-owned state (docs/agents.md, "Its
  # own state"), never in the user's own ~/$state, which the agent CLI outside Paddock reads.
  local kept="$home/.local/share/paddock/agent-state/$agent/default/review"
  [ -n "$(find "$kept" -type f 2>/dev/null | head -n 1)" ] || fail "nothing kept in its Paddock state after a session"
  local user_after; user_after="$(cd "$home" && find "$state" -printf '%y %m %p -> %l\n' | LC_ALL=C sort &&
    find "$state" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)"
  [ "$user_before" = "$user_after" ] ||
    { fail "the session changed the user's own ~/$state:"; diff <(echo "$user_before") <(echo "$user_after") | head; }
  # Session 2 starts on what the first one kept (locks and temp files are the agent's to remove).
  find "$kept" -type f ! -name '*.lock' ! -path '*/tmp/*' | sort >"$dir/state1"
  in_empty_netns run --agent "$agent" --project "$project" --timeout 120s -- "$cmd" --help >"$out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { fail "second session exited $rc"; sed -n 1,40p "$out"; }
  no_setup_crash "$out" "second session"
  while read -r f; do [ -e "$f" ] || fail "its Paddock state lost ${f#"$kept"/} between sessions"; done <"$dir/state1"
  [ $failures -ne $failed_before ] || echo "   ok"
}

# Each agent's model host is pointed at model.paddock.test (not listed) with its own setting:
# ANTHROPIC_BASE_URL, a Codex provider, GOOGLE_GEMINI_BASE_URL. OpenCode and Copilot reach the
# broker for their listed hosts, which fail to resolve in the empty namespace.
# Every agent runs as root and as uid 65534 (users are not root).
# PADDOCK_REAL_AGENTS=fake runs only the fake-API check (when working on it).
gemini_settings='{"security":{"auth":{"selectedType":"gemini-api-key"}}}'
for run_uid in 0 65534; do
if [ "${PADDOCK_REAL_AGENTS:-all}" != fake ]; then
check_agent claude-code claude '[0-9]+\.[0-9]+\.[0-9]+' .claude yes 45s -p "say hi"
check_agent codex codex 'codex-cli [0-9]+\.' .codex yes 45s exec --skip-git-repo-check \
  -c model_provider=paddock -c 'model_providers.paddock.name="paddock"' \
  -c 'model_providers.paddock.base_url="https://model.paddock.test/v1"' -c 'model_providers.paddock.env_key="OPENAI_API_KEY"' \
  -c 'model_providers.paddock.wire_api="responses"' "say hi"
check_agent gemini-cli gemini '^[0-9]+\.[0-9]+\.[0-9]+' .gemini yes 60s --skip-trust -p "say hi"
check_agent opencode opencode '^[0-9]+\.[0-9]+\.[0-9]+' .local/share/opencode no 45s run "say hi"
check_agent copilot copilot '[0-9]+\.[0-9]+\.[0-9]+' .copilot no 45s -p "say hi" --allow-all-tools
fi
done
run_uid=0

# Claude Code and Codex against a fake model API (TLS on this namespace's loopback, a throwaway
# CA made now, reached through the broker's PADDOCK_DEBUG_RESOLVE seam, which taints the run):
# the model answers with a tool call that tries to read ~/.ssh/id_rsa and .env, write outside
# the project and reach an unlisted host. Each must be denied, and the agent's next turn must
# carry the denials back to the model. Claude Code speaks Anthropic's Messages API and trusts
# the CA through NODE_EXTRA_CA_CERTS; Codex speaks OpenAI's Responses API (a provider whose
# base_url is the fake host) and trusts it through CODEX_CA_CERTIFICATE. Codex runs with its own
# defaults (its own sandbox is off in its Paddock state), so every denial seen is Paddock's; its model is named
# (gpt-5-codex), because the default one is offered a JavaScript tool that calls the shell tool
# rather than the shell tool itself.
#
# With a second argument "landlock" the same check runs in the landlock tier (no namespace: the
# helper hands each connect(2) of the agent to the broker), with the agent's state shared, as
# that tier requires (docs/capabilities.md).
fake_api_check() {
  agent="$1"; local tier="${2:-namespaces}" d="$work/fake-$1-${2:-namespaces}"; home="$d/home"
  local project="$d/project" ca="$d/ca" tier_args=() launcher=()
  mkdir -p "$home/.ssh" "$project" "$ca"
  local failed_before=$failures
  echo "== $agent against a fake model API ($tier tier)"
  echo "PADDOCK-TEST-PRIVATE-KEY" >"$home/.ssh/id_rsa"
  echo "PADDOCK_TEST_SECRET=PADDOCK-TEST-DOTENV" >"$project/.env"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" -out "$ca/ca.pem" -days 2 -subj "/CN=Paddock test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null &&
  openssl req -newkey rsa:2048 -nodes -keyout "$d/srv.key" -out "$d/srv.csr" -subj "/CN=model.paddock.test" 2>/dev/null &&
  printf 'subjectAltName=DNS:model.paddock.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$d/ext" &&
  openssl x509 -req -in "$d/srv.csr" -CA "$ca/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -out "$d/srv.pem" -days 2 \
    -extfile "$d/ext" 2>/dev/null || { fail "openssl could not make the test certificates"; return; }
  cat >"$d/creds.yaml" <<'YAML'
version: 1
environment:
  agent_credentials: true
  pass_through: [ANTHROPIC_BASE_URL, NODE_EXTRA_CA_CERTS, CODEX_CA_CERTIFICATE]
YAML
  if [ "$tier" = landlock ]; then
    printf 'filesystem:\n  agent_state: shared\n' >>"$d/creds.yaml"
    tier_args=(--tier landlock)
    # Where people choose the tier, user namespaces are refused (a container's seccomp profile):
    # so here too.
    launcher=("$no_userns")
  fi
  local probe='cat ~/.ssh/id_rsa; echo "ssh:$?"; cat .env; echo "env:$?"; echo x > "$HOME/outside-home"; echo "home:$?"; echo x > '"$d"'/outside-project; echo "outside:$?"; curl -sS --max-time 20 https://unlisted.paddock.test/; echo "curl:$?"'
  local seam=PADDOCK_DEBUG_RESOLVE=model.paddock.test=127.0.0.1,unlisted.paddock.test=127.0.0.1 agent_cmd
  case "$agent" in
    claude-code)
      extra_env=(ANTHROPIC_API_KEY=sk-ant-paddock-test ANTHROPIC_BASE_URL=https://model.paddock.test:8443
                 NODE_EXTRA_CA_CERTS="$ca/ca.pem" "$seam")
      agent_cmd=(claude -p "probe the sandbox" --allowedTools Bash) ;;
    codex)
      extra_env=(OPENAI_API_KEY=sk-paddock-test CODEX_CA_CERTIFICATE="$ca/ca.pem" "$seam")
      agent_cmd=(codex exec --skip-git-repo-check -c model_provider=paddock
                 -c 'model_providers.paddock.name="paddock"' -c 'model_providers.paddock.wire_api="responses"'
                 -c 'model_providers.paddock.base_url="https://model.paddock.test:8443/v1"'
                 -c 'model_providers.paddock.env_key="OPENAI_API_KEY"' -m gpt-5-codex "probe the sandbox") ;;
  esac
  cd "$project" || return
  local out="$d/out"
  unshare --net -- sh -c 'ip link set lo up && { python3 "$0" 8443 "$1" "$2" "$3" "$4" >"$5" 2>&1 & } &&
      for i in $(seq 50); do grep -q ready "$5" && break; sleep 0.1; done; shift 6; server=$!; "$@"; rc=$?; kill "$server" 2>/dev/null; exit "$rc"' \
    "$src/tests/agents/fake_model_api.py" "$d/srv.pem" "$d/srv.key" "$d/record" "$probe" "$d/api.log" -- \
    env -i HOME="$home" PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb XDG_RUNTIME_DIR="$runtime" \
    XDG_STATE_HOME="$home/.local/state" XDG_CONFIG_HOME="$home/.config" "${extra_env[@]}" \
    "${launcher[@]}" "$paddock" run "${tier_args[@]}" --allow-tainted --agent "$agent" --project "$project" --policy "$d/creds.yaml" \
    --allow-read "$ca" --allow-domain model.paddock.test --timeout 120s -- "${agent_cmd[@]}" \
    </dev/null >"$out" 2>&1
  local rc=$?
  [ -s "$d/record" ] || { fail "the agent never sent the tool's result back (exit $rc)"; sed -n 1,40p "$out"; cat "$d/api.log"; return; }
  local r; r="$(cat "$d/record")"
  case "$r" in *PADDOCK-TEST-PRIVATE-KEY*) fail "~/.ssh/id_rsa was readable" ;; esac
  case "$r" in *PADDOCK-TEST-DOTENV*) fail ".env was readable" ;; esac
  case "$r" in *"ssh:0"*) fail "cat ~/.ssh/id_rsa succeeded" ;; esac
  # (.env is masked by an empty file: cat succeeds and prints nothing of it.)
  case "$r" in *"home:0"*) fail "writing to the home directory succeeded" ;; esac
  case "$r" in *"outside:0"*) fail "writing outside the project succeeded" ;; esac
  case "$r" in *"curl:0"*) fail "the unlisted host was reached" ;; esac
  # Every probe ran: its status is in what the model got.
  for probe_name in ssh env home outside curl; do
    case "$r" in *"$probe_name:"*) ;; *) fail "the tool result has no status for the $probe_name probe: $r" ;; esac
  done
  case "$r" in *"403"*|*"Blocked by the Paddock"*) ;; *) fail "the agent's next turn does not carry the broker's refusal: $r" ;; esac
  [ ! -e "$home/outside-home" ] && [ ! -e "$d/outside-project" ] || fail "a file outside the project was written"
  grep '"event":"net_request"' "$(latest_events)" | grep -q '"host":"unlisted.paddock.test".*"decision":"deny\|"decision":"deny.*"host":"unlisted.paddock.test"' ||
    fail "the broker did not refuse unlisted.paddock.test"
  echo "   the tool result the model got: $r"
  [ $failures -ne $failed_before ] || echo "   ok: every probe was denied and the model saw the denials"
}
fake_api_check claude-code
fake_api_check codex
fake_api_check claude-code landlock

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all five agents started, reached the broker and kept their state, as root and as uid 65534"
