#!/usr/bin/env python3
"""Writes the original-style PolyBench/GPU workloads of the phase-order campaign.

For each kernel of bench/phase/original/*.cl two workloads come from one description, so
they can only differ in their sizes:

* bench/phase/original/NAME.toml at PolyBench/GPU's default problem size, and
* tests/corpus/pbo_NAME.toml at a small size, which validates every new PTX during a search
  (`--small`) and is checked against a CPU reference in crates/phase/tests/polybench_original.rs.

The sizes are scalar arguments and `[sizes]` entries, never macros, so one PTX serves both.
Inputs follow the suite's init_array formulas (formula initialisers); the comments of each
workload name the exceptions.

Run from anywhere: python3 bench/phase/original/make_workloads.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[2] / "tests" / "corpus"
NORM = "{ norm = 0.01 }"


def formula(expr, *shape):
    dims = ", ".join(f'"{d}"' for d in shape)
    return f'{{ formula = "{expr}", shape = [{dims}] }}' if shape else f'{{ formula = "{expr}" }}'


def buf(name, length, init='"zero"', output=False):
    tolerance = f", tolerance = {NORM}" if output else ""
    return f'{name} = {{ type = "float", len = "{length}", init = {init}{tolerance} }}'


def i(v):
    return f'{{ scalar = "int", value = "{v}" }}' if isinstance(v, str) else f'{{ scalar = "int", value = {v} }}'


def f(v):
    return f'{{ scalar = "float", value = {float(v)!r} }}'


def launch(kernel, glob, loc, args, table="launch", extra=""):
    dims = ", ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in glob)
    local = ", ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in loc)
    return (f'[[{table}]]\nkernel = "{kernel}"\nglobal = [{dims}]\nlocal  = [{local}]\n'
            f'args   = [{", ".join(args)}]\n{extra}')


class Benchmark:
    def __init__(self, name, what, outputs, full, small, buffers, body, note="", reduced=None):
        self.name, self.what, self.outputs = name, what, outputs
        self.full, self.small = full, small
        self.buffers, self.body, self.note = buffers, body, note
        # (sizes, why): a third workload, NAME_<n>.toml, for a kernel whose default size makes
        # a phase search of 1,000 sequences too long; it shares the small workload.
        self.reduced = reduced

    def text(self, sizes, header, source):
        comment = header.splitlines() + self.note.strip().splitlines()
        out = "".join(f"# {line}\n" if line else "#\n" for line in comment)
        outputs = ", ".join(f'"{o}"' for o in self.outputs)
        out += f'source  = "{source}"\noutputs = [{outputs}]\n'
        out += "\n[sizes]\n" + "".join(f"{k} = {v}\n" for k, v in sizes.items())
        out += "\n[buffers]\n" + "\n".join(self.buffers) + "\n\n" + "\n".join(self.body)
        return out

    def write(self):
        full_sizes = ", ".join(f"{k.upper()} = {v}" for k, v in self.full.items() if k != "wg")
        (HERE / f"{self.name}.toml").write_text(self.text(
            self.full,
            f"{self.what} in PolyBench/GPU's original style at the suite's default size: "
            f"{full_sizes}.\n"
            f"Small workload for validation: tests/corpus/pbo_{self.name}.toml.",
            f"{self.name}.cl"))
        small_sizes = ", ".join(f"{k} = {v}" for k, v in self.small.items() if k != "wg")
        (CORPUS / f"pbo_{self.name}.toml").write_text(self.text(
            self.small,
            f"{self.what} in PolyBench/GPU's original style, small ({small_sizes}): validates\n"
            f"the PTX of phase-order searches on bench/phase/original/{self.name}.toml.",
            f"../../bench/phase/original/{self.name}.cl"))
        if self.reduced:
            sizes, why = self.reduced
            label = sizes["n"]
            reduced_sizes = ", ".join(f"{k.upper()} = {v}" for k, v in sizes.items() if k != "wg")
            (HERE / f"{self.name}_{label}.toml").write_text(self.text(
                sizes,
                f"{self.what} in PolyBench/GPU's original style at {reduced_sizes}, below the\n"
                f"suite's default ({full_sizes}): {why}\n"
                f"The kernels, launches and initialisation are those of {self.name}.toml.\n"
                f"Small workload for validation: tests/corpus/pbo_{self.name}.toml (the campaign\n"
                f"scripts drop the `_{label}` suffix to find it).",
                f"{self.name}.cl"))


TILE = (32, 8)  # the suite's DIM_LOCAL_WORK_GROUP_X / _Y


def benchmarks():
    yield Benchmark(
        "2dconv", "2DCONV", ["B"],
        {"ni": 4096, "nj": 4096}, {"ni": 48, "nj": 64},
        [buf("A", "ni * nj", '"random(100, 0.0, 1.0)"'), buf("B", "ni * nj", output=True)],
        [launch("conv2d", ("nj", "ni"), TILE, ['"A"', '"B"', i("ni"), i("nj")])],
        note="A holds uniform random values in [0, 1), as the suite's rand() / RAND_MAX.")

    yield Benchmark(
        "3dconv", "3DCONV", ["B"],
        {"ni": 256, "nj": 256, "nk": 256}, {"ni": 8, "nj": 16, "nk": 32},
        [buf("A", "ni * nj * nk", formula("i % 12 + 2 * (j % 7) + 3 * (k % 13)", "ni", "nj", "nk")),
         buf("B", "ni * nj * nk", output=True)],
        [launch("conv3d", ("nk", "nj"), TILE,
                ['"A"', '"B"', i("ni"), i("nj"), i("nk"), i("i + 1")],
                extra='repeat = "ni - 2"\n')],
        note="One 2D launch per interior plane i = 1 .. ni - 2, as the suite's host loop.")

    yield Benchmark(
        "2mm", "2MM", ["tmp", "D"],
        {"ni": 2048, "nj": 2048, "nk": 2048, "nl": 2048}, {"ni": 40, "nj": 64, "nk": 48, "nl": 32},
        [buf("A", "ni * nk", formula("i * j / ni", "ni", "nk")),
         buf("B", "nk * nj", formula("i * (j + 1) / nj", "nk", "nj")),
         buf("C", "nj * nl", formula("i * (j + 3) / nl", "nj", "nl")),
         buf("D", "ni * nl", formula("i * (j + 2) / nk", "ni", "nl"), output=True),
         buf("tmp", "ni * nj", output=True)],
        [launch("mm2_kernel1", ("nj", "ni"), TILE,
                ['"A"', '"B"', '"tmp"', f(32412), i("ni"), i("nj"), i("nk")]),
         launch("mm2_kernel2", ("nl", "ni"), TILE,
                ['"tmp"', '"C"', '"D"', f(2123), i("ni"), i("nl"), i("nj")])],
        note="alpha = 32412, beta = 2123, as the suite sets them.")

    yield Benchmark(
        "3mm", "3MM", ["E", "F", "G"],
        {"ni": 512, "nj": 512, "nk": 512, "nl": 512, "nm": 512},
        {"ni": 40, "nj": 64, "nk": 48, "nl": 32, "nm": 56},
        [buf("A", "ni * nk", formula("i * j / ni", "ni", "nk")),
         buf("B", "nk * nj", formula("i * (j + 1) / nj", "nk", "nj")),
         buf("C", "nj * nm", formula("i * (j + 3) / nl", "nj", "nm")),
         buf("D", "nm * nl", formula("i * (j + 2) / nk", "nm", "nl")),
         buf("E", "ni * nj", output=True), buf("F", "nj * nl", output=True),
         buf("G", "ni * nl", output=True)],
        [launch("mm3_kernel1", ("nj", "ni"), TILE, ['"A"', '"B"', '"E"', i("ni"), i("nj"), i("nk")]),
         launch("mm3_kernel2", ("nl", "nj"), TILE, ['"C"', '"D"', '"F"', i("nj"), i("nl"), i("nm")]),
         launch("mm3_kernel3", ("nl", "ni"), TILE, ['"E"', '"F"', '"G"', i("ni"), i("nl"), i("nj")])])

    yield Benchmark(
        "atax", "ATAX", ["tmp", "y"],
        {"nx": 4096, "ny": 4096, "wg": 256}, {"nx": 96, "ny": 64, "wg": 32},
        [buf("A", "nx * ny", formula("i * j / nx", "nx", "ny")),
         buf("x", "ny", formula("i * pi")),
         buf("tmp", "nx", output=True), buf("y", "ny", output=True)],
        [launch("atax_kernel1", ("nx",), ("wg",), ['"A"', '"x"', '"tmp"', i("nx"), i("ny")]),
         launch("atax_kernel2", ("ny",), ("wg",), ['"A"', '"tmp"', '"y"', i("nx"), i("ny")])])

    yield Benchmark(
        "bicg", "BICG", ["s", "q"],
        {"nx": 4096, "ny": 4096, "wg": 256}, {"nx": 96, "ny": 64, "wg": 32},
        [buf("A", "nx * ny", formula("i * j / nx", "nx", "ny")),
         buf("r", "nx", formula("i * pi")), buf("p", "ny", formula("i * pi")),
         buf("s", "ny", output=True), buf("q", "nx", output=True)],
        [launch("bicg_kernel1", ("ny",), ("wg",), ['"A"', '"r"', '"s"', i("nx"), i("ny")]),
         launch("bicg_kernel2", ("nx",), ("wg",), ['"A"', '"p"', '"q"', i("nx"), i("ny")])])

    float_n = 3214212.01
    yield Benchmark(
        "corr", "CORR", ["mean", "std_dev", "symmat"],
        {"m": 2048, "n": 2048, "wg": 256}, {"m": 64, "n": 96, "wg": 32},
        [buf("data", "n * m", formula("i * j / m", "n", "m")),
         buf("mean", "m", output=True), buf("std_dev", "m", output=True),
         buf("symmat", "m * m", output=True)],
        [launch("corr_mean", ("m",), ("wg",), ['"data"', '"mean"', f(float_n), i("m"), i("n")]),
         launch("corr_std", ("m",), ("wg",),
                ['"data"', '"mean"', '"std_dev"', f(float_n), f(0.005), i("m"), i("n")]),
         launch("corr_reduce", ("m", "n"), TILE,
                ['"data"', '"mean"', '"std_dev"', f(float_n), i("m"), i("n")]),
         launch("corr_corr", ("m",), ("wg",), ['"data"', '"symmat"', i("m"), i("n")])],
        note="float_n = 3214212.01 and eps = 0.005, the suite's constants.")

    yield Benchmark(
        "covar", "COVAR", ["mean", "symmat"],
        {"m": 2048, "n": 2048, "wg": 256}, {"m": 64, "n": 96, "wg": 32},
        [buf("data", "n * m", formula("i * j / m", "n", "m")),
         buf("mean", "m", output=True), buf("symmat", "m * m", output=True)],
        [launch("covar_mean", ("m",), ("wg",), ['"data"', '"mean"', f(float_n), i("m"), i("n")]),
         launch("covar_reduce", ("m", "n"), TILE, ['"data"', '"mean"', i("m"), i("n")]),
         launch("covar_covar", ("m",), ("wg",), ['"data"', '"symmat"', i("m"), i("n")])],
        note="float_n = 3214212.01, the suite's constant.")

    step = [
        launch("fdtd_kernel1", ("ny", "nx"), TILE,
               ['"fict"', '"ex"', '"ey"', '"hz"', i("t"), i("nx"), i("ny")], table="group.launch"),
        launch("fdtd_kernel2", ("ny", "nx"), TILE, ['"ex"', '"ey"', '"hz"', i("nx"), i("ny")],
               table="group.launch"),
        launch("fdtd_kernel3", ("ny", "nx"), TILE, ['"ex"', '"ey"', '"hz"', i("nx"), i("ny")],
               table="group.launch"),
    ]
    yield Benchmark(
        "fdtd2d", "FDTD-2D", ["ex", "ey", "hz"],
        {"tmax": 500, "nx": 2048, "ny": 2048}, {"tmax": 10, "nx": 48, "ny": 64},
        [buf("fict", "tmax", formula("i")),
         buf("ex", "nx * ny", formula("(i * (j + 1) + 1) / nx", "nx", "ny"), output=True),
         buf("ey", "nx * ny", formula("((i - 1) * (j + 2) + 2) / nx", "nx", "ny"), output=True),
         buf("hz", "nx * ny", formula("((i - 9) * (j + 4) + 3) / nx", "nx", "ny"), output=True)],
        ['[[group]]\nrepeat = "tmax"\nindex  = "t"\n'] + step,
        note="The host loop over the time steps t is a [[group]] of the three launches.")

    yield Benchmark(
        "gemm", "GEMM", ["c"],
        {"ni": 512, "nj": 512, "nk": 512}, {"ni": 40, "nj": 64, "nk": 48},
        [buf("a", "ni * nk", formula("i * j / ni", "ni", "nk")),
         buf("b", "nk * nj", formula("i * j / ni", "nk", "nj")),
         buf("c", "ni * nj", formula("i * j / ni", "ni", "nj"), output=True)],
        [launch("gemm", ("nj", "ni"), TILE,
                ['"a"', '"b"', '"c"', f(32412), f(2123), i("ni"), i("nj"), i("nk")])],
        note="alpha = 32412, beta = 2123, as the suite sets them.")

    yield Benchmark(
        "gesummv", "GESUMMV", ["y", "tmp"],
        {"n": 4096, "wg": 256}, {"n": 96, "wg": 32},
        [buf("a", "n * n", formula("i * j / n", "n", "n")),
         buf("b", "n * n", formula("i * j / n", "n", "n")),
         buf("x", "n", formula("i / n")),
         buf("y", "n", output=True), buf("tmp", "n", output=True)],
        [launch("gesummv", ("n",), ("wg",),
                ['"a"', '"b"', '"x"', '"y"', '"tmp"', f(43532), f(12313), i("n")])],
        note="alpha = 43532, beta = 12313, as the suite sets them.")

    column = [
        launch("gramschmidt_kernel1", ("wg",), ("wg",),
               ['"a"', '"r"', '"q"', i("k"), i("m"), i("n")], table="group.launch"),
        launch("gramschmidt_kernel2", ("m",), ("wg",),
               ['"a"', '"r"', '"q"', i("k"), i("m"), i("n")], table="group.launch"),
        launch("gramschmidt_kernel3", ("n",), ("wg",),
               ['"a"', '"r"', '"q"', i("k"), i("m"), i("n")], table="group.launch"),
    ]
    yield Benchmark(
        "gramschm", "GRAMSCHM", ["a", "r", "q"],
        {"m": 2048, "n": 2048, "wg": 256}, {"m": 96, "n": 32, "wg": 32},
        [buf("a", "m * n", '"random(140, 0.0, 1.0)"', output=True),
         buf("r", "n * n", output=True), buf("q", "m * n", output=True)],
        ['[[group]]\nrepeat = "n"\nindex  = "k"\n'] + column,
        note="""The host loop over the columns k is a [[group]] of the three launches. The third
