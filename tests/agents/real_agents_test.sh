#!/usr/bin/env bash
# The five real agent CLIs from npm (scripts/test-agents caches them outside the clone), each on
# a fresh HOME that is not under /tmp (the sandbox's private /tmp would make such a home
# writable and hide failures), under its own preset and the default profile, every run inside
# an empty network namespace: nothing here can reach a real host. For each: --version and --help
# work, and a non-interactive prompt reaches the broker and is refused there (a 403 for a model
# host the policy does not list, set with the agent's own base-URL setting where it has one)
# rather than crashing on a read-only or missing directory; what the first session wrote in the
# agent's state directories is there for the second.
# Usage: real_agents_test.sh PADDOCK_BIN SOURCE_DIR WORK_DIR. Exit 77 = skipped (npm unreachable).
set -uo pipefail
paddock="$1" src="$2" work_root="$3"
cache_line="$("$src/scripts/test-agents" | tail -n 1)"
case "$cache_line" in
  skip:*) echo "SKIP real agents: ${cache_line#skip: }"; exit 77 ;;
esac
bin="$cache_line/node_modules/.bin"
mkdir -p "$work_root"
work="$(mktemp -d "$work_root/real-agents.XXXXXX")"
case "$work" in /tmp/*) echo "work dir $work is under /tmp"; exit 1 ;; esac
# The runtime dir holds the control sockets, whose paths must fit in sun_path: a short one.
runtime="$(mktemp -d /tmp/paddock-rt.XXXXXX)"
trap 'rm -rf "$work" "$runtime"' EXIT
failures=0
fail() { echo "FAIL [$agent]: $*"; failures=$((failures + 1)); }

# Runs paddock in a fresh network namespace with only loopback up, with a clean environment.
in_empty_netns() {
  unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh env -i \
    HOME="$home" PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb \
    XDG_RUNTIME_DIR="$runtime" XDG_STATE_HOME="$home/.local/state" XDG_CONFIG_HOME="$home/.config" \
    "${extra_env[@]}" "$paddock" "$@"
}

# No crash of the kind the presets exist to prevent.
no_setup_crash() {
  if grep -qE 'EROFS|Read-only file system|ENOENT|No such file or directory|EACCES|Permission denied|Segmentation fault' "$1"; then
    fail "$2: setup failure in the output:"; sed -n 1,40p "$1"
  fi
}

latest_events() { ls -d "$home/.local/state/paddock/sessions"/*/ 2>/dev/null | sort | tail -n 1 | sed 's|/$|/events.jsonl|'; }

check_agent() {
  agent="$1" cmd="$2" version_re="$3" state="$4"; shift 4
  local prompt=("$@")
  home="$work/$agent/home"; local project="$work/$agent/project"
  mkdir -p "$home" "$project"
  local failed_before=$failures
  cd "$project" || return
  echo "== $agent"
  local out="$work/$agent/out"
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

  # The prompt, with a fake key under the user's opt-in and the model host pointed at a name
  # the policy does not list.
  cat >"$work/$agent/creds.yaml" <<'YAML'
version: 1
environment:
  agent_credentials: true
  pass_through: [ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL]
YAML
  extra_env=(ANTHROPIC_API_KEY=sk-ant-paddock-test OPENAI_API_KEY=sk-paddock-test GEMINI_API_KEY=paddock-test
             COPILOT_GITHUB_TOKEN=github_pat_paddock_test ANTHROPIC_BASE_URL=https://model.paddock.test
             OPENAI_BASE_URL=https://model.paddock.test/v1 GOOGLE_GEMINI_BASE_URL=https://model.paddock.test)
  for session in 1 2; do
    in_empty_netns run --agent "$agent" --project "$project" --policy "$work/$agent/creds.yaml" --timeout 150s -- \
      "$cmd" "${prompt[@]}" </dev/null >"$out" 2>&1
    rc=$?
    [ $rc -ne 124 ] || fail "session $session: the prompt hung until the wall-time limit"
    [ $rc -lt 128 ] || { fail "session $session: killed by signal $((rc - 128))"; sed -n 1,40p "$out"; }
    no_setup_crash "$out" "session $session"
    local events; events="$(latest_events)"
    grep -q '"event":"net_request"' "$events" 2>/dev/null || { fail "session $session: nothing reached the broker"; sed -n 1,40p "$out"; }
    if [ "$agent" != copilot ] && [ "$agent" != opencode ]; then
      grep '"event":"net_request"' "$events" | grep '"host":"model.paddock.test"' | grep -q '"decision":"deny' ||
        { fail "session $session: the model request was not refused by the broker"; grep net_request "$events"; sed -n 1,40p "$out"; }
    fi
    if [ "$session" = 1 ]; then
      [ -n "$(find "$home/$state" -type f 2>/dev/null | head -n 1)" ] || fail "nothing kept in ~/$state after a session"
      find "$home/$state" -type f | sort >"$work/$agent/state1"
    else
      # What the first session wrote is still there for the second.
      while read -r f; do [ -e "$f" ] || fail "~/$state lost ${f#"$home"/} between sessions"; done <"$work/$agent/state1"
    fi
  done
  [ $failures -ne $failed_before ] || echo "   ok"
}

check_agent claude-code claude '[0-9]+\.[0-9]+\.[0-9]+' .claude -p "say hi"
check_agent codex codex 'codex-cli [0-9]+\.' .codex exec --skip-git-repo-check "say hi"
check_agent gemini-cli gemini '^[0-9]+\.[0-9]+\.[0-9]+' .gemini -p "say hi"
check_agent opencode opencode '^[0-9]+\.[0-9]+\.[0-9]+' .local/share/opencode run "say hi"
check_agent copilot copilot '[0-9]+\.[0-9]+\.[0-9]+' .copilot -p "say hi" --allow-all-tools

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all five agents started, kept their state and were refused at the broker"
