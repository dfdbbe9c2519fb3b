//! Tuning end to end on the simulator: the variants built for a kernel with local staging and
//! a fixed tile size, the rejection of variants whose outputs differ (work-group sizes the
//! tile size breaks, and a wrong rewrite injected by the test), the database answering a second
//! run, and resuming a run cut short by its budget.

use clmap_db::Database;
use clmap_exec::PreparedWorkload;
use clmap_tune::{
    build_variants, default_producers, simulator_identity, tune, Budget, CombinedStaging,
    Construction, Layout, Step, Subject, TuneOptions, TuneReport, TuneStore, TuneTarget, Variant,
    WorkGroupChoice,
};

fn corpus(name: &str) -> PreparedWorkload {
    let path = clmap_testkit::root().join("tests/corpus").join(name);
    PreparedWorkload::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn options(budget: Budget) -> TuneOptions {
    TuneOptions {
        seeds: 2,
        timing: clmap_device::TimingOptions { warmup: 1, reps: 2, flush_cache: false },
        budget,
        remeasure: false,
    }
}

/// One tuning run of `kernel` on the simulator with `extra` variants after the producers'.
fn run(
    db: &Database,
    prepared: &PreparedWorkload,
    kernel: &str,
    work_groups: WorkGroupChoice,
    extra: Vec<Variant>,
    budget: Budget,
    steps: &mut Vec<String>,
) -> TuneReport {
    let target = TuneTarget::simulator();
    let device = db.device_id(&simulator_identity()).expect("device");
    let store =
        TuneStore::open(db, device, prepared.workload().identity(), "w".into(), kernel.into())
            .expect("store");
    let subject = Subject { original: prepared, kernel, limits: target.limits(), seeds: 2 };
    let mut variants = build_variants(&default_producers(work_groups), &subject, &mut |_, _| {});
    variants.extend(extra.into_iter().map(Ok));
    tune(
        prepared,
        "w",
        kernel,
        variants,
        &target,
        &store,
        &options(budget),
        Err("no advice in this test"),
        &mut |p| {
            let step = match &p.step {
                Step::FromDatabase(_) => "database",
                Step::Validating { .. } => "validating",
                Step::ValidatedWhenBuilt { .. } => "validated when built",
                Step::Timing => "timing",
                Step::OverBudget => "over budget",
                Step::Refused(_) => "refused",
                Step::CheckingOnDevice => "checking",
                Step::Done(s) => s.status(),
            };
            steps.push(format!("{} {step}", p.variant));
        },
    )
    .expect("tuning runs")
}

fn names(report: &TuneReport) -> Vec<&str> {
    report.variants.iter().map(|v| v.name.as_str()).collect()
}

fn status<'a>(report: &'a TuneReport, name: &str) -> &'a str {
    report
        .variants
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variant {name} in {:?}", names(report)))
        .status
}

#[test]
fn a_tiled_matrix_multiply_keeps_its_tile_size_and_may_lose_its_staging() {
    let prepared = corpus("mm_nvidia_tile_a.toml");
    let db = Database::in_memory().expect("database");
    let kernel = "matrixMul_tile_a";
    let given = WorkGroupChoice::Given(vec![vec![16, 16], vec![32, 8], vec![8, 8], vec![24, 16]]);
    let mut steps = Vec::new();
    let first =
        run(&db, &prepared, kernel, given.clone(), Vec::new(), Budget::Unlimited, &mut steps);
    // 16x16 is the launch's own size, so it is the kernel as written and not repeated; 24
    // does not divide 64.
    assert_eq!(
        names(&first),
        [
            "as-written",
            "unlocal:As",
            "stage:C",
            "stage:A",
            "stage:B",
            "wg:32x8",
            "wg:8x8",
            "wg:24x16"
        ]
    );
    // C is written, A is staged already, B's index is not affine: the stager says so.
    for stage in ["stage:C", "stage:A", "stage:B"] {
        assert_eq!(status(&first, stage), "refused", "{stage}");
    }
    assert_eq!(status(&first, "as-written"), "timed");
    assert_eq!(status(&first, "unlocal:As"), "timed", "{:#?}", first.variants[1]);
    // The kernel reads its A tile with BLOCK_SIZE = 16 whatever the launch: other work-group
    // sizes compute something else, and validation says so.
    for wg in ["wg:32x8", "wg:8x8"] {
        assert_eq!(status(&first, wg), "invalid", "{wg}");
        let v = first.variants.iter().find(|v| v.name == wg).expect("variant");
        assert_eq!(v.validation.status, "failed");
        assert!(v.time.is_none() && v.speedup.is_none() && !v.chosen);
    }
    assert_eq!(status(&first, "wg:24x16"), "refused");
    let unlocal = first.variants.iter().find(|v| v.name == "unlocal:As").expect("unlocal");
    assert_eq!(unlocal.built, Construction::Unlocal { local_buffers: vec!["As".into()] });
    assert_eq!(unlocal.layout.unstaged.iter().collect::<Vec<_>>(), ["A"]);
    assert_eq!(unlocal.validation.seeds, 2);
    assert!(unlocal.speedup.is_some());
    let baseline = &first.variants[0];
    assert_eq!(baseline.validation.status, "reference");
    assert!((baseline.speedup.expect("speedup") - 1.0).abs() < 1e-12);
    let winner = first.winner().expect("a winner");
    assert!(["as-written", "unlocal:As"].contains(&winner.name.as_str()));
    assert_eq!(first.variants.iter().filter(|v| v.chosen).count(), 1);
    assert_eq!((first.measured_now, first.from_database), (4, 0));
    assert!(steps.contains(&"unlocal:As validating".to_string()), "{steps:?}");

    // A second run measures nothing: every built variant is answered from the database.
    steps.clear();
    let second = run(&db, &prepared, kernel, given, Vec::new(), Budget::Unlimited, &mut steps);
    assert_eq!((second.measured_now, second.from_database), (0, 4), "{steps:?}");
    assert!(!steps.iter().any(|s| s.ends_with("validating") || s.ends_with("timing")), "{steps:?}");
    assert_eq!(second.winner, first.winner);
    let a = |r: &TuneReport| r.variants.iter().map(|v| v.time.clone()).collect::<Vec<_>>();
    assert_eq!(a(&first), a(&second), "the same samples, read back");
    let rows: i64 = db
        .connection()
        .query_row("SELECT count(*) FROM tune_variants", [], |r| r.get(0))
        .expect("rows");
    assert_eq!(rows, 8, "refusals are recorded too");
}

