#!/usr/bin/env bash
# The Aristotle MAP campaign on one device: 33 MAPs x 6 datasets x all variants, then the
# database export, the b/B/mbr tables, the Table 5 distribution and the heatmaps.
#
#   bench/aristotle_campaign.sh DEVICE OUTDIR
#
# DEVICE is a clmap device selector (`gpu`, `cpu`, `nvidia`, `0:0`). The database lives in
# OUTDIR (or $DB) and is reused: each call measures for at most $TIME_LIMIT seconds and stops
# cleanly, so on machines that limit a command's time the same command is simply repeated until
# it prints "campaign complete". Killing it at any moment loses no finished measurement.
#
# Environment: REPS (runs per measurement incl. the warm-up, default 21), TIME_LIMIT (seconds
# of measuring per call, default 480), SIZES (default 128,...,4096), MAPS (default all),
# VARIANTS (default nolocal,max,min,padded), COMPOSE_SAMPLE (K: after the MAPs, also measure
# K composer pairs and score the composing rules; default 0 = none), CLMAP (the binary, default target/release/clmap,
# built when missing), HISTORY (the 2014 CSV, imported for comparison when present).
# Exit status: 0 complete, 75 more calls needed, other values are errors.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 DEVICE OUTDIR" >&2
    exit 2
fi
DEVICE=$1
OUTDIR=$2
REPS=${REPS:-21}
TIME_LIMIT=${TIME_LIMIT:-480}
SIZES=${SIZES:-128,256,512,1024,2048,4096}
MAPS=${MAPS:-all}
VARIANTS=${VARIANTS:-nolocal,max,min,padded}
COMPOSE_SAMPLE=${COMPOSE_SAMPLE:-0}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLMAP=${CLMAP:-$ROOT/target/release/clmap}
HISTORY=${HISTORY:-$ROOT/../shared/data/aristotle-pdb-2014.csv}
START=$(date +%s)

mkdir -p "$OUTDIR"
DB=${DB:-$OUTDIR/aristotle.db}
elapsed() { echo "$(( $(date +%s) - START )) s"; }

if [ ! -x "$CLMAP" ]; then
    echo "building clmap (release) ..."
    (cd "$ROOT" && cargo build --release -p clmap)
fi

echo "campaign on '$DEVICE': maps $MAPS, sizes $SIZES, variants $VARIANTS, reps $REPS, db $DB"
"$CLMAP" bench maps --device "$DEVICE" --maps "$MAPS" --sizes "$SIZES" --variants "$VARIANTS" \
    --reps "$REPS" --time-limit "$TIME_LIMIT" --copy-reference --db "$DB" --json \
    >"$OUTDIR/last-run.json"
LEFT=$(sed -n 's/.*"left_for_later": *\([0-9]*\).*/\1/p' "$OUTDIR/last-run.json" | head -n1)
FAILED=$(sed -n 's/.*"failed": *\([0-9]*\).*/\1/p' "$OUTDIR/last-run.json" | head -n1)
echo "this call: $(tr -d '\n ' <"$OUTDIR/last-run.json" | head -c 400)"
echo "elapsed: $(elapsed)"
if [ "${LEFT:-0}" != "0" ]; then
    echo "$LEFT units left: run the same command again to continue"
    exit 75
fi
if [ "${FAILED:-0}" != "0" ]; then
    echo "warning: $FAILED units failed in this call; a rerun retries them" >&2
fi

if [ "$COMPOSE_SAMPLE" != "0" ]; then
    echo "composer: $COMPOSE_SAMPLE pairs"
    "$CLMAP" bench compose --device "$DEVICE" --sample "$COMPOSE_SAMPLE" --sizes "$SIZES" \
        --reps "$REPS" --time-limit "$TIME_LIMIT" --db "$DB" --json >"$OUTDIR/compose.json"
    if grep -q '"left_for_later": *[1-9]' "$OUTDIR/compose.json"; then
        echo "composer pairs left: run the same command again to continue; elapsed: $(elapsed)"
        exit 75
    fi
    "$CLMAP" db export --table aristotle_compose_units --csv \
        --out "$OUTDIR/aristotle_compose_units.csv" --db "$DB"
    "$CLMAP" db export --table aristotle_compose_samples --csv \
        --out "$OUTDIR/aristotle_compose_samples.csv" --db "$DB"
fi
for table in devices aristotle_copy_bandwidth aristotle_units aristotle_samples aristotle_validations; do
    "$CLMAP" db export --table "$table" --csv --out "$OUTDIR/$table.csv" --db "$DB"
done
"$CLMAP" db maps --device "$DEVICE" --db "$DB" >"$OUTDIR/tables.txt" || true
"$CLMAP" db maps --device "$DEVICE" --db "$DB" --json >"$OUTDIR/tables.json" || true
# The live device's tables first: a selector like `nvidia` would also match 2014 platforms.
if [ -f "$HISTORY" ]; then
    "$CLMAP" db import-aristotle "$HISTORY" --db "$DB"
fi
"$CLMAP" db maps --db "$DB" --plot "$OUTDIR/plots" >"$OUTDIR/all-devices.txt"
echo "campaign complete; exports, tables and plots in $OUTDIR; elapsed: $(elapsed)"
