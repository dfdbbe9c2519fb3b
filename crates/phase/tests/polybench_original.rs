//! The original-style PolyBench/GPU kernels (`bench/phase/original/`), checked against CPU
//! references written here from the benchmarks' mathematical definitions.
//!
//! Every small workload (`tests/corpus/pbo_*.toml`) runs on the simulator and, when there is
//! one, on an OpenCL CPU device (PoCL in CI; `CLMAP_REQUIRE_OPENCL=1` makes its absence a
//! failure). Each output must pass the phase search's validation rule against the reference:
//! `max |actual - expected| <= 0.01 * max |expected|` (`clmap_phase::validation`). The
//! references are computed in `f64` from the workloads' own inputs; the inputs themselves are
//! recomputed from the suite's formulas first, and some reference values are checked against
//! closed forms or algebraic identities, so that a wrong reference cannot pass unnoticed.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use clmap_exec::{run_on, PreparedWorkload, Target};
use clmap_phase::validation::{compare, validation_tolerance};
use clmap_phase::Verdict;
use clmap_workload::{compare_buffers, BufferSet, LaunchArg, Tolerance, Workload};

const KERNELS: [&str; 15] = [
    "2dconv", "2mm", "3dconv", "3mm", "atax", "bicg", "corr", "covar", "fdtd2d", "gemm", "gesummv",
    "gramschm", "mvt", "syr2k", "syrk",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn small(kernel: &str) -> PreparedWorkload {
    let path = root().join(format!("tests/corpus/pbo_{kernel}.toml"));
    PreparedWorkload::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn values(bytes: &[u8]) -> Vec<f64> {
    bytes.chunks_exact(4).map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect()
}

/// Row-major matrix of `rows x cols` computed by `f(i, j)`.
fn matrix(rows: usize, cols: usize, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    (0..rows * cols).map(|n| f((n / cols) as f64, (n % cols) as f64)).collect()
}

/// The value of the scalar argument at `position` of launch `launch`, as the kernel sees it
/// (every scalar of these kernels is an `int` or a `float`).
fn scalar(w: &Workload, launch: usize, position: usize) -> f64 {
    match w.launches.get(launch).and_then(|l| l.args.get(position)) {
        Some(LaunchArg::Scalar { value, .. }) => f64::from(value[0].as_f64() as f32),
        other => panic!("launch {launch} argument {position} is not a scalar: {other:?}"),
    }
}

fn size(w: &Workload, launch: usize, position: usize) -> usize {
    scalar(w, launch, position) as usize
}

/// The workload's inputs and sizes, and the outputs the reference expects.
struct Case {
    inputs: BufferSet,
    /// Inputs the suite's formulas give, to compare with what the workload produces.
    formula_inputs: Vec<(&'static str, Vec<f64>)>,
    expected: Vec<(&'static str, Vec<f64>)>,
}

impl Case {
    fn input(&self, name: &str) -> Vec<f64> {
        values(&self.inputs.get(name).unwrap_or_else(|| panic!("no input `{name}`")).bytes)
    }
}

fn sum(n: usize, f: impl Fn(usize) -> f64) -> f64 {
    (0..n).map(f).sum()
}

/// Σ_{k < n} k², for closed forms of the products of PolyBench's `i * j / n` matrices.
fn squares(n: usize) -> f64 {
    let n = n as f64;
    (n - 1.0) * n * (2.0 * n - 1.0) / 6.0
}

/// Equal up to the rounding of the single-precision inputs the reference starts from.
fn close(actual: f64, expected: f64, what: &str) {
    let bound = 1e-6 * expected.abs().max(1.0);
    assert!((actual - expected).abs() <= bound, "{what}: {actual} vs {expected}");
}

fn case(kernel: &str, w: &Workload) -> Case {
    let inputs = w.initial_data(0).expect("initial data");
    let mut c = Case { inputs, formula_inputs: Vec::new(), expected: Vec::new() };
    match kernel {
        "gemm" => {
            let (alpha, beta) = (scalar(w, 0, 3), scalar(w, 0, 4));
            assert_eq!((alpha, beta), (32412.0, 2123.0), "the suite's constants");
            let (ni, nj, nk) = (size(w, 0, 5), size(w, 0, 6), size(w, 0, 7));
            let n = ni as f64;
            c.formula_inputs = vec![
                ("a", matrix(ni, nk, |i, j| i * j / n)),
                ("b", matrix(nk, nj, |i, j| i * j / n)),
                ("c", matrix(ni, nj, |i, j| i * j / n)),
            ];
            let (a, b, c0) = (c.input("a"), c.input("b"), c.input("c"));
            let out = matrix(ni, nj, |i, j| {
                let (i, j) = (i as usize, j as usize);
                beta * c0[i * nj + j] + alpha * sum(nk, |k| a[i * nk + k] * b[k * nj + j])
            });
            // C[i][j] = beta i j / ni + alpha i j Σk² / ni².
            let (i, j) = (ni - 1, nj - 1);
            let closed = (beta / n + alpha * squares(nk) / (n * n)) * (i * j) as f64;
            close(out[i * nj + j], closed, "GEMM closed form");
            c.expected = vec![("c", out)];
        }
        "2mm" => {
            let alpha = scalar(w, 0, 3);
            let beta = scalar(w, 1, 3);
            assert_eq!((alpha, beta), (32412.0, 2123.0), "the suite's constants");
            let (ni, nj, nk, nl) = (size(w, 0, 4), size(w, 0, 5), size(w, 0, 6), size(w, 1, 5));
            let f = |n: usize| n as f64;
            c.formula_inputs = vec![
                ("A", matrix(ni, nk, |i, j| i * j / f(ni))),
                ("B", matrix(nk, nj, |i, j| i * (j + 1.0) / f(nj))),
                ("C", matrix(nj, nl, |i, j| i * (j + 3.0) / f(nl))),
                ("D", matrix(ni, nl, |i, j| i * (j + 2.0) / f(nk))),
            ];
            let (a, b, cm, d) = (c.input("A"), c.input("B"), c.input("C"), c.input("D"));
            let tmp = matrix(ni, nj, |i, j| {
                let (i, j) = (i as usize, j as usize);
                alpha * sum(nk, |k| a[i * nk + k] * b[k * nj + j])
            });
            let (i, j) = (ni - 1, nj - 1);
            let closed = alpha * (i * (j + 1)) as f64 * squares(nk) / (f(ni) * f(nj));
            close(tmp[i * nj + j], closed, "2MM tmp closed form");
            let out = matrix(ni, nl, |i, j| {
                let (i, j) = (i as usize, j as usize);
                beta * d[i * nl + j] + sum(nj, |k| tmp[i * nj + k] * cm[k * nl + j])
            });
            c.expected = vec![("tmp", tmp), ("D", out)];
        }
        "3mm" => {
            let (ni, nj, nk) = (size(w, 0, 3), size(w, 0, 4), size(w, 0, 5));
            let (nl, nm) = (size(w, 1, 4), size(w, 1, 5));
            let f = |n: usize| n as f64;
            c.formula_inputs = vec![
                ("A", matrix(ni, nk, |i, j| i * j / f(ni))),
                ("B", matrix(nk, nj, |i, j| i * (j + 1.0) / f(nj))),
                ("C", matrix(nj, nm, |i, j| i * (j + 3.0) / f(nl))),
                ("D", matrix(nm, nl, |i, j| i * (j + 2.0) / f(nk))),
            ];
            let (a, b, cm, d) = (c.input("A"), c.input("B"), c.input("C"), c.input("D"));
            let product = |x: &[f64], y: &[f64], rows: usize, inner: usize, cols: usize| {
                matrix(rows, cols, |i, j| {
                    let (i, j) = (i as usize, j as usize);
                    sum(inner, |k| x[i * inner + k] * y[k * cols + j])
                })
            };
            let e = product(&a, &b, ni, nk, nj);
            let fm = product(&cm, &d, nj, nm, nl);
            let g = product(&e, &fm, ni, nj, nl);
            c.expected = vec![("E", e), ("F", fm), ("G", g)];
        }
        "atax" => {
            let (nx, ny) = (size(w, 0, 3), size(w, 0, 4));
            c.formula_inputs = vec![
                ("A", matrix(nx, ny, |i, j| i * j / nx as f64)),
                ("x", matrix(ny, 1, |i, _| i * PI)),
            ];
            let (a, x) = (c.input("A"), c.input("x"));
            let tmp: Vec<f64> = (0..nx).map(|i| sum(ny, |j| a[i * ny + j] * x[j])).collect();
            let i = nx - 1;
            close(tmp[i], i as f64 * PI * squares(ny) / nx as f64, "ATAX tmp closed form");
            let y = (0..ny).map(|j| sum(nx, |i| a[i * ny + j] * tmp[i])).collect();
            c.expected = vec![("tmp", tmp), ("y", y)];
        }
        "bicg" => {
            let (nx, ny) = (size(w, 0, 3), size(w, 0, 4));
            c.formula_inputs = vec![
                ("A", matrix(nx, ny, |i, j| i * j / nx as f64)),
                ("r", matrix(nx, 1, |i, _| i * PI)),
                ("p", matrix(ny, 1, |i, _| i * PI)),
            ];
            let (a, r, p) = (c.input("A"), c.input("r"), c.input("p"));
            let s = (0..ny).map(|j| sum(nx, |i| r[i] * a[i * ny + j])).collect();
            let q = (0..nx).map(|i| sum(ny, |j| a[i * ny + j] * p[j])).collect();
            c.expected = vec![("s", s), ("q", q)];
        }
        "mvt" => {
            let n = size(w, 0, 3);
            let nf = n as f64;
            c.formula_inputs = vec![
                ("a", matrix(n, n, |i, j| i * j / nf)),
                ("x1", matrix(n, 1, |i, _| i / nf)),
                ("x2", matrix(n, 1, |i, _| (i + 1.0) / nf)),
                ("y1", matrix(n, 1, |i, _| (i + 3.0) / nf)),
                ("y2", matrix(n, 1, |i, _| (i + 4.0) / nf)),
            ];
            let (a, x1, x2) = (c.input("a"), c.input("x1"), c.input("x2"));
            let (y1, y2) = (c.input("y1"), c.input("y2"));
            let x1 = (0..n).map(|i| x1[i] + sum(n, |j| a[i * n + j] * y1[j])).collect();
            let x2 = (0..n).map(|i| x2[i] + sum(n, |j| a[j * n + i] * y2[j])).collect();
            c.expected = vec![("x1", x1), ("x2", x2)];
        }
        "gesummv" => {
            let (alpha, beta) = (scalar(w, 0, 5), scalar(w, 0, 6));
            assert_eq!((alpha, beta), (43532.0, 12313.0), "the suite's constants");
            let n = size(w, 0, 7);
            let nf = n as f64;
            c.formula_inputs = vec![
                ("a", matrix(n, n, |i, j| i * j / nf)),
                ("b", matrix(n, n, |i, j| i * j / nf)),
                ("x", matrix(n, 1, |i, _| i / nf)),
            ];
            let (a, b, x) = (c.input("a"), c.input("b"), c.input("x"));
            let tmp: Vec<f64> = (0..n).map(|i| sum(n, |j| a[i * n + j] * x[j])).collect();
            let y =
                (0..n).map(|i| alpha * tmp[i] + beta * sum(n, |j| b[i * n + j] * x[j])).collect();
            c.expected = vec![("y", y), ("tmp", tmp)];
        }
        "syrk" | "syr2k" => {
            let two = kernel == "syr2k";
            let at = if two { 3 } else { 2 };
            let (alpha, beta) = (scalar(w, 0, at), scalar(w, 0, at + 1));
            assert_eq!((alpha, beta), (32412.0, 2123.0), "the suite's constants");
            let (m, n) = (size(w, 0, at + 2), size(w, 0, at + 3));
            let nf = n as f64;
            c.formula_inputs = vec![
                ("a", matrix(n, m, |i, j| i * j / nf)),
                ("c", matrix(n, n, |i, j| i * j / nf)),
            ];
            if two {
                c.formula_inputs.push(("b", matrix(n, m, |i, j| i * j / nf)));
            }
            let a = c.input("a");
            let b = if two { c.input("b") } else { a.clone() };
            let c0 = c.input("c");
            let out = matrix(n, n, |i, j| {
                let (i, j) = (i as usize, j as usize);
                let rank = |x: &[f64], y: &[f64]| sum(m, |k| x[i * m + k] * y[j * m + k]);
                let update = if two { rank(&a, &b) + rank(&b, &a) } else { rank(&a, &a) };
                beta * c0[i * n + j] + alpha * update
            });
            // C[i][j] = beta i j / n + alpha (1 or 2) i j Σk² / n².
            let (i, j) = (n - 1, n - 2);
            let factor = if two { 2.0 } else { 1.0 };
            let closed = (beta / nf + factor * alpha * squares(m) / (nf * nf)) * (i * j) as f64;
            close(out[i * n + j], closed, "SYRK closed form");
            c.expected = vec![("c", out)];
        }
        "corr" | "covar" => {
            let float_n = scalar(w, 0, 2);
            assert_eq!(float_n, f64::from(3214212.01f32), "the suite's float_n");
            let (m, n) = (size(w, 0, 3), size(w, 0, 4));
            c.formula_inputs = vec![("data", matrix(n, m, |i, j| i * j / m as f64))];
            let data = c.input("data");
            let mean: Vec<f64> = (0..m).map(|j| sum(n, |i| data[i * m + j]) / float_n).collect();
            let centred = matrix(n, m, |i, j| data[i as usize * m + j as usize] - mean[j as usize]);
            if kernel == "covar" {
                let symmat = matrix(m, m, |j1, j2| {
                    let (j1, j2) = (j1 as usize, j2 as usize);
                    sum(n, |i| centred[i * m + j1] * centred[i * m + j2])
                });
                for j in 0..m {
                    assert!(symmat[j * m + j] >= 0.0, "COVAR variances are not negative");
                }
                c.expected = vec![("mean", mean), ("symmat", symmat)];
            } else {
                let eps = scalar(w, 1, 4);
                assert_eq!(eps, f64::from(0.005f32), "the suite's eps");
                let std_dev: Vec<f64> = (0..m)
                    .map(|j| {
                        let deviation = (sum(n, |i| centred[i * m + j].powi(2)) / float_n).sqrt();
                        if deviation <= eps {
                            1.0
                        } else {
                            deviation
                        }
                    })
                    .collect();
                let scaled = matrix(n, m, |i, j| {
                    centred[i as usize * m + j as usize] / (float_n.sqrt() * std_dev[j as usize])
                });
                let symmat = matrix(m, m, |j1, j2| {
                    let (j1, j2) = (j1 as usize, j2 as usize);
                    if j1 == j2 {
                        1.0
                    } else {
                        sum(n, |i| scaled[i * m + j1] * scaled[i * m + j2])
                    }
                });
                // Every scaled column has unit length, so |corr| <= 1 (Cauchy-Schwarz).
                assert!(symmat.iter().all(|v| v.abs() <= 1.0 + 1e-9), "CORR is a correlation");
                c.expected = vec![("mean", mean), ("std_dev", std_dev), ("symmat", symmat)];
            }
        }
        "fdtd2d" => {
            let (nx, ny) = (size(w, 0, 5), size(w, 0, 6));
            let tmax = w.buffer("fict").expect("fict").len as usize;
            let nf = nx as f64;
            c.formula_inputs = vec![
                ("fict", matrix(tmax, 1, |i, _| i)),
                ("ex", matrix(nx, ny, |i, j| (i * (j + 1.0) + 1.0) / nf)),
                ("ey", matrix(nx, ny, |i, j| ((i - 1.0) * (j + 2.0) + 2.0) / nf)),
                ("hz", matrix(nx, ny, |i, j| ((i - 9.0) * (j + 4.0) + 3.0) / nf)),
            ];
            let fict = c.input("fict");
            let (mut ex, mut ey, mut hz) = (c.input("ex"), c.input("ey"), c.input("hz"));
            for t in 0..tmax {
                for j in 0..ny {
                    ey[j] = fict[t];
                }
                for i in 1..nx {
                    for j in 0..ny {
                        ey[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
                    }
                }
                for i in 0..nx {
                    for j in 1..ny {
                        ex[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]);
                    }
                }
                for i in 0..nx - 1 {
                    for j in 0..ny - 1 {
                        hz[i * ny + j] -= 0.7
                            * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j]
                                - ey[i * ny + j]);
                    }
                }
            }
            c.expected = vec![("ex", ex), ("ey", ey), ("hz", hz)];
        }
        "gramschm" => {
            let (m, n) = (size(w, 0, 4), size(w, 0, 5));
            let original = c.input("a");
            let mut a = original.clone();
            let (mut r, mut q) = (vec![0.0; n * n], vec![0.0; m * n]);
            for k in 0..n {
                r[k * n + k] = sum(m, |i| a[i * n + k].powi(2)).sqrt();
                for i in 0..m {
                    q[i * n + k] = a[i * n + k] / r[k * n + k];
                }
                for j in k + 1..n {
                    r[k * n + j] = sum(m, |i| q[i * n + k] * a[i * n + j]);
                    for i in 0..m {
                        a[i * n + j] -= q[i * n + k] * r[k * n + j];
                    }
                }
            }
            // Q has orthonormal columns and Q R is the input matrix.
            for j1 in 0..n {
                for j2 in 0..n {
                    let dot = sum(m, |i| q[i * n + j1] * q[i * n + j2]);
                    let identity = if j1 == j2 { 1.0 } else { 0.0 };
                    assert!((dot - identity).abs() < 1e-9, "Q^T Q [{j1}][{j2}] = {dot}");
                }
            }
            for i in 0..m {
                for j in 0..n {
                    let qr = sum(n, |k| q[i * n + k] * r[k * n + j]);
                    close(qr, original[i * n + j], "Q R = A");
                }
            }
            c.expected = vec![("a", a), ("r", r), ("q", q)];
        }
        "2dconv" => {
            let (ni, nj) = (size(w, 0, 2), size(w, 0, 3));
            let a = c.input("A");
            let at = |i: usize, j: usize| a[i * nj + j];
            let coefficient = |v: f32| f64::from(v);
            let (c11, c21, c31) = (coefficient(0.2), coefficient(0.5), coefficient(-0.8));
            let (c12, c22, c32) = (coefficient(-0.3), coefficient(0.6), coefficient(-0.9));
            let (c13, c23, c33) = (coefficient(0.4), coefficient(0.7), coefficient(0.10));
            let b = matrix(ni, nj, |i, j| {
                let (i, j) = (i as usize, j as usize);
                if i == 0 || j == 0 || i == ni - 1 || j == nj - 1 {
                    return 0.0;
                }
                c11 * at(i - 1, j - 1)
                    + c12 * at(i, j - 1)
                    + c13 * at(i + 1, j - 1)
                    + c21 * at(i - 1, j)
                    + c22 * at(i, j)
                    + c23 * at(i + 1, j)
                    + c31 * at(i - 1, j + 1)
                    + c32 * at(i, j + 1)
                    + c33 * at(i + 1, j + 1)
            });
            assert!(a.iter().all(|v| (0.0..1.0).contains(v)), "uniform in [0, 1) as rand()");
            c.expected = vec![("B", b)];
        }
        "3dconv" => {
            let (ni, nj, nk) = (size(w, 0, 2), size(w, 0, 3), size(w, 0, 4));
            let volume = ni * nj * nk;
            c.formula_inputs = vec![(
                "A",
                (0..volume)
                    .map(|x| {
                        let (i, j, k) = (x / (nj * nk), x / nk % nj, x % nk);
                        (i % 12 + 2 * (j % 7) + 3 * (k % 13)) as f64
                    })
                    .collect(),
            )];
            let a = c.input("A");
            let at = |i: usize, j: usize, k: usize| a[(i * nj + j) * nk + k];
            let (c11, c21, c31, c12, c22, c32, c13, c23, c33) =
                (2.0, 5.0, -8.0, -3.0, 6.0, -9.0, 4.0, 7.0, 10.0);
            let b = (0..volume)
                .map(|x| {
                    let (i, j, k) = (x / (nj * nk), x / nk % nj, x % nk);
                    let border = |v: usize, n: usize| v == 0 || v == n - 1;
                    if border(i, ni) || border(j, nj) || border(k, nk) {
                        return 0.0;
                    }
                    // PolyBench's 15 taps, including the ones it repeats.
                    c11 * at(i - 1, j - 1, k - 1)
                        + c13 * at(i + 1, j - 1, k - 1)
                        + c21 * at(i - 1, j - 1, k - 1)
                        + c23 * at(i + 1, j - 1, k - 1)
                        + c31 * at(i - 1, j - 1, k - 1)
                        + c33 * at(i + 1, j - 1, k - 1)
                        + c12 * at(i, j - 1, k)
                        + c22 * at(i, j, k)
                        + c32 * at(i, j + 1, k)
                        + c11 * at(i - 1, j - 1, k + 1)
                        + c13 * at(i + 1, j - 1, k + 1)
                        + c21 * at(i - 1, j, k + 1)
                        + c23 * at(i + 1, j, k + 1)
                        + c31 * at(i - 1, j + 1, k + 1)
                        + c33 * at(i + 1, j + 1, k + 1)
                })
                .collect();
            c.expected = vec![("B", b)];
        }
        other => panic!("no reference for {other}"),
    }
    c
}

/// The reference as a buffer set the validation rule can compare with.
fn reference_set(case: &Case) -> BufferSet {
    let mut set = case.inputs.clone();
    for (name, expected) in &case.expected {
        let buffer = set.get_mut(name).unwrap_or_else(|| panic!("no buffer `{name}`"));
        buffer.bytes = expected.iter().flat_map(|v| (*v as f32).to_le_bytes()).collect();
    }
    set
}

/// Runs every small workload on `target` and checks it against the references; returns, per
/// output, the error in the maximum norm and how many values a per-value 1 % rule would reject.
fn check_all(target: &Target) -> Vec<String> {
    let mut failures = Vec::new();
    for kernel in KERNELS {
        let prepared = small(kernel);
        let w = prepared.workload();
        let case = case(kernel, w);
        for (name, formula) in &case.formula_inputs {
            let produced = case.input(name);
            let suite: Vec<f64> = formula.iter().map(|v| f64::from(*v as f32)).collect();
            if produced != suite {
                failures.push(format!("{kernel}: input `{name}` is not the suite's formula"));
            }
        }
        let expected_names: Vec<&str> = case.expected.iter().map(|(n, _)| *n).collect();
        assert_eq!(w.outputs, expected_names, "{kernel}: the reference covers every output");
        let run = match run_on(target, &prepared, 0) {
            Ok(run) => run,
            Err(e) => {
                failures.push(format!("{kernel} on {}: {e}", target.name()));
                continue;
            }
        };
        assert!(run.reports.is_empty(), "{kernel}: {:?}", run.reports);
        let reference = reference_set(&case);
        let verdict = compare(w, &reference, &run.buffers);
        for name in &w.outputs {
            let buffer = w.buffer(name).expect("output buffer");
            assert_eq!(validation_tolerance(buffer), Tolerance::norm(0.01), "{kernel}/{name}");
            let (Some(e), Some(a)) = (reference.get(name), run.buffers.get(name)) else {
                continue;
            };
            let norm = compare_buffers(buffer.elem, &e.bytes, &a.bytes, Tolerance::norm(0.01))
                .expect("comparable");
            let per_value = compare_buffers(
                buffer.elem,
                &e.bytes,
                &a.bytes,
                Tolerance { rel: 0.01, abs: 0.0, norm: 0.0 },
            )
            .expect("comparable");
            eprintln!(
                "{kernel:>8}/{name:<8} on {}: norm error {:.2e}, {} of {} values beyond 1 % of themselves",
                target.name(),
                norm.norm_error(),
                per_value.mismatches,
                per_value.compared
            );
        }
        if verdict != Verdict::Valid {
            failures.push(format!("{kernel} on {}: {}", target.name(), verdict.reason()));
        }
    }
    failures
}

#[test]
fn every_original_kernel_matches_its_reference_on_the_simulator() {
    let simulator = Target::select("sim", Default::default()).expect("the simulator");
    let failures = check_all(&simulator);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_original_kernel_matches_its_reference_on_an_opencl_device() {
    let Some(device) = clmap_testkit::opencl_device() else { return };
    let failures = check_all(&Target::Device(device));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The campaign workloads run the same source, build options and kernels as the small
/// workloads that validate them, at PolyBench/GPU's default sizes.
#[test]
fn campaign_workloads_pair_with_their_small_workloads() {
    let defaults: [(&str, &str, u64); 15] = [
        ("2dconv", "A", 4096 * 4096),
        ("2mm", "A", 2048 * 2048),
        ("3dconv", "A", 256 * 256 * 256),
        ("3mm", "A", 512 * 512),
        ("atax", "A", 4096 * 4096),
        ("bicg", "A", 4096 * 4096),
        ("corr", "data", 2048 * 2048),
        ("covar", "data", 2048 * 2048),
        ("fdtd2d", "ex", 2048 * 2048),
        ("gemm", "a", 512 * 512),
        ("gesummv", "a", 4096 * 4096),
        ("gramschm", "a", 2048 * 2048),
        ("mvt", "a", 4096 * 4096),
        ("syr2k", "a", 2048 * 2048),
        ("syrk", "a", 1024 * 1024),
    ];
    for (kernel, buffer, len) in defaults {
        let full_path = root().join(format!("bench/phase/original/{kernel}.toml"));
        let full = Workload::load(&full_path).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let small = small(kernel);
        let small = small.workload();
        assert_eq!(full.source, small.source, "{kernel}: sources differ");
        assert_eq!(full.options, small.options, "{kernel}: build options differ");
        assert_eq!(full.outputs, small.outputs, "{kernel}: outputs differ");
        let kernels =
            |w: &Workload| w.launches.iter().map(|l| l.kernel.clone()).collect::<Vec<_>>();
        assert_eq!(kernels(&full), kernels(small), "{kernel}: launches differ");
        assert_eq!(full.buffer(buffer).map(|b| b.len), Some(len), "{kernel}: not the default size");
        assert!(full.total_buffer_bytes() > 8 * small.total_buffer_bytes(), "{kernel}");
    }
    // The host loops at the suite's counts: 500 time steps, 2048 columns, 254 planes.
    let launches = |kernel: &str| {
        let path = root().join(format!("bench/phase/original/{kernel}.toml"));
        Workload::load(&path).expect("loads").launch_count()
    };
    assert_eq!(launches("fdtd2d"), 3 * 500);
    assert_eq!(launches("gramschm"), 3 * 2048);
    assert_eq!(launches("3dconv"), 254);
    // GRAMSCHM's reduced campaign workload differs from the default one only in its sizes.
    let reduced = Workload::load(&root().join("bench/phase/original/gramschm_512.toml"))
        .expect("gramschm_512 loads");
    let full = Workload::load(&root().join("bench/phase/original/gramschm.toml")).expect("loads");
    assert_eq!(reduced.source, full.source);
    assert_eq!(reduced.outputs, full.outputs);
    assert_eq!(reduced.buffer("a").map(|b| b.len), Some(512 * 512));
    assert_eq!(reduced.launch_count(), 3 * 512);
}
