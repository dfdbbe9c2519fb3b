#!/usr/bin/env bash
# Issue-4 measurements on whatever OpenCL devices this machine has: the device list, the
# corpus differential test (simulator vs every device), a `clmap time` table for a few corpus
# kernels per device, and a plain copy kernel against the device's own copy bandwidth.
#
# Usage: bench/devices_report.sh [CLMAP] [OUTDIR]    (CLMAP defaults to target/release/clmap)
# Where NVIDIA's ICD file is missing, first:
#   d=$(mktemp -d) && echo libnvidia-opencl.so.1 > $d/nvidia.icd && cp /etc/OpenCL/vendors/*.icd $d/ && export OCL_ICD_VENDORS=$d/
set -uo pipefail
cd "$(dirname "$0")/.."
clmap=${1:-target/release/clmap}
out=${2:-bench/results/devices}
mkdir -p "$out"

"$clmap" devices > "$out/devices.txt" 2>&1
"$clmap" devices --json > "$out/devices.json" 2>/dev/null
cat "$out/devices.txt"

targets=sim
for t in cpu gpu; do
  if "$clmap" devices --json 2>/dev/null | grep -q "\"device_type\": \"$t\""; then targets="$targets,$t"; fi
done
echo "== compare on $targets"
"$clmap" compare tests/corpus/*.toml --devices "$targets" > "$out/compare.txt" 2>&1
echo "compare exit code $? ($(grep -c ': agree' "$out/compare.txt") agree, $(grep -c ': DIFFER' "$out/compare.txt") differ)"
tail -n 1 "$out/compare.txt"

kernels="mm_simple mm_coalesced_ab mm_nvidia_tile_ab mm_float4_tiled transpose_naive transpose_local_padded reduce_local_tree stencil2d_local_halo pb_gemm pb_2dconv"
printf '| kernel | device | median | min | std %% |\n|---|---|---|---|---|\n' > "$out/time.md"
for dev in ${targets#sim}; do
  dev=${dev#,}
  for dev1 in ${dev//,/ }; do
    for k in $kernels; do
      line=$("$clmap" time "tests/corpus/$k.toml" --device "$dev1" --reps 21 --json 2>/dev/null \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); print("| %s | %s | %.2f us | %.2f us | %.1f |" % (sys.argv[1], d["device"], d["median_ns"]/1e3, d["min_ns"]/1e3, 100*d["std_ns"]/d["mean_ns"]))' "$k")
      echo "$line" >> "$out/time.md"
    done
  done
done
cat "$out/time.md"

for dev in cpu gpu; do
  if [[ $targets == *$dev* ]]; then
    echo "== copy bandwidth on $dev"
    "$clmap" time examples/copy.toml --device "$dev" --reps 21 --copy-reference | tee "$out/copy-$dev.txt"
  fi
done
