//! Helpers shared by the advisor's test files.

// Each test file uses only some of these.
#![allow(dead_code)]

use std::path::Path;

use clmap_aristotle::store;
use clmap_db::{Database, DeviceIdentity};

/// The naive matrix multiply: rows of `A` and columns of `B` read in one `k` loop.
pub const MATMUL: &str = "__kernel void mm(__global const float *A, __global const float *B,
                 __global float *C, int n)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}
";

/// A performance database at `path` with clmap's schema and one test GPU named `name` whose
/// description records `details`; returns it with the device's id, ready for units.
pub fn test_gpu_database(path: &Path, name: &str, details: serde_json::Value) -> (Database, i64) {
    let db = Database::open(path).expect("database");
    store::ensure_schema(&db).expect("schema");
    let device = db
        .device_id(&DeviceIdentity {
            kind: "gpu".into(),
            platform: "test platform".into(),
            name: name.into(),
            vendor: "nobody".into(),
            driver: "1".into(),
            details,
        })
        .expect("device");
    (db, device)
}