launch covers all n columns (those up to k do nothing) where the suite shrinks it as k grows.
A holds uniform random values in [0, 1), not the suite's A[i][j] = i * j / M: that matrix
has a zero first column, so R[0][0] = 0 and every output is NaN, which any code "validates".""",
        reduced=({"m": 512, "n": 512, "wg": 256},
                 "at the default one run takes 1.0-2.7 s\n"
                 "on an H100 (6,144 launches, the first kernel a serial norm loop over every row), so\n"
                 "1,000 validated sequences would need about three GPU hours."))

    yield Benchmark(
        "mvt", "MVT", ["x1", "x2"],
        {"n": 4096, "wg": 256}, {"n": 96, "wg": 32},
        [buf("a", "n * n", formula("i * j / n", "n", "n")),
         buf("x1", "n", formula("i / n"), output=True),
         buf("x2", "n", formula("(i + 1) / n"), output=True),
         buf("y1", "n", formula("(i + 3) / n")), buf("y2", "n", formula("(i + 4) / n"))],
        [launch("mvt_kernel1", ("n",), ("wg",), ['"a"', '"x1"', '"y1"', i("n")]),
         launch("mvt_kernel2", ("n",), ("wg",), ['"a"', '"x2"', '"y2"', i("n")])])

    yield Benchmark(
        "syr2k", "SYR2K", ["c"],
        {"n": 2048, "m": 2048}, {"n": 64, "m": 48},
        [buf("a", "n * m", formula("i * j / n", "n", "m")),
         buf("b", "n * m", formula("i * j / n", "n", "m")),
         buf("c", "n * n", formula("i * j / n", "n", "n"), output=True)],
        [launch("syr2k", ("n", "n"), TILE,
                ['"a"', '"b"', '"c"', f(32412), f(2123), i("m"), i("n")])],
        note="alpha = 32412, beta = 2123, as the suite sets them.")

    yield Benchmark(
        "syrk", "SYRK", ["c"],
        {"n": 1024, "m": 1024}, {"n": 64, "m": 48},
        [buf("a", "n * m", formula("i * j / n", "n", "m")),
         buf("c", "n * n", formula("i * j / n", "n", "n"), output=True)],
        [launch("syrk", ("n", "n"), TILE, ['"a"', '"c"', f(32412), f(2123), i("m"), i("n")])],
        note="alpha = 32412, beta = 2123, as the suite sets them.")


def main():
    for benchmark in benchmarks():
        benchmark.write()


if __name__ == "__main__":
    main()
