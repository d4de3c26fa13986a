#!/bin/sh
# Builds a libFuzzer target with clang and runs it for a bounded time. Exit 77 (CTest: skipped)
# with a printed reason when clang or its libFuzzer runtime is missing.
# usage: run_fuzz.sh CLANGXX SOURCE_ROOT OUT_BINARY CORPUS_DIR SECONDS [FLAG | SOURCE]...
#   FLAG: -D... (compiles the target's own source, the first SOURCE, only) or -l... / -pthread
#   (link); every other argument is a source file.
set -u
clangxx=$1 root=$2 out=$3 corpus=$4 seconds=$5
shift 5
if [ -z "$clangxx" ] || ! command -v "$clangxx" >/dev/null 2>&1; then
  echo "SKIP: clang++ not found; the fuzz target needs clang's libFuzzer"
  exit 77
fi
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe_dir/p.cpp"
if ! "$clangxx" -fsanitize=fuzzer,address "$probe_dir/p.cpp" -o "$probe_dir/p" >"$probe_dir/log" 2>&1; then
  echo "SKIP: $clangxx cannot link -fsanitize=fuzzer,address (libFuzzer runtime missing?):"
  head -3 "$probe_dir/log"
  exit 77
fi

work=$(dirname "$out")/fuzz_work_$(basename "$out")
mkdir -p "$work/corpus" "$work/obj"
defines="" libs="" sources="" first=""
for a in "$@"; do
  case "$a" in
    -D*) defines="$defines $a" ;;
    -l* | -pthread) libs="$libs $a" ;;
    *) sources="$sources $a"; [ -n "$first" ] || first="$a" ;;
  esac
done
# One object per source, through ccache when it is installed: the engine's ~60 sources compile
# once, and a later run or the other targets reuse them. The defines go to the target's own
# source only, so an engine source compiles the same for every target; and the targets compile
# one at a time (a lock beside them), so the second finds the first's objects in ccache instead of
# compiling the engine again beside it (about four minutes of CPU each under the sanitizers).
lock="$(dirname "$out")/.fuzz-compile.lock"
exec 9>"$lock"
flock 9
cc="$clangxx"
command -v ccache >/dev/null 2>&1 && cc="ccache $clangxx"
flags="-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
objs="" pids="" n=0 failed=0
for src in $sources; do
  obj="$work/obj/$(echo "$src" | sed 's|^/||; s|[/.]|_|g').o"
  objs="$objs $obj"
  own=""
  [ "$src" = "$first" ] && own="$defines"
  # shellcheck disable=SC2086
  $cc $flags -I"$root" $own -c "$src" -o "$obj" >"$obj.log" 2>&1 &
  pids="$pids $!"
  n=$((n + 1))
  if [ "$n" -ge 2 ]; then
    for p in $pids; do wait "$p" || failed=1; done
    pids="" n=0
  fi
done
for p in $pids; do wait "$p" || failed=1; done
flock -u 9
if [ "$failed" -ne 0 ]; then
  cat "$work"/obj/*.log | head -40
  echo "FAIL: fuzz target does not build"
  exit 1
fi
# shellcheck disable=SC2086
"$clangxx" -fsanitize=fuzzer,address,undefined $objs $libs -o "$out" || { echo "FAIL: fuzz target does not link"; exit 1; }
cp "$corpus"/* "$work/corpus/" 2>/dev/null
cd "$work" || exit 1
# libFuzzer exits 77 on a crash by default, which CTest would count as a skip.
"$out" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
  -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus"
