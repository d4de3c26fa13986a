#!/usr/bin/env bash
# The Kubernetes manifests `paddock plan --backend kubernetes --bundle` writes, validated offline
# against the Kubernetes API's schema (the npm package kubernetes-models, pinned, cached outside
# the clone like the test agents), and the validator shown to refuse a broken manifest, so that a
# pass means something; with a filtered network, the broker's Deployment and Service validate too
# and the broker's command, as the manifests give it, is run here and lets through exactly the
# allowlist. Usage: kubernetes_manifests_test.sh PADDOCK_BIN SOURCE_DIR BROKER_BIN.
# Exit 77 = skipped (npm or its registry unreachable).
set -uo pipefail
paddock="$1" src="$2" broker="$3"
version=5.1.0
if [ "$(id -u)" = 0 ]; then cache=/var/cache/paddock-test-k8s-schema; else cache="${XDG_CACHE_HOME:-$HOME/.cache}/paddock-test-k8s-schema"; fi
if [ ! -f "$cache/node_modules/kubernetes-models/package.json" ]; then
  command -v npm >/dev/null || { echo "SKIP: npm is not installed"; exit 77; }
  mkdir -p "$cache"
  timeout 300 npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "kubernetes-models@$version" >&2 \
    || { echo "SKIP: npm install kubernetes-models@$version failed"; exit 77; }
fi
cp "$src/tests/backends/kubernetes/validate_manifests.mjs" "$cache/"
work="$(mktemp -d /var/tmp/paddock-k8s.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj/src" "$work/proj/.git/hooks" "$work/home"
echo 'SECRET' > "$work/proj/.env"
fail() { echo "FAIL: $*"; exit 1; }
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state"

"$paddock" plan --project "$work/proj" --backend kubernetes --bundle "$work/bundle" --image registry.example/agent:1 \
  --project-claim proj-claim --uid 1234 -- sh -c 'echo hi' >"$work/plan.out" 2>"$work/plan.err" \
  || fail "plan --bundle exited $? ($(cat "$work/plan.err"))"
[ -f "$work/bundle/manifests.json" ] || fail "no manifests.json"
[ "$(stat -c %a "$work/bundle/manifests.json")" = 600 ] || fail "manifests.json is not 0600"
ls "$work"/bundle/seccomp/paddock/*.json >/dev/null 2>&1 || fail "no seccomp profile"
(cd "$cache" && node validate_manifests.mjs "$work/bundle/manifests.json") >"$work/valid.out" 2>&1 \
  || fail "the manifests do not validate: $(cat "$work/valid.out")"
cat "$work/valid.out"
for kind in ConfigMap NetworkPolicy Pod; do grep -q "^$kind/.*: valid$" "$work/valid.out" || fail "no valid $kind"; done
# The same plan with one type broken must be refused by the validator.
python3 - "$work/bundle/manifests.json" "$work/broken.json" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
l["items"][-1]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] = "yes"
json.dump(l, open(sys.argv[2], "w"))
PY
if (cd "$cache" && node validate_manifests.mjs "$work/broken.json") >"$work/broken.out" 2>&1; then
  fail "the validator accepted a broken Pod: $(cat "$work/broken.out")"
fi
grep -q "readOnlyRootFilesystem must be boolean" "$work/broken.out" || fail "unexpected validator output: $(cat "$work/broken.out")"
# A seccomp profile of the runtime spec's shape, the one the Pod names.
python3 - "$work/bundle" <<'PY' || fail "seccomp profile or Pod reference wrong"
import json, sys, glob, os
b = sys.argv[1]
pod = json.load(open(b + "/manifests.json"))["items"][-1]
ref = pod["spec"]["securityContext"]["seccompProfile"]["localhostProfile"]
prof = json.load(open(os.path.join(b, "seccomp", ref)))
assert prof["defaultAction"] == "SCMP_ACT_ALLOW" and len(prof["syscalls"]) > 100, prof.keys()
assert pod["spec"]["securityContext"]["runAsUser"] == 1234
assert pod["spec"]["containers"][0]["image"] == "registry.example/agent:1"
PY

# A filtered network: the broker as a Deployment and Service of its own.
"$paddock" plan --project "$work/proj" --backend kubernetes --net allowlist --allow-domain pkg.example.org \
  --bundle "$work/filtered" --image registry.example/agent:1 -- sh -c 'echo hi' >"$work/plan.out" 2>"$work/plan.err" \
  && fail "a filtered network without --broker-image was written"
grep -q -- "--broker-image" "$work/plan.err" || fail "no word of --broker-image: $(cat "$work/plan.err")"
"$paddock" plan --project "$work/proj" --backend kubernetes --net allowlist --allow-domain pkg.example.org \
  --bundle "$work/filtered" --image registry.example/agent:1 --broker-image registry.example/paddock-broker:1 \
  -- sh -c 'echo hi' >"$work/plan.out" 2>"$work/plan.err" || fail "plan --bundle (filtered) exited $? ($(cat "$work/plan.err"))"
(cd "$cache" && node validate_manifests.mjs "$work/filtered/manifests.json") >"$work/valid.out" 2>&1 \
  || fail "the filtered manifests do not validate: $(cat "$work/valid.out")"
cat "$work/valid.out"
for kind in ConfigMap NetworkPolicy Service Deployment Pod; do grep -q "^$kind/.*: valid$" "$work/valid.out" || fail "no valid $kind"; done
# The broker's command from the Deployment, run in a network namespace of its own with names
# answered from a table (the test seams): the allowlisted name reaches a server there, another
# name gets the broker's refusal.
python3 - "$work/filtered/manifests.json" >"$work/broker.args" <<'PY' || fail "no broker command in the Deployment"
import json, sys
for i in json.load(open(sys.argv[1]))["items"]:
    if i["kind"] == "Deployment":
        cmd = i["spec"]["template"]["spec"]["containers"][0]["command"]
        assert cmd[0] == "paddock-broker", cmd
        print("\n".join(cmd[1:]))
PY
mkdir -p "$work/www" && echo "through the broker" >"$work/www/hello.txt"
chmod -R a+rX "$work"
mapfile -t args <"$work/broker.args"
unshare -rn bash -s -- "$broker" "$work" "${args[@]}" >"$work/broker.out" 2>&1 <<'SH'
set -u
broker="$1" work="$2"; shift 2
ip link set lo up
python3 -m http.server --bind 127.0.0.1 8080 --directory "$work/www" >/dev/null 2>&1 &
"$broker" "$@" --resolve pkg.example.org:127.0.0.1 --resolve other.example.org:127.0.0.1 \
  --unsafe-allow-loopback-targets >"$work/events.out" 2>/dev/null &
for _ in $(seq 100); do grep -q "^listening on 0.0.0.0:3128" "$work/events.out" && break; sleep 0.1; done
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && break; sleep 0.1; done
echo "allowed: $(curl -s -m 10 -p -x http://127.0.0.1:3128 http://pkg.example.org:8080/hello.txt)"
echo "other: $(curl -s -m 10 -o /dev/null -w '%{http_connect}' -p -x http://127.0.0.1:3128 http://other.example.org:8080/hello.txt)"
kill %1 %2
SH
grep -q "^allowed: through the broker$" "$work/broker.out" || fail "the allowlisted name did not get through: $(cat "$work/broker.out")"
grep -q "^other: 403$" "$work/broker.out" || fail "another name was not refused: $(cat "$work/broker.out")"
echo "PASS"
