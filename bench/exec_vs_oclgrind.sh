#!/usr/bin/env bash
# Unmodified host programs under `clmap exec` against the same programs under `oclgrind`, on
# this machine, side by side: the PolyBench/GPU-style self-checking programs of bench/hosts
# (they request a GPU, read their .cl from the working directory, compare with a CPU run and
# exit 0 when they agree). Both runs must exit 0; the table gives wall-clock seconds, CPU
# seconds and the ratio oclgrind / clmap.
#
# Usage: bench/exec_vs_oclgrind.sh [PROGRAM:ARGS ...]   (ARGS comma-separated: fdtd-2d:512,20)
#   default: mvt:1024 mvt:4096 atax:2048 bicg:2048 gesummv:2048 gemm:256 2mm:256 syrk:256
#            covariance:256 2dconv:2048 fdtd-2d:512,20
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap -p clmap-opencl
clmap=$(realpath "$CARGO_TARGET_DIR/release/clmap")
make -s -C bench/hosts >/dev/null
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
  runs=(mvt:1024 mvt:4096 atax:2048 bicg:2048 gesummv:2048 gemm:256 2mm:256 syrk:256
        covariance:256 2dconv:2048 fdtd-2d:512,20)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs a command in bench/hosts under /usr/bin/time; prints "cpu_seconds wall_seconds".
measure() {
  (cd bench/hosts && /usr/bin/time -f "%U %S %e" -o "$tmp/time" "$@" >"$tmp/out" 2>&1) || {
    echo "failed: $*" >&2
    tail -n 5 "$tmp/out" >&2
    return 1
  }
  awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/time"
}

# The platform's own cost per call, from inside a program (bench/exec_overhead.c).
cc -O2 -o "$tmp/overhead" bench/exec_overhead.c -lOpenCL
echo "per-call cost in microseconds (5000 calls each):"
paste <("$clmap" exec -q -- "$tmp/overhead" 5000 | sed 's/^/clmap    /') \
      <(oclgrind "$tmp/overhead" 5000 | awk '{ print "oclgrind", $2 }')
echo

printf "%-12s %6s %10s %10s %10s %10s %9s\n" program size ocl_wall_s clmap_wall_s ocl_cpu_s clmap_cpu_s wall_x
for run in "${runs[@]}"; do
  program=${run%%:*}
  size=${run#*:}
  IFS=, read -r -a args <<<"$size"
  read -r ocl_cpu ocl_wall < <(measure oclgrind "./$program" "${args[@]}")
  read -r cl_cpu cl_wall < <(measure "$clmap" exec -q -- "./$program" "${args[@]}")
  ratio=$(awk -v a="$ocl_wall" -v b="$cl_wall" 'BEGIN { printf "%.1f", a / (b > 0.001 ? b : 0.001) }')
  printf "%-12s %6s %10s %10s %10s %10s %8sx\n" "$program" "$size" "$ocl_wall" "$cl_wall" "$ocl_cpu" "$cl_cpu" "$ratio"
done
