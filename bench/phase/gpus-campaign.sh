#!/usr/bin/env bash
# The phase-order campaign spread over every GPU of one machine, side by side and without
# Slurm: the kernels are dealt out to the GPUs (most expensive first, each to the GPU with the
# least work so far), and each GPU runs bench/phase/campaign.sh on its own kernels with its own
# database in OUTDIR/gpuI, seeing only its GPU (CUDA_VISIBLE_DEVICES). When all have returned,
# the finished reports are gathered in OUTDIR, the databases merged into OUTDIR/phase.db
# (`clmap db merge`), and the summary and chart made from the reports.
#
# Usage: bench/phase/gpus-campaign.sh OUTDIR [BUDGET]
#
# Resumable like campaign.sh: run the same command again until it prints "campaign complete".
# A kernel whose report in OUTDIR says its minimisation did not finish is dealt out again, with
# its report, and campaign.sh finishes that minimisation without searching again.
# Environment: as campaign.sh (CLMAP, KERNELS, KERNEL_SET, PHASE_ARGS, CAMPAIGN_SECONDS, …) and
# GPUS (how many GPUs to use; default: the number `nvidia-smi -L` lists), HARD_LIMIT (seconds
# after which every GPU's campaign is stopped, finished or not; default CAMPAIGN_SECONDS + 30),
# GPU_FIRST (the first GPU index to use, default 0: two campaigns can share one machine, e.g.
# GPUS=1 on GPU 0 and GPUS=3 GPU_FIRST=1 on the others).
set -u
OUT=${1:?usage: bench/phase/gpus-campaign.sh OUTDIR [BUDGET]}
BUDGET=${2:-1000}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLMAP=${CLMAP:-$ROOT/target/release/clmap}
KERNELS=${KERNELS:-"2dconv 2mm 3dconv 3mm atax bicg corr covar fdtd2d gemm gesummv gramschm mvt syr2k syrk"}
if [ -z "${GPUS:-}" ]; then
    GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
if ! [ "${GPUS:-0}" -ge 1 ] 2>/dev/null; then
    echo "no GPU found (set GPUS)" >&2
    exit 3
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export CAMPAIGN_SECONDS=${CAMPAIGN_SECONDS:-540}
HARD_LIMIT=${HARD_LIMIT:-$((CAMPAIGN_SECONDS + 30))}
GPU_FIRST=${GPU_FIRST:-0}

# Relative cost of one kernel's search: the time of one launch dominates (every new PTX is
# validated and timed on the full inputs), so the reductions over large matrices come first.
cost() {
    case "$1" in
        corr | covar | syr2k | gramschm) echo 8 ;;
        gramschm_512) echo 4 ;;
        2mm | 3mm | syrk | atax | bicg | mvt | gesummv) echo 4 ;;
        *) echo 2 ;;
    esac
}

# A later command may deal the kernels out differently (another GPU count, kernels finished):
# every GPU starts from the merged database of all earlier commands, so each kernel resumes
# wherever it ran before, and from one pass pool.
for ((g = 0; g < GPUS; g++)); do
    mkdir -p "$OUT/gpu$g"
    if [ -s "$OUT/phase.db" ]; then
        cp "$OUT/phase.db" "$OUT/gpu$g/phase.db"
    fi
    if [ ! -s "$OUT/gpu$g/passes" ]; then
        for pool in "$OUT"/gpu*/passes; do
            [ -s "$pool" ] && { cp -r "$pool" "$OUT/gpu$g/passes"; break; }
        done
    fi
done

# True when the report's minimisation stopped before it was done.
minimisation_pending() {
    python3 - "$1" <<'PY'
import json, sys
minimised = json.load(open(sys.argv[1])).get("minimised")
sys.exit(0 if minimised is not None and minimised.get("complete") is False else 1)
PY
}

# Deal the kernels out: longest first, each to the least loaded GPU; kernels with a final
# report from an earlier command are done, unless their minimisation is not.
declare -a load share
for ((g = 0; g < GPUS; g++)); do load[g]=0; share[g]=""; done
for k in $(for k in $KERNELS; do echo "$(cost "$k") $k"; done | sort -rn | cut -d' ' -f2); do
    if [ -s "$OUT/$k.json" ] && ! minimisation_pending "$OUT/$k.json"; then
        echo "$k: finished by an earlier command ($OUT/$k.json)"
        continue
    fi
    best=0
    for ((g = 1; g < GPUS; g++)); do
        [ "${load[g]}" -lt "${load[best]}" ] && best=$g
    done
    load[best]=$((load[best] + $(cost "$k")))
    share[best]="${share[best]} $k"
done

pids=()
for ((g = 0; g < GPUS; g++)); do
    [ -n "${share[g]}" ] || continue
    echo "GPU $((GPU_FIRST + g)):${share[g]}"
    mkdir -p "$OUT/gpu$g"
    # A report whose minimisation is to be finished goes with its kernel (its modification
    # time kept, so that only a rewritten report counts as newer when they are gathered).
    for k in ${share[g]}; do
        [ -s "$OUT/$k.json" ] && cp -p "$OUT/$k.json" "$OUT/gpu$g/$k.json"
    done
    # campaign.sh stops starting work in time, but the final round of a kernel whose launches
    # take 100 ms can outlast its reserve; the hard limit keeps the command inside its slot
    # (every answer is already in the database, so the next command resumes there).
    CUDA_VISIBLE_DEVICES=$((GPU_FIRST + g)) KERNELS="${share[g]}" CLMAP=$CLMAP \
        timeout -k 10 "$HARD_LIMIT" \
        bash "$ROOT/bench/phase/campaign.sh" "$OUT/gpu$g" "$BUDGET" > "$OUT/gpu$g/campaign.log" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

pending=0
for ((g = 0; g < GPUS; g++)); do
    [ -n "${share[g]}" ] || continue
    sed "s/^/[gpu$g] /" "$OUT/gpu$g/campaign.log"
    grep -q "campaign complete" "$OUT/gpu$g/campaign.log" || pending=1
done
# Every finished report, also those of kernels an earlier command (another KERNELS) searched;
# of several copies of one kernel's report (one rewritten by this command, older ones left in
# other GPUs' directories), the newest.
for report in "$OUT"/gpu*/*.json; do
    [ -s "$report" ] || continue
    name=$(basename "$report")
    case "$name" in summary.json) continue ;; esac
    if [ ! -s "$OUT/$name" ] || [ "$report" -nt "$OUT/$name" ]; then
        cp -p "$report" "$OUT/$name"
    fi
done
dbs=()
for ((g = 0; g < GPUS; g++)); do
    [ -s "$OUT/gpu$g/phase.db" ] && dbs+=("$OUT/gpu$g/phase.db")
done
if [ "${#dbs[@]}" -gt 0 ]; then
    rm -f "$OUT/phase.db"
    "$CLMAP" db merge "${dbs[@]}" --out "$OUT/phase.db" || echo "merging the databases failed" >&2
fi
python3 "$ROOT/bench/phase/chart.py" "$OUT" || true
if [ "$pending" -eq 0 ]; then
    echo "campaign complete: $OUT/summary.csv, $OUT/summary.json, $OUT/speedups.svg"
else
    echo "campaign incomplete: run the same command again to continue"
fi
