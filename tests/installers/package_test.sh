#!/usr/bin/env bash
# Builds the .deb from the existing build tree (cpack -G DEB: no rebuild), checks what it declares
# and holds, installs it into a scratch root with dpkg (maintainer scripts included, chrootless)
# and runs the installed programs from there as root and as uid 65534.
# usage: package_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
# A command that fails without saying why still names itself.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
src="$1"
build="$2"
tmp="$(mktemp -d /tmp/paddock-package-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || fail "$1 is not installed ($2; scripts/bootstrap installs it)"; }
need dpkg-deb dpkg
need dpkg-shlibdeps dpkg-dev
need desktop-file-validate desktop-file-utils
need appstreamcli appstream
need setpriv util-linux
need zsh zsh
need fish fish

version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"
gui=false
grep -q '^PADDOCK_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt" && gui=true

# --- build the package -----------------------------------------------------------------------
(cd "$build" && cpack --config CPackConfig.cmake -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) \
  || { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb="$tmp/out/paddock_${version}_amd64.deb"
ddeb="$tmp/out/paddock-dbgsym_${version}_amd64.ddeb"
[ -f "$deb" ] || fail "no $(basename "$deb"); cpack made: $(ls "$tmp/out")"
[ -f "$ddeb" ] || fail "no debug-info package $(basename "$ddeb"); cpack made: $(ls "$tmp/out")"
size=$(stat -c %s "$deb")
[ "$size" -lt $((25 * 1024 * 1024)) ] || fail "the .deb is $size bytes, over 25 MB"
echo "package: $(basename "$deb"), $((size / 1024)) KiB"

# --- control fields ----------------------------------------------------------------------------
info="$(dpkg-deb -I "$deb")"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = paddock ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), want $version"
[ "$(field Architecture)" = amd64 ] || fail "Architecture: $(field Architecture)"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
[ -n "$(field Description)" ] || fail "no Description"
depends="$(field Depends)"
has_dep() { echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -x "$1" >/dev/null; }
# From dpkg-shlibdeps: the package of every shared library an installed binary needs (checked
# below, once the files are unpacked). For the app, also every QML module package of
# installers/linux/qml-modules.txt (checked against qml/ by qml_module_depends_test.py).
if $gui; then
  for p in $(sed 's/#.*//' "$src/installers/linux/qml-modules.txt" | awk 'NF > 1 { for (i = 2; i <= NF; i++) print $i }' | sort -u); do
    has_dep "$p" || fail "Depends lacks the QML module package $p: $depends"
  done
fi
for script in postinst prerm postrm; do
  grep -Eq "^ +[0-9]+ bytes, +[0-9]+ lines +\* +$script " <<<"$info" \
    || fail "control.tar has no executable $script: $info"
done

# --- contents ----------------------------------------------------------------------------------
contents="$(dpkg-deb -c "$deb")"
has() { echo "$contents" | awk '{print $6}' | grep -x "./$1" >/dev/null || fail "the package has no /$1"; }
for f in usr/bin/paddock usr/libexec/paddock/paddock-helper usr/share/paddock/profiles/default.yaml \
         usr/share/paddock/apparmor/paddock-helper usr/share/doc/paddock/copyright \
         usr/share/man/man1/paddock.1.gz usr/share/bash-completion/completions/paddock \
         usr/share/zsh/vendor-completions/_paddock usr/share/fish/vendor_completions.d/paddock.fish; do
  has "$f"
done
if $gui; then
  for f in usr/bin/paddock-gui usr/share/applications/paddock.desktop \
           usr/share/metainfo/io.github.paddock.Paddock.metainfo.xml usr/share/man/man1/paddock-gui.1.gz \
           usr/share/icons/hicolor/scalable/apps/paddock.svg; do
    has "$f"
  done
  for s in 16 22 24 32 48 64 128 256 512; do has "usr/share/icons/hicolor/${s}x${s}/apps/paddock.png"; done
fi
# The helper needs no setuid bit or file capability (user namespaces do the work); no file is
# setuid/setgid, none is owned by anyone but root, and no autostart entry is installed.
echo "$contents" | awk '$1 ~ /s/ {print; bad=1} END {exit bad}' || fail "setuid/setgid files in the package"
echo "$contents" | awk '$2 != "root/root" {print; bad=1} END {exit bad}' || fail "files not owned by root/root"
grep -q 'autostart' <<<"$contents" && fail "the package installs an autostart entry"

