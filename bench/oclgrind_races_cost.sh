#!/usr/bin/env bash
# What the Oclgrind-order race replay (`--oclgrind-output`) costs against clmap's own race
# checker and against Oclgrind, on the naive matrix multiply of tests/corpus/mm_simple.cl.
#
# Usage: bench/oclgrind_races_cost.sh [N...]     (default: 128 256)
#
# For each N, one thread, the best of REPS runs (wall seconds and peak memory, /usr/bin/time):
#   races     clmap run M.toml --races --uninit
#   oclgrind  clmap run M.toml --races --uninit --oclgrind-output
#   kernel    oclgrind-kernel --num-threads 1 --data-races --uninitialized M.sim (the workload
#             exported with --export-sim), when oclgrind-kernel is installed and N <= OCLGRIND_MAX
# and the ratios oclgrind/races and kernel/oclgrind, measured in the same run.
#
# Environment:
#   CLMAP         the clmap binary (default target/release/clmap)
#   REPS          runs per command, the fastest kept (default 3)
#   OCLGRIND_MAX  largest N Oclgrind is run at (default 256: it takes minutes beyond)
set -euo pipefail
cd "$(dirname "$0")/.."

clmap=${CLMAP:-target/release/clmap}
reps=${REPS:-3}
oclgrind_max=${OCLGRIND_MAX:-256}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(128 256)
[ -x "$clmap" ] || { echo "no clmap binary at $clmap (cargo build --release -p clmap)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp tests/corpus/mm_simple.cl "$work/"

# The fastest of $reps runs of a command: "SECONDS KB" (wall time, peak resident memory).
best() {
    local best_s="" best_kb=""
    for _ in $(seq "$reps"); do
        /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1 || true
        read -r s kb <"$work/time"
        if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
            best_s=$s best_kb=$kb
        fi
    done
    echo "$best_s $best_kb"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

printf '%-6s %-22s %-22s %-22s %-14s %s\n' N races "races --oclgrind-output" oclgrind-kernel \
    "replay/races" "oclgrind-kernel/replay"
for n in "${sizes[@]}"; do
    toml="$work/mm_$n.toml"
    bench/mm_workload.sh "$n" "$toml"
    read -r races_s races_kb < <(best "$clmap" run "$toml" --races --uninit --threads 1)
    read -r replay_s replay_kb < <(best "$clmap" run "$toml" --races --uninit --oclgrind-output \
        --threads 1)
    kernel="not run" kernel_ratio="-"
    if command -v oclgrind-kernel >/dev/null && [ "$n" -le "$oclgrind_max" ]; then
        "$clmap" run "$toml" --export-sim "$work/mm_$n.sim" >/dev/null
        read -r kernel_s kernel_kb < <(best oclgrind-kernel --num-threads 1 --data-races \
            --uninitialized "$work/mm_$n.sim")
        kernel="${kernel_s} s ${kernel_kb} KB"
        kernel_ratio=$(ratio "$kernel_s" "$replay_s")
    fi
    printf '%-6s %-22s %-22s %-22s %-14s %s\n' "$n" "${races_s} s ${races_kb} KB" \
        "${replay_s} s ${replay_kb} KB" "$kernel" "$(ratio "$replay_s" "$races_s")x" \
        "${kernel_ratio}x"
done
