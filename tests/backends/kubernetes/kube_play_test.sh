#!/usr/bin/env bash
# The Kubernetes manifests `paddock plan --backend kubernetes --bundle` writes, run with `podman
# kube play` (Debian 13's podman 5, scripts/podman5: in an empty network namespace of its own, on
# an image imported from that Debian root's own files, nothing pulled): the agent's Pod and, with a
# filtered network, the broker's Deployment. Inside the Pod, as an attacker would: the masked
# .env reads empty, the protected .git/hooks cannot be written, the root filesystem neither, the
# project can; uid 1234 with no capabilities and no new privileges; the plan's seccomp profile is
# the one applied (ptrace, which podman's default profile allows, is refused); the allowlisted
# name reaches a server through the broker and another gets 403.
#
# What podman does not do as a cluster would, and this test therefore adds to the manifests it
# is given (each named where it is done): the Service's address variable (podman gives a Pod no
# service links, so the variable is set to the broker Pod's name, which podman's DNS answers),
# the seccomp profile's annotation (podman 5.4 reads the profile from the annotation, not from
# securityContext.seccompProfile), and the test's upstream beside the broker with the broker's
# name-table seam. NetworkPolicy is ignored by podman: that the agent's Pod reaches nothing but
# the broker is for a cluster's network plugin to confirm (docs/backends.md).
# Usage: kube_play_test.sh PADDOCK_BIN SOURCE_DIR BROKER_BIN. Exit 77 = skipped (not root: chroot
# and namespaces; or no Debian mirror for the trixie root).
set -uo pipefail
paddock="$1" src="$2" broker="$3"
[ "$(id -u)" = 0 ] || { echo "SKIP: podman kube play needs root here (scripts/podman5)"; exit 77; }
work="$(mktemp -d /var/tmp/paddock-kube-play.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
project="$work/proj"
mkdir -p "$project/src" "$project/.git/hooks" "$work/home" "$work/image/usr/local/bin"
echo 'SECRET=kube-play' >"$project/.env"
echo '#!/bin/sh' >"$project/.git/hooks/pre-commit"
echo 'print("hello")' >"$project/src/main.py"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state"
cp "$broker" "$work/image/usr/local/bin/paddock-broker"

# The agent's command: what it can and cannot do, a line each.
probe='P='"$project"'
echo "uid $(id -u)"
echo "env-bytes $(cat "$P/.env" 2>/dev/null | wc -c)"
touch "$P/.git/hooks/planted" 2>/dev/null && echo "hooks writable" || echo "hooks read-only"
touch /planted 2>/dev/null && echo "root writable" || echo "root read-only"
echo made >"$P/src/new.txt" && echo "project writable"
grep -E "^(CapEff|NoNewPrivs)" /proc/self/status | tr -s "\t" " "
perl -e "print \"ptrace \", syscall(101, 0, 0, 0, 0), \"\\n\""  # 101: ptrace(PTRACE_TRACEME) on x86-64
for i in $(seq 50); do curl -s -m 2 -o /dev/null -p -x "$HTTPS_PROXY" http://pkg.example.org:8080/ && break; sleep 0.2; done
echo "allowed: $(curl -sS -m 10 -p -x "$HTTPS_PROXY" http://pkg.example.org:8080/)"
echo "other: $(curl -s -m 10 -o /dev/null -w "%{http_connect}" -p -x "$HTTPS_PROXY" http://other.example.org:8080/)"'

"$paddock" plan --project "$project" --backend kubernetes --net allowlist --allow-domain pkg.example.org \
  --bundle "$work/bundle" --image localhost/paddock-kube-play:1 --broker-image localhost/paddock-kube-play:1 \
  --project-claim proj-claim --uid 1234 -- sh -c "$probe" >"$work/plan.out" 2>"$work/plan.err" \
  || fail "plan --bundle exited $? ($(cat "$work/plan.err"))"

# What podman lacks, added to a copy of the manifests (see the header).
python3 - "$work/bundle/manifests.json" "$work/play.json" <<'PY' || fail "the manifests are not of the expected shape"
import json, re, sys
doc = json.load(open(sys.argv[1]))
items = doc["items"]
pod = items[-1]
assert pod["kind"] == "Pod", pod["kind"]
deployment = next(i for i in items if i["kind"] == "Deployment")
broker_pod = deployment["metadata"]["name"] + "-pod"  # the name podman gives the Deployment's Pod
agent = pod["spec"]["containers"][0]
for e in agent["env"]:
    e["value"] = re.sub(r"\$\(PADDOCK_BROKER_[A-Z0-9_]+_SERVICE_HOST\)", broker_pod, e["value"])
