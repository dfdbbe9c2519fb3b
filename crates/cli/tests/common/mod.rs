//! Helpers shared by the advisor's test files.

use std::path::Path;

use clmap_aristotle::store;
use clmap_db::{Database, DeviceIdentity};

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
