#!/usr/bin/env bash
# The best pass orders of an earlier campaign, re-timed on this GPU (another model) or on a
# larger workload of the same kernel (GRAMSCHM at the suite's 2048² from the 512² search):
# for every kernel, `clmap phase --sequences REPORT --budget K` evaluates the report's
# minimised and best sequences (K distinct) and nothing else, with the same validation on the
# small inputs, the final round against NVIDIA's build and every -O level, and the final
# validation on the full inputs, random inputs and aliased layouts. No search, no
# minimisation: what the sequences found elsewhere are worth here.
#
# Usage: bench/phase/transfer.sh REPORTS OUTDIR [KERNELS]
#   REPORTS  a campaign's reports, REPORTS/NAME_h100.json (else REPORTS/NAME.json)
#   KERNELS  names as in campaign.sh (default: all fifteen); NAME=STEM takes the sequences of
#            REPORTS/STEM.json instead, e.g. gramschm=gramschm_512_h100
# Writes OUTDIR/NAME.json (the reports, read by bench/phase/chart.py), NAME.log, phase.db and
# the pass cache, then prints chart.py's table with the original GPU's speedup beside.
# Environment: CLMAP, KERNEL_SET (original, the default here, or corpus), PHASE_ARGS (extra
# arguments, e.g. "--final-reps 10 --random-inputs 10"), SKIP_DONE=1 (keep kernels whose
# report exists, so a second command goes on where the first stopped).
set -u
REPORTS=${1:?usage: bench/phase/transfer.sh REPORTS OUTDIR [KERNELS]}
OUT=${2:?usage: bench/phase/transfer.sh REPORTS OUTDIR [KERNELS]}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLMAP=${CLMAP:-$ROOT/target/release/clmap}
KERNELS=${3:-"2dconv 2mm 3dconv 3mm atax bicg corr covar fdtd2d gemm gesummv gramschm=gramschm_512_h100 mvt syr2k syrk"}
case "${KERNEL_SET:-original}" in
    original) WORKLOADS=$ROOT/bench/phase/original; SMALL_PREFIX=pbo_ ;;
    corpus) WORKLOADS=$ROOT/bench/phase; SMALL_PREFIX=pb_ ;;
    *) echo "KERNEL_SET must be original or corpus" >&2; exit 1 ;;
esac
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The distinct sequences a report holds (minimised and best).
distinct_sequences() {
    python3 - "$1" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
seen = {tuple(part["passes"]) for part in (report.get("minimised"), report.get("best")) if part}
print(len(seen))
PY
}

# The report whose sequences an item of KERNELS takes: NAME=STEM's, else NAME_h100's or NAME's.
report_of() {
    local item=$1 k=${1%%=*}
    if [ "$item" != "$k" ]; then
        echo "$REPORTS/${item#*=}.json"
    elif [ -s "$REPORTS/${k}_h100.json" ]; then
        echo "$REPORTS/${k}_h100.json"
    else
        echo "$REPORTS/$k.json"
    fi
}

for item in $KERNELS; do
    k=${item%%=*}
    report=$(report_of "$item")
    if [ ! -s "$report" ]; then
        echo "$k: no report $report, skipped"
        continue
    fi
    if [ "${SKIP_DONE:-0}" = 1 ] && [ -s "$OUT/$k.json" ]; then
        echo "$k: done by an earlier command"
        continue
    fi
    count=$(distinct_sequences "$report")
    echo "$k: $count sequences of $(basename "$report") on $WORKLOADS/$k.toml ($(date -u +%T))"
    # shellcheck disable=SC2086
    if "$CLMAP" phase "$WORKLOADS/$k.toml" --small "$ROOT/tests/corpus/$SMALL_PREFIX$k.toml" \
        --device gpu --sequences "$report" --budget "$count" --no-minimise --json \
        --db "$OUT/phase.db" --pass-cache "$OUT/passes" ${PHASE_ARGS:-} \
        >"$OUT/$k.json.part" 2>"$OUT/$k.log"; then
        mv "$OUT/$k.json.part" "$OUT/$k.json"
    else
        echo "$k: failed (exit $?), see $OUT/$k.log"
        tail -3 "$OUT/$k.log"
    fi
done

python3 "$ROOT/bench/phase/chart.py" "$OUT"
echo
echo "the same sequences where they were found (vs NVIDIA from source):"
for item in $KERNELS; do
    k=${item%%=*}
    [ -s "$OUT/$k.json" ] || continue
    python3 - "$k" "$(report_of "$item")" "$OUT/$k.json" <<'PY'
import json, sys
kernel, there, here = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
def speedup(report):
    best = report.get("best") or {}
    return (best.get("speedups") or {}).get("vs_source")
def fmt(x):
    return f"{x:.2f}x" if x else "none valid"
print(f"{kernel:10s} there {fmt(speedup(there))} on {there.get('device', '?')[:40]}; "
      f"here {fmt(speedup(here))} on {here.get('device', '?')[:40]}")
PY
done
