#!/usr/bin/env bash
# clmap against Oclgrind's own kernel test suite, judged by Oclgrind's own runner: every test
# listed in OCLGRIND_SRC/tests/kernels/TESTS is run by OCLGRIND_SRC/tests/run_test.py (which
# sets OCLGRIND_DATA_RACES=1, OCLGRIND_UNINITIALIZED=1 and OCLGRIND_CHECK_API=1, runs the test
# once as it is and once with OCLGRIND_BUILD_OPTIONS=-cl-opt-disable, requires exit status 0
# and matches the output against the test's .ref), first with `oclgrind-kernel`, then with
# clmap in oclgrind-kernel's place (`clmap run --oclgrind-output`, called through a link
# named oclgrind-kernel, as a user would install it). Prints one line per test where the two
# differ, then the counts.
#
# Then the suite's host programs (tests/runtime/*.c and tests/apps/*/*.c, compiled here against
# the OpenCL loader with the suite's tests/common/common.c), run by the same runner with
# `oclgrind` and with clmap through a link named oclgrind (`clmap exec --oclgrind-output`).
#
# The suite is not part of this repository: it comes with Oclgrind's source, e.g. Debian's
# `oclgrind` source package (21.10, what scripts/install-deps.sh installs), unpacked anywhere.
#
# Usage: bench/oclgrind_suite.sh OCLGRIND_SRC [RESULTS_FILE]
#   CLMAP=path/to/clmap   the binary (default: built here, release)
#   ONLY=clmap            skip the oclgrind-kernel run
set -uo pipefail
src=$(cd "${1:?usage: bench/oclgrind_suite.sh OCLGRIND_SRC [RESULTS_FILE]}" && pwd)
results=${2:-/dev/null}
cd "$(dirname "$0")/.."
runner=$src/tests/run_test.py
list=$src/tests/kernels/TESTS
[ -f "$runner" ] && [ -f "$list" ] || { echo "$src has no tests/run_test.py and tests/kernels/TESTS" >&2; exit 1; }
if [ -n "${CLMAP:-}" ]; then
  bin=$(realpath "$CLMAP")
else
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
  cargo build --release -q -p clmap || exit 1
  bin=$(realpath "$CARGO_TARGET_DIR/release/clmap")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# clmap takes oclgrind-kernel's command line when called by that name.
mkdir -p "$tmp/bin"
ln -s "$bin" "$tmp/bin/oclgrind-kernel"
ln -s "$bin" "$tmp/bin/oclgrind"

# Runs every test with EXE; writes "PASS name" or "FAIL name: why" lines to FILE.
suite() {
  local exe=$1 file=$2 name why
  : >"$file"
  while read -r name; do
    [ -n "$name" ] || continue
    mkdir -p "$tmp/work" && rm -rf "$tmp/work"/*
    why=$(cd "$tmp/work" && timeout 300 python3 "$runner" "$exe" "$src/tests/kernels/$name.sim" 2>&1)
    if [ $? -eq 0 ]; then
      echo "PASS $name" >>"$file"
    else
      echo "FAIL $name: $(echo "$why" | grep -v '^Running test\|^PASSED\|^FAILED\|^$' | head -3 | tr '\n' ' ')" >>"$file"
    fi
  done <"$list"
}

# Compiles the suite's host programs into $tmp/tests/DIR/NAME: the runner finds a program's
# .ref from the part of its path after /tests/. Prints the programs' paths.
host_programs() {
  local c dir name
  for c in "$src"/tests/runtime/*.c "$src"/tests/apps/*/*.c; do
    [ -f "$c" ] || continue
    dir=${c#"$src/tests/"}
    dir=$(dirname "$dir")
    name=$(basename "$c" .c)
    mkdir -p "$tmp/tests/$dir"
    if cc -O1 -w -DROOT_DIR="\"$src/tests/$dir\"" -I"$src/tests/common" "$c" \
      "$src/tests/common/common.c" -o "$tmp/tests/$dir/$name" -lOpenCL -lm 2>"$tmp/cc.log"; then
      echo "$tmp/tests/$dir/$name"
    else
      echo "cannot compile $c: $(head -3 "$tmp/cc.log")" >&2
    fi
  done
}

# Runs every host program with EXE (oclgrind or the link to clmap); lines as suite's.
host_suite() {
  local exe=$1 file=$2 program why
  : >"$file"
  for program in $programs; do
    mkdir -p "$tmp/work" && rm -rf "$tmp/work"/*
    why=$(cd "$tmp/work" && timeout 300 python3 "$runner" "$exe" "$program" 2>&1)
    if [ $? -eq 0 ]; then
      echo "PASS ${program#"$tmp/tests/"}" >>"$file"
    else
      echo "FAIL ${program#"$tmp/tests/"}: $(echo "$why" | grep -v '^Running test\|^PASSED\|^FAILED\|^$' | head -3 | tr '\n' ' ')" >>"$file"
    fi
  done
}

total=$(grep -c . "$list")
if [ "${ONLY:-}" != clmap ]; then
  if command -v oclgrind-kernel >/dev/null; then
    suite "$(command -v oclgrind-kernel)" "$tmp/oclgrind"
  else
    echo "oclgrind-kernel is not installed (scripts/install-deps.sh installs it): clmap alone" >&2
  fi
fi
suite "$tmp/bin/oclgrind-kernel" "$tmp/clmap"

programs=$(host_programs)
hosts=$(echo "$programs" | grep -c .)
if [ "${ONLY:-}" != clmap ] && command -v oclgrind >/dev/null; then
  host_suite "$(command -v oclgrind)" "$tmp/oclgrind_hosts"
fi
host_suite "$tmp/bin/oclgrind" "$tmp/clmap_hosts"

{
  echo "Oclgrind's kernel test suite ($total tests, $src), Oclgrind's runner"
  if [ -s "$tmp/oclgrind" ]; then
    echo "oclgrind-kernel: $(grep -c '^PASS' "$tmp/oclgrind") of $total pass"
  fi
  echo "clmap:           $(grep -c '^PASS' "$tmp/clmap") of $total pass"
  echo
  grep '^FAIL' "$tmp/clmap"
  if [ -s "$tmp/oclgrind" ]; then
    grep '^FAIL' "$tmp/oclgrind" | sed 's/^/oclgrind-kernel: /'
  fi
  echo
  echo "Its host programs ($hosts), Oclgrind's runner"
  if [ -s "$tmp/oclgrind_hosts" ]; then
    echo "oclgrind:        $(grep -c '^PASS' "$tmp/oclgrind_hosts") of $hosts pass"
  fi
  echo "clmap:           $(grep -c '^PASS' "$tmp/clmap_hosts") of $hosts pass"
  grep '^FAIL' "$tmp/clmap_hosts"
  if [ -s "$tmp/oclgrind_hosts" ]; then
    grep '^FAIL' "$tmp/oclgrind_hosts" | sed 's/^/oclgrind: /'
  fi
} | tee "$results"
