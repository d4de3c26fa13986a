#!/bin/sh
# Builds a libFuzzer target with clang and runs it for a bounded time. Exit 77 (CTest: skipped)
# with a printed reason when clang or its libFuzzer runtime is missing.
# usage: run_fuzz.sh CLANGXX SOURCE_ROOT OUT_BINARY CORPUS_DIR SECONDS SOURCE...
set -u
clangxx=$1 root=$2 out=$3 corpus=$4 seconds=$5
shift 5
if [ -z "$clangxx" ] || ! command -v "$clangxx" >/dev/null 2>&1; then
  echo "SKIP: clang++ not found; the parser fuzz target needs clang's libFuzzer"
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
"$clangxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -I"$root" "$@" -o "$out" || { echo "FAIL: fuzz target does not build"; exit 1; }
work=$(dirname "$out")/$(basename "$out")_work
mkdir -p "$work/corpus"
cp "$corpus"/* "$work/corpus/" 2>/dev/null
cd "$work" || exit 1
"$out" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=1024 \
  -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus"
