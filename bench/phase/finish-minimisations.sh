#!/usr/bin/env bash
# Finishes the unfinished minimisations of a campaign's reports, and nothing else: no kernel is
# searched again. The reports (one per kernel, `NAME.json` or `NAME_h100.json` as kept under
# bench/results/) are copied into OUTDIR as NAME.json, once (a later command goes on from the
# copies in OUTDIR), and bench/phase/gpus-campaign.sh deals the kernels whose minimisation says
# `"complete": false` out to the GPUs, each GPU running `clmap phase --minimise-only --report`.
# The search's databases need not exist: clmap then compiles each chosen sequence again
# (refusing a report whose PTX this toolchain does not give), times it with NVIDIA's build as
# the reference, and goes on from the report's minimised sequence. Keep OUTDIR (its reports
# and phase.db) between commands: the database spares the next command the removals this one
# measured.
#
# Usage: bench/phase/finish-minimisations.sh REPORTS OUTDIR
#
# The compile-only part of a minimisation needs no GPU: `clmap phase W.toml --small S.toml
# --minimise-only --report R --same-code-only --json > R2` runs it on any machine with the
# toolchain; a REPORTS directory of such reports leaves the GPU only the timed part (see
# bench/results/phase_corpus_1000/minimise_logs_2026-12-07c/).
#
# Run the same command again until it prints "campaign complete". The reports in OUTDIR are
# the results (copy them back under bench/results/ by hand).
# Environment: as gpus-campaign.sh and campaign.sh (CLMAP, CLMAP_LLVM_BIN, CLMAP_LIBCLC,
# CLMAP_CLC_INCLUDE, GPUS, CAMPAIGN_SECONDS, MINIMISE_SECONDS, …); PHASE_ARGS defaults to the
# campaign's "--reps 3 --final-reps 10 --random-inputs 10". The kernel set (original style
# or corpus) is read from the reports.
set -u
REPORTS=${1:?usage: bench/phase/finish-minimisations.sh REPORTS OUTDIR}
OUT=${2:?usage: bench/phase/finish-minimisations.sh REPORTS OUTDIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"

# NAME and the kernel set of every report in REPORTS, and whether its minimisation is pending.
listing=$(python3 - "$REPORTS" <<'PY'
import json, os, re, sys
folder = sys.argv[1]
for name in sorted(os.listdir(folder)):
    match = re.fullmatch(r"(.+?)(_h[0-9]+)?\.json", name)
    if not match:
        continue
    try:
        report = json.load(open(os.path.join(folder, name)))
    except (OSError, ValueError):
        continue
    if not isinstance(report, dict) or "workload" not in report:
        continue
    kernel_set = "original" if "/original/" in report["workload"] else "corpus"
    minimised = report.get("minimised")
    pending = minimised is not None and minimised.get("complete") is False
    print(match.group(1), kernel_set, "pending" if pending else "done", name)
PY
) || exit 1

sets=$(echo "$listing" | awk 'NF { print $2 }' | sort -u)
if [ "$(echo "$sets" | grep -c .)" -gt 1 ]; then
    echo "$REPORTS holds reports of both kernel sets; give each set its own directory" >&2
    exit 1
fi
kernels=""
while read -r kernel _set state file; do
    [ -n "${kernel:-}" ] || continue
    if [ ! -s "$OUT/$kernel.json" ]; then
        [ "$state" = pending ] || continue
        cp -p "$REPORTS/$file" "$OUT/$kernel.json"
    fi
    kernels="$kernels $kernel"
done <<< "$listing"
if [ -z "$kernels" ]; then
    echo "no report in $REPORTS has an unfinished minimisation"
    echo "campaign complete"
    exit 0
fi

# Only kernels with a report in OUTDIR: campaign.sh searches a kernel without one.
export KERNELS="${kernels# }" KERNEL_SET=${sets:-original}
export PHASE_ARGS=${PHASE_ARGS:-"--reps 3 --final-reps 10 --random-inputs 10"}
echo "minimisations of $KERNEL_SET kernels: $KERNELS"
exec bash "$ROOT/bench/phase/gpus-campaign.sh" "$OUT" 1000
