#!/usr/bin/env bash
# Writes the workload the simulator benchmarks share: the corpus's naive matrix multiply
# (tests/corpus/mm_simple.cl) at N x N, 16 x 16 work-groups, random A and B.
#
# Usage: bench/mm_workload.sh N FILE
set -euo pipefail
n=${1:?usage: bench/mm_workload.sh N FILE}
out=${2:?usage: bench/mm_workload.sh N FILE}
source=$(cd "$(dirname "$0")/.." && pwd)/tests/corpus/mm_simple.cl
cat >"$out" <<TOML
kernel = "simpleMultiply"
source = "$source"
global = [$n, $n]
local  = [16, 16]
[[arg]]
name = "A"
buffer = "float"
len = $((n * n))
init = "random(10, -1.0, 1.0)"
[[arg]]
name = "B"
buffer = "float"
len = $((n * n))
init = "random(11, -1.0, 1.0)"
[[arg]]
name = "C"
buffer = "float"
len = $((n * n))
init = "zero"
output = true
[[arg]]
name = "N"
scalar = "int"
value = $n
TOML
