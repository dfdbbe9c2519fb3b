#!/usr/bin/env bash
# `clmap analyze` (every AIWC metric and parallel spatial locality) against a plain
# `clmap run` of the same workload and against plain `oclgrind-kernel` (Debian's Oclgrind
# 21.10, which has no AIWC plugin), on the naive matrix multiply of the corpus, N = 256,
# 16 x 16 work-groups, all on one thread.
#
# Targets (issue 17): analyze costs at most 2x a plain run, and is at least 40x faster than
# plain oclgrind-kernel (Oclgrind with the AIWC plugin costs 2.6x plain Oclgrind, so that is
# 100x faster than Oclgrind with AIWC).
#
# Figures are CPU time (user + system), which other load on the machine disturbs least.
# clmap's runs are repeated REPS times (default 5), interleaved so that a change of load hits
# them alike, and each figure is the median of its repeats; Oclgrind runs once.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap
clmap=$CARGO_TARGET_DIR/release/clmap
workload=$(pwd)/tests/corpus/mm_simple.toml
reps=${REPS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs a command under /usr/bin/time; prints "cpu_seconds wall_seconds peak_kb".
measure() {
  /usr/bin/time -f "%U %S %e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>&1 || {
    cat "$tmp/out" >&2
    return 1
  }
  awk '{ printf "%.3f %.3f %d\n", $1 + $2, $3, $4 }' "$tmp/time"
}

# Median of column $1 of file $2.
median() {
  sort -n -k"$1,$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END {
    printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

"$clmap" run "$workload" --export-sim "$tmp/mm256.sim" >/dev/null

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $reps interleaved repeats per clmap run"
printf "%-38s %9s %9s %9s %9s %9s\n" run cpu_s wall_s peak_MB vs_ocl vs_plain
read -r ocl_cpu ocl_wall ocl_kb < <(measure oclgrind-kernel --num-threads 1 "$tmp/mm256.sim")
printf "%-38s %9s %9s %9.1f %9s %9s\n" "oclgrind-kernel, 1 thread" "$ocl_cpu" "$ocl_wall" \
  "$(echo "$ocl_kb / 1024" | bc -l)" "1.0x" "-"

labels=("clmap run, 1 thread" "clmap analyze, 1 thread" "clmap analyze, 1 thread (--compat aiwc)")
commands=("run --threads 1" "analyze --threads 1" "analyze --threads 1 --compat aiwc")
for ((r = 0; r < reps; r++)); do
  for i in "${!commands[@]}"; do
    # shellcheck disable=SC2086
    measure "$clmap" ${commands[$i]} "$workload" >>"$tmp/runs$i"
  done
done
for i in "${!commands[@]}"; do
  cpu=$(median 1 "$tmp/runs$i")
  wall=$(median 2 "$tmp/runs$i")
  kb=$(sort -n -k3,3 "$tmp/runs$i" | tail -n 1 | awk '{ print $3 }')
  [ "$i" = 0 ] && plain_cpu=$cpu
  [ "$i" = 1 ] && analyze_cpu=$cpu
  ratio=$(awk -v a="$ocl_cpu" -v b="$cpu" 'BEGIN { printf "%.1fx", a / b }')
  vs_plain=$(awk -v a="$cpu" -v b="$plain_cpu" 'BEGIN { printf "%.2fx", a / b }')
  printf "%-38s %9s %9s %9.1f %9s %9s\n" "${labels[$i]}" "$cpu" "$wall" \
    "$(echo "$kb / 1024" | bc -l)" "$ratio" "$vs_plain"
done
awk -v a="$analyze_cpu" -v p="$plain_cpu" -v o="$ocl_cpu" 'BEGIN {
  printf "analyze / plain run, 1 thread: %.2fx (target <= 2.0x)\n", a / p
  printf "oclgrind-kernel / analyze, 1 thread: %.1fx (target >= 40x)\n", o / a }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
