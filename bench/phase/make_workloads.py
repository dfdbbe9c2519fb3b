#!/usr/bin/env python3
"""Writes the full-size PolyBench/GPU workloads of the phase-order campaign.

Each workload runs the corpus kernel (tests/corpus/pb_*.cl) at PolyBench/GPU 1.0's default
problem size, so one PTX serves both it and the small corpus workload that validates it
(`--small tests/corpus/pb_*.toml`): the sizes are scalar arguments, never macros.

Run from anywhere: python3 bench/phase/make_workloads.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = "../../tests/corpus"
TOL = '{ rel = 1e-2, abs = 1e-3 }'


def rnd(seed):
    return f'"random({seed}, -1.0, 1.0)"'


def buf(name, n, init, tol=False):
    extra = f", tolerance = {TOL}" if tol else ""
    return f'{name} = {{ type = "float", len = {n}, init = {init}{extra} }}'


def i(v):
    return f'{{ scalar = "int", value = {v} }}'


def f(v):
    return f'{{ scalar = "float", value = {v} }}'


def launch(kernel, glob, loc, args):
    return (f'[[launch]]\nkernel = "{kernel}"\nglobal = {list(glob)}\nlocal  = {list(loc)}\n'
            f'args   = [{", ".join(args)}]\n')


def pipeline(name, comment, source, outputs, buffers, launches):
    lines = [f"# {line}" if line else "#" for line in comment.strip().splitlines()]
    text = "\n".join(lines) + "\n"
    text += f'source  = "{CORPUS}/{source}"\noutputs = {outputs!r}\n\n[buffers]\n'.replace("'", '"')
    text += "\n".join(buffers) + "\n\n" + "\n".join(launches)
    (HERE / f"{name}.toml").write_text(text)


def main():
    n = 4096
    pipeline("2dconv", f"""2DCONV at PolyBench/GPU's default size: NI = NJ = {n}.
Small workload for validation: tests/corpus/pb_2dconv.toml.""", "pb_2dconv.cl", ["B"],
             [buf("A", n * n, rnd(100)), buf("B", n * n, '"zero"', True)],
             [launch("conv2d", (n, n), (32, 8), ['"A"', '"B"', i(n), i(n)])])

    n = 2048
    pipeline("2mm", f"""2MM at PolyBench/GPU's default size: NI = NJ = NK = NL = {n}.
Small workload for validation: tests/corpus/pb_2mm.toml.""", "pb_2mm.cl", ["tmp", "D"],
             [buf("A", n * n, rnd(102)), buf("B", n * n, rnd(103)), buf("C", n * n, rnd(104)),
              buf("D", n * n, rnd(105), True), buf("tmp", n * n, '"zero"', True)],
             [launch("mm2_kernel1", (n, n), (32, 8), ['"A"', '"B"', '"tmp"', f(1.5), i(n), i(n), i(n)]),
              launch("mm2_kernel2", (n, n), (32, 8), ['"tmp"', '"C"', '"D"', f(1.2), i(n), i(n), i(n)])])

    n = 256
    pipeline("3dconv", f"""3DCONV at PolyBench/GPU's default size: NI = NJ = NK = {n}.
PolyBench/GPU launches a 2D grid once per plane; the corpus kernel covers the volume with one
3D launch, so the work is the same.
Small workload for validation: tests/corpus/pb_3dconv.toml.""", "pb_3dconv.cl", ["B"],
             [buf("A", n ** 3, rnd(101)), buf("B", n ** 3, '"zero"', True)],
             [launch("conv3d", (n, n, n), (32, 4, 1), ['"A"', '"B"', i(n), i(n), i(n)])])

    n = 512
    pipeline("3mm", f"""3MM at PolyBench/GPU's default size: NI = NJ = NK = NL = NM = {n}.
Small workload for validation: tests/corpus/pb_3mm.toml.""", "pb_3mm.cl", ["E", "F", "G"],
             [buf("A", n * n, rnd(106)), buf("B", n * n, rnd(107)), buf("C", n * n, rnd(108)),
              buf("D", n * n, rnd(109)), buf("E", n * n, '"zero"', True),
              buf("F", n * n, '"zero"', True), buf("G", n * n, '"zero"', True)],
             [launch("mm3_kernel1", (n, n), (32, 8), ['"A"', '"B"', '"E"', i(n), i(n), i(n)]),
              launch("mm3_kernel2", (n, n), (32, 8), ['"C"', '"D"', '"F"', i(n), i(n), i(n)]),
              launch("mm3_kernel3", (n, n), (32, 8), ['"E"', '"F"', '"G"', i(n), i(n), i(n)])])

    n = 4096
    pipeline("atax", f"""ATAX at PolyBench/GPU's default size: NX = NY = {n}.
