#!/bin/sh
# The serial part of `clmap analyze` on naive matmul 512, old and new binaries alternately.
# usage: serial_summary.sh OLD_BIN NEW_BIN [RUNS]
set -e
old=$1 new=$2 runs=${3:-5}
bench/mm_workload.sh 512 /tmp/mm512.toml >/dev/null
for threads in 2 1; do
  i=0
  while [ $i -lt "$runs" ]; do
    for which in old new; do
      if [ $which = old ]; then bin=$old; else bin=$new; fi
      CLMAP_PROFILE=1 "$bin" analyze /tmp/mm512.toml --threads $threads 2>&1 >/dev/null |
        awk -v w=$which -v t=$threads '
          /metrics summary/ { s = $4 }
          /^profile: process/ { p = $3; for (i = 1; i <= NF; i++) if ($i == "serial") r = $(i + 1) }
          END { printf "%s threads %d: process %s ms, serial %s ms, summary %s ms\n", w, t, p, r, s }'
    done
    i=$((i + 1))
  done
done
