#!/usr/bin/env bash
# The whole coding task of tests/agents/whole_task_test.sh (ten steps against the scripted model,
# reached through a host port) per preset agent, under Paddock against the same task bare, as
# root, alternating the two, three of each; prints the medians and their ratio (goal <= 1.05x),
# with the load average before and after, since on a shared machine the absolute times drift.
# Usage: agents_bench.sh PADDOCK_BIN SOURCE_DIR WORK_DIR [AGENT...]. Exit 77 = skipped (no npm).
set -uo pipefail
paddock="$1" src="$2" work="$3"; shift 3
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude-code codex gemini-cli opencode)
task="$src/tests/agents/whole_task_test.sh"
runs="${PADDOCK_BENCH_RUNS:-3}"
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for agent in "${agents[@]}"; do
  bare=() boxed=()
  for i in $(seq "$runs"); do
    out="$(WHOLE_TASK_MODE=bare WHOLE_TASK_UIDS=0 "$task" "$paddock" "$src" "$work" "$agent" 2>&1)"
    rc=$?
    [ $rc -eq 77 ] && { echo "$out"; exit 77; }
    t="$(printf '%s\n' "$out" | awk '/ bare /{print $4; exit}')"
    printf '%s\n' "$out" | grep -q '10/10 steps' || { echo "bare $agent did not finish the task:"; echo "$out"; exit 1; }
    bare+=("$t")
    out="$(WHOLE_TASK_UIDS=0 "$task" "$paddock" "$src" "$work" "$agent" 2>&1)"
    [ $? -eq 0 ] || { echo "$agent under Paddock did not finish the task:"; echo "$out"; exit 1; }
    boxed+=("$(printf '%s\n' "$out" | awk '/^== /{print $5; exit}')")
  done
  b="$(median "${bare[@]}")" p="$(median "${boxed[@]}")"
  printf '%-12s bare %6.2f s  paddock %6.2f s  ratio %.3fx  (runs: bare %s; paddock %s)\n' "$agent" "$b" "$p" \
    "$(echo "$p / $b" | bc -l)" "${bare[*]}" "${boxed[*]}"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
