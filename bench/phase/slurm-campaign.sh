#!/usr/bin/env bash
# One phase-order search split into N shards that run as a Slurm job array (or side by side
# on this machine with RUNNER=local, e.g. one per GPU), each writing its own database, then
# merged into one.
#
#   bench/phase/slurm-campaign.sh OUTDIR N WORKLOAD [clmap phase options...]
#
# Every shard runs `clmap phase WORKLOAD OPTIONS --strategy random --shard I/N
# --db OUTDIR/shard-I.db --json > OUTDIR/shard-I.json`: the random sequences whose index is I
# modulo N, of the whole search's --budget. When all have finished, `clmap db merge` writes
# OUTDIR/merged.db, which holds what one process running the whole search would have stored;
# running the same command without --shard on it finds every sequence there and only runs
# the final round (re-timing, final validation, minimisation) for the whole search:
#
#   clmap phase WORKLOAD OPTIONS --strategy random --db OUTDIR/merged.db
#
# Environment: CLMAP (the clmap binary; default `clmap` on PATH), RUNNER (`slurm`, the
# default, or `local`), SBATCH_ARGS (more sbatch options: --partition, --gres=gpu:1, --time),
# CUDA_SHARDS=1 with RUNNER=local (shard I sees GPU I % number of GPUs only).
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,21p' "$0" >&2
  exit 2
fi
outdir=$1
shards=$2
workload=$3
shift 3
clmap=${CLMAP:-clmap}
runner=${RUNNER:-slurm}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
if ! [ "$shards" -ge 1 ] 2>/dev/null; then
  echo "N must be a number of shards (>= 1), not '$shards'" >&2
  exit 2
fi

# Every shard's command, without its index.
common=$(printf '%q ' "$clmap" phase "$workload" "$@" --strategy random --json)
out_q=$(printf '%q' "$outdir")

rm -f "$outdir"/shard-*.json "$outdir"/shard-*.log
case "$runner" in
  slurm)
    command -v sbatch >/dev/null || { echo "sbatch not found (RUNNER=local runs without Slurm)" >&2; exit 3; }
    script="$outdir/shards.sbatch"
    {
      echo '#!/usr/bin/env bash'
      echo "#SBATCH --job-name=clmap-phase"
      echo "#SBATCH --array=0-$((shards - 1))"
      echo "#SBATCH --output=$outdir/shard-%a.log"
      echo 'set -euo pipefail'
      echo "cd $(printf '%q' "$PWD")"
      echo 'i=$SLURM_ARRAY_TASK_ID'
      echo "$common --shard \"\$i/$shards\" --db $out_q/shard-\$i.db > $out_q/shard-\$i.json"
    } > "$script"
    # --wait: return when every task has ended, with a failure if any failed.
    # shellcheck disable=SC2086
    sbatch --wait --parsable ${SBATCH_ARGS:-} "$script" >/dev/null
    ;;
  local)
    gpus=$(nvidia-smi -L 2>/dev/null | wc -l || echo 0)
    pids=()
    for ((i = 0; i < shards; i++)); do
      (
        if [ "${CUDA_SHARDS:-0}" = 1 ] && [ "$gpus" -gt 0 ]; then
          export CUDA_VISIBLE_DEVICES=$((i % gpus))
        fi
        eval "$common --shard $i/$shards --db $out_q/shard-$i.db" \
          > "$outdir/shard-$i.json" 2> "$outdir/shard-$i.log"
      ) &
      pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    [ "$failed" = 0 ] || { echo "a shard failed; see $outdir/shard-*.log" >&2; exit 1; }
    ;;
  *)
    echo "RUNNER must be slurm or local, not '$runner'" >&2
    exit 2
    ;;
esac

inputs=()
for ((i = 0; i < shards; i++)); do
  [ -s "$outdir/shard-$i.json" ] || { echo "shard $i wrote no report; see $outdir/shard-$i.log" >&2; exit 1; }
  inputs+=("$outdir/shard-$i.db")
done
rm -f "$outdir/merged.db" "$outdir/merged.db-wal" "$outdir/merged.db-shm"
"$clmap" db merge "${inputs[@]}" -o "$outdir/merged.db"
