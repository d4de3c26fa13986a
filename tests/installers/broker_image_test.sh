#!/usr/bin/env bash
# installers/containers/broker.Containerfile builds, and the image runs the broker Deployment of
# `paddock plan --backend kubernetes` as the manifests give it: their command (which replaces
# the image's entrypoint, as Kubernetes does) and their security context (uid 65534, read-only
# root, no capability, no new privileges), in a network namespace of its own with names answered
# from a table (the broker's test seams): the allowlisted name reaches a server there, another
# gets the broker's 403. Nothing is pulled: the base image is imported from this machine's glibc,
# libstdc++ and libgcc, what paddock-broker needs. Runs as root (podman, a network namespace).
# Usage: broker_image_test.sh SOURCE_DIR PADDOCK_BIN BROKER_BIN.
set -uo pipefail
src="$1" paddock="$2" broker="$3"
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (podman and a network namespace of the test's own)"
command -v podman >/dev/null || fail "podman is not installed: scripts/bootstrap installs it"
runc=$(command -v runc) || fail "runc is not installed: scripts/bootstrap installs it"
work="$(mktemp -d /var/tmp/paddock-broker-image.XXXXXX)"
tag="$$-$(date +%s)"
base="localhost/paddock-test-broker-base:$tag" image="localhost/paddock-test-broker:$tag"
cleanup() { podman rmi -f "$image" "$base" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

# The base: the loader and the libraries paddock-broker links, as this machine has them.
mkdir -p "$work/root/lib64" "$work/root/tmp" "$work/context"
while read -r lib; do
  mkdir -p "$work/root$(dirname "$lib")" && cp -L "$lib" "$work/root$lib"
done < <(ldd "$broker" | grep -o '/[^ ]*' | sort -u)
tar -C "$work/root" -c . | podman import -q - "$base" >/dev/null || fail "podman import of the base failed"
cp "$broker" "$work/context/paddock-broker"
podman build -q -f "$src/installers/containers/broker.Containerfile" --build-arg "BASE=$base" -t "$image" \
  "$work/context" >"$work/build.out" 2>&1 || fail "podman build failed: $(cat "$work/build.out")"

mkdir -p "$work/proj" "$work/home" "$work/www"
echo "through the broker's image" >"$work/www/hello.txt"
HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" \
  "$paddock" plan --project "$work/proj" --backend kubernetes --net allowlist --allow-domain pkg.example.org \
  --bundle "$work/bundle" --image registry.example/agent:1 --broker-image "$image" -- true >"$work/plan.out" 2>&1 \
  || fail "plan --bundle exited $? ($(cat "$work/plan.out"))"
python3 - "$work/bundle/manifests.json" "$image" >"$work/broker.args" <<'PY' || fail "the Deployment is not what this test runs"
import json, sys
for i in json.load(open(sys.argv[1]))["items"]:
    if i["kind"] == "Deployment":
        spec = i["spec"]["template"]["spec"]
        c = spec["containers"][0]
        assert c["image"] == sys.argv[2], c["image"]
        assert spec["securityContext"]["runAsUser"] == 65534 and c["securityContext"]["readOnlyRootFilesystem"]
        assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
        print("\n".join(c["command"]))
PY
mapfile -t cmd <"$work/broker.args"

# runc: Debian 12's crun refuses this machine's hybrid cgroups (docs/backends.md). The limits are
# named because podman's defaults are above what a root without CAP_SYS_RESOURCE (a container
# host) may set.
unshare -n bash -s -- "$work" "$image" "$runc" "${cmd[@]}" >"$work/run.out" 2>&1 <<'SH'
set -u
work="$1" image="$2" runc="$3"; shift 3
ip link set lo up
python3 -m http.server --bind 127.0.0.1 8080 --directory "$work/www" >/dev/null 2>&1 &
podman --runtime "$runc" run --rm --network host --user 65534:65534 --read-only --cap-drop ALL \
  --security-opt no-new-privileges --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
  --entrypoint "$1" "$image" "${@:2}" \
  --resolve pkg.example.org:127.0.0.1 --resolve other.example.org:127.0.0.1 --unsafe-allow-loopback-targets \
  >"$work/events.out" 2>&1 &
for _ in $(seq 300); do grep -q "^listening on 0.0.0.0:3128" "$work/events.out" && break; sleep 0.1; done
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && break; sleep 0.1; done
echo "allowed: $(curl -s -m 10 -p -x http://127.0.0.1:3128 http://pkg.example.org:8080/hello.txt)"
echo "other: $(curl -s -m 10 -o /dev/null -w '%{http_connect}' -p -x http://127.0.0.1:3128 http://other.example.org:8080/hello.txt)"
kill %1 %2
wait
SH
grep -q "^allowed: through the broker's image$" "$work/run.out" \
  || fail "the allowlisted name did not get through: $(cat "$work/run.out" "$work/events.out")"
grep -q "^other: 403$" "$work/run.out" || fail "another name was not refused: $(cat "$work/run.out" "$work/events.out")"
echo "PASS"
