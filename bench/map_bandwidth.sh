#!/usr/bin/env bash
# Issue 19, deliverable 6: do the Single MAP microbenchmarks without local memory run at the
# hardware's speed? Times, in one run and with the same `clmap time` settings, a plain copy
# kernel (one float per work-item, a 1-D launch) and every Single MAP's `nolocal` kernel as
# `clmap maps generate` writes it, and prints each one's bandwidth as a fraction of the copy's.
#
# Usage: bench/map_bandwidth.sh [DEVICE] [OUT_DIR]      (defaults: gpu, out/map_bandwidth)
#
# Every kernel here reads N² floats and writes N² floats, so bandwidth is counted the way a
# copy is: (reads + writes) / median kernel time, and "of copy" is the copy's median time over
# the kernel's. Beside the copy, two diagnostic kernels isolate what a generated kernel adds:
#   copy_2d      the copy with the microbenchmarks' launch (N × N items in 16×16 groups,
#                `out[gy*N + gx] = in[gy*N + gx]`): the cost of the 2-D launch shape alone;
#   device copy  clEnqueueCopyBuffer of the same bytes (`clmap time --copy-reference`).
#
# Environment:
#   CLMAP   the clmap binary (default target/release/clmap; a copied, stripped one works)
#   N       side of the N × N grid (default 4096: 64 MiB each way, beyond any cache)
#   REPS    runs per kernel, the first discarded (default 21)
#   FLUSH=1 flush the caches before every timed run, as the campaigns do (default 1)
#   MAPS    Single MAPs to time (default all nine: 107,108,109,110,112,113,114,115,116)
#   WG      the microbenchmarks' work-group (default 16x16, the campaign's)
# Writes OUT_DIR/map_bandwidth.json and .md (the table printed), and the kernels it timed.
set -euo pipefail
cd "$(dirname "$0")/.."

