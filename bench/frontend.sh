#!/usr/bin/env bash
# Front-end throughput: clmap's preprocess+parse+check over the whole corpus, in MB/s of source,
# against clang-16 -fsyntax-only on the same files measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-tests/corpus}
cargo build --release -q -p clmap-lang --example frontend_bench
out=$(target/release/examples/frontend_bench "$dir" 50)
echo "$out"
clmap_mbs=$(sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p' <<<"$out")
if command -v clang-16 >/dev/null; then
  bytes=$(cat "$dir"/*.cl | wc -c)
  start=$(date +%s.%N)
  for f in "$dir"/*.cl; do
    opts=$(sed -n 's/^options *= *"\(.*\)"/\1/p' "${f%.cl}.toml" 2>/dev/null || true)
    # shellcheck disable=SC2086
    clang-16 -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -I "$dir" $opts "$f" 2>/dev/null || true
  done
  end=$(date +%s.%N)
  clang_mbs=$(awk -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", b / 1e6 / (e - s) }')
  echo "clang-16 -fsyntax-only: $clang_mbs MB/s (one process per file, as a build would run it)"
  awk -v a="$clmap_mbs" -v b="$clang_mbs" 'BEGIN { printf "ratio clmap / clang: %.1fx\n", a / b }'
fi