# --- install into a scratch root with dpkg (maintainer scripts run with DPKG_ROOT) --------------
root="$tmp/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-script-chrootless --force-depends --log=/dev/null -i "$deb" >"$tmp/dpkg.log" 2>&1 \
  || { cat "$tmp/dpkg.log" >&2; fail "dpkg -i into the scratch root failed"; }
chmod 755 "$root"
[ -x "$root/usr/bin/paddock" ] || fail "dpkg did not install usr/bin/paddock"

# Depends covers every shared library the installed binaries load (dpkg-shlibdeps' part).
for bin in "$root"/usr/bin/* "$root"/usr/libexec/paddock/*; do
  file -b "$bin" | grep '^ELF' >/dev/null || continue
  for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path="$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !found {print $NF; found = 1}')"
    [ -n "$path" ] || fail "$bin needs $lib, which this system does not have"
    # dpkg knows a file by the path its package ships it at: with merged /usr that is either.
    pkg=""
    for candidate in "$path" "$(readlink -f "$path")"; do
      [ -n "$pkg" ] || pkg="$( (dpkg -S "$candidate" 2>/dev/null || true) | sed -n '1s/:.*//p')"
    done
    [ -n "$pkg" ] || fail "no package owns $path ($lib, needed by $bin)"
    has_dep "$pkg" || fail "$bin needs $lib from $pkg, which Depends lacks: $depends"
  done
done
has_dep libc6 || fail "Depends lacks libc6: $depends"

