#!/usr/bin/env bash
# `clmap analyze` (every AIWC metric and parallel spatial locality) against plain
# `oclgrind-kernel` (Debian's Oclgrind 21.10, which has no AIWC plugin) on the naive matrix
# multiply of the corpus, N = 256, 16 x 16 work-groups, both on one thread.
#
# Ratios use CPU time (user + system), which other load on the machine disturbs least.
# Target: clmap analyze at least 15x faster than oclgrind-kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap
clmap=$CARGO_TARGET_DIR/release/clmap
workload=$(pwd)/tests/corpus/mm_simple.toml
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

"$clmap" run "$workload" --export-sim "$tmp/mm256.sim" >/dev/null

printf "%-34s %9s %9s %9s %9s\n" run cpu_s wall_s peak_MB vs_ocl
read -r ocl_cpu ocl_wall ocl_kb < <(measure oclgrind-kernel --num-threads 1 "$tmp/mm256.sim")
printf "%-34s %9s %9s %9.1f %9s\n" "oclgrind-kernel, 1 thread" "$ocl_cpu" "$ocl_wall" \
  "$(echo "$ocl_kb / 1024" | bc -l)" "1.0x"
for mode in "" "--compat aiwc"; do
  # shellcheck disable=SC2086
  read -r cpu wall kb < <(measure "$clmap" analyze --threads 1 $mode "$workload")
  ratio=$(awk -v a="$ocl_cpu" -v b="$cpu" 'BEGIN { printf "%.1fx", a / b }')
  label="clmap analyze, 1 thread${mode:+ ($mode)}"
  printf "%-34s %9s %9s %9.1f %9s\n" "$label" "$cpu" "$wall" "$(echo "$kb / 1024" | bc -l)" "$ratio"
done
