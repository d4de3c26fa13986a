#!/usr/bin/env bash
# The Kubernetes manifests `paddock plan --backend kubernetes --bundle` writes, validated offline
# against the Kubernetes API's schema (the npm package kubernetes-models, pinned, cached outside
# the clone like the test agents), and the validator shown to refuse a broken manifest, so that a
# pass means something. Usage: kubernetes_manifests_test.sh PADDOCK_BIN SOURCE_DIR.
# Exit 77 = skipped (npm or its registry unreachable).
set -uo pipefail
paddock="$1" src="$2"
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
echo "PASS"
