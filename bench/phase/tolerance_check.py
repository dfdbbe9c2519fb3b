#!/usr/bin/env python3
"""How two runs of one workload compare under the phase search's validation rule.

Usage: bench/phase/tolerance_check.py WORKLOAD.toml [DEVICE_A] [DEVICE_B]

Runs the workload with `clmap run --out` on two targets (default: the simulator and `cpu`) and
counts, per output buffer, the float values that differ by more than 1 % of the value plus
1e-4 of the buffer's largest magnitude, the rule `clmap phase` applies to every PTX
(crates/phase/src/device_eval.rs, through the workload crate's compare_buffers). Two correct implementations that disagree under it show
that the workload is too sensitive to floating-point ordering for the rule.
"""
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
            scale = 1e-4 * max((abs(x) for x in ref), default=0.0)
            failing = sum(1 for x, y in zip(ref, got)
                          if abs(x - y) > scale + 0.01 * abs(x))
            worst = max((abs(x - y) for x, y in zip(ref, got)), default=0.0)
            print(f"{out.stem}: {failing} of {len(ref)} values outside the rule "
                  f"(largest difference {worst:.3g}, scale tolerance {scale:.3g})")


if __name__ == "__main__":
    main()
