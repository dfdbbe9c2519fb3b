#!/usr/bin/env bash
# Seed 000's evaluation on one device: np = t(with local) / t(without) for every Grover corpus
# case, as `clmap unlocal --measure` prints it, collected into a markdown table.
# Usage: bench/grover_measure.sh DEVICE [CLMAP] [REPS]     e.g. bench/grover_measure.sh gpu
set -uo pipefail
cd "$(dirname "$0")/.."
device=${1:?usage: bench/grover_measure.sh DEVICE [CLMAP] [REPS]}
clmap=${2:-target/release/clmap}
reps=${3:-21}
cases=(
  "NVD-MT transpose_local_padded"
  "AMD-MT transpose_float4_diagonal"
  "AMD-RG transpose_rg_block"
  "AMD-MM mm_float4_tiled"
  "NVD-MM-A mm_nvidia_tile_ab --buffer As"
  "NVD-MM-B mm_nvidia_tile_ab --buffer Bs"
  "NVD-MM-AB mm_nvidia_tile_ab"
  "NVD-NBody nbody_local"
  "PAB-ST stencil3d_parboil"
  "AMD-SS string_search"
  "ROD-SC broadcast_streamcluster"
)
echo "| ID | workload | with local | without local | np | verdict |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  read -r id workload rest <<<"$c"
  # shellcheck disable=SC2086
  out=$("$clmap" unlocal "tests/corpus/$workload.toml" $rest --measure --device "$device" --reps "$reps" 2>&1)
  with=$(sed -n 's/.*with local memory *median \(.*\)/\1/p' <<<"$out")
  without=$(sed -n 's/.*without local memory *median \(.*\)/\1/p' <<<"$out")
  np=$(sed -n 's/.*np = \([0-9.]*\) (\([a-z]*\).*/\1 | \2/p' <<<"$out")
  if [ -z "$np" ]; then np="failed | $(tail -n 1 <<<"$out")"; fi
  echo "| $id | \`$workload${rest:+ $rest}\` | $with | $without | $np |"
done
