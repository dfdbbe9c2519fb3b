//! Helpers shared by the simulator's integration tests.
#![allow(dead_code)]

use clmap_sim::{run_kernel, ArgValue, KernelRun, NoObserver, SharedBuffer, SimOptions};
use clmap_workload::NdRange;

pub fn module(src: &str) -> clmap_lang::ir::Module {
    match clmap_lang::frontend::compile_isolated(src, "") {
        Ok(c) => c.module,
        Err(f) => panic!("does not compile:\n{}", f.render()),
    }
}

pub fn range(global: &[u64], local: &[u64]) -> NdRange {
    let mut g = [1u64; 3];
    let mut l = [1u64; 3];
    g[..global.len()].copy_from_slice(global);
    l[..local.len()].copy_from_slice(local);
    NdRange { global: g, local: Some(l), offset: [0; 3], dims: global.len() as u8 }
}

pub fn buf_f32(name: &str, v: &[f32]) -> SharedBuffer {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    SharedBuffer::from_bytes(name, &bytes)
}

pub fn buf_i32(name: &str, v: &[i32]) -> SharedBuffer {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    SharedBuffer::from_bytes(name, &bytes)
}

pub fn f32s(b: &SharedBuffer) -> Vec<f32> {
    b.to_bytes().chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn i32s(b: &SharedBuffer) -> Vec<i32> {
    b.to_bytes().chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn int(v: i32) -> ArgValue {
    ArgValue::Bytes(v.to_le_bytes().to_vec())
}

pub fn run(
    src: &str,
    kernel: &str,
    global: &[u64],
    local: &[u64],
    args: &[ArgValue],
) -> KernelRun<NoObserver> {
    run_with(src, kernel, global, local, args, &SimOptions { threads: 1, ..SimOptions::default() })
}

pub fn run_with(
    src: &str,
    kernel: &str,
    global: &[u64],
    local: &[u64],
    args: &[ArgValue],
    options: &SimOptions,
) -> KernelRun<NoObserver> {
    let m = module(src);
    match run_kernel(&m, kernel, &range(global, local), args, options, &|| NoObserver) {
        Ok(r) => r,
        Err(e) => panic!("simulation failed: {e}"),
    }
}