#[test]
fn a_wrong_variant_is_rejected_by_validation_and_never_timed() {
    let prepared = corpus("transpose_local_padded.toml");
    let original = prepared.workload().source.clone();
    // The tile read back transposed the wrong way: a plain copy, not a transpose.
    let wrong =
        original.replace("block[lx * (BLOCK_DIM + 1) + ly]", "block[ly * (BLOCK_DIM + 1) + lx]");
    assert_ne!(wrong, original, "the test's edit must apply to the kernel");
    let injected = Variant {
        name: "injected:wrong".into(),
        construction: Construction::Unlocal { local_buffers: vec!["block".into()] },
        how: "a deliberately wrong rewrite".into(),
        layout: Layout::default(),
        work_group: Some(vec![16, 16]),
        prepared: prepared.with_source(&wrong).expect("compiles"),
        validated: None,
    };
    let db = Database::in_memory().expect("database");
    let mut steps = Vec::new();
    let report = run(
        &db,
        &prepared,
        "transpose_local_padded",
        WorkGroupChoice::None,
        vec![injected],
        Budget::Unlimited,
        &mut steps,
    );
    assert_eq!(status(&report, "injected:wrong"), "invalid");
    let v = report.variants.iter().find(|v| v.name == "injected:wrong").expect("variant");
    assert!(v.detail.as_deref().unwrap_or("").contains("differs"), "{v:#?}");
    assert!(!steps.contains(&"injected:wrong timing".to_string()), "{steps:?}");
    assert_eq!(status(&report, "unlocal:block"), "timed");
}

#[test]
fn a_budget_cut_run_resumes_where_it_stopped() {
    let prepared = corpus("map_row_local.toml");
    let db = Database::in_memory().expect("database");
    let kernel = "map_row_local";
    let sizes = WorkGroupChoice::Given(vec![vec![64, 2], vec![128, 1]]);
    let mut steps = Vec::new();
    let first =
        run(&db, &prepared, kernel, sizes.clone(), Vec::new(), Budget::Variants(2), &mut steps);
    assert_eq!(first.measured_now, 2);
    assert!(first.skipped >= 1, "{:?}", names(&first));
    let skipped: Vec<&str> =
        first.variants.iter().filter(|v| v.status == "skipped").map(|v| v.name.as_str()).collect();
    steps.clear();
    let second = run(&db, &prepared, kernel, sizes, Vec::new(), Budget::Unlimited, &mut steps);
    assert_eq!(second.skipped, 0);
    assert_eq!(second.from_database, 2);
    for name in skipped {
        assert_ne!(status(&second, name), "skipped", "{name} is measured by the second run");
    }
}

#[test]
fn a_staged_variant_is_validated_once_and_timed() {
    // Jacobi's A is read as a 5-point cross (MAP-508): the stager copies each work-group's
    // 18 x 18 footprint into a tile; B is written, so it is refused.
    let prepared = corpus("jacobi2d.toml");
    let db = Database::in_memory().expect("database");
    let mut steps = Vec::new();
    let report = run(
        &db,
        &prepared,
        "jacobi2d_step",
        WorkGroupChoice::None,
        Vec::new(),
        Budget::Unlimited,
        &mut steps,
    );
    assert_eq!(names(&report), ["as-written", "stage:A", "stage:B"]);
    assert_eq!(status(&report, "stage:B"), "refused");
    let staged = report.variants.iter().find(|v| v.name == "stage:A").expect("stage:A");
    assert_eq!(staged.status, "timed", "{staged:#?}");
    assert_eq!(staged.built, Construction::Stage { buffer: "A".into() });
    assert_eq!(staged.layout.staged.iter().collect::<Vec<_>>(), ["A"]);
    assert_eq!((staged.validation.status, staged.validation.seeds), ("passed", 2));
    assert!(staged.how.contains("MAP-508"), "{}", staged.how);
    // The stager validated it as it built it, with the same runner: reported, not repeated.
    assert!(steps.contains(&"stage:A validated when built".to_string()), "{steps:?}");
    assert!(!steps.contains(&"stage:A validating".to_string()), "{steps:?}");
}

