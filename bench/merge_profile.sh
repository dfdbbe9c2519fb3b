#!/usr/bin/env bash
# The merge of the threads' results, old binary against new: runs `clmap analyze` (or the
# checks, `run --races --uninit`) on the naive matmul of bench/sim_scaling.sh with
# CLMAP_PROFILE=1, the two binaries taking turns, REPS times each, and prints for each binary
# the median of what the profile says: the merge the launch waits for after its last thread
# took no more work ("merge"), the merging time of all threads ("merging"), the metrics'
# summary, the serial rest of the process (everything outside the parallel phase) and the
# whole run. Meant for a machine shared with other work: the binaries alternate so that both
# see the same load, the load average is printed before and after, and medians, not single
# runs, are the figures to quote.
#
# Usage: bench/merge_profile.sh OLD_CLMAP NEW_CLMAP [analyze|checked]
#        (default analyze; N=512 THREADS=2 REPS=9)
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_CLMAP NEW_CLMAP [analyze|checked]" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
kind=${3:-analyze}
cd "$(dirname "$0")/.."
n=${N:-512}
threads=${THREADS:-2}
reps=${REPS:-9}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

toml=$tmp/mm$n.toml
bench/mm_workload.sh "$n" "$toml"
case $kind in
  analyze) args=(analyze "$toml") ;;
  checked) args=(run "$toml" --races --uninit) ;;
  *) echo "unknown kind $kind (analyze or checked)" >&2; exit 2 ;;
esac

# One profiled run of binary $1: "merge merging summary serial process" in ms.
profiled() {
  CLMAP_PROFILE=1 "$1" "${args[@]}" --threads "$threads" 2>&1 >/dev/null | awk '
    function field(line, after,   rest) { rest = substr(line, index(line, after) + length(after)); return rest + 0 }
    /^profile: launch / { merge += field($0, "merge "); merging += field($0, "merges, ") }
    /^profile: metrics summary: / { summary += field($0, "summary: ") }
    /^profile: process / { process = field($0, "process "); serial = field($0, "serial ") }
    END { printf "%.1f %.1f %.1f %.1f %.1f\n", merge, merging, summary, serial, process }'
}

# Median of column $1 of file $2.
median() {
  sort -n -k"$1,$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END {
    printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "clmap ${args[0]} of naive matmul N = $n on $threads threads, $kind; $(nproc) cores"
echo "old: $old"
echo "new: $new"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < reps; r++)); do
  profiled "$old" >>"$tmp/old"
  profiled "$new" >>"$tmp/new"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$reps runs each, alternating; medians in ms"
printf "%-4s %8s %8s %8s %8s %9s\n" "" merge merging summary serial process
for b in old new; do
  printf "%-4s %8s %8s %8s %8s %9s\n" "$b" "$(median 1 "$tmp/$b")" "$(median 2 "$tmp/$b")" \
    "$(median 3 "$tmp/$b")" "$(median 4 "$tmp/$b")" "$(median 5 "$tmp/$b")"
done
echo "every run (merge merging summary serial process):"
paste -d' ' <(sed 's/^/old /' "$tmp/old") <(sed 's/^/new /' "$tmp/new")
