//! Times `initial_data` for each kind of initialiser on a buffer of 16 Mi elements, to keep
//! data generation far below kernel run times.
//!
//! `cargo run --release -p clmap-workload --example initial_data_speed`

use std::time::Instant;

use clmap_workload::{Access, ArgSpec, ElemType, Init, NdRange, Number, ScalarType, Workload};

fn main() {
    let len = 16 << 20;
    let buffer = |name: &str, scalar, init| ArgSpec::Buffer {
        name: name.to_string(),
        elem: ElemType::scalar(scalar),
        len,
        init,
        output: false,
        access: Access::ReadWrite,
        tolerance: None,
    };
    let cases = [
        ("random floats", ScalarType::Float, Init::Random { seed: 1, lo: None, hi: None }),
        (
            "range of ints",
            ScalarType::Int,
            Init::Range { start: Number::Int(0), step: Number::Int(3) },
        ),
        ("filled floats", ScalarType::Float, Init::Fill(Number::Float(0.5))),
        ("zeros", ScalarType::Float, Init::Zero),
    ];
    for (name, scalar, init) in cases {
        let workload =
            Workload::single("", "k", NdRange::linear(len, None), vec![buffer(name, scalar, init)]);
        let start = Instant::now();
        match workload.initial_data(0) {
            Ok(data) => {
                let bytes: usize = data.buffers.iter().map(|b| b.bytes.len()).sum();
                let seconds = start.elapsed().as_secs_f64();
                let rate = bytes as f64 / seconds / 1e6;
                println!("{name}: {bytes} bytes in {seconds:.3} s ({rate:.0} MB/s)");
            }
            Err(e) => println!("error: {e}"),
        }
    }
}
