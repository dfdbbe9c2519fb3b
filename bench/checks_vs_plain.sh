#!/usr/bin/env bash
# The single-thread cost of the checks and of analysis against a plain run of the same
# workload (issue 17's targets: `--races --uninit` at most 1.5x, `analyze` at most 2x), without
# Oclgrind, so that it takes seconds: `clmap run W --threads 1` plain, with `--races`, with
# `--uninit`, with both, and `clmap analyze W --threads 1`, on the naive 256 x 256 multiply of
# the corpus (tests/corpus/mm_simple.toml) unless a workload is given.
#
# Figures are CPU time (user + system), which other load disturbs least; the five runs are
# repeated REPS times (default 9), interleaved so that a change of load hits them alike, and
# each figure is the median of its repeats. CLMAP=path times another binary; OLD=path also
# times a second binary interleaved with the first, each against its own plain run.
#
# Usage: bench/checks_vs_plain.sh [WORKLOAD]      (REPS=9 CLMAP=… OLD=…)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${CLMAP:-}" ]; then
  cargo build --release -q -p clmap
  CLMAP=$CARGO_TARGET_DIR/release/clmap
fi
workload=$(realpath "${1:-tests/corpus/mm_simple.toml}")
reps=${REPS:-9}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

binaries=("$CLMAP")
names=(new)
if [ -n "${OLD:-}" ]; then
  binaries+=("$OLD")
  names+=(old)
fi
labels=(run "run --races" "run --uninit" "run --races --uninit" analyze)
commands=("run" "run --races" "run --uninit" "run --races --uninit" "analyze")

echo "$(basename "$workload"), --threads 1, $reps interleaved repeats, medians of CPU seconds (user + system)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < reps; r++)); do
  for b in "${!binaries[@]}"; do
    for i in "${!commands[@]}"; do
      # shellcheck disable=SC2086
      /usr/bin/time -f "%U %S" -o "$tmp/time" "${binaries[$b]}" ${commands[$i]} "$workload" \
        --threads 1 >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
      awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time" >>"$tmp/${names[$b]}-$i"
    done
  done
done
median() {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for b in "${!binaries[@]}"; do
  name=${names[$b]}
  echo "## ${name}: ${binaries[$b]}"
  printf "%-24s %8s %9s\n" run cpu_s vs_plain
  plain=$(median "$tmp/$name-0")
  for i in "${!commands[@]}"; do
    cpu=$(median "$tmp/$name-$i")
    printf "%-24s %8s %8.2fx\n" "${labels[$i]}" "$cpu" "$(echo "$cpu / $plain" | bc -l)"
  done
done
echo "targets: run --races --uninit <= 1.5x, analyze <= 2.0x a plain run"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
