"""PyOpenCL's own kernels on the first OpenCL device: array arithmetic, elementwise, reduction,
scan, stream compaction, radix and bitonic sorts, random numbers, math functions, complex and
double arithmetic, atomics, list-of-lists building. PyOpenCL generates every kernel's source at
run time from its templates, so under `clmap exec` this is code of a kind and size (thousands of
lines per program, macros, anonymous unions, struct-valued helpers) that clmap's front end and
simulator meet in the field. Each result is checked against NumPy.

Usage: python3 pyopencl_arrays.py [N]   (default 2000). Prints one line per check and ALL OK, or
exits 1 naming what failed.
"""
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.clmath as clmath
from pyopencl.algorithm import ListOfListsBuilder, RadixSort, copy_if
from pyopencl.bitonic_sort import BitonicSort
from pyopencl.clrandom import PhiloxGenerator
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel
from pyopencl.scan import ExclusiveScanKernel, InclusiveScanKernel

ctx = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(ctx)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
rng = np.random.default_rng(7)
failed = []


def check(name, got, want, tol=1e-4):
    good = np.allclose(got, want, rtol=tol, atol=tol)
    if not good:
        failed.append(name)
    print(f"{name}: {'ok' if good else 'WRONG'}", flush=True)


def attempt(name, body):
    """Runs one group of checks; a build or launch failure fails the group, not the script."""
    try:
        body()
    except Exception as error:  # noqa: BLE001 - the message is the diagnostic
        failed.append(name)
        print(f"{name}: FAILED {type(error).__name__}: {str(error)[:2000]}", flush=True)


a = rng.random(n).astype(np.float32) + 0.1
b = rng.random(n).astype(np.float32)
ints = rng.integers(0, 100, n).astype(np.int32)
c = (rng.random(n) + 1j * rng.random(n)).astype(np.complex64)
d = rng.random(n)
da, db, dints = cla.to_device(queue, a), cla.to_device(queue, b), cla.to_device(queue, ints)
dc, dd = cla.to_device(queue, c), cla.to_device(queue, d)


def arithmetic():
    check("add", (da + db).get(), a + b)
    check("axpbz", (2.5 * da - db).get(), 2.5 * a - b)
    lin = ElementwiseKernel(ctx, "float k, float *x, float *y, float *z",
                            "z[i] = k * x[i] + y[i] * y[i]", "lin")
    out = cla.empty_like(da)
    lin(np.float32(3), da, db, out)
    check("elementwise", out.get(), 3 * a + b * b)
    check("if_positive", cla.if_positive(da - 0.5, da, db).get(), np.where(a - 0.5 > 0, a, b))
    check("minimum", cla.minimum(da, 1 - da).get(), np.minimum(a, 1 - a))
    check("arange", cla.arange(queue, 0, n, 1, dtype=np.float32).get(), np.arange(n))
    every7 = cla.to_device(queue, np.arange(0, n, 7).astype(np.int32))
    check("take", cla.take(da, every7).get(), a[::7])


def reductions():
    check("sum", cla.sum(da).get(), a.sum(dtype=np.float64), 1e-3)
    check("dot", cla.dot(da, db).get(), np.dot(a.astype(np.float64), b), 1e-3)
    check("max", cla.max(da).get(), a.max())
    check("min", cla.min(db).get(), b.min())
    squares = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b",
                              map_expr="x[i]*x[i]", arguments="__global const float *x")
    check("reduction_kernel", squares(da).get(), (a.astype(np.float64) ** 2).sum(), 1e-3)
    every3 = cla.to_device(queue, np.arange(0, n, 3).astype(np.int32))
    check("subset_dot", cla.subset_dot(every3, da, da).get(),
          (a[::3].astype(np.float64) ** 2).sum(), 1e-3)


def scans():
    result = dints.copy()
    InclusiveScanKernel(ctx, np.int32, "a+b", "0")(result)
    check("inclusive_scan", result.get(), np.cumsum(ints))
    result = dints.copy()
    ExclusiveScanKernel(ctx, np.int32, "a+b", "0")(result)
    check("exclusive_scan", result.get(), np.concatenate([[0], np.cumsum(ints)[:-1]]))
    kept, count, _ = copy_if(dints, "ary[i] < 30")
    check("copy_if", kept.get()[: int(count.get())], ints[ints < 30])


def sorts():
    radix = RadixSort(ctx, "int *ary", key_expr="ary[i]", sort_arg_names=["ary"],
                      key_dtype=np.int32)
    (ordered,), _ = radix(dints, key_bits=7)
    check("radix_sort", ordered.get(), np.sort(ints))
    keys = cla.to_device(queue, rng.random(1024).astype(np.float32))
    want = np.sort(keys.get())
    ordered, _ = BitonicSort(ctx)(keys, axis=0)
    check("bitonic_sort", ordered.get(), want)


def math_and_types():
    check("sin", clmath.sin(da).get(), np.sin(a))
    check("exp", clmath.exp(da).get(), np.exp(a))
    check("log", clmath.log(da).get(), np.log(a))
    check("atan2", clmath.atan2(da, da + 1).get(), np.arctan2(a, a + 1))
    check("complex_mul", (dc * dc).get(), c * c, 1e-3)
    check("complex_div", (dc / (dc + 1)).get(), c / (c + 1), 1e-3)
    check("complex_abs", abs(dc).get(), abs(c), 1e-3)
    check("complex_exp", clmath.exp(dc).get(), np.exp(c), 1e-3)
    check("double_sum", cla.sum(dd).get(), d.sum(), 1e-9)
    check("double_pow", (dd ** 2.5).get(), d ** 2.5, 1e-9)


def random_numbers():
    x = PhiloxGenerator(ctx, seed=5).uniform(queue, n, np.float32).get()
    check("philox_uniform", [x.min() >= 0, x.max() <= 1, abs(x.mean() - 0.5) < 0.05], [1, 1, 1])


def atomics_and_lists():
    program = cl.Program(ctx, """
        __kernel void histogram(__global const int *x, __global int *h, int n) {
            int i = get_global_id(0);
            if (i < n) atomic_inc(&h[x[i] % 16]);
        }""").build()
    bins = cla.zeros(queue, 16, np.int32)
    program.histogram(queue, ((n + 63) // 64 * 64,), (64,), dints.data, bins.data, np.int32(n))
    check("atomic_histogram", bins.get(), np.bincount(ints % 16, minlength=16))
    builder = ListOfListsBuilder(ctx, [("out", np.int32)], """//CL//
        void generate(LIST_ARG_DECL USER_ARG_DECL index_type i)
        {
            for (int j = 0; j < i % 4; ++j)
                APPEND_out(i * 10 + j);
        }""", arg_decls=[])
    result, _ = builder(queue, 200)
    want = [i * 10 + j for i in range(200) for j in range(i % 4)]
    check("list_of_lists", result["out"].lists.get(), np.array(want))


for name, body in [("arithmetic", arithmetic), ("reductions", reductions), ("scans", scans),
                   ("sorts", sorts), ("math_and_types", math_and_types),
                   ("random_numbers", random_numbers), ("atomics_and_lists", atomics_and_lists)]:
    attempt(name, body)
print("ALL OK" if not failed else "FAILED: " + " ".join(failed))
sys.exit(1 if failed else 0)
