#!/usr/bin/env bash
# CLBlast's own test suite (Debian's clblast-tests: one clblast_test_<routine> program per BLAS
# routine, each comparing CLBlast's OpenCL results with a reference CBLAS over its parameter
# grid) run unmodified under `clmap exec`. Prints passed / failed / skipped per routine, the
# exit status and the seconds, then the totals. Skipped tests are the suite's own (parameter
# combinations a routine does not take); PoCL skips the same ones.
#
# Usage: bench/clblast_suite.sh [ROUTINE ...]   (default: every installed clblast_test_*;
#        LIMIT=600 seconds per routine)
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap -p clmap-opencl || exit 1
clmap=$(realpath "$CARGO_TARGET_DIR/release/clmap")
routines=("$@")
if [ ${#routines[@]} -eq 0 ]; then
  for b in /usr/bin/clblast_test_*; do routines+=("${b#/usr/bin/clblast_test_}"); done
fi
total_passed=0 total_failed=0 total_skipped=0
for r in "${routines[@]}"; do
  start=$(date +%s)
  out=$(timeout "${LIMIT:-600}" "$clmap" exec -q -- "clblast_test_$r" 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
  status=${PIPESTATUS[0]}
  read -r passed failed skipped < <(echo "$out" | awk '/test\(s\) passed/ {p += $1} /test\(s\) failed/ {f += $1}
    /test\(s\) skipped/ {s += $1} END {print p + 0, f + 0, s + 0}')
  printf "%-22s passed %6d  failed %4d  skipped %6d  exit %3d  %4d s\n" "$r" "$passed" "$failed" \
    "$skipped" "$status" "$(( $(date +%s) - start ))"
  total_passed=$((total_passed + passed)); total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
done
echo "total: ${#routines[@]} routines, $total_passed passed, $total_failed failed, $total_skipped skipped"