device=${1:-gpu}
out=${2:-out/map_bandwidth}
clmap=${CLMAP:-target/release/clmap}
n=${N:-4096}
reps=${REPS:-21}
flush=${FLUSH:-1}
maps=${MAPS:-107,108,109,110,112,113,114,115,116}
wg=${WG:-16x16}
wgx=${wg%x*}
wgy=${wg#*x}

if [ ! -x "$clmap" ]; then
  echo "no clmap binary at $clmap: build it (cargo build --release -p clmap) or set CLMAP" >&2
  exit 1
fi
mkdir -p "$out"
rm -rf "$out/maps" "$out/copy" "$out/times"
mkdir -p "$out/copy" "$out/times"

elements=$((n * n))
# reads + writes of one float per work-item
traffic=$((elements * 8))

cat >"$out/copy/copy.cl" <<'EOF'
// A plain copy: one float per work-item, 1-D launch.
__kernel void copy(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}

// The same copy under the microbenchmarks' 2-D launch.
__kernel void copy_2d(__global const float *in, __global float *out, int n)
{
    int gx = get_global_id(0);
    int gy = get_global_id(1);
    out[gy * n + gx] = in[gy * n + gx];
}
EOF
# copy_workload FILE COMMENT KERNEL GLOBAL LOCAL EXTRA_ARGS: a workload of copy.cl over the same
# buffers, launched as asked.
copy_workload() {
  cat >"$1" <<EOF
# $2
source = "copy.cl"
outputs = ["out"]
bytes_moved = $traffic

[buffers]
in  = { type = "float", len = $elements, init = "random(2014, 0.0, 1.0)" }
out = { type = "float", len = $elements, init = "zero" }

[[launch]]
kernel = "$3"
global = [$4]
local  = [$5]
args   = ["in", "out"$6]
EOF
}
copy_workload "$out/copy/copy.toml" "A plain copy of $elements floats, one per work-item, in 1-D groups of 256." \
  copy "$elements" 256 ""
copy_workload "$out/copy/copy_2d.toml" \
  "The copy with the microbenchmarks' launch: $n x $n work-items in ${wgx}x${wgy} groups." \
  copy_2d "$n, $n" "$wgx, $wgy" ', { scalar = "int", value = '"$n"' }'

"$clmap" maps generate --out "$out/maps" --maps "$maps" --sizes "$n" --variants nolocal \
  --work-group "$wg" >"$out/maps.log" 2>&1

timing=(--device "$device" --reps "$reps")
if [ "$flush" = 1 ]; then timing+=(--flush); fi

time_one() { # NAME WORKLOAD [extra clmap time options]
  local name=$1 workload=$2
  shift 2
  printf 'timing %s… ' "$name" >&2
  if "$clmap" time "$workload" "${timing[@]}" "$@" --json >"$out/times/$name.json" \
    2>"$out/times/$name.err"; then
    echo ok >&2
  else
    echo "failed (see $out/times/$name.err)" >&2
  fi
}

time_one copy "$out/copy/copy.toml" --copy-reference
time_one copy_2d "$out/copy/copy_2d.toml"
IFS=, read -r -a map_list <<<"$maps"
for m in "${map_list[@]}"; do
  time_one "map${m}_nolocal" "$out/maps/map${m}_nolocal_n${n}.toml"
done

python3 - "$out" "$device" "$n" "$reps" "$flush" "$wg" "$traffic" <<'EOF'
import json, os, sys
out, device, n, reps, flush, wg, traffic = sys.argv[1:]
traffic = int(traffic)
times = {}
copy_reference = None
device_name = None
for f in sorted(os.listdir(os.path.join(out, "times"))):
    if not f.endswith(".json"):
        continue
    name = f[:-5]
    try:
        with open(os.path.join(out, "times", f), encoding="utf-8") as h:
            report = json.load(h)
    except (OSError, ValueError):
        continue
    times[name] = report
    device_name = device_name or report.get("device")
    if report.get("copy_reference_gbs"):
        copy_reference = report["copy_reference_gbs"]
copy = times.get("copy", {}).get("median_ns")
order = ["copy", "copy_2d"] + sorted(k for k in times if k.startswith("map"))
rows = []
for name in order:
    r = times.get(name)
    if not r or not r.get("median_ns"):
        rows.append({"kernel": name, "median_ns": None, "gbs": None, "of_copy": None})
        continue
    median = r["median_ns"]
    rows.append({
        "kernel": name,
        "median_ns": median,
        "gbs": traffic / median,
        "of_copy": copy / median if copy else None,
    })
singles = [r for r in rows if r["kernel"].startswith("map") and r["of_copy"] is not None]
lines = [
    f"Device: {device_name or device}; N = {n} ({traffic / 2**20:.0f} MiB read + written per "
    f"kernel), {reps} runs (first discarded), flush {'on' if flush == '1' else 'off'}, "
    f"microbenchmarks in {wg} groups",
    "",
    "| kernel | median | GB/s (reads + writes) | of copy |",
    "|---|---:|---:|---:|",
]
for r in rows:
    if r["median_ns"] is None:
        lines.append(f"| `{r['kernel']}` | failed | - | - |")
        continue
    of = f"{100 * r['of_copy']:.1f} %" if r["of_copy"] is not None else "-"
    lines.append(f"| `{r['kernel']}` | {r['median_ns'] / 1e3:.1f} µs | {r['gbs']:.1f} | {of} |")
if copy_reference:
    lines.append(
        f"| device copy (clEnqueueCopyBuffer) | - | {copy_reference:.1f} | "
        f"{100 * copy_reference / (traffic / copy):.1f} % |" if copy else
        f"| device copy (clEnqueueCopyBuffer) | - | {copy_reference:.1f} | - |"
    )
if singles:
    low = min(singles, key=lambda r: r["of_copy"])
    at_target = sum(1 for r in singles if r["of_copy"] >= 0.9)
    lines.append("")
    lines.append(
        f"Single MAPs at ≥ 90 % of the copy: {at_target} of {len(singles)}; lowest "
        f"`{low['kernel']}` at {100 * low['of_copy']:.1f} %."
    )
text = "\n".join(lines) + "\n"
with open(os.path.join(out, "map_bandwidth.md"), "w", encoding="utf-8") as h:
    h.write(text)
with open(os.path.join(out, "map_bandwidth.json"), "w", encoding="utf-8") as h:
    json.dump({"device": device_name or device, "n": int(n), "reps": int(reps),
               "flush": flush == "1", "work_group": wg, "traffic_bytes": traffic,
               "copy_reference_gbs": copy_reference, "rows": rows}, h, indent=2)
    h.write("\n")
sys.stdout.write(text)
EOF
