#!/usr/bin/env bash
# The phase-order campaign: `clmap phase` on the 15 PolyBench/GPU workloads of bench/phase/,
# each validated on its small corpus workload, then a summary (JSON and CSV) and the chart.
#
# Usage: bench/phase/campaign.sh OUTDIR [BUDGET]
#
# Resumable: every answer goes to OUTDIR/phase.db (and the detected pass pool to OUTDIR/passes,
# so every command draws its sequences from the same pool), and a kernel whose report OUTDIR/NAME.json
# exists is skipped, so the campaign can be spread over several short commands (each at most
# CAMPAIGN_SECONDS long, default 540: the script stops starting searches when the time is
# nearly spent and gives the last one only what is left, via `clmap phase --time`). Run the
# same command again until it prints "campaign complete". A kernel whose report says its
# minimisation did not finish (`"complete": false`, the time ran out) is not searched again:
# `clmap phase --minimise-only --report OUTDIR/NAME.json` finishes the minimisation of that
# report's chosen sequence, answering from the database everything earlier commands measured
# (or, without the search's database, going on from the report alone on the same GPU model,
# driver and toolchain), and rewrites the report.
#
# Environment: CLMAP (the clmap binary; default target/release/clmap), CLMAP_LLVM_BIN,
# CLMAP_LIBCLC, CLMAP_CLC_INCLUDE (the toolchain, see docs/phase.md), PHASE_ARGS (extra
# arguments for every search, e.g. "--strategy random --seed 3"), KERNELS (a subset), DEVICE
# (default gpu), MAX_SEARCH (cap on one kernel's search in seconds), KERNEL_SET (`corpus`, the
# default: bench/phase/NAME.toml validated on tests/corpus/pb_NAME.toml; `original`: the
# original-style kernels, bench/phase/original/NAME.toml on tests/corpus/pbo_NAME.toml; give
# each set its own OUTDIR), MINIMISE_SECONDS (the most one kernel's unfinished minimisation
# gets in one command; by default the minimisations still to do in this command share its time
# left, each taking an equal part of what the ones before it left).
set -u
OUT=${1:?usage: bench/phase/campaign.sh OUTDIR [BUDGET]}
BUDGET=${2:-1000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLMAP=${CLMAP:-$ROOT/target/release/clmap}
SECONDS_LIMIT=${CAMPAIGN_SECONDS:-540}
KERNELS=${KERNELS:-"2dconv 2mm 3dconv 3mm atax bicg corr covar fdtd2d gemm gesummv gramschm mvt syr2k syrk"}
# A search needs time for its baselines and final round besides the exploration itself.
FINAL_RESERVE=${FINAL_RESERVE:-90}
# Caps one kernel's search (seconds; 0 = no cap), so one command spreads over several kernels.
MAX_SEARCH=${MAX_SEARCH:-0}
case "${KERNEL_SET:-corpus}" in
    corpus) WORKLOADS=$ROOT/bench/phase; SMALL_PREFIX=pb_ ;;
    original) WORKLOADS=$ROOT/bench/phase/original; SMALL_PREFIX=pbo_ ;;
    *) echo "KERNEL_SET must be corpus or original" >&2; exit 1 ;;
esac
mkdir -p "$OUT"
start=$(date +%s)
pending=0

# True when the report's minimisation stopped before it was done.
minimisation_pending() {
    python3 - "$1" <<'PY'
import json, sys
minimised = json.load(open(sys.argv[1])).get("minimised")
sys.exit(0 if minimised is not None and minimised.get("complete") is False else 1)
PY
}

# The unfinished minimisations this command has to share its time among.
to_minimise=0
for k in $KERNELS; do
    [ -s "$OUT/$k.json" ] && minimisation_pending "$OUT/$k.json" && to_minimise=$((to_minimise + 1))
done

for k in $KERNELS; do
    report="$OUT/$k.json"
    if [ -s "$report" ]; then
        minimisation_pending "$report" || continue
        left=$(( SECONDS_LIMIT - ($(date +%s) - start) ))
        # An equal part of the time left for each minimisation still to do; the minimised
        # sequence's final validation and timing follow the minimisation.
        minimise_time=$(( left / to_minimise - 60 ))
        to_minimise=$((to_minimise - 1))
        if [ "${MINIMISE_SECONDS:-0}" -gt 0 ] && [ "$minimise_time" -gt "$MINIMISE_SECONDS" ]; then
            minimise_time=$MINIMISE_SECONDS
        fi
        if [ "$minimise_time" -lt 30 ]; then
            pending=1
            echo "== $k: minimisation not resumed, the time of this command is spent (run the script again)"
            continue
        fi
        echo "== $k: finishing the minimisation (at most ${minimise_time}s)"
        # shellcheck disable=SC2086
        if "$CLMAP" phase "$WORKLOADS/$k.toml" --small "$ROOT/tests/corpus/$SMALL_PREFIX${k%_*}.toml" \
            --device "${DEVICE:-gpu}" --db "$OUT/phase.db" --pass-cache "$OUT/passes" \
            --json ${PHASE_ARGS:-} --minimise-only --report "$report" --time "${minimise_time}s" \
            > "$report.part" 2>> "$OUT/$k.log"; then
            mv "$report.part" "$report"
            python3 - "$report" <<'PY' || true