# Stripped binaries, their debug info in the -dbgsym package under their build id.
ddeb_files="$(dpkg-deb -c "$ddeb" | awk '{print $6}')"
for bin in "$root"/usr/bin/* "$root"/usr/libexec/paddock/*; do
  desc="$(file -b "$bin")"
  case "$desc" in ELF*) ;; *) continue ;; esac
  case "$desc" in *"not stripped"*|*"with debug_info"*) fail "$bin is not stripped: $desc" ;; esac
  id="$(readelf -n "$bin" | sed -n 's/.*Build ID: //p')"
  [ -n "$id" ] || fail "$bin has no build id"
  grep -qx "./usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" <<<"$ddeb_files" \
    || fail "the -dbgsym package has no debug info for $bin (build id $id)"
done

# --- desktop integration ----------------------------------------------------------------------
if $gui; then
  desktop="$root/usr/share/applications/paddock.desktop"
  out="$(desktop-file-validate "$desktop" 2>&1)" || fail "desktop-file-validate: $out"
  grep -Eq 'error|warning' <<<"$out" && fail "desktop-file-validate: $out"
  exec_bin="$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")"
  [ -x "$root/usr/bin/$exec_bin" ] || fail "Exec=$exec_bin is not an installed program"
  [ "$(sed -n 's/^Icon=//p' "$desktop")" = paddock ] || fail "Icon= is not the installed paddock icon"
  metainfo="$root/usr/share/metainfo/io.github.paddock.Paddock.metainfo.xml"
  out="$(appstreamcli validate --no-net "$metainfo" 2>&1)" || fail "appstreamcli validate: $out"
  grep -q "<launchable type=\"desktop-id\">paddock.desktop</launchable>" "$metainfo" || fail "metainfo does not launch paddock.desktop"
  first_release="$(grep -o '<release version="[^"]*"' "$metainfo" | sed -n 1p | cut -d'"' -f2)"
  [ "$first_release" = "$version" ] || fail "the metainfo's newest release is $first_release, the package is $version"
  for s in 16 22 24 32 48 64 128 256 512; do
    file -b "$root/usr/share/icons/hicolor/${s}x${s}/apps/paddock.png" | grep "PNG image data, $s x $s," >/dev/null \
      || fail "the ${s}x${s} icon is not a $s x $s PNG"
  done
  grep -q '<svg' "$root/usr/share/icons/hicolor/scalable/apps/paddock.svg" || fail "the scalable icon is not an SVG"
fi

# --- man pages, generated from the programs' own help ----------------------------------------
man_text() { MANWIDTH=100 man --warnings -E UTF-8 -l "$1" 2>"$tmp/man.err"; }
page="$(man_text "$root/usr/share/man/man1/paddock.1.gz")" || fail "man cannot render paddock(1)"
[ -s "$tmp/man.err" ] && fail "paddock(1) has roff warnings: $(cat "$tmp/man.err")"
commands="$("$root/usr/bin/paddock" --help | awk '/^Subcommands:/ {on=1; next} /^$/ {on=0} on && /^  [a-z]/ {print $1}')"
[ -n "$commands" ] || fail "paddock --help lists no subcommands"
for c in $commands; do
  grep -q "paddock $c" <<<"$page" || fail "paddock(1) does not describe '$c'"
done
grep -q -- "--allow-write" <<<"$page" || fail "paddock(1) does not list --allow-write"
grep -q "EXIT STATUS" <<<"$page" || fail "paddock(1) has no EXIT STATUS"
grep -q "__generate" <<<"$page" && fail "paddock(1) shows the hidden __generate command"
if $gui; then
  page="$(man_text "$root/usr/share/man/man1/paddock-gui.1.gz")" || fail "man cannot render paddock-gui(1)"
  [ -s "$tmp/man.err" ] && fail "paddock-gui(1) has roff warnings: $(cat "$tmp/man.err")"
  grep -q -- "--version" <<<"$page" || fail "paddock-gui(1) does not list --version"
  grep -Eq "paddock-gui +- +The Paddock desktop app" <<<"$page" || fail "paddock-gui(1) has no NAME line: $page"
fi

# --- completions, generated from the CLI's command tree ---------------------------------------
bash_complete() {  # bash_complete WORD... : the candidates for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _paddock; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$root/usr/share/bash-completion/completions/paddock" "$@"
}
got="$(bash_complete paddock '')"
for c in $commands; do grep -qx "$c" <<<"$got" || fail "bash completion does not offer '$c': $got"; done
grep -q "__generate" <<<"$got" && fail "bash completion offers the hidden __generate"
bash_complete paddock run --pro | grep -x -- --project >/dev/null || fail "bash completion: 'paddock run --pro' does not complete --project"
[ "$(bash_complete paddock plan --backend '' | sort | tr '\n' ' ')" = "kubernetes linux macos oci windows " ] \
  || fail "bash completion: --backend does not offer every backend"
bash_complete paddock run -- tru | grep -x true >/dev/null || fail "bash completion: the command after 'run --' is not completed"
zsh -n "$root/usr/share/zsh/vendor-completions/_paddock" || fail "the zsh completion does not parse"
fish --no-execute "$root/usr/share/fish/vendor_completions.d/paddock.fish" || fail "the fish completion does not parse"
got="$(HOME="$tmp" fish -c "source $root/usr/share/fish/vendor_completions.d/paddock.fish; complete -C 'paddock '" | cut -f1)"
for c in $commands; do grep -qx "$c" <<<"$got" || fail "fish completion does not offer '$c': $got"; done

# --- the installed programs run, as root and as uid 65534 ------------------------------------
for uid in 0 65534; do
  home="$tmp/home-$uid"
  mkdir -p "$home/proj" "$home/run"
  chmod 700 "$home/run"
  chown -R "$uid:$uid" "$home"
  as=()
  [ "$uid" -eq 0 ] || as=(setpriv --reuid="$uid" --regid="$uid" --clear-groups)
  run_as() {
    (cd "$home/proj" && env -u PADDOCK_SYSTEM_DIR -u PADDOCK_FORCE_TIER HOME="$home" XDG_STATE_HOME="$home/state" \
      XDG_CONFIG_HOME="$home/config" XDG_RUNTIME_DIR="$home/run" "${as[@]}" "$@")
  }
  out="$(run_as "$root/usr/bin/paddock" --version)" || fail "uid $uid: paddock --version exited $?"
  [ "$out" = "paddock $version" ] || fail "uid $uid: paddock --version said '$out'"
  out="$(run_as "$root/usr/bin/paddock" doctor)" || fail "uid $uid: paddock doctor exited $?: $out"
  grep -q "^helper: *$root/usr/libexec/paddock/paddock-helper$" <<<"$out" \
    || fail "uid $uid: doctor did not use the installed helper: $out"
  out="$(run_as "$root/usr/bin/paddock" run -- true 2>&1)" || fail "uid $uid: paddock run -- true exited $?: $out"
  if $gui; then
    out="$(run_as env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/paddock-gui" --version)" \
      || fail "uid $uid: paddock-gui --version exited $?"
    [ "$out" = "paddock-gui $version" ] || fail "uid $uid: paddock-gui --version said '$out'"
  fi
  echo "uid $uid: the installed paddock runs (--version, doctor, run -- true)"
done

# --- the AppArmor profile ----------------------------------------------------------------------
profile="$root/usr/share/paddock/apparmor/paddock-helper"
grep -q "^profile paddock-helper /usr/libexec/paddock/paddock-helper " "$profile" \
  || fail "the AppArmor profile does not attach to /usr/libexec/paddock/paddock-helper"
grep -q "^  userns,$" "$profile" || fail "the AppArmor profile does not grant userns"
if ! command -v apparmor_parser >/dev/null; then
  echo "SKIP: apparmor_parser is not installed; the AppArmor profile was not parsed"
elif [ -e /etc/apparmor.d/abi/4.0 ]; then
  apparmor_parser --skip-kernel-load --skip-cache --quiet "$profile" || fail "apparmor_parser rejects $profile"
  echo "apparmor: apparmor_parser $(apparmor_parser --version | sed -n 1p | awk '{print $NF}') accepts the profile"
else
  # AppArmor 3 (Debian 12) knows neither abi 4.0 nor the userns rule: the profile is parsed
  # without those two lines, so at least everything else in it is checked.
  echo "apparmor: the host's apparmor_parser $(apparmor_parser --version | sed -n 1p | awk '{print $NF}') predates AppArmor 4.0 (no abi/4.0, no userns rule): it parses the profile without those two lines, AppArmor 4's parser the whole of it"
  grep -v -e '^abi <abi/4.0>,$' -e '^  userns,$' "$profile" >"$tmp/profile-aa3"
  apparmor_parser --skip-kernel-load --skip-cache --quiet "$tmp/profile-aa3" \
    || fail "apparmor_parser rejects the rest of $profile"
fi
# The whole profile with an AppArmor 4 parser (Debian 13's 4.1 in a chroot: Ubuntu 24.04 ships
# 4.0, Debian 12 no 4.x at all), and a profile with one broken rule, which it must reject for its
# acceptance to mean anything. No kernel here has AppArmor: loading is not checked.
aa4="$src/scripts/apparmor4-parser"
"$aa4" "$profile" --quiet || fail "AppArmor 4's apparmor_parser rejects $profile"
echo "apparmor: $("$aa4" "$profile" --version | sed -n 1p) accepts the whole profile"
sed 's/^  userns,$/  userns-is-no-rule,/' "$profile" >"$tmp/profile-broken"
if "$aa4" "$tmp/profile-broken" --quiet 2>/dev/null; then
  fail "AppArmor 4's apparmor_parser accepts a profile with a broken rule: its check proves nothing"
fi

# The maintainer scripts: where the parser rejects the profile (this machine's AppArmor 3, or no
# parser at all) dpkg's postinst above must have installed nothing; a parser that accepts it gets
# it copied to etc/apparmor.d (not loaded: DPKG_ROOT is another root), and removal takes it away.
if [ ! -e /etc/apparmor.d/abi/4.0 ]; then
  [ ! -e "$root/etc/apparmor.d/paddock-helper" ] || fail "postinst installed a profile this parser rejects"
fi
# As postinst runs on an AppArmor 4 system: the real AppArmor 4 parser decides (its arguments
# logged; the profile is the last of them), and a load would show as --replace in the log.
mkdir -p "$tmp/shim"
printf '#!/bin/sh\necho "$*" >>"%s/parser.log"\nfor a; do last="$a"; done\nexec "%s" "$last" --quiet\n' \
  "$tmp" "$aa4" >"$tmp/shim/apparmor_parser"
chmod 755 "$tmp/shim/apparmor_parser"
info_dir="$root/var/lib/dpkg/info"
PATH="$tmp/shim:$PATH" DPKG_ROOT="$root" sh "$info_dir/paddock.postinst" configure \
  || fail "postinst configure failed with AppArmor 4's parser"
cmp -s "$profile" "$root/etc/apparmor.d/paddock-helper" || fail "postinst did not install the profile AppArmor 4's parser accepts"
grep -q -- "--replace" "$tmp/parser.log" && fail "postinst loaded a profile into the running kernel for another root"
printf '#!/bin/sh\nexit 1\n' >"$tmp/shim/apparmor_parser"
PATH="$tmp/shim:$PATH" DPKG_ROOT="$root" sh "$info_dir/paddock.postinst" configure \
  || fail "postinst configure failed with a rejecting parser"
[ ! -e "$root/etc/apparmor.d/paddock-helper" ] || fail "postinst left a profile the parser rejects"
dpkg --root="$root" --force-script-chrootless --log=/dev/null --purge paddock >"$tmp/dpkg.log" 2>&1 \
  || { cat "$tmp/dpkg.log" >&2; fail "dpkg --purge from the scratch root failed"; }
[ ! -e "$root/usr/bin/paddock" ] || fail "dpkg --purge left usr/bin/paddock"
leftover="$(cd "$root" && find . -path ./var -prune -o ! -type d -print)"
[ -z "$leftover" ] || fail "files left after purge: $leftover"
echo "ok: $(basename "$deb") builds, declares, installs, runs and purges"
