//! The device evaluator on an OpenCL device (PoCL in CI). PoCL's own program binaries stand in
//! for PTX: they travel through clCreateProgramWithBinary exactly as PTX does on NVIDIA. Without
//! a device these tests say why and pass, unless `CLMAP_REQUIRE_OPENCL=1`.

use std::path::Path;

use clmap_device::Device;
use clmap_phase::compiler::CompiledPtx;
use clmap_phase::device_eval::DeviceEvaluator;
use clmap_phase::evaluator::{Evaluator, Verdict};
use clmap_testkit::opencl_device;
use clmap_workload::Workload;

fn corpus(name: &str) -> Workload {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(name);
    Workload::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The device's binary of `workload`'s source, labelled like a PTX.
fn binary_of(device: &Device, workload: &Workload, label: &str) -> CompiledPtx {
    let program = clmap_exec::on_device::build(device, workload).expect("builds");
    CompiledPtx { text: program.binary().expect("binary"), hash: label.to_string() }
}

#[test]
fn validates_times_and_rejects_wrong_code() {
    let Some(device) = opencl_device() else { return };
    let workload = corpus("pb_gemm.toml");
    let correct = binary_of(&device, &workload, "correct");
    let mut broken = workload.clone();
    // The same kernel with a wrong scale: every output differs by far more than 1 %.
    broken.source = broken.source.replace("sum += alpha *", "sum += 1.1f * alpha *");
    assert_ne!(broken.source, workload.source, "the corpus kernel changed; update the test");
    let wrong = binary_of(&device, &broken, "wrong");

    let mut evaluator =
        DeviceEvaluator::new(device, workload.clone(), workload.clone()).expect("reference runs");
    assert_eq!(evaluator.validate_small(&correct).expect("device works"), Verdict::Valid);
    match evaluator.validate_small(&wrong).expect("device works") {
        Verdict::Wrong(reason) => assert!(reason.contains("output `c`"), "{reason}"),
        other => panic!("wrong code accepted: {other:?}"),
    }
    assert_eq!(evaluator.validate_full(&correct, 3).expect("device works"), Verdict::Valid);
    let samples = evaluator.time_ptx(&correct, 3).expect("device works").expect("runs");
    assert_eq!(samples.len(), 3);
    assert!(samples.iter().all(|&ns| ns > 0));
    assert_eq!(evaluator.time_source(2).expect("runs").len(), 2);

    // A binary the driver refuses is a failed verdict, and the evaluator keeps working.
    let garbage = CompiledPtx { text: b"not a program\0".to_vec(), hash: "garbage".into() };
    assert!(matches!(
        evaluator.validate_small(&garbage).expect("device works"),
        Verdict::Failed(_)
    ));
    assert_eq!(evaluator.validate_small(&correct).expect("device works"), Verdict::Valid);
}

#[test]
fn a_small_workload_with_another_source_is_refused() {
    let Some(device) = opencl_device() else { return };
    let result = DeviceEvaluator::new(device, corpus("pb_gemm.toml"), corpus("pb_syrk.toml"));
    let error = result.err().expect("refused");
    assert!(error.to_string().contains("same source"), "{error}");
}

/// Stands in for LLVM on PoCL: a "pass" is a build option, and the "PTX" is PoCL's binary of
/// the source built with the options of the sequence's passes.
struct OptionCompiler {
    device: Device,
    workload: Workload,
}

impl OptionCompiler {
    fn build(&self, options: &str) -> clmap_phase::CompileOutcome {
        let mut workload = self.workload.clone();
        workload.options = options.to_string();
        let program = clmap_exec::on_device::build(&self.device, &workload).map_err(|e| {
            clmap_phase::CompileFailure {
                kind: clmap_phase::CompileFailureKind::Failed,
                message: e.to_string(),
            }
        })?;
        let text = program.binary().expect("binary");
        // PoCL's binaries of one build differ in embedded paths, so the options name the code.
        Ok(CompiledPtx { text, hash: clmap_phase::sequence::text_hash(options) })
    }
}

impl clmap_phase::SequenceCompiler for OptionCompiler {
    fn pool(&self) -> Vec<String> {
        ["-cl-mad-enable", "-cl-opt-disable", "-cl-no-signed-zeros"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }
    fn compile_many(&self, sequences: &[Vec<String>]) -> Vec<clmap_phase::CompileOutcome> {
        sequences
            .iter()
            .map(|passes| {
                let mut options: Vec<&str> = passes.iter().map(String::as_str).collect();
                options.sort_unstable();
                options.dedup();
                self.build(&options.join(" "))
            })
            .collect()
    }
    fn compile_baseline(&self, level: clmap_phase::BaselineLevel) -> clmap_phase::CompileOutcome {
        match level {
            clmap_phase::BaselineLevel::O0 => self.build("-cl-opt-disable"),
            _ => self.build(""),
        }
    }
    fn describe(&self) -> String {
        "build options".into()
    }
}

#[test]
fn a_whole_search_on_the_device() {
    let Some(device) = opencl_device() else { return };
    let workload = corpus("pb_gemm.toml");
    let compiler = OptionCompiler { device: device.clone(), workload: workload.clone() };
    let mut evaluator =
        DeviceEvaluator::new(device, workload.clone(), workload.clone()).expect("reference runs");
    let context = clmap_phase::ContextKey {
        workload_identity: workload.identity(),
        small_identity: workload.identity(),
        device: evaluator.describe(),
        device_id: None,
        toolchain: "build options".into(),
        workload_label: "pb_gemm.toml".into(),
        small_label: "pb_gemm.toml".into(),
    };
    let store = clmap_phase::PhaseStore::open(clmap_db::Database::in_memory().unwrap(), &context)
        .expect("store");
    let options = clmap_phase::RunOptions {
        search: clmap_phase::SearchOptions {
            strategy: clmap_phase::Strategy::Random,
            seed: 4,
            budget: 6,
            deadline: None,
            length: 2,
            batch: 3,
            reps: 2,
            evolve_after: 3,
            shard: None,
            given: Vec::new(),
        },
        final_reps: 3,
        random_inputs: 2,
        finalists: 2,
        minimise: true,
        minimise_time: None,
        noise_floor: 0.05,
        workload_label: "pb_gemm.toml".into(),
        small_label: "pb_gemm.toml".into(),
    };
    let report = clmap_phase::run_phase(
        &compiler,
        &mut evaluator,
        &store,
        &clmap_phase::NoProgress,
        &options,
    )
    .expect("the search runs");
    assert_eq!(report.counts.sequences, 6);
    assert!(report.counts.duplicate_ptx > 0, "{:?}", report.counts);
    let best = report.best.as_ref().expect("a valid sequence");
    assert!(best.validation.passed());
    assert_eq!(best.validation.random_inputs, 2);
    assert_eq!(best.samples_ns.len(), 3);
    assert!(best.speedups.vs_source.is_some() && best.speedups.vs_best_ox.is_some());
    assert!(report.baselines.iter().all(|b| b.median_ns.is_some()), "{:?}", report.baselines);
}

#[test]
fn a_reopened_device_validates_again() {
    let Some(device) = opencl_device() else { return };
    let workload = corpus("pb_gemm.toml");
    let correct = binary_of(&device, &workload, "correct");
    let mut evaluator =
        DeviceEvaluator::new(device, workload.clone(), workload.clone()).expect("reference runs");
    evaluator.recover().expect("a new context runs the reference as before");
    // The binary was built for the old context: it is loaded again into the new one.
    assert_eq!(evaluator.validate_small(&correct).expect("device works"), Verdict::Valid);
    assert_eq!(evaluator.time_ptx(&correct, 2).expect("device works").expect("runs").len(), 2);
}

#[test]
fn aliased_inputs_reject_code_that_assumes_tmp_and_y_apart() {
    let Some(device) = opencl_device() else { return };
    let small = corpus("pbo_gesummv.toml");
    let prepared = clmap_exec::PreparedWorkload::new(small.clone()).expect("compiles");
    let layouts = clmap_phase::aliasing::aliased_layouts(&prepared, 4).allowed;
    assert_eq!(layouts.first().map(|l| l.label()).as_deref(), Some("tmp=y"));
    let correct = binary_of(&device, &small, "correct");
    // What LICM after a loop-versioning check would make of the loop, without the check:
    // tmp[i] and y[i] kept in registers. Right when tmp and y are apart, wrong when they share.
    let mut registers = small.clone();
    registers.source = registers.source.replace(
        "        tmp[i] = 0;
        y[i] = 0;
        for (int j = 0; j < n; j++) {
            tmp[i] = a[i * n + j] * x[j] + tmp[i];
            y[i] = b[i * n + j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];",
        "        DATA_TYPE t = 0, u = 0;
        for (int j = 0; j < n; j++) {
            t = a[i * n + j] * x[j] + t;
            u = b[i * n + j] * x[j] + u;
        }
        tmp[i] = t;
        y[i] = alpha * t + beta * u;",
    );
    assert_ne!(registers.source, small.source, "the kernel changed; update the test");
    let promoted = binary_of(&device, &registers, "registers");

    let mut evaluator = DeviceEvaluator::new(device, small.clone(), small.clone())
        .expect("reference runs")
        .with_aliased_layouts(layouts.clone());
    // On the workload's own layout both are right.
    assert_eq!(evaluator.validate_small(&promoted).expect("device works"), Verdict::Valid);
    assert_eq!(evaluator.validate_full(&promoted, 0).expect("device works"), Verdict::Valid);
    let verdicts = evaluator.validate_aliased(&correct).expect("device works");
    assert_eq!(verdicts.len(), layouts.len());
    assert!(verdicts.iter().all(|(_, v)| v.is_valid()), "{verdicts:?}");
    let verdicts = evaluator.validate_aliased(&promoted).expect("device works");
    let (label, verdict) = &verdicts[0];
    assert_eq!(label, "tmp=y");
    assert!(matches!(verdict, Verdict::Wrong(_)), "{verdict:?}");
    // Where only read pointers share a buffer, the promoted code is right too.
    assert!(verdicts[1..].iter().all(|(_, v)| v.is_valid()), "{verdicts:?}");
}
