#!/usr/bin/env bash
# How the simulator scales with threads: a plain `clmap run`, the race + uninitialised-value
# checks (`clmap run --races --uninit`) and `clmap analyze` on the naive matrix multiply of
# the corpus (tests/corpus/mm_simple.cl, 16 x 16 work-groups), on 1 thread and on THREADS
# threads (default 16, the GPU host's cores), with the speedups (issue 17's target: at least
# 12x on the 16-core host for all three) and the single-thread cost of the checks and of
# analyze against the plain run (targets: at most 1.5x and 2x).
#
# Speedups are wall-clock times; the single-thread ratios are CPU time (user + system). Every
# run is repeated REPS times (default 3), interleaved, and each figure is the median. Run it
# on an otherwise idle machine. A last table breaks one run of each kind down with
# CLMAP_PROFILE=1: the serial part on one thread and the speedup Amdahl's law allows it on
# THREADS threads, and on THREADS threads the time spent merging and the load imbalance. The
# threads merge their results as they finish: "merge ms" is the part the launch waits for
# after its last thread took no more work, "merging ms" the merging time of all threads.
#
# A last part measures the host's own ceiling: THREADS independent single-threaded runs at once
# against one alone (see below).
#
# Usage: bench/sim_scaling.sh [N]      (default N = 512; THREADS=16 REPS=3)
# CLMAP=path/to/clmap uses that binary instead of building one (a machine without Rust).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${CLMAP:-}" ]; then
  bin=$CLMAP
else
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
  cargo build --release -q -p clmap
  bin=$CARGO_TARGET_DIR/release/clmap
fi
n=${1:-512}
threads=${THREADS:-16}
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs a command; prints "cpu_seconds wall_seconds peak_kb" (the child's user + system time
# from getrusage, so it works where /usr/bin/time is not installed).
measure() {
  python3 - "$tmp/out" "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
with open(sys.argv[1], "wb") as out:
    code = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT).returncode
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
if code != 0:
    sys.stderr.write(open(sys.argv[1], errors="replace").read())
    sys.exit(1)
print(f"{usage.ru_utime + usage.ru_stime:.3f} {wall:.3f} {usage.ru_maxrss}")
PY
}

# Median of column $1 of file $2.
median() {
  sort -n -k"$1,$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END {
    printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

toml=$tmp/mm$n.toml
bench/mm_workload.sh "$n" "$toml"

echo "naive matmul N = $n, 16 x 16 work-groups; $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$reps interleaved repeats per run, medians"
kinds=(plain checked analyze)
command_of() {
  case $1 in
    plain) echo "run $toml" ;;
    checked) echo "run $toml --races --uninit" ;;
    analyze) echo "analyze $toml" ;;
  esac
}
for ((r = 0; r < reps; r++)); do
  for kind in "${kinds[@]}"; do
    for t in 1 "$threads"; do
      # shellcheck disable=SC2046
      measure "$bin" $(command_of "$kind") --threads "$t" >>"$tmp/$kind-$t"
    done
  done
done

printf "%-10s %12s %12s %14s %9s %12s\n" run "1 thread s" "cpu 1 thr s" "$threads threads s" speedup vs_plain_1
for kind in "${kinds[@]}"; do
  wall1=$(median 2 "$tmp/$kind-1")
  cpu1=$(median 1 "$tmp/$kind-1")
  walln=$(median 2 "$tmp/$kind-$threads")
  [ "$kind" = plain ] && plain_cpu=$cpu1
  speedup=$(awk -v a="$wall1" -v b="$walln" 'BEGIN { printf "%.1fx", a / b }')
  vs_plain=$(awk -v a="$cpu1" -v b="$plain_cpu" 'BEGIN { printf "%.2fx", a / b }')
  printf "%-10s %12s %12s %14s %9s %12s\n" "$kind" "$wall1" "$cpu1" "$walln" "$speedup" "$vs_plain"
done
echo "targets: speedup >= 12x on 16 threads for every run; checked <= 1.5x and analyze <= 2.0x a plain run"

