#!/usr/bin/env bash
# piglit's OpenCL program tests (Debian's piglit: tests/cl/program/{build,execute}, each a
# kernel with its build options, arguments and expected results, run by piglit's
# cl-program-tester) under `clmap exec` and natively on this machine's first OpenCL platform
# (PoCL), from piglit's directory as its runner does. Prints each test whose verdict differs,
# then the count of each verdict on both.
#
# Usage: bench/piglit_cl.sh        (needs the piglit package, about 2 GB installed)
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p clmap -p clmap-opencl || exit 1
clmap=$(realpath "$CARGO_TARGET_DIR/release/clmap")
piglit=${PIGLIT:-/usr/lib/x86_64-linux-gnu/piglit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$piglit" || exit 1
verdict() {
  timeout 300 "$@" 2>&1 | grep -o '"result": *"[a-z]*"' | tail -1 | sed 's/.*"\([a-z]*\)"$/\1/'
}
for test in $(find tests/cl/program \( -name "*.cl" -o -name "*.program_test" \) | sort); do
  ours=$(verdict "$clmap" exec -q -- bin/cl-program-tester "$test")
  theirs=$(verdict bin/cl-program-tester "$test")
  echo "${ours:-none} ${theirs:-none} $test" >> "$tmp/verdicts"
done
echo "tests whose verdict differs (clmap, native):"
awk '$1 != $2 { print "  " $1 ", " $2 ": " $3 }' "$tmp/verdicts"
echo "clmap exec: $(awk '{ print $1 }' "$tmp/verdicts" | sort | uniq -c | tr -s ' ' | paste -sd,)"
echo "native:     $(awk '{ print $2 }' "$tmp/verdicts" | sort | uniq -c | tr -s ' ' | paste -sd,)"
