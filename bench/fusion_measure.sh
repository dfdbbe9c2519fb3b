#!/usr/bin/env bash
# Seed 002's evaluation on one device: every application of examples/fusion/ at its measured
# sizes, fused by `clmap fuse --measure` (candidates validated on the device and timed from the
# first kernel's start to the last one's end), one JSON report per line.
# Usage: bench/fusion_measure.sh DEVICE [CLMAP] [CANDIDATES] [APPS...]
#   e.g. bench/fusion_measure.sh gpu target/release/clmap 4 > bench/results/fusion_gpu.jsonl
# The simulator is skipped (--seeds 0): these sizes are for devices; the same fusions at the
# _small sizes are validated on the simulator by the tests. bench/fusion_table.py turns the
# lines into the table and chart of docs/fusion.md.
set -uo pipefail
cd "$(dirname "$0")/.."
device=${1:?usage: bench/fusion_measure.sh DEVICE [CLMAP] [CANDIDATES] [APPS...]}
clmap=${2:-target/release/clmap}
candidates=${3:-4}
shift $(( $# < 3 ? $# : 3 ))
apps=("$@")
if [ ${#apps[@]} -eq 0 ]; then
  apps=(jacobi1d pathfinder hotspot_512 hotspot_4096 cell3d_60 cell3d_256
        jacobi2d_1024 jacobi2d_4096 jacobi2d_8192 image_1080p image_4k)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for app in "${apps[@]}"; do
  start=$(date +%s%N)
  report=$("$clmap" fuse "examples/fusion/$app.toml" -o "$scratch/$app.toml" --measure \
      --device "$device" --seeds 0 --device-seeds 1 --candidates "$candidates" --json 2>"$scratch/err")
  status=$?
  millis=$(( ($(date +%s%N) - start) / 1000000 ))
  # A refusal is a JSON report too (exit status 1 or 2, "fused": false with the reason);
  # only a run that printed nothing is described by its error output.
  if [ -z "$report" ]; then
    report="{\"fused\": false, \"status\": $status, \"error\": $(tail -n 3 "$scratch/err" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}"
  fi
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r["app"]=sys.argv[2]; r["bench_seconds"]=int(sys.argv[3])/1000; print(json.dumps(r))' \
    "$report" "$app" "$millis"
  echo "$app done in ${millis} ms" >&2
done
