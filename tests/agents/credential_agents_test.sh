#!/usr/bin/env bash
# Real agent CLIs with brokered credentials (docs/credentials.md): Claude Code with an Anthropic
# API key and with a long-lived OAuth token, Codex with an OpenAI API key, each stored on the host
# with `paddock credentials add` and each completing a prompt (a tool call and the answer after
# it) against fake_model_api.py in its vendor's shape, through the credential broker, as root and
# as uid 65534. The model API gets the real key in the header its vendor uses; the agent's
# environment holds only the placeholder; nothing under the agent's home, the project or the
# session's records holds the key. Everything runs in an empty network namespace (the model API
# listens on its loopback; the PADDOCK_DEBUG_UPSTREAM seams point the real hosts at it and add a
# throwaway CA, so each run is tainted), on a fresh HOME that is not under /tmp.
# Usage: credential_agents_test.sh PADDOCK_BIN SOURCE_DIR WORK_DIR. Exit 77 = skipped (npm unreachable).
set -uo pipefail
paddock="$1" src="$2" work_root="$3"
cache_line="$("$src/scripts/test-agents" | tail -n 1)"
case "$cache_line" in
  skip:*) echo "SKIP credential agents: ${cache_line#skip: }"; exit 77 ;;
esac
bin="$cache_line/node_modules/.bin"
case "$work_root" in /tmp/*) work_root="/var/tmp/paddock-credential-agents" ;; esac
mkdir -p "$work_root"
work="$(mktemp -d "$work_root/credential-agents.XXXXXX")"
case "$work" in /tmp/*) echo "work dir $work is under /tmp"; exit 1 ;; esac
chmod 755 "$work"
runtimes=()
trap 'rm -rf "$work" "${runtimes[@]}"' EXIT
failures=0
fail() { echo "FAIL [$label]: $*"; failures=$((failures + 1)); }

# One CA for every run: the model API answers for both vendors' hosts.
ca="$work/ca"
mkdir -p "$ca"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$ca/ca.pem" -days 2 -subj "/CN=Paddock test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null &&
openssl req -newkey rsa:2048 -nodes -keyout "$work/srv.key" -out "$work/srv.csr" -subj "/CN=api.anthropic.com" 2>/dev/null &&
printf 'subjectAltName=DNS:api.anthropic.com,DNS:api.openai.com\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$work/ext" &&
openssl x509 -req -in "$work/srv.csr" -CA "$ca/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -out "$work/srv.pem" -days 2 \
  -extfile "$work/ext" 2>/dev/null || { echo "openssl could not make the test certificates"; exit 1; }
chmod 644 "$ca/ca.pem" "$work/srv.pem" "$work/srv.key"

# run_case LABEL UID AGENT CREDENTIAL KEY HEADER_FIELD HEADER_VALUE -- COMMAND...
run_case() {
  label="$1"; local uid="$2" agent="$3" cred="$4" key="$5" field="$6" expect="$7"; shift 8
  # The control socket's path must fit in sun_path: the runtime dir is a short one under /tmp.
  local d="$work/$label-uid$uid"; local home="$d/home" project="$d/project" rt
  rt="$(mktemp -d /tmp/paddock-rt.XXXXXX)"
  runtimes+=("$rt")
  mkdir -p "$home" "$project"
  local as=() failed_before=$failures
  [ "$uid" = 0 ] || { as=(setpriv --reuid="$uid" --regid="$uid" --clear-groups); chown -R "$uid:$uid" "$d" "$rt"; }
  echo "== $label (uid $uid)"
  local envs=(HOME="$home" PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TERM=dumb XDG_RUNTIME_DIR="$rt"
              XDG_STATE_HOME="$home/.local/state" XDG_CONFIG_HOME="$home/.config")
  # Stored on the host, as a user would: the key on standard input (no secret service on this
  # bus, so the 0600 file).
  printf '%s\n' "$key" | "${as[@]}" env -i "${envs[@]}" "$paddock" credentials add "$cred" >"$d/store.out" 2>&1 ||
    { fail "credentials add: $(cat "$d/store.out")"; return; }
  cd "$project" || return
  # The tool prints the agent's whole environment into what goes back to the model.
  local probe='echo tool-ran; env'
  unshare --net -- sh -c 'ip link set lo up && { FAKE_MODEL_API_HEADERS="$6" python3 "$0" 8443 "$1" "$2" "$3" "$4" >"$5" 2>&1 & } &&
      for i in $(seq 50); do grep -q ready "$5" && break; sleep 0.1; done; shift 7; server=$!; "$@"; rc=$?; kill "$server" 2>/dev/null; exit "$rc"' \
    "$src/tests/agents/fake_model_api.py" "$work/srv.pem" "$work/srv.key" "$d/record" "$probe" "$d/api.log" "$d/headers" -- \
    "${as[@]}" env -i "${envs[@]}" PADDOCK_DEBUG_UPSTREAM=api.anthropic.com=127.0.0.1:8443,api.openai.com=127.0.0.1:8443 \
    PADDOCK_DEBUG_UPSTREAM_CA="$ca/ca.pem" \
    "$paddock" run --allow-tainted --agent "$agent" --project "$project" --allow-read "$cache_line" --timeout 150s -- "$@" \
    </dev/null >"$d/out" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || fail "the agent exited $rc: $(sed -n 1,30p "$d/out")"
  [ -s "$d/record" ] || { fail "the agent never sent the tool's result back: $(sed -n 1,30p "$d/out"; cat "$d/api.log")"; return; }
  local r; r="$(cat "$d/record")"
  case "$r" in *tool-ran*) ;; *) fail "the tool did not run: $r" ;; esac
  # (Claude Code takes CLAUDE_CODE_OAUTH_TOKEN out of its tools' environment: its placeholder is
  # not there to see; the API key's is.)
  case "$label" in claude-oauth-token) ;; *)
    case "$r" in *paddock-placeholder-*) ;; *) fail "the agent's environment holds no placeholder: $r" ;; esac ;;
  esac
  grep -q '"decision":"allow"' "$home/.local/state/paddock/sessions"/*/events.jsonl 2>/dev/null ||
    fail "no credential_request was allowed"
  # The model API got the real key in its vendor's header, on every request, and never the placeholder.
  local seen; seen="$(cat "$d/headers" 2>/dev/null)"
  [ -n "$seen" ] || fail "the model API saw no request"
  python3 - "$d/headers" "$field" "$expect" <<'PY' || fail "the model API's credential headers are wrong: $seen"
