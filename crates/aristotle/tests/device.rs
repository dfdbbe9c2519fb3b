//! The generated workloads run on a real OpenCL implementation (PoCL in CI) and give what the
//! simulator gives. Without a device the test says why and passes, unless
//! CLMAP_REQUIRE_OPENCL=1 demands one; CLMAP_TEST_DEVICE picks the device.

use clmap_aristotle::compose_kernels::{generate_pair, ComposeVersion};
use clmap_aristotle::generate::{generate, BenchSpec, Microbenchmark, Variant};
use clmap_aristotle::map::{map_by_id, MapId};
use clmap_aristotle::validate::{output_of, validation_options};
use clmap_device::Device;
use clmap_testkit::opencl_device;

fn device_output(device: &Device, bench: &Microbenchmark) -> Vec<f32> {
    let run = clmap_exec::run_on_device(device, &bench.workload, 0)
        .unwrap_or_else(|e| panic!("{} on the device: {e}", bench.kernel_name));
    let out = run.buffers.get("out").expect("an output buffer");
    out.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn agree(device: &Device, bench: &Microbenchmark) {
    let expected = output_of(bench, &validation_options()).expect("runs on the simulator");
    let actual = device_output(device, bench);
    assert_eq!(actual.len(), expected.len());
    for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
        // The same additions in the same order: only a contracted or reassociated sum could
        // differ, and by no more than a few ulps.
        assert!(
            (a - e).abs() <= 1e-5 * e.abs().max(1.0),
            "{}: out[{i}] is {a} on the device, {e} on the simulator",
            bench.kernel_name
        );
    }
}

#[test]
fn generated_kernels_agree_with_the_simulator_on_a_device() {
    let Some(device) = opencl_device() else { return };
    for id in [107, 116, 205, 306, 407, 413, 509] {
        let map = map_by_id(MapId(id)).unwrap();
        for variant in Variant::ALL {
            let spec = BenchSpec { map, variant, dataset: 64, work_group: [16, 16] };
            agree(&device, &generate(&spec).unwrap());
        }
    }
    let (a, b) = (map_by_id(MapId(407)).unwrap(), map_by_id(MapId(204)).unwrap());
    for version in ComposeVersion::ALL {
        agree(&device, &generate_pair(&a, &b, version, 64, [16, 16]).unwrap());
    }
}

#[test]
fn compose_units_are_checked_against_v0_on_the_device_then_timed() {
    use clmap_aristotle::compose_bench::{self, DevicePairMeasurer};
    use clmap_db::Database;
    let Some(device) = opencl_device() else { return };
    if !device.info().profiling {
        eprintln!("skipping: the device does not profile");
        return;
    }
    let mut db = Database::in_memory().unwrap();
    let info = device.info();
    let identity = clmap_db::DeviceIdentity {
        kind: info.device_type.as_str().to_string(),
        platform: info.platform_name.clone(),
        name: info.name.clone(),
        vendor: info.vendor.clone(),
        driver: info.driver_version.clone(),
        details: serde_json::json!({}),
    };
    let device_id = db.device_id(&identity).unwrap();
    let units = compose_bench::plan(&[(407, 204), (108, 302)], &[32]);
    let mut measurer = DevicePairMeasurer::new(&device, [16, 16], 3, true);
    let summary =
        compose_bench::run(&mut db, device_id, &units, &mut measurer, None, &mut |_, _| {})
            .unwrap();
    assert_eq!(summary.failures, Vec::<String>::new());
    // Every version of both pairs agreed with v0 on the device and was timed.
    assert_eq!((summary.measured, summary.skipped), (6, 0), "{summary:?}");
    assert_eq!(summary.samples, 6 * 2);
}

#[test]
fn a_pair_kernel_that_computes_something_else_is_told_apart_from_v0() {
    use clmap_aristotle::campaign_device::output_differences;
    let Some(device) = opencl_device() else { return };
    let (a, b) = (map_by_id(MapId(407)).unwrap(), map_by_id(MapId(204)).unwrap());
    let v0 = generate_pair(&a, &b, ComposeVersion::V0, 32, [16, 16]).unwrap();
    let mut wrong = generate_pair(&a, &b, ComposeVersion::V2, 32, [16, 16]).unwrap();
    assert!(wrong.workload.source.contains("] = acc1 + acc2;"), "{}", wrong.workload.source);
    wrong.workload.source =
        wrong.workload.source.replace("] = acc1 + acc2;", "] = acc1 + acc2 + 1.0f;");
    let expected = clmap_exec::run_on_device(&device, &v0.workload, 0).unwrap().buffers;
    let right = clmap_exec::run_on_device(
        &device,
        &generate_pair(&a, &b, ComposeVersion::V2, 32, [16, 16]).unwrap().workload,
        0,
    )
    .unwrap()
    .buffers;
    assert_eq!(output_differences(&v0.workload, &expected, &right), None);
    let got = clmap_exec::run_on_device(&device, &wrong.workload, 0).unwrap().buffers;
    let difference = output_differences(&v0.workload, &expected, &got).expect("told apart");
    assert!(difference.contains("1024 of 1024 values differ"), "{difference}");
}
