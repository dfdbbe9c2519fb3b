#!/usr/bin/env bash
# Issue 19's accuracy table: how often `clmap advise`'s layout is the measured winner among a
# kernel's layout variants, and how far from the winner's time it is when it is not.
#
# Usage: bench/advise_accuracy.sh [DEVICE] [OUT_DIR]      (defaults: gpu, out/advise_accuracy)
#
# For every workload, `clmap tune --work-groups none --json` builds the layout variants (as
# written, Grover's unlocal:*, stage:<buffer>), validates them on the simulator, checks and
# times them on DEVICE with the same --reps, and asks the advisor on the same device and
# database. bench/advise_accuracy.py then writes OUT_DIR/accuracy.{md,json} from the reports.
#
# Workloads: the corpus kernels below, then Aristotle's microbenchmarks as `clmap maps generate`
# writes them (every MAP, `nolocal`). A corpus kernel is listed when `clmap maps detect` finds
# the MAP of a buffer of its tuned kernel (so the advisor has something to say) and tune builds
# a second layout variant (Grover's unlocal or clmap-stage's tile) beside the kernel as
# written. The generated `max`/`min` kernels are left out by default: Grover cannot undo their
# tiles (the loading work-item is not unique), so they give no second variant. The Single MAPs
# stay in: the stager refuses them (no element is read twice), and the table says so.
#
# Environment:
#   CLMAP         the clmap binary (default target/release/clmap; a carried stripped one works)
#   REPS          runs per variant and per advisor microbenchmark, first discarded (default 21)
#   SEEDS         random input sets per variant on the simulator (default 2)
#   LIMIT         seconds per workload: tune's --budget, and a hard stop a little later (20)
#   TOTAL         seconds for the whole run: workloads not started by then are listed as
#                 skipped (default 200: with LIMIT, a GPU run ends within four minutes)
#   MAP_SIZE      N of the MAP microbenchmarks (default 256); MAPS: MAP numbers, `all` or
#                 `none` (default all); MAP_VARIANTS (default nolocal)
#   WORKLOADS     corpus workload names to run instead of the list below (space-separated)
#   FLUSH=1       flush the caches between timed runs
#   INTERLEAVED=1 ask the advisor with interleaved pairs (`clmap tune --interleaved`)
# OUT_DIR/accuracy.db is the run's performance database, made afresh on every run so that no
# variant is answered from measurements taken with other settings.
set -euo pipefail
cd "$(dirname "$0")/.."

device=${1:-gpu}
out=${2:-out/advise_accuracy}
clmap=${CLMAP:-target/release/clmap}
reps=${REPS:-21}
seeds=${SEEDS:-2}
limit=${LIMIT:-20}
total=${TOTAL:-200}
map_size=${MAP_SIZE:-256}
maps=${MAPS:-all}
map_variants=${MAP_VARIANTS:-nolocal}
corpus=(
  jacobi2d mm_simple mm_coalesced_a mm_float4_tiled transpose_rg_block
  pb_2dconv pb_2mm pb_3mm pb_atax pb_bicg pb_fdtd2d pb_gemm pb_gesummv pb_mvt
  pbo_2mm pbo_3mm pbo_atax pbo_bicg pbo_fdtd2d pbo_gemm pbo_gesummv pbo_mvt
  mm_nvidia_tile_a mm_nvidia_tile_b mm_nvidia_tile_ab
)
if [ -n "${WORKLOADS:-}" ]; then
  read -r -a corpus <<<"$WORKLOADS"
fi

if [ ! -x "$clmap" ]; then
  echo "no clmap binary at $clmap: build it (cargo build --release -p clmap) or set CLMAP" >&2
  exit 1
fi
mkdir -p "$out"
rm -rf "$out/runs" "$out/maps" "$out/accuracy.db" "$out/accuracy.md" "$out/accuracy.json"
mkdir -p "$out/runs"
db="$out/accuracy.db"

workloads=()
for w in "${corpus[@]}"; do
  workloads+=("tests/corpus/$w.toml")
done
if [ "$maps" != "none" ]; then
  "$clmap" maps generate --out "$out/maps" --maps "$maps" --sizes "$map_size" \
    --variants "$map_variants" --work-group 16x16 >"$out/maps.log" 2>&1
  for f in "$out"/maps/map*.toml; do
    workloads+=("$f")
  done
fi

cat >"$out/meta.json" <<EOF
{"device": "$device", "reps": $reps, "seeds": $seeds, "limit_s": $limit, "total_s": $total,
 "map_size": $map_size, "maps": "$maps", "map_variants": "$map_variants", "flush": ${FLUSH:-0}, "interleaved": ${INTERLEAVED:-0},
 "clmap_version": "$("$clmap" --version 2>/dev/null | sed 's/^clmap //' | tr -d '"\\' || echo unknown)",
 "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)",
 "started": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
EOF

tune_extra=()
if [ "${FLUSH:-0}" = 1 ]; then tune_extra=(--flush); fi
if [ "${INTERLEAVED:-0}" = 1 ]; then tune_extra+=(--interleaved); fi
start=$SECONDS
n=0
for w in "${workloads[@]}"; do
  n=$((n + 1))
  name=$(basename "$w" .toml)
  base="$out/runs/$name"
  if [ $((SECONDS - start)) -ge "$total" ]; then
    echo "skipped: the run's $total s were spent before it started" >"$base.err"
    echo skipped >"$base.rc"
    continue
  fi
  printf '[%d/%d] %s… ' "$n" "${#workloads[@]}" "$name" >&2
  rc=0
  # --budget stops starting variants after LIMIT s; the hard stop catches a slow advisor
  # campaign or a long simulation inside one variant.
  timeout -k 5 $((limit + 15)) "$clmap" tune "$w" --device "$device" --work-groups none \
    --reps "$reps" --seeds "$seeds" --budget "${limit}s" --db "$db" "${tune_extra[@]}" --json \
    >"$base.json" 2>"$base.err" || rc=$?
  echo "$rc" >"$base.rc"
  echo "exit $rc, $((SECONDS - start)) s" >&2
done

python3 bench/advise_accuracy.py "$out"
