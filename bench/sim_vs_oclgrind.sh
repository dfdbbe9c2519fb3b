#!/usr/bin/env bash
# Simulator speed against oclgrind-kernel on the naive matrix multiply of the corpus
# (tests/corpus/mm_simple.cl, 16 x 16 work-groups), N = 128 and 256: one thread and all
# cores, with and without the race + uninitialised-memory checkers, with peak memory; and the
# cost of the checkers, checked / plain on one thread (issue 17's target: at most 1.5x).
#
# Single-thread figures are CPU time (user + system), which other load on the machine
# disturbs least; all-core figures are wall-clock times. clmap's four runs are repeated
# REPS times (default 5), interleaved so that a change of load hits them alike, and each
# figure is the median of its repeats; Oclgrind runs once.
#
# Usage: bench/sim_vs_oclgrind.sh [N ...]      (default: 128 256; REPS=9 for more repeats)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap
bin=$CARGO_TARGET_DIR/release/clmap
cores=$(nproc)
reps=${REPS:-5}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(128 256)
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

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $reps interleaved repeats per clmap run"
printf "%-6s %-28s %9s %9s %9s %8s\n" N run cpu_s wall_s peak_MB vs_ocl
for n in "${sizes[@]}"; do
  toml=$tmp/mm$n.toml
  bench/mm_workload.sh "$n" "$toml"
  "$bin" run "$toml" --export-sim "$tmp/mm$n.sim" >/dev/null
  buffers_mb=$(awk -v n="$n" 'BEGIN { printf "%.2f", 3 * n * n * 4 / 1048576 }')

  read -r ocl1_cpu ocl1_wall ocl1_kb < <(measure oclgrind-kernel --num-threads 1 "$tmp/mm$n.sim")
  read -r ocln_cpu ocln_wall ocln_kb < <(measure oclgrind-kernel --num-threads "$cores" "$tmp/mm$n.sim")
  printf "%-6s %-28s %9s %9s %9.1f %8s\n" "$n" "oclgrind 1 thread" "$ocl1_cpu" "$ocl1_wall" "$(echo "$ocl1_kb / 1024" | bc -l)" "1.0x"
  printf "%-6s %-28s %9s %9s %9.1f %8s\n" "$n" "oclgrind $cores threads" "$ocln_cpu" "$ocln_wall" "$(echo "$ocln_kb / 1024" | bc -l)" "-"

  variants=("1 plain" "1 checked" "0 plain" "0 checked")
  for ((r = 0; r < reps; r++)); do
    for variant in "${variants[@]}"; do
      set -- $variant
      flags=()
      [ "$2" = checked ] && flags+=(--races --uninit)
      measure "$bin" run "$toml" --threads "$1" "${flags[@]}" >>"$tmp/$n-$1-$2"
    done
  done
  for variant in "${variants[@]}"; do
    set -- $variant
    threads=$1
    runs=$tmp/$n-$1-$2
    cpu=$(median 1 "$runs")
    wall=$(median 2 "$runs")
    kb=$(sort -n -k3,3 "$runs" | tail -n 1 | awk '{ print $3 }')
    label="clmap $([ "$threads" = 1 ] && echo "1 thread" || echo "$cores threads") $2"
    if [ "$threads" = 1 ]; then
      ratio=$(awk -v a="$ocl1_cpu" -v b="$cpu" 'BEGIN { printf "%.1fx", a / b }')
    else
      ratio=$(awk -v a="$ocln_wall" -v b="$wall" 'BEGIN { printf "%.1fx", a / b }')
    fi
    printf "%-6s %-28s %9s %9s %9.1f %8s\n" "$n" "$label" "$cpu" "$wall" "$(echo "$kb / 1024" | bc -l)" "$ratio"
    [ "$variant" = "1 plain" ] && plain1_cpu=$cpu
    [ "$variant" = "1 checked" ] && checked1_cpu=$cpu
  done
  # Issue 17's target: the race + uninitialised checks cost at most 1.5x a plain run
  # (single-threaded CPU time, both measured in this run).
  awk -v c="$checked1_cpu" -v p="$plain1_cpu" \
    'BEGIN { printf "       checked / plain, 1 thread: %.2fx (target <= 1.5x)\n", c / p }'
  echo "       (buffers: $buffers_mb MB)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