import json, sys
m = json.load(open(sys.argv[1]))["minimised"]
state = "complete" if m["complete"] else "stopped by time; rerun to continue"
print(f"   {m['original_len']} -> {len(m['passes'])} passes ({state}); "
      f"{m['counts']['sequences']} sequences, {m['counts']['resumed']} from the database, "
      f"{m['counts']['timed']} timed ({m['counts'].get('screened', 0)} by one run); "
      f"validated: {m['validated']}")
PY
        else
            echo "   failed (see $OUT/$k.log):"
            tail -n 5 "$OUT/$k.log" | sed 's/^/   /'
        fi
        minimisation_pending "$report" && pending=1
        continue
    fi
    left=$(( SECONDS_LIMIT - ($(date +%s) - start) ))
    if [ "$left" -le $(( FINAL_RESERVE + 30 )) ]; then
        pending=1
        echo "== $k: not started, the time of this command is spent (run the script again)"
        continue
    fi
    # A candidate that breaks the device (an illegal address on the GPU) costs clmap's device
    # worker a restart and the search goes on; should the device not come back, the culprit
    # is stored as failed and a fresh command resumes past it, as long as the time lasts.
    attempt=0
    while :; do
        attempt=$((attempt + 1))
        left=$(( SECONDS_LIMIT - ($(date +%s) - start) ))
        if [ "$left" -le $(( FINAL_RESERVE + 30 )) ]; then
            echo "   the time of this command is spent (run the script again)"
            break
        fi
        # clmap gives minimisation a fifth of the search time on top (at least 30 s).
        search_time=$(( (left - FINAL_RESERVE) * 5 / 6 - 30 ))
        if [ "$search_time" -lt 30 ]; then search_time=30; fi
        if [ "$MAX_SEARCH" -gt 0 ] && [ "$search_time" -gt "$MAX_SEARCH" ]; then
            search_time=$MAX_SEARCH
        fi
        echo "== $k (budget $BUDGET, search for at most ${search_time}s, attempt $attempt)"
        # shellcheck disable=SC2086
        if "$CLMAP" phase "$WORKLOADS/$k.toml" --small "$ROOT/tests/corpus/$SMALL_PREFIX${k%_*}.toml" \
            --device "${DEVICE:-gpu}" --budget "$BUDGET" --time "${search_time}s" --db "$OUT/phase.db" \
            --pass-cache "$OUT/passes" \
            --json ${PHASE_ARGS:-} > "$OUT/$k.json.part" 2>> "$OUT/$k.log"; then
            # A search cut short by --time is resumed by the next command; only a search that
            # spent its whole budget is final.
            python3 - "$OUT/$k.json.part" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
restarts = r.get("device_restart_seconds", [])
broken = r.get("broke_device", [])
mean = sum(restarts) / len(restarts) if restarts else 0.0
print(f"   {r['counts']['sequences']} sequences ({r['counts']['timed']} timed) in "
      f"{r['search_seconds']:.0f} s; {len(broken)} PTX broke the device in this context; "
      f"{len(restarts)} device restarts in this command ({mean:.1f} s each)")
PY
            if grep -q '"stopped_by": "budget"' "$OUT/$k.json.part"; then
                mv "$OUT/$k.json.part" "$report"
            else
                echo "   stopped by time; rerun to continue"
            fi
            break
        elif tail -n 3 "$OUT/$k.log" | grep -q "resume in a fresh process"; then
            echo "   a kernel broke the device; resuming in a fresh process"
            continue
        else
            echo "   failed (see $OUT/$k.log):"
            tail -n 5 "$OUT/$k.log" | sed 's/^/   /'
            break
        fi
    done
    # Only a kernel without its final report keeps the campaign open.
    [ -s "$report" ] || pending=1
done
python3 "$ROOT/bench/phase/chart.py" "$OUT" || true
if [ "$pending" -eq 0 ]; then
    echo "campaign complete: $OUT/summary.csv, $OUT/summary.json, $OUT/speedups.svg"
else
    echo "campaign incomplete: run the same command again to continue"
fi
