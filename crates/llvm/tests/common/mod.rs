//! Shared helpers of the integration tests: the installed toolchain, or a skip.

#![allow(dead_code)]

use clmap_llvm::{Toolchain, ToolchainConfig};

/// A GEMM-like kernel with a loop: optimisation visibly changes its PTX.
pub const GEMM: &str = r#"
__kernel void gemm(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    int j = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++) {
        acc += a[i * n + k] * b[k * n + j];
    }
    c[i * n + j] = acc;
}
"#;

/// The installed toolchain, or `None` with a printed reason when it is missing and
/// `CLMAP_REQUIRE_CLANG` is unset (CI sets it, so a missing toolchain fails there).
pub fn toolchain() -> Option<Toolchain> {
    match Toolchain::detect(&ToolchainConfig::default()) {
        Ok(tc) => Some(tc),
        Err(e) => {
            clmap_testkit::Requirement::Clang.unavailable(e);
            None
        }
    }
}
