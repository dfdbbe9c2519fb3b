//! Tests against a real OpenCL device (PoCL in CI). Without one they print why and pass,
//! unless CLMAP_REQUIRE_OPENCL=1 demands a device. CLMAP_TEST_DEVICE picks the device by
//! selector (default: the CPU device, else the first one).

use clmap_device::{
    copy_bandwidth, list_devices, select_device, BufferTable, DeviceError, KernelArg, LaunchSpec,
    LocalMemoryKind, SequenceArg, SequenceLaunch, SequenceWrite, TimingOptions,
};
use clmap_testkit::opencl_device;

fn floats_to_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

fn bytes_to_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect()
}

fn ints_to_bytes(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

fn bytes_to_ints(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|chunk| i32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect()
}

fn read_back(arg: &KernelArg) -> &[u8] {
    match arg {
        KernelArg::Buffer { bytes, .. } => bytes,
        _ => &[],
    }
}

const VECTOR_ADD: &str = r#"
__kernel void add(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
"#;

#[test]
fn lists_devices_with_sane_limits() {
    let Some(device) = opencl_device() else { return };
    let devices = list_devices().expect("listing");
    assert!(!devices.is_empty());
    assert!(devices.iter().any(|info| info.name == device.info().name));
    for info in &devices {
        assert!(info.max_work_group_size >= 1);
        assert!(!info.max_work_item_sizes.is_empty());
        assert!(info.local_mem_bytes > 0);
        assert!(info.max_mem_alloc_bytes > 0);
        assert!(info.device_version.starts_with("OpenCL"));
    }
    let json = serde_json::to_string(&devices).expect("serialise");
    assert!(json.contains("\"local_mem_type\""));
    // Selecting by the exact index of a listed device opens that device.
    let first = &devices[0];
    let reopened = select_device(&first.index_selector()).expect("select by index");
    assert_eq!(reopened.info(), first);
}

#[test]
fn unknown_selector_lists_the_devices() {
    let Some(device) = opencl_device() else { return };
    let error = select_device("no-such-device-anywhere").expect_err("must not match");
    let message = error.to_string();
    assert!(matches!(error, DeviceError::SelectorNotFound { .. }));
    assert!(message.contains(&device.info().name), "{message}");
}

#[test]
fn build_failure_carries_a_log_naming_the_line() {
    let Some(device) = opencl_device() else { return };
    let source =
        "__kernel void broken(__global int *x) {\n    x[0] = 1;\n    x[1] = undeclared_name;\n}\n";
    match device.build(source, "") {
        Err(DeviceError::BuildFailed { log, .. }) => {
            assert!(log.contains("undeclared_name"), "{log}");
            assert!(log.contains(":3:"), "the log should point at line 3: {log}");
        }
        other => panic!("expected a build failure, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn build_options_with_nul_are_rejected() {
    let Some(device) = opencl_device() else { return };
    let result = device.build(VECTOR_ADD, "-DX=1\0");
    assert!(matches!(result, Err(DeviceError::InvalidBuildOptions { .. })));
}

#[test]
fn vector_add_returns_correct_data() {
    let Some(device) = opencl_device() else { return };
    let program = device.build(VECTOR_ADD, "-cl-std=CL1.2").expect("build");
    assert_eq!(program.kernel_names(), ["add".to_string()]);
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    let mut args = vec![
        KernelArg::Buffer { bytes: floats_to_bytes(&a), read_back: false },
        KernelArg::Buffer { bytes: floats_to_bytes(&b), read_back: false },
        KernelArg::Buffer { bytes: vec![0; 4 * n], read_back: true },
        KernelArg::Scalar((n as i32).to_le_bytes().to_vec()),
    ];
    let launch = LaunchSpec::new("add", vec![1024]).with_local(vec![64]);
    let outcome = program.run(&launch, &mut args).expect("run");
    let c = bytes_to_floats(read_back(&args[2]));
    assert_eq!(c.len(), n);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    assert_eq!(outcome.kernel_ns.is_some(), device.info().profiling);
}

#[test]
fn wrong_kernel_name_and_argument_count_are_explained() {
    let Some(device) = opencl_device() else { return };
    let program = device.build(VECTOR_ADD, "").expect("build");
    let mut args = vec![KernelArg::Null];
    let error = program.run(&LaunchSpec::new("sub", vec![4]), &mut args).expect_err("no kernel");
    assert!(
        matches!(error, DeviceError::KernelNotFound { ref available, .. } if available == "add")
    );
    let error = program.run(&LaunchSpec::new("ad\0d", vec![4]), &mut args).expect_err("NUL");
    assert!(matches!(error, DeviceError::KernelNotFound { .. }));
    let error = program.run(&LaunchSpec::new("add", vec![4]), &mut args).expect_err("one arg");
    assert!(matches!(error, DeviceError::ArgumentCount { expected: 4, given: 1, .. }));
}

#[test]
fn local_memory_reduction() {
    let Some(device) = opencl_device() else { return };
    let source = r#"
    __kernel void group_sum(__global const int *in, __global int *out, __local int *scratch) {
        size_t lid = get_local_id(0);
        scratch[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
            if (lid < stride) scratch[lid] += scratch[lid + stride];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) out[get_group_id(0)] = scratch[0];
    }
    "#;
    let program = device.build(source, "").expect("build");
    let group = 64usize;
    let groups = 8usize;
    let input: Vec<i32> = (0..(group * groups) as i32).collect();
    let mut args = vec![
        KernelArg::Buffer { bytes: ints_to_bytes(&input), read_back: false },
        KernelArg::Buffer { bytes: vec![0; 4 * groups], read_back: true },
        KernelArg::Local(4 * group),
    ];
    let launch = LaunchSpec::new("group_sum", vec![group * groups]).with_local(vec![group]);
    program.run(&launch, &mut args).expect("run");
    let sums = bytes_to_ints(read_back(&args[1]));
    let expected: Vec<i32> = input.chunks(group).map(|chunk| chunk.iter().sum()).collect();
    assert_eq!(sums, expected);
}

#[test]
fn two_dimensional_launch_with_offset() {
    let Some(device) = opencl_device() else { return };
    let source = r#"
    __kernel void mark(__global int *grid, int width) {
        size_t x = get_global_id(0), y = get_global_id(1);
        grid[y * width + x] = (int)(y * 100 + x);
    }
    "#;
    let program = device.build(source, "").expect("build");
    let (width, height) = (8usize, 6usize);
    let mut args = vec![
        KernelArg::Buffer { bytes: ints_to_bytes(&vec![-1; width * height]), read_back: true },
        KernelArg::Scalar((width as i32).to_le_bytes().to_vec()),
    ];
    let launch = LaunchSpec::new("mark", vec![4, 2]).with_local(vec![2, 2]).with_offset(vec![3, 1]);
    program.run(&launch, &mut args).expect("run");
    let grid = bytes_to_ints(read_back(&args[0]));
    for y in 0..height {
        for x in 0..width {
            let inside = (3..7).contains(&x) && (1..3).contains(&y);
            let expected = if inside { (y * 100 + x) as i32 } else { -1 };
            assert_eq!(grid[y * width + x], expected, "cell ({x}, {y})");
        }
    }
}

#[test]
fn oversized_work_group_is_rejected_with_limits() {
    let Some(device) = opencl_device() else { return };
    let program = device.build(VECTOR_ADD, "").expect("build");
    let too_many = device.info().max_work_group_size * 2;
    let mut args = vec![
        KernelArg::Buffer { bytes: vec![0; 4], read_back: false },
        KernelArg::Buffer { bytes: vec![0; 4], read_back: false },
        KernelArg::Buffer { bytes: vec![0; 4], read_back: false },
        KernelArg::Scalar(0i32.to_le_bytes().to_vec()),
    ];
    let launch = LaunchSpec::new("add", vec![too_many]).with_local(vec![too_many]);
    let error = program.run(&launch, &mut args).expect_err("too large");
    let message = error.to_string();
    assert!(matches!(error, DeviceError::InvalidWorkGroupSize { .. }), "{message}");
    assert!(message.contains("max_work_group_size"), "{message}");
    assert!(message.contains(&device.info().max_work_group_size.to_string()), "{message}");
}

#[test]
fn too_much_local_memory_is_rejected() {
    let Some(device) = opencl_device() else { return };
    let available = device.info().local_mem_bytes as usize;
    let source = "__kernel void k(__global int *out, __local int *scratch) {\n\
                  scratch[0] = 1; barrier(CLK_LOCAL_MEM_FENCE); out[0] = scratch[0]; }";
    let program = device.build(source, "").expect("build");
    let mut args = vec![
        KernelArg::Buffer { bytes: vec![0; 4], read_back: true },
        KernelArg::Local(available + 4),
    ];
    let error = program.run(&LaunchSpec::new("k", vec![1]), &mut args).expect_err("too much");
    assert!(
        matches!(error, DeviceError::LocalMemoryExceeded { available: a, .. } if a as usize == available),
        "{error}"
    );
}

#[test]
fn static_local_array_above_the_limit_is_rejected() {
    let Some(device) = opencl_device() else { return };
    let ints = device.info().local_mem_bytes / 4 + 1024;
    let source = format!(
        "__kernel void k(__global int *out) {{\n __local int big[{ints}];\n\
         big[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE); out[0] = big[{last}]; }}",
        last = ints - 1
    );
    // Some compilers reject the array at build time; others only at launch time.
    let program = match device.build(&source, "") {
        Ok(program) => program,
        Err(DeviceError::BuildFailed { .. }) => return,
        Err(other) => panic!("unexpected error {other}"),
    };
    let mut args = vec![KernelArg::Buffer { bytes: vec![0; 4], read_back: true }];
    match program.run(&LaunchSpec::new("k", vec![1]), &mut args) {
        Err(error) => {
            let message = error.to_string();
            eprintln!("rejected as expected: {message}");
            assert!(
                matches!(error, DeviceError::LocalMemoryExceeded { .. })
                    || message.contains("CL_OUT_OF_RESOURCES"),
                "{message}"
            );
        }
        // Runtimes that emulate local memory in global memory (PoCL 5) may honour any size;
        // a device with a real scratchpad cannot.
        Ok(_) => assert_eq!(
            device.info().local_mem_type,
            LocalMemoryKind::Emulated,
            "a scratchpad device ran a kernel with more local memory than it has"
        ),
    }
}

#[test]
fn timing_returns_every_sample_and_sane_statistics() {
    let Some(device) = opencl_device() else { return };
    if !device.info().profiling {
        eprintln!("skipping: the device does not profile");
        return;
    }
    let program = device.build(VECTOR_ADD, "").expect("build");
    let n = 1 << 16;
    let mut args = vec![
        KernelArg::Buffer { bytes: floats_to_bytes(&vec![1.0; n]), read_back: false },
        KernelArg::Buffer { bytes: floats_to_bytes(&vec![2.0; n]), read_back: false },
        KernelArg::Buffer { bytes: vec![0; 4 * n], read_back: true },
        KernelArg::Scalar((n as i32).to_le_bytes().to_vec()),
    ];
    let launch = LaunchSpec::new("add", vec![n]);
    for flush_cache in [false, true] {
        let options = TimingOptions { warmup: 1, reps: 7, flush_cache };
        let timing = program.time(&launch, &mut args, &options).expect("time");
        assert_eq!(timing.samples_ns.len(), 7);
        assert!(timing.samples_ns.iter().all(|&ns| ns > 0));
        assert!(
            timing.min > 0.0 && timing.min <= timing.median && timing.median <= timing.mean * 7.0
        );
        assert!(timing.mean >= timing.min);
        assert!(timing.std >= 0.0 && timing.std.is_finite());
        assert!(bytes_to_floats(read_back(&args[2])).iter().all(|&value| value == 3.0));
    }
    let zero = TimingOptions { warmup: 0, reps: 0, flush_cache: false };
    assert!(program.time(&launch, &mut args, &zero).is_err());
}

#[test]
fn copy_bandwidth_is_positive() {
    let Some(device) = opencl_device() else { return };
    if !device.info().profiling {
        eprintln!("skipping: the device does not profile");
        return;
    }
    let gigabytes_per_second = copy_bandwidth(&device, 8 << 20, 5).expect("bandwidth");
    assert!(gigabytes_per_second.is_finite() && gigabytes_per_second > 0.0);
    assert!(copy_bandwidth(&device, 0, 5).is_err());
}

#[test]
fn sequence_of_launches_shares_buffers() {
    let Some(device) = opencl_device() else { return };
    let source = r#"
    __kernel void scale(__global const int *in, __global int *out, int factor) {
        size_t i = get_global_id(0);
        out[i] = in[i] * factor;
    }
    __kernel void add_one(__global int *data) {
        data[get_global_id(0)] += 1;
    }
    "#;
    let program = device.build(source, "").expect("build");
    let n = 256usize;
    let input: Vec<i32> = (0..n as i32).collect();
    let mut table = BufferTable::default();
    let source_buffer = table.push(ints_to_bytes(&input), false);
    let middle = table.push(vec![0; 4 * n], true);
    let launches = vec![
        SequenceLaunch {
            launch: LaunchSpec::new("scale", vec![n]),
            args: vec![
                SequenceArg::Shared(source_buffer),
                SequenceArg::Shared(middle),
                SequenceArg::Scalar(3i32.to_le_bytes().to_vec()),
            ],
            writes_before: Vec::new(),
        },
        // The host overwrites one element between the launches.
        SequenceLaunch {
            launch: LaunchSpec::new("add_one", vec![n]),
            args: vec![SequenceArg::Shared(middle)],
            writes_before: vec![SequenceWrite {
                buffer: middle,
                offset: 4,
                bytes: 100i32.to_le_bytes().to_vec(),
            }],
        },
    ];
    let outcome = program.run_sequence(&launches, &mut table).expect("sequence");
    assert_eq!(outcome.kernel_ns.len(), 2);
    let result = bytes_to_ints(&table.buffers[middle].bytes);
    let mut expected: Vec<i32> = input.iter().map(|value| value * 3 + 1).collect();
    expected[1] = 101;
    assert_eq!(result, expected);
    // The input was not marked for read-back and keeps its host contents.
    assert_eq!(bytes_to_ints(&table.buffers[source_buffer].bytes), input);

    let bad = vec![SequenceLaunch::new(
        LaunchSpec::new("add_one", vec![n]),
        vec![SequenceArg::Shared(9)],
    )];
    assert!(matches!(
        program.run_sequence(&bad, &mut table),
        Err(DeviceError::UnknownSharedBuffer { index: 9, count: 2, .. })
    ));
    let past_the_end = vec![SequenceLaunch {
        launch: LaunchSpec::new("add_one", vec![n]),
        args: vec![SequenceArg::Shared(middle)],
        writes_before: vec![SequenceWrite { buffer: middle, offset: 4 * n, bytes: vec![1] }],
    }];
    assert!(matches!(
        program.run_sequence(&past_the_end, &mut table),
        Err(DeviceError::InvalidLaunch { .. })
    ));
}

#[test]
fn built_binary_loads_and_runs_again() {
    let Some(device) = opencl_device() else { return };
    let program = device.build(VECTOR_ADD, "").expect("build");
    let binary = program.binary().expect("binary");
    let reloaded = device.build_binary(&binary, "").expect("build from binary");
    let n = 64usize;
    let mut args = vec![
        KernelArg::Buffer { bytes: floats_to_bytes(&vec![1.5; n]), read_back: false },
        KernelArg::Buffer { bytes: floats_to_bytes(&vec![2.0; n]), read_back: false },
        KernelArg::Buffer { bytes: vec![0; 4 * n], read_back: true },
        KernelArg::Scalar((n as i32).to_le_bytes().to_vec()),
    ];
    reloaded.run(&LaunchSpec::new("add", vec![n]), &mut args).expect("run");
    assert!(bytes_to_floats(read_back(&args[2])).iter().all(|&value| value == 3.5));
    let garbage = device.build_binary(b"not a binary", "");
    assert!(garbage.is_err());
}
