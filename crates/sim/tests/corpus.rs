//! Every workload of the corpus runs on the simulator without findings, and a selection is
//! compared with plain Rust implementations of the same computation.

use std::path::{Path, PathBuf};

use clmap_sim::{run_workload, SimOptions, WorkloadRun};
use clmap_workload::Workload;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// Every workload of the corpus, in name order.
fn corpus_workloads() -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    names
}

fn load(name: &str) -> Workload {
    let path = corpus().join(format!("{name}.toml"));
    Workload::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The workload's program through the front end (the exec layer does this for the tools).
pub fn compile(w: &Workload) -> clmap_lang::ir::Module {
    clmap_lang::frontend::compile_file(&w.source_path, &w.options)
        .unwrap_or_else(|f| panic!("{}: {}", w.source_path.display(), f.render()))
        .module
}

fn run(w: &Workload) -> WorkloadRun {
    let options =
        SimOptions { check_races: true, check_uninitialised: true, ..SimOptions::default() };
    let run = run_workload(&compile(w), w, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", w.source_path.display()));
    assert!(run.reports.is_empty(), "{}: {:#?}", w.source_path.display(), run.reports);
    run
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn uints(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn input(w: &Workload, name: &str) -> Vec<u8> {
    let data = w.initial_data(0).expect("initial data");
    data.get(name).map(|b| b.bytes.clone()).unwrap_or_else(|| panic!("no buffer {name}"))
}

fn assert_close(actual: &[f32], expected: &[f32], tolerance: f32, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!((a - e).abs() <= tolerance * (1.0 + e.abs()), "{what}[{i}]: {a} vs {e}");
    }
}

fn matmul(a: &[f32], b: &[f32], rows: usize, inner: usize, cols: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; rows * cols];
    for r in 0..rows {
        for col in 0..cols {
            c[r * cols + col] = (0..inner).map(|k| a[r * inner + k] * b[k * cols + col]).sum();
        }
    }
    c
}

#[test]
fn every_corpus_workload_runs_without_findings() {
    let names = corpus_workloads();
    assert!(names.len() >= 8, "corpus has only {} workloads", names.len());
    for path in names {
        let w = Workload::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        run(&w);
    }
}

#[test]
fn simple_matrix_multiply_matches_reference() {
    let w = load("mm_simple");
    let out = run(&w);
    let (a, b) = (floats(&input(&w, "A")), floats(&input(&w, "B")));
    // The kernel's row is get_global_id(0) and its column get_global_id(1).
    let c = matmul(&a, &b, 256, 256, 256);
    assert_close(&floats(out.buffer("C").expect("C")), &c, 1e-4, "C");
}

#[test]
fn tiled_matrix_multiply_matches_reference() {
    let w = load("mm_nvidia_tile_ab");
    let out = run(&w);
    let (a, b) = (floats(&input(&w, "A")), floats(&input(&w, "B")));
    let c = matmul(&a, &b, 64, 128, 64);
    assert_close(&floats(out.buffer("C").expect("C")), &c, 1e-4, "C");
}

#[test]
fn transposes_match_reference() {
    for name in ["transpose_naive", "transpose_local_padded"] {
        let w = load(name);
        let out = run(&w);
        let input = floats(&input(&w, "in"));
        let (width, height) = (128, 64);
        let mut expected = vec![0.0f32; width * height];
        for y in 0..height {
            for x in 0..width {
                expected[x * height + y] = input[y * width + x];
            }
        }
        assert_eq!(floats(out.buffer("out").expect("out")), expected, "{name}");
    }
}

#[test]
fn reduction_matches_reference() {
    let w = load("reduce_local_tree");
    let out = run(&w);
    let input: Vec<i32> =
        input(&w, "in").chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let expected: Vec<u32> = input.chunks(256).map(|c| c.iter().sum::<i32>() as u32).collect();
    assert_eq!(uints(out.buffer("partial").expect("partial")), expected);
}

#[test]
fn scan_matches_reference() {
    let w = load("scan_local");
    let out = run(&w);
    let input = uints(&input(&w, "in"));
    let mut expected = Vec::new();
    let mut sums = Vec::new();
    for block in input.chunks(256) {
        let mut acc = 0u32;
        for v in block {
            expected.push(acc);
            acc += v;
        }
        sums.push(acc);
    }
    assert_eq!(uints(out.buffer("out").expect("out")), expected);
    assert_eq!(uints(out.buffer("block_sums").expect("block_sums")), sums);
}

#[test]
fn histogram_matches_reference() {
    let w = load("histogram_local_atomics");
    let out = run(&w);
    let data = input(&w, "data");
    let mut hist = vec![0u32; 256];
    for b in &data {
        hist[*b as usize] += 1;
    }
    assert_eq!(uints(out.buffer("histogram").expect("histogram")), hist);
    let total: u32 = data.iter().map(|b| u32::from(*b)).sum();
    assert_eq!(uints(out.buffer("byte_sum").expect("byte_sum")), vec![total]);
}

#[test]
fn jacobi_pipeline_with_swaps_matches_reference() {
    let w = load("jacobi1d");
    let out = run(&w);
    let mut a = floats(&input(&w, "a"));
    let n = a.len();
    for _ in 0..10 {
        let mut b = vec![0.0f32; n];
        for i in 0..n {
            b[i] = if i == 0 || i == n - 1 {
                a[i]
            } else {
                (a[i - 1] + a[i] + a[i + 1]) * (1.0f32 / 3.0f32)
            };
        }
        a = b;
    }
    // Ten launches with a swap after each: the result is back in `a`.
    assert_close(&floats(out.buffer("a").expect("a")), &a, 1e-6, "a");
}

/// Counts operations: an observer, so the simulator runs the program as compiled, one work-
/// group at a time, instead of its unobserved form (loop-invariant operations hoisted,
/// independent work-items of a group split over threads).
struct CountingObserver(u64);

impl clmap_sim::observer::Observer for CountingObserver {
    fn instruction(&mut self, _op: &clmap_sim::observer::InstructionBatch<'_>) {
        self.0 += 1;
    }
}

/// The unobserved form of every corpus program gives, on other random inputs, bit for bit
/// the outputs of the program as compiled. Kernels with atomics are left out: their results
/// may depend on the order in which threads run groups.
#[test]
fn unobserved_runs_agree_with_observed_runs_on_random_inputs() {
    let names = corpus_workloads();
    let mut compared = 0;
    for path in names {
        let w = Workload::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if w.source.contains("atomic") || w.source.contains("atom_") {
            continue;
        }
        let module = compile(&w);
        let fast = clmap_sim::run_workload_seeded(
            &module,
            &w,
            &SimOptions { threads: 3, ..SimOptions::default() },
            1,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let inputs = w.initial_data(1).expect("initial data");
        let (slow, observers) = clmap_sim::run_workload_with(
            &module,
            &w,
            inputs,
            &SimOptions { threads: 1, ..SimOptions::default() },
            &|| CountingObserver(0),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(observers.iter().any(|o| o.0 > 0), "{}", path.display());
        assert_eq!(fast.buffers, slow.buffers, "{}", path.display());
        compared += 1;
    }
    assert!(compared > 40, "only {compared} workloads compared");
}
