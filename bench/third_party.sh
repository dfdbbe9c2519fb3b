#!/usr/bin/env bash
# Programs whose kernels come from libraries we did not write (tests/third_party: CLBlast's
# BLAS kernels through blas.c, clFFT's through fft.c, ViennaCL's through viennacl.cpp, PyOpenCL's
# generated kernels through pyopencl_arrays.py, OpenCV's image kernels through opencv_umat.py),
# run
# natively on PoCL, under `oclgrind`, and under `clmap exec`, side by side. Each program checks
# its own results and prints ALL OK; a run that does not is reported as failed and timed
# anyway (Oclgrind 21.10 may crash at exit after its last check). The table gives the median
# wall-clock seconds of REPS runs and the ratios to clmap.
#
# ViennaCL needs a device of one type: clmap runs it with --emulate h100; under Oclgrind (a
# device of every type) it aborts, which the table shows as failed.
#
# Usage: bench/third_party.sh            (REPS=3; the packages of scripts/install-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap -p clmap-opencl
clmap=$(realpath "$CARGO_TARGET_DIR/release/clmap")
reps=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c99 -O1 -o "$tmp/blas" tests/third_party/blas.c -lclblast -lOpenCL -lm
cc -std=c99 -O1 -o "$tmp/fft" tests/third_party/fft.c -lclFFT -lOpenCL -lm
c++ -O1 -o "$tmp/viennacl" tests/third_party/viennacl.cpp -lOpenCL
export PYOPENCL_NO_CACHE=1

# The median wall-clock seconds of REPS runs of a command, and "ok" or "failed".
measure() {
  local times=() verdict=ok
  for _ in $(seq "$reps"); do
    local home; home=$(mktemp -d "$tmp/home.XXXX")   # no build caches carried between runs
    if ! HOME=$home /usr/bin/time -f "%e" -o "$tmp/time" "$@" >"$tmp/out" 2>&1 \
       || ! grep -q "ALL OK" "$tmp/out"; then
      verdict=failed
    fi
    times+=("$(cat "$tmp/time" | tail -1)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk -v v=$verdict '{ t[NR] = $1 } END { printf "%s %s\n", t[int((NR + 1) / 2)], v }'
}

printf "%-28s %-16s %-16s %-16s %s\n" program "PoCL (native)" oclgrind "clmap exec" "PoCL/clmap oclgrind/clmap"
for program in "blas 64" "blas 300" "fft 1000" "fft 4096" "viennacl 64" "pyopencl_arrays.py 2000" \
               "opencv_umat.py"; do
  set -- $program
  emulate=()
  case $1 in
    *.py) cmd=(/usr/bin/python3 "tests/third_party/$1" "${@:2}") ;;
    viennacl) cmd=("$tmp/$1" "$2"); emulate=(--emulate h100) ;;
    *) cmd=("$tmp/$1" "$2") ;;
  esac
  # OpenCV uses only GPUs unless told otherwise; PoCL is a CPU device.
  read -r pocl pocl_ok < <(OPENCV_OPENCL_DEVICE=":CPU:" OCL_ICD_VENDORS=/etc/OpenCL/vendors measure "${cmd[@]}")
  read -r grind grind_ok < <(measure oclgrind "${cmd[@]}")
  read -r ours ours_ok < <(measure "$clmap" exec -q "${emulate[@]}" -- "${cmd[@]}")
  printf "%-28s %-16s %-16s %-16s %.1fx %.1fx\n" "$program" "$pocl s $pocl_ok" "$grind s $grind_ok" \
    "$ours s $ours_ok" "$(echo "$pocl / $ours" | bc -l)" "$(echo "$grind / $ours" | bc -l)"
done
