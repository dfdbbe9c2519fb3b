#!/usr/bin/env bash
# Whether a change to the simulator, its checkers or the metrics left every result as it was:
# runs two clmap binaries on every workload of tests/corpus/ and examples/ with
# `run --races --uninit` and `analyze --json` (the corpus's, small enough for it, with
# `run --races --uninit --oclgrind-output` too: the Oclgrind-order race replay), and on every
# check of tests/oclgrind_checks/
# with `run --oclgrind-output` (each check's own options from its `# ARGS:` line) and
# `run --races --uninit`, and compares standard output, standard error and exit status.
#
# Usage: bench/same_results.sh OLD_CLMAP NEW_CLMAP
# Prints one line per difference and a summary; exits 1 when anything differs.
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 OLD_CLMAP NEW_CLMAP" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs `$1 ARGS…` in the workload's directory; prints stdout, stderr and the exit status,
# with the run's duration ("… on simulator in 0.012 s") left out.
outcome() {
  local bin=$1 dir=$2
  shift 2
  (cd "$dir" && "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; echo "exit $?" >"$tmp/rc")
  sed -E 's/ in [0-9]+\.[0-9]+ s$/ in (time) s/' "$tmp/out"
  echo "--- stderr"
  sed -E 's/ in [0-9]+\.[0-9]+ s$/ in (time) s/' "$tmp/err"
  cat "$tmp/rc"
}

compared=0
differ=0
check() {
  local dir=$1
  shift
  outcome "$old" "$dir" "$@" >"$tmp/old"
  outcome "$new" "$dir" "$@" >"$tmp/new"
  compared=$((compared + 1))
  if ! cmp -s "$tmp/old" "$tmp/new"; then
    differ=$((differ + 1))
    echo "DIFFERS: (cd $dir && clmap $*)"
    diff "$tmp/old" "$tmp/new" | head -n 10
  fi
}

for w in tests/corpus/*.toml examples/*.toml; do
  [ -f "$w" ] || continue
  dir=$(dirname "$w")
  file=$(basename "$w")
  check "$dir" run "$file" --races --uninit
  case $w in
    tests/corpus/*) check "$dir" run "$file" --races --uninit --oclgrind-output ;;
  esac
  check "$dir" analyze "$file" --json
done
for s in tests/oclgrind_checks/*.sim; do
  dir=$(dirname "$s")
  file=$(basename "$s")
  check "$dir" run "$file" --oclgrind-output
  check "$dir" run "$file" --races --uninit
done
echo "$compared runs compared, $differ differ"
[ "$differ" -eq 0 ]
