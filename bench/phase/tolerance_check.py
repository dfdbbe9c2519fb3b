#!/usr/bin/env python3
"""How two runs of one workload compare under the phase search's validation rule.

Usage: bench/phase/tolerance_check.py WORKLOAD.toml [DEVICE_A] [DEVICE_B]

Runs the workload with `clmap run --out` on two targets (default: the simulator and `cpu`) and
reports, per output buffer, the largest difference as a fraction of the buffer's largest
magnitude: `clmap phase` accepts a PTX when it is at most 1 % (crates/phase/src/validation.rs,
unless the buffer declares its own norm). For comparison it also counts the values that differ
by more than 1 % of themselves plus 1e-4 of the largest magnitude, the per-value rule of the
first campaign. Two correct implementations that disagree under a rule show that the rule is
too strict for the workload's sensitivity to floating-point ordering.
"""
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLMAP = ROOT / "target" / "release" / "clmap"


def run(workload, device, out):
    cmd = [str(CLMAP), "run", workload, "--out", str(out)]
    if device != "sim":
        cmd += ["--device", device]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def floats(path):
    data = path.read_bytes()
    return struct.unpack(f"<{len(data) // 4}f", data)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    workload = sys.argv[1]
    first, second = (sys.argv[2:4] + ["sim", "cpu"][len(sys.argv[2:4]):])[:2]
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a", Path(tmp) / "b"
        run(workload, first, a)
        run(workload, second, b)
        for out in sorted(a.glob("*.bin")):
            ref, got = floats(out), floats(b / out.name)
            largest = max((abs(x) for x in ref if math.isfinite(x)), default=0.0)
            worst = max((abs(x - y) for x, y in zip(ref, got)), default=0.0)
            norm_error = worst / largest if largest else (0.0 if worst == 0 else math.inf)
            per_value = sum(1 for x, y in zip(ref, got)
                            if abs(x - y) > 1e-4 * largest + 0.01 * abs(x))
            verdict = "passes" if norm_error <= 0.01 else "FAILS"
            print(f"{out.stem}: largest difference {norm_error:.3g} of the largest magnitude "
                  f"({verdict} the 1 % norm rule); {per_value} of {len(ref)} values outside "
                  f"the first campaign's per-value rule")


if __name__ == "__main__":
    main()