Small workload for validation: tests/corpus/pb_atax.toml.""", "pb_atax.cl", ["tmp", "y"],
             [buf("A", n * n, rnd(110)), buf("x", n, rnd(111)), buf("tmp", n, '"zero"', True),
              buf("y", n, '"zero"', True)],
             [launch("atax_kernel1", (n,), (256,), ['"A"', '"x"', '"tmp"', i(n), i(n)]),
              launch("atax_kernel2", (n,), (256,), ['"A"', '"tmp"', '"y"', i(n), i(n)])])

    pipeline("bicg", f"""BICG at PolyBench/GPU's default size: NX = NY = {n}.
Small workload for validation: tests/corpus/pb_bicg.toml.""", "pb_bicg.cl", ["s", "q"],
             [buf("A", n * n, rnd(112)), buf("r", n, rnd(113)), buf("p", n, rnd(114)),
              buf("s", n, '"zero"', True), buf("q", n, '"zero"', True)],
             [launch("bicg_kernel1", (n,), (256,), ['"A"', '"r"', '"s"', i(n), i(n)]),
              launch("bicg_kernel2", (n,), (256,), ['"A"', '"p"', '"q"', i(n), i(n)])])

    m = n = 2048
    pipeline("corr", f"""CORR at PolyBench/GPU's default size: M = N = {m}.
corr_corr gives one work-item a whole row of the correlation matrix (a quadratic loop each), so
this is the slowest workload of the campaign.
Small workload for validation: tests/corpus/pb_corr.toml.""", "pb_corr.cl",
             ["mean", "std_dev", "symmat"],
             [buf("data", m * n, rnd(120)), buf("mean", m, '"zero"', True),
              buf("std_dev", m, '"zero"', True), buf("symmat", m * m, '"zero"', True)],
             [launch("corr_mean", (m,), (256,), ['"data"', '"mean"', f(float(n)), i(m), i(n)]),
              launch("corr_std", (m,), (256,), ['"data"', '"mean"', '"std_dev"', f(float(n)), f(0.005), i(m), i(n)]),
              launch("corr_reduce", (m, n), (32, 8), ['"data"', '"mean"', '"std_dev"', f(float(n)), i(m), i(n)]),
              launch("corr_corr", (m,), (256,), ['"data"', '"symmat"', i(m), i(n)])])

    pipeline("covar", f"""COVAR at PolyBench/GPU's default size: M = N = {m}.
Small workload for validation: tests/corpus/pb_covar.toml.""", "pb_covar.cl", ["mean", "symmat"],
             [buf("data", m * n, rnd(121)), buf("mean", m, '"zero"', True),
              buf("symmat", m * m, '"zero"', True)],
             [launch("covar_mean", (m,), (256,), ['"data"', '"mean"', f(float(n)), i(m), i(n)]),
              launch("covar_reduce", (m, n), (32, 8), ['"data"', '"mean"', i(m), i(n)]),
              launch("covar_covar", (m,), (256,), ['"data"', '"symmat"', i(m), i(n)])])

    nx = ny = 2048
    tmax = 100
    steps = []
    for t in range(tmax):
        steps.append(launch("fdtd_kernel1", (ny, nx), (32, 8), ['"fict"', '"ex"', '"ey"', '"hz"', i(t), i(nx), i(ny)]))
        steps.append(launch("fdtd_kernel2", (ny, nx), (32, 8), ['"ex"', '"ey"', '"hz"', i(nx), i(ny)]))
        steps.append(launch("fdtd_kernel3", (ny, nx), (32, 8), ['"ex"', '"ey"', '"hz"', i(nx), i(ny)]))
    pipeline("fdtd2d", f"""FDTD-2D at PolyBench/GPU's default field size NX = NY = {nx}, with TMAX = {tmax} time steps