profile = pod["spec"]["securityContext"]["seccompProfile"]["localhostProfile"]
# (podman reads one path component after "localhost/": the profile's directory is the root given
# to kube play below)
assert profile.count("/") == 1, profile
pod["metadata"]["annotations"] = {"container.seccomp.security.alpha.kubernetes.io/" + agent["name"]:
                                  "localhost/" + profile.split("/")[1]}
spec = deployment["spec"]["template"]["spec"]
spec["containers"][0]["command"] += ["--resolve", "pkg.example.org:127.0.0.1", "--resolve",
                                     "other.example.org:127.0.0.1", "--unsafe-allow-loopback-targets"]
server = ('$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:8080", Listen => 8, ReuseAddr => 1) or die $!;'
          'while ($c = $s->accept) { while (<$c>) { last if /^\\r?$/ }'
          ' print $c "HTTP/1.1 200 OK\\r\\nContent-Length: 19\\r\\nConnection: close\\r\\n\\r\\nthrough the broker\\n";'
          ' close $c }')
spec["containers"].append({"name": "upstream", "image": spec["containers"][0]["image"],
                           "command": ["perl", "-MIO::Socket::INET", "-e", server]})
json.dump(doc, open(sys.argv[2], "w"))
PY
pod="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["items"][-1]["metadata"]["name"])' "$work/play.json")"

# The image: the trixie root's own programs (sh, coreutils, prlimit, curl, perl) and this
# build's paddock-broker (libc and libstdc++ only); the project: the claim's volume, a copy of the
# project owned by the agent.
"$src/scripts/podman5" --bind "$work" "
set -eu
cd '$work'
podman system reset -f >/dev/null 2>&1 || true
tar -C / -c bin sbin lib lib64 usr etc -C '$work/image' usr/local/bin/paddock-broker 2>/dev/null |
  podman import -q - localhost/paddock-kube-play:1 >/dev/null
podman volume create proj-claim >/dev/null
volume=\$(podman volume inspect --format '{{.Mountpoint}}' proj-claim)
cp -a '$project/.' \"\$volume/\"
chown -R 1234:1234 \"\$volume\"
podman kube play --seccomp-profile-root '$work/bundle/seccomp/paddock' play.json >play.out 2>&1 || { cat play.out; exit 1; }
podman wait '$pod-agent' >/dev/null
podman logs '$pod-agent' >agent.out 2>&1
# The control: podman's default profile lets ptrace through.
podman run --rm --user 1234 localhost/paddock-kube-play:1 perl -e 'print \"ptrace \", syscall(101, 0, 0, 0, 0), \"\\n\"' >control.out 2>&1
ls -A \"\$volume/.git/hooks\" >hooks.out
cat \"\$volume/src/new.txt\" >new.out 2>&1 || true
podman kube down play.json >/dev/null 2>&1 || true
podman system reset -f >/dev/null 2>&1 || true
" >"$work/podman.out" 2>&1
rc=$?
[ "$rc" = 77 ] && { echo "SKIP: no trixie root for podman 5: $(tail -3 "$work/podman.out")"; exit 77; }
[ "$rc" = 0 ] || fail "podman kube play did not run the manifests (exit $rc): $(tail -20 "$work/podman.out")"
echo "--- the agent's Pod said:"
cat "$work/agent.out"
expect() { grep -qx -- "$1" "$work/agent.out" || fail "expected the line '$1' from the agent's Pod"; }
expect "uid 1234"
expect "env-bytes 0"
expect "hooks read-only"
expect "root read-only"
expect "project writable"
expect "CapEff: 0000000000000000"
expect "NoNewPrivs: 1"
expect "ptrace -1"
expect "allowed: through the broker"
expect "other: 403"
[ "$(cat "$work/control.out")" = "ptrace 0" ] || fail "podman's default profile did not let ptrace through: $(cat "$work/control.out")"
[ "$(cat "$work/hooks.out")" = pre-commit ] || fail "the hooks directory changed: $(cat "$work/hooks.out")"
[ "$(cat "$work/new.out")" = made ] || fail "the project's new file is not in its volume: $(cat "$work/new.out")"
echo "PASS"
