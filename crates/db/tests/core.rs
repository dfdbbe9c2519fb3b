//! The database core: schemas apply once, devices are deduplicated, foreign files are refused,
//! exports quote what needs quoting.

use clmap_db::{export_csv, export_json, Database, DbError, DeviceIdentity, Schema};

fn identity(name: &str, driver: &str) -> DeviceIdentity {
    DeviceIdentity {
        kind: "gpu".into(),
        platform: "NVIDIA CUDA".into(),
        name: name.into(),
        vendor: "NVIDIA Corporation".into(),
        driver: driver.into(),
        details: serde_json::json!({ "compute_units": 132 }),
    }
}

const SAMPLES: Schema = Schema {
    name: "samples-v1",
    sql: "CREATE TABLE samples (id INTEGER PRIMARY KEY, device INTEGER NOT NULL REFERENCES devices(id), label TEXT, ns INTEGER);",
};

#[test]
fn schemas_apply_once_and_survive_reopening() {
    let dir = clmap_testkit::Scratch::new("db");
    let path = dir.path().join("clmap.db");
    {
        let db = Database::open(&path).unwrap();
        db.ensure_schema(&SAMPLES).unwrap();
        // A second application would fail on CREATE TABLE without IF NOT EXISTS.
        db.ensure_schema(&SAMPLES).unwrap();
    }
    let db = Database::open(&path).unwrap();
    db.ensure_schema(&SAMPLES).unwrap();
    assert_eq!(db.schemas().unwrap(), vec!["core-v1", "samples-v1"]);
}

#[test]
fn a_failing_schema_leaves_nothing_behind() {
    let db = Database::in_memory().unwrap();
    let broken =
        Schema { name: "broken-v1", sql: "CREATE TABLE half (x INTEGER); CREATE TABLE oops (" };
    assert!(matches!(db.ensure_schema(&broken), Err(DbError::Schema { .. })));
    let half: i64 = db
        .connection()
        .query_row("SELECT count(*) FROM sqlite_master WHERE name = 'half'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(half, 0);
    assert_eq!(db.schemas().unwrap(), vec!["core-v1"]);
}

#[test]
fn devices_are_recorded_once_per_identity() {
    let db = Database::in_memory().unwrap();
    let a = db.device_id(&identity("NVIDIA H200", "580.1")).unwrap();
    let again = db.device_id(&identity("NVIDIA H200", "580.1")).unwrap();
    let new_driver = db.device_id(&identity("NVIDIA H200", "590.0")).unwrap();
    assert_eq!(a, again);
    assert_ne!(a, new_driver);
    let all = db.devices().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].identity.details["compute_units"], 132);
    assert_eq!(db.find_devices("gpu").unwrap().len(), 2);
    assert_eq!(db.find_devices("h200").unwrap().len(), 2);
    assert_eq!(db.find_devices(&format!("#{new_driver}")).unwrap()[0].id, new_driver);
    assert!(db.find_devices("cpu").unwrap().is_empty());
}

#[test]
fn foreign_sqlite_files_are_refused_untouched() {
    let dir = clmap_testkit::Scratch::new("db");
    let path = dir.path().join("other.db");
    {
        let conn = clmap_db::rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE customers (name TEXT)").unwrap();
    }
    assert!(matches!(Database::open(&path), Err(DbError::Foreign(_))));
    let conn = clmap_db::rusqlite::Connection::open(&path).unwrap();
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1);
}

#[test]
fn missing_directories_are_named() {
    let err =
        Database::open(std::path::Path::new("/nonexistent-dir-for-clmap/x.db")).err().unwrap();
    assert!(err.to_string().contains("/nonexistent-dir-for-clmap"), "{err}");
}

#[test]
fn export_quotes_csv_and_keeps_types_in_json() {
    let db = Database::in_memory().unwrap();
    db.ensure_schema(&SAMPLES).unwrap();
    let dev = db.device_id(&identity("NVIDIA H200", "580.1")).unwrap();
    db.connection()
        .execute(
            "INSERT INTO samples (device, label, ns) VALUES (?1, 'a, \"b\"', 42), (?1, NULL, 7)",
            [dev],
        )
        .unwrap();
    let mut csv = Vec::new();
    assert_eq!(export_csv(&db, "samples", &mut csv).unwrap(), 2);
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(csv, format!("id,device,label,ns\n1,{dev},\"a, \"\"b\"\"\",42\n2,{dev},,7\n"));
    let mut json = Vec::new();
    export_json(&db, "samples", &mut json).unwrap();
    let parsed: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(parsed[0]["ns"], 42);
    assert!(parsed[1]["label"].is_null());
    assert!(matches!(
        export_csv(&db, "samples; DROP TABLE devices", &mut Vec::new()),
        Err(DbError::NoSuchTable(_))
    ));
}