# Where the time goes: one more run of each kind with CLMAP_PROFILE=1, which prints per launch
# the setup, parallel, merge and finish times and per process the serial rest (everything
# outside the launches' parallel phases). The serial fraction s on one thread bounds the
# speedup on T threads to 1 / (s + (1 - s) / T) (Amdahl); on T threads the profile also shows
# the merge of the threads' results and the load imbalance (busiest minus idlest thread).
echo
echo "breakdown (CLMAP_PROFILE=1, one run each)"
printf "%-10s %10s %10s %9s %12s %11s %10s %11s %12s\n" run "1 thr s" "serial ms" serial% "amdahl ${threads}x" "${threads} thr ms" "merge ms" "merging ms" "imbalance ms"
for kind in "${kinds[@]}"; do
  for t in 1 "$threads"; do
    # shellcheck disable=SC2046
    CLMAP_PROFILE=1 "$bin" $(command_of "$kind") --threads "$t" >/dev/null 2>"$tmp/profile-$kind-$t"
  done
  awk -v kind="$kind" -v threads="$threads" -v one="$tmp/profile-$kind-1" -v many="$tmp/profile-$kind-$threads" '
    function field(line, after,   rest) { rest = substr(line, index(line, after) + length(after)); return rest + 0 }
    BEGIN {
      while ((getline line < one) > 0) if (line ~ /^profile: process /) {
        total1 = field(line, "process "); serial1 = field(line, "serial ")
      }
      while ((getline line < many) > 0) {
        if (line ~ /^profile: process /) totaln = field(line, "process ")
        if (line ~ /^profile: launch /) {
          merge += field(line, "merge ")
          if (index(line, "merges, ")) merging += field(line, "merges, ")
          busy = substr(line, index(line, "threads busy ") + 13)
          split(busy, b, " ")
          imbalance += b[3] - b[1]
        }
      }
      if (total1 == 0) { printf "%-10s (no profile: this binary predates CLMAP_PROFILE)\n", kind; exit }
      s = serial1 / total1
      printf "%-10s %10.3f %10.1f %8.2f%% %11.1fx %11.1f %10.1f %11.1f %12.1f\n", kind, total1 / 1000, serial1, 100 * s,
        1 / (s + (1 - s) / threads), totaln, merge, merging, imbalance
    }'
done

# What the host itself gives: THREADS single-threaded plain runs started at once, each on its
# own data, against one alone. No run shares anything with another, so their slowdown is the
# host's (all-core clock, shared caches and memory bandwidth, a hypervisor's sharing of the
# cores), and THREADS x t_alone / t_together is the speedup no multithreaded run of this
# workload can beat on this host. The share of that ceiling each run reaches separates what the
# simulator loses (merge, imbalance, serial parts) from what the host takes.
echo
echo "host ceiling: $threads independent single-thread plain runs at once (REPS=$reps rounds, medians)"
# Each round times one run alone, then THREADS at once, each process timing itself (its own
# start to its own end), so the ceiling compares like with like: per-process wall times.
together() {
  python3 - "$@" <<'PY'
import subprocess, sys, threading, time
count, command = int(sys.argv[1]), sys.argv[2:]
walls = [0.0] * count
def one(i):
    start = time.monotonic()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    walls[i] = time.monotonic() - start
threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
for t in threads: t.start()
for t in threads: t.join()
walls.sort()
print(f"{walls[count // 2]:.3f}")
PY
}
for ((r = 0; r < reps; r++)); do
  measure "$bin" $(command_of plain) --threads 1 >>"$tmp/alone"
  # shellcheck disable=SC2046
  together "$threads" "$bin" $(command_of plain) --threads 1 >>"$tmp/together"
done
alone=$(median 2 "$tmp/alone")
together=$(median 1 "$tmp/together")
ceiling=$(awk -v n="$threads" -v a="$alone" -v t="$together" 'BEGIN { printf "%.1f", n * a / t }')
printf "one alone %s s; %s at once %s s each (median); ceiling %sx on %s threads\n" "$alone" "$threads" "$together" "$ceiling" "$threads"
printf "%-10s %9s %17s\n" run speedup "share of ceiling"
for kind in "${kinds[@]}"; do
  wall1=$(median 2 "$tmp/$kind-1")
  walln=$(median 2 "$tmp/$kind-$threads")
  awk -v k="$kind" -v a="$wall1" -v b="$walln" -v c="$ceiling" 'BEGIN { printf "%-10s %8.1fx %16.0f%%\n", k, a / b, 100 * (a / b) / c }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
