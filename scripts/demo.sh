#!/usr/bin/env bash
# The guided tour `make demo` runs: one example kernel through every part of clmap that works
# without a GPU. Each step prints the command it runs, so a newcomer can repeat it by hand.
set -euo pipefail
# A binary given on the command line is taken relative to where the script was started.
if [ -n "${1:-}" ]; then clmap=$(realpath "$1"); else clmap=target/release/clmap; fi
cd "$(dirname "$0")/.."
# The host-program steps run from bench/hosts, so they need the binary's absolute path.
clmap_abs=$(realpath "$clmap")

step() {
  printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "${*:2}"
  "${@:2}"
}

step "1. Check: does clmap understand the kernel? (OpenCL C 1.2, with the build options a host would pass)" \
  "$clmap" check examples/transpose.cl -D TILE=16
step "2. Print: the kernel as clmap understood it, macros expanded, valid OpenCL C again" \
  "$clmap" print examples/transpose.cl -D TILE=16
step "3. IR: the typed form every analysis works on (first lines)" \
  bash -c "\"$clmap\" ir examples/transpose.cl -D TILE=16 | head -n 40"
step "4. Diagnostics: a kernel with a mistake gets a compiler-style message" \
  bash -c "\"$clmap\" check tests/malformed/$(ls tests/malformed | grep '\.cl$' | head -n 1) || true"
step "5. Simulate: run the workload (kernel + inputs) on the built-in lock-step simulator, all checkers on" \
  "$clmap" run examples/transpose.toml --races --uninit
step "6. Catch a bug: the same kernel without its barrier; the race checker names the line and work-items" \
  bash -c "\"$clmap\" run examples/missing_barrier.toml --races || echo \"(exit code \$?: the kernel did something wrong)\""
step "7. Devices: the OpenCL devices of this machine (PoCL gives a CPU device)" \
  "$clmap" devices
step "8. Compare: simulator and the CPU device on the same inputs must agree" \
  "$clmap" compare examples/transpose.toml examples/jacobi_pipeline.toml --devices sim,cpu
step "9. Time: the kernel on the CPU device, profiling events, first run discarded" \
  "$clmap" time examples/transpose.toml --device cpu --reps 11
step "10. Measure: architecture-independent metrics (AIWC + parallel spatial locality) from the simulation" \
  bash -c "\"$clmap\" analyze examples/transpose.toml | head -n 45"
step "11. Rewrite: remove the local-memory staging (Grover), validated on random inputs before it is printed" \
  "$clmap" unlocal examples/transpose.toml --diff
step "12. Explain: the index expressions and the linear system behind the rewrite (seed 000, Table III)" \
  "$clmap" unlocal examples/transpose.toml --explain
step "13. Decide: time both versions on the CPU device; np > 1 means removing local memory is faster here" \
  "$clmap" unlocal examples/transpose.toml --measure --device cpu --reps 11
step "14. Run an unmodified OpenCL program: clmap's platform under a PolyBench-style host program that asks for a GPU" \
  bash -c "make -s -C bench/hosts mvt >/dev/null && cd bench/hosts && \"$clmap_abs\" exec -- ./mvt 512"
step "15. Capture its launches as workloads, and replay one with the outputs the capture recorded" \
  bash -c "rm -rf target/demo-capture && cd bench/hosts && \"$clmap_abs\" exec -q --capture ../../target/demo-capture -- ./mvt 256 && cd ../.. && ls target/demo-capture && \"$clmap\" run target/demo-capture/segment-01.toml --expect target/demo-capture/segment-01.expected"