#[test]
fn a_kernel_with_a_required_work_group_size_gets_no_other() {
    let prepared = corpus("map_block_local.toml");
    let subject = Subject {
        original: &prepared,
        kernel: "map_block_local",
        limits: clmap_tune::DeviceLimits::SIMULATOR,
        seeds: 1,
    };
    let built = build_variants(
        &[Box::new(clmap_tune::WorkGroupSizes(WorkGroupChoice::All))],
        &subject,
        &mut |_, _| {},
    );
    let [Err(refused)] = built.as_slice() else {
        panic!("one refusal expected: {:?}", built.iter().map(|b| b.is_ok()).collect::<Vec<_>>())
    };
    assert!(refused.reason.contains("reqd_work_group_size(8, 8, 1)"), "{}", refused.reason);
}

#[test]
fn advice_to_stage_two_buffers_gets_one_variant_staging_both_validated() {
    // PolyBench's gemm reads `a` along rows and `b` down columns: each alone and both together
    // can be tiled, and the combination must compute what the kernel as written computes.
    let prepared = corpus("pbo_gemm.toml");
    let subject = Subject {
        original: &prepared,
        kernel: "gemm",
        limits: clmap_tune::DeviceLimits::SIMULATOR,
        seeds: 2,
    };
    let both: std::collections::BTreeSet<String> = ["a".to_string(), "b".to_string()].into();
    let built =
        build_variants(&[Box::new(CombinedStaging(vec![both.clone()]))], &subject, &mut |_, _| {});
    let [Ok(variant)] = built.as_slice() else {
        panic!(
            "one combined variant expected: {:?}",
            built.iter().map(|b| b.as_ref().err()).collect::<Vec<_>>()
        )
    };
    assert_eq!(variant.name, "stage:a+b");
    assert_eq!(variant.layout, Layout { staged: both.clone(), unstaged: Default::default() });
    assert_eq!(
        variant.construction,
        Construction::StageAll { buffers: vec!["a".into(), "b".into()] }
    );
    // Both tiles are in the source, and tuning validates the composition itself.
    let source = &variant.prepared.workload().source;
    assert!(source.matches("__local").count() >= 2, "{source}");
    assert!(variant.validated.is_none());
    let db = Database::in_memory().expect("database");
    let mut steps = Vec::new();
    let report = run(
        &db,
        &prepared,
        "gemm",
        WorkGroupChoice::None,
        vec![variant.clone()],
        Budget::Unlimited,
        &mut steps,
    );
    let combined = report.variants.iter().find(|v| v.name == "stage:a+b").expect("combined");
    assert_eq!(combined.status, "timed", "{combined:#?}");
    assert_eq!((combined.validation.status, combined.validation.seeds), ("passed", 2));
    assert!(steps.contains(&"stage:a+b validating".to_string()), "{steps:?}");
    // A set naming a buffer the kernel writes is refused with the stager's reason.
    let with_output: std::collections::BTreeSet<String> = ["a".to_string(), "c".to_string()].into();
    let refused =
        build_variants(&[Box::new(CombinedStaging(vec![with_output]))], &subject, &mut |_, _| {});
    let [Err(why)] = refused.as_slice() else { panic!("a refusal expected") };
    assert_eq!(why.name, "stage:a+c");
    assert!(why.reason.contains("`c` after `a`"), "{}", why.reason);
}

#[test]
fn a_wrong_combined_variant_is_rejected_by_validation() {
    // The composition is validated against the original, not step by step: a combined
    // variant whose source computes something else never reaches timing.
    let prepared = corpus("pbo_gemm.toml");
    let subject = Subject {
        original: &prepared,
        kernel: "gemm",
        limits: clmap_tune::DeviceLimits::SIMULATOR,
        seeds: 2,
    };
    let both: std::collections::BTreeSet<String> = ["a".to_string(), "b".to_string()].into();
    let built = build_variants(&[Box::new(CombinedStaging(vec![both]))], &subject, &mut |_, _| {});
    let Some(Ok(mut variant)) = built.into_iter().next() else { panic!("combined variant") };
    let broken = variant.prepared.workload().source.replacen("+= alpha", "+= 2.0f * alpha", 1);
    assert_ne!(broken, variant.prepared.workload().source);
    variant.prepared = variant.prepared.with_source(&broken).expect("compiles");
    let db = Database::in_memory().expect("database");
    let mut steps = Vec::new();
    let report = run(
        &db,
        &prepared,
        "gemm",
        WorkGroupChoice::None,
        vec![variant],
        Budget::Unlimited,
        &mut steps,
    );
    assert_eq!(status(&report, "stage:a+b"), "invalid");
}