import json, sys
path, field, expect = sys.argv[1:]
rows = [json.loads(l) for l in open(path)]
assert rows and all(r[field] == expect for r in rows if r["path"].startswith("/v1/")), rows
assert not any("paddock-placeholder" in json.dumps(r) for r in rows), rows
PY
  # The tool's view of the environment, as the model got it: the placeholder, never the key.
  case "$r" in *"$key"*) fail "the key is in the agent's environment" ;; esac
  # Nothing the agent or the session wrote holds it (the store's own file is in Paddock's
  # directory, outside the sandbox's view: every session masks it).
  local found; found="$(grep -rlaF -- "$key" "$home" "$project" 2>/dev/null | grep -v '/.config/paddock/credentials.secret.json$')"
  [ -z "$found" ] || fail "the key is in $found"
  [ $failures -ne $failed_before ] || echo "   ok: the model API got the key in $field; the agent had only the placeholder"
}

for uid in 0 65534; do
  run_case claude-api-key "$uid" claude-code anthropic-api-key sk-ant-api03-PADDOCK-TEST-REAL-KEY-0123 x-api-key \
    sk-ant-api03-PADDOCK-TEST-REAL-KEY-0123 -- claude -p "probe the sandbox" --allowedTools Bash
  run_case claude-oauth-token "$uid" claude-code claude-code-oauth-token sk-ant-oat01-PADDOCK-TEST-REAL-TOKEN-4567 authorization \
    "Bearer sk-ant-oat01-PADDOCK-TEST-REAL-TOKEN-4567" -- claude -p "probe the sandbox" --allowedTools Bash
  # Codex takes the built-in provider's base URL from its config (openai_base_url), not from a
  # variable: the preset's OPENAI_BASE_URL is handed to it with -c (docs/agents.md).
  run_case codex-api-key "$uid" codex openai-api-key sk-proj-PADDOCK-TEST-REAL-KEY-89ab authorization \
    "Bearer sk-proj-PADDOCK-TEST-REAL-KEY-89ab" -- sh -c 'exec codex exec --skip-git-repo-check --sandbox danger-full-access -c openai_base_url="$OPENAI_BASE_URL" -m gpt-5-codex "probe the sandbox"'
done

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "Claude Code (API key, OAuth token) and Codex (API key) worked through the credential broker, as root and as uid 65534"
