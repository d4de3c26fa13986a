#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then MOVE the prefix elsewhere: the binaries must
# still find the helper and the resources relative to themselves.
set -euo pipefail
build="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"
p="$tmp/moved"
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x "$p/bin/paddock" ] || fail "bin/paddock missing"
[ -x "$p/libexec/paddock/paddock-helper" ] || fail "libexec/paddock/paddock-helper missing"
[ -d "$p/share/paddock/profiles" ] || fail "share/paddock/profiles missing"
if grep -q '^PADDOCK_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt"; then
  [ -x "$p/bin/paddock-gui" ] || fail "bin/paddock-gui missing"
fi

"$p/bin/paddock" --version | grep -q '^paddock ' || fail "--version"
out="$("$p/bin/paddock" doctor --json)" || fail "doctor --json exited $?"
echo "$out" | grep -q "\"helper\": \"$p/libexec/paddock/paddock-helper\"" \
  || fail "doctor did not use the relocated helper: $out"
echo "$out" | grep -q '"landlock_abi"' || fail "doctor reported no landlock_abi"

# The policy engine reads the relocated built-in profiles.
proj="$tmp/project"
mkdir -p "$proj"
h1="$("$p/bin/paddock" hash --project "$proj")" || fail "hash from the relocated prefix"
h2="$("$p/bin/paddock" explain --canonical --project "$proj" | sha256sum | cut -d' ' -f1)"
[ "$h1" = "sha256:$h2" ] || fail "hash $h1 != sha256 of explain --canonical ($h2)"
echo "relocated install works: $p"
