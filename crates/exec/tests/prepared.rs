//! The prepared workload and the differential answer on the simulator: compiled once,
//! rewrites compared input set by input set, disagreements and findings told apart.

use clmap_exec::{
    differential, differential_on, front_end_runs, run_on, Disagreement, ExecError,
    PreparedWorkload, Side, StopAt, Target,
};
use clmap_sim::SimOptions;
use clmap_workload::{ArgSpec, Init, NdRange, ParamSpace, Workload};
use clmap_workload::{ElemType, ScalarType};

const SCALE: &str = "__kernel void scale(__global const float *in, __global float *out, float k) {
    size_t i = get_global_id(0);
    out[i] = in[i] * k;
}
";

fn scale_workload(source: &str) -> Workload {
    let float = ElemType::scalar(ScalarType::Float);
    Workload::single(
        source,
        "scale",
        NdRange::linear(64, Some(16)),
        vec![
            ArgSpec::Buffer {
                name: "in".into(),
                elem: float,
                len: 64,
                init: Init::Random { seed: 7, lo: None, hi: None },
                output: false,
                access: Default::default(),
                tolerance: None,
            },
            ArgSpec::Buffer {
                name: "out".into(),
                elem: float,
                len: 64,
                init: Init::Zero,
                output: true,
                access: Default::default(),
                tolerance: None,
            },
            ArgSpec::Scalar {
                name: "k".into(),
                ty: float,
                value: vec![clmap_workload::Number::Float(2.0)],
            },
        ],
    )
}

fn simulator() -> Target {
    Target::Simulator(SimOptions::default())
}

#[test]
fn preparing_runs_the_front_end_once_and_runs_reuse_it() {
    let before = front_end_runs();
    let prepared = PreparedWorkload::new(scale_workload(SCALE)).expect("compiles");
    for seed in 0..3 {
        let run = run_on(&simulator(), &prepared, seed).expect("runs");
        assert_eq!(run.launches, 1);
        assert!(run.reports.is_empty());
    }
    assert_eq!(front_end_runs() - before, 1);
    let params = prepared.kernel_params("scale").expect("the kernel exists");
    let summary: Vec<(String, ParamSpace, String)> =
        params.into_iter().map(|p| (p.name, p.space, p.type_name)).collect();
    assert_eq!(
        summary,
        vec![
            ("in".to_string(), ParamSpace::Global, "float".to_string()),
            ("out".to_string(), ParamSpace::Global, "float".to_string()),
            ("k".to_string(), ParamSpace::Private, "float".to_string()),
        ]
    );
    assert!(prepared.kernel_params("other").is_none());
}

#[test]
fn a_program_that_does_not_compile_or_lacks_the_kernel_is_refused() {
    let broken = PreparedWorkload::new(scale_workload("__kernel void scale( {"));
    assert!(matches!(broken, Err(ExecError::Frontend { .. })), "{broken:?}");
    let renamed = SCALE.replace("void scale", "void scaled");
    let err = PreparedWorkload::new(scale_workload(&renamed)).expect_err("no kernel `scale`");
    assert!(err.to_string().contains("scaled"), "{err}");
}

#[test]
fn an_equivalent_rewrite_agrees_on_every_input_set() {
    let original = PreparedWorkload::new(scale_workload(SCALE)).expect("compiles");
    let rewrite = original.with_source(&SCALE.replace("in[i] * k", "k * in[i]")).expect("compiles");
    let answer = differential_on(&original, &rewrite, 4, &simulator()).expect("runs");
    assert!(answer.agree());
    assert_eq!(answer.seed_count(), 4);
    assert_eq!(answer.output_names(), vec!["out".to_string()]);
    assert_eq!(answer.max_abs(), 0.0);
    assert!(answer.render("scale").contains("out: 64 values equal"));
}

#[test]
fn a_wrong_rewrite_is_caught_at_the_first_input_set_with_the_output_named() {
    let original = PreparedWorkload::new(scale_workload(SCALE)).expect("compiles");
    let wrong = original.with_source(&SCALE.replace("in[i] * k", "in[i] + k")).expect("compiles");
    let answer = differential_on(&original, &wrong, 4, &simulator()).expect("runs");
    assert!(!answer.agree());
    // A validation needs one counterexample: the rest of the input sets are not run.
    assert_eq!(answer.seed_count(), 1);
    match answer.first_disagreement() {
        Some(Disagreement::Output { seed: 0, buffer, detail }) => {
            assert_eq!(buffer, "out");
            assert!(detail.contains("of 64 values differ"), "{detail}");
        }
        other => panic!("expected an output disagreement, got {other:?}"),
    }
    let json = answer.to_json();
    assert_eq!(json["agree"], false);
    assert_eq!(json["seeds"][0]["outputs"][0]["buffer"], "out");
    // Run to the end, every input set is compared.
    let all = differential(
        Side::new(&original, &simulator()),
        Side::new(&wrong, &simulator()),
        3,
        StopAt::Never,
    )
    .expect("runs");
    assert_eq!(all.seed_count(), 3);
}

#[test]
fn a_rewrite_with_a_finding_disagrees_even_when_outputs_match() {
    let original = PreparedWorkload::new(scale_workload(SCALE)).expect("compiles");
    // Same outputs, plus a write one past the end of `out` by the last work-item.
    let faulty = SCALE
        .replace("out[i] = in[i] * k;", "out[i] = in[i] * k;\n    if (i == 63) out[i + 1] = 0.0f;");
    let rewrite = original.with_source(&faulty).expect("compiles");
    let answer = differential_on(&original, &rewrite, 2, &simulator()).expect("runs");
    assert!(answer.outputs_agree());
    assert!(
        matches!(answer.first_disagreement(), Some(Disagreement::Finding { seed: 0, .. })),
        "{:?}",
        answer.first_disagreement()
    );
}
