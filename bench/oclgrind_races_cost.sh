#!/usr/bin/env bash
# What the Oclgrind-order race replay (`--oclgrind-output`) costs against clmap's own race
# checker and against Oclgrind, on the naive matrix multiply of tests/corpus/mm_simple.cl.
#
# Usage: bench/oclgrind_races_cost.sh [N...]     (default: 128 256)
#
# For each N, one thread, the best of REPS runs (wall seconds, CPU seconds (user + system) and
# peak memory, /usr/bin/time; CPU time is the steadier figure on a loaded machine):
#   races     clmap run M.toml --races --uninit
#   oclgrind  clmap run M.toml --races --uninit --oclgrind-output
#   kernel    oclgrind-kernel --num-threads 1 --data-races --uninitialized M.sim (the workload
#             exported with --export-sim), when oclgrind-kernel is installed and N <= OCLGRIND_MAX
# and the ratios oclgrind/races (wall and CPU) and kernel/oclgrind, measured in the same run.
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

# The best of $reps runs of a command: "SECONDS CPU_SECONDS KB" (the least wall time, the
# least user + system time, the peak resident memory of the fastest run).
best() {
    local best_s="" best_cpu="" best_kb=""
    for _ in $(seq "$reps"); do
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>&1 || true
        read -r s user sys kb <"$work/time"
        cpu=$(awk -v u="$user" -v y="$sys" 'BEGIN { printf "%.2f", u + y }')
        if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
            best_s=$s best_kb=$kb
        fi
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then
            best_cpu=$cpu
        fi
    done
    echo "$best_s $best_cpu $best_kb"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

printf '%-6s %-28s %-28s %-22s %-14s %-14s %s\n' N "races (wall, cpu)" \
    "--oclgrind-output (wall, cpu)" oclgrind-kernel "replay/races" "(cpu)" "oclgrind-kernel/replay"
for n in "${sizes[@]}"; do
    toml="$work/mm_$n.toml"
    bench/mm_workload.sh "$n" "$toml"
    read -r races_s races_cpu races_kb < <(best "$clmap" run "$toml" --races --uninit --threads 1)
    read -r replay_s replay_cpu replay_kb < <(best "$clmap" run "$toml" --races --uninit \
        --oclgrind-output --threads 1)
    kernel="not run" kernel_ratio="-"
    if command -v oclgrind-kernel >/dev/null && [ "$n" -le "$oclgrind_max" ]; then
        "$clmap" run "$toml" --export-sim "$work/mm_$n.sim" >/dev/null
        read -r kernel_s _kernel_cpu kernel_kb < <(best oclgrind-kernel --num-threads 1 \
            --data-races --uninitialized "$work/mm_$n.sim")
        kernel="${kernel_s} s ${kernel_kb} KB"
        kernel_ratio=$(ratio "$kernel_s" "$replay_s")
    fi
    printf '%-6s %-28s %-28s %-22s %-14s %-14s %s\n' "$n" \
        "${races_s} s ${races_cpu} s ${races_kb} KB" "${replay_s} s ${replay_cpu} s ${replay_kb} KB" \
        "$kernel" "$(ratio "$replay_s" "$races_s")x" "$(ratio "$replay_cpu" "$races_cpu")x" \
        "${kernel_ratio}x"
done