instead of the default 500: the host loop passes t as an argument, so every step is its own
launch in this file, and 100 steps (300 launches) time the same per-step kernels as 500 would.
Small workload for validation: tests/corpus/pb_fdtd2d.toml.""", "pb_fdtd2d.cl", ["ex", "ey", "hz"],
             [buf("fict", tmax, rnd(122)), buf("ex", nx * ny, rnd(123), True),
              buf("ey", nx * ny, rnd(124), True), buf("hz", nx * ny, rnd(125), True)], steps)

    n = 512
    pipeline("gemm", f"""GEMM at PolyBench/GPU's default size: NI = NJ = NK = {n}.
Small workload for validation: tests/corpus/pb_gemm.toml.""", "pb_gemm.cl", ["c"],
             [buf("a", n * n, rnd(126)), buf("b", n * n, rnd(127)), buf("c", n * n, rnd(128), True)],
             [launch("gemm", (n, n), (32, 8), ['"a"', '"b"', '"c"', f(1.5), f(1.2), i(n), i(n), i(n)])])

    n = 4096
    pipeline("gesummv", f"""GESUMMV at PolyBench/GPU's default size: N = {n}.
Small workload for validation: tests/corpus/pb_gesummv.toml.""", "pb_gesummv.cl", ["y", "tmp"],
             [buf("a", n * n, rnd(129)), buf("b", n * n, rnd(130)), buf("x", n, rnd(131)),
              buf("y", n, '"zero"', True), buf("tmp", n, '"zero"', True)],
             [launch("gesummv", (n,), (256,), ['"a"', '"b"', '"x"', '"y"', '"tmp"', f(1.5), f(1.2), i(n)])])

    m = n = 512
    steps = []
    for k in range(n):
        steps.append(launch("gramschmidt_kernel1", (1,), (1,), ['"a"', '"r"', '"q"', i(k), i(m), i(n)]))
        steps.append(launch("gramschmidt_kernel2", (m,), (256,), ['"a"', '"r"', '"q"', i(k), i(m), i(n)]))
        steps.append(launch("gramschmidt_kernel3", (n,), (256,), ['"a"', '"r"', '"q"', i(k), i(m), i(n)]))
    pipeline("gramschm", f"""GRAMSCHM with M = N = {m} instead of PolyBench/GPU's default 2048: the host runs three
launches per column, and at 2048 columns the 6144 launches (one of them a single work-item
walking a whole column) would take most of a second per run and a megabyte of launch list.
Small workload for validation: tests/corpus/pb_gramschm.toml.""", "pb_gramschm.cl", ["a", "r", "q"],
             [buf("a", m * n, rnd(140), True), buf("r", n * n, '"zero"', True),
              buf("q", m * n, '"zero"', True)], steps)

    n = 4096
    pipeline("mvt", f"""MVT at PolyBench/GPU's default size: N = {n}.
Small workload for validation: tests/corpus/pb_mvt.toml.""", "pb_mvt.cl", ["x1", "x2"],
             [buf("a", n * n, rnd(141)), buf("x1", n, rnd(142), True), buf("x2", n, rnd(143), True),
              buf("y1", n, rnd(144)), buf("y2", n, rnd(145))],
             [launch("mvt_kernel1", (n,), (256,), ['"a"', '"x1"', '"y1"', i(n)]),
              launch("mvt_kernel2", (n,), (256,), ['"a"', '"x2"', '"y2"', i(n)])])

    n = 2048
    pipeline("syr2k", f"""SYR2K at PolyBench/GPU's default size: N = M = {n}.
Small workload for validation: tests/corpus/pb_syr2k.toml.""", "pb_syr2k.cl", ["c"],
             [buf("a", n * n, rnd(150)), buf("b", n * n, rnd(151)), buf("c", n * n, rnd(152), True)],
             [launch("syr2k", (n, n), (32, 8), ['"a"', '"b"', '"c"', f(1.5), f(1.2), i(n), i(n)])])

    n = 1024
    pipeline("syrk", f"""SYRK at PolyBench/GPU's default size: N = M = {n}.
Small workload for validation: tests/corpus/pb_syrk.toml.""", "pb_syrk.cl", ["c"],
             [buf("a", n * n, rnd(153)), buf("c", n * n, rnd(155), True)],
             [launch("syrk", (n, n), (32, 8), ['"a"', '"c"', f(1.5), f(1.2), i(n), i(n)])])


if __name__ == "__main__":
    main()
