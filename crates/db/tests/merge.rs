//! Merging shard databases: ids renumbered, foreign keys followed, nothing copied twice.

use clmap_db::{Database, DeviceIdentity, Schema};

fn identity(name: &str) -> DeviceIdentity {
    DeviceIdentity {
        kind: "gpu".into(),
        platform: "NVIDIA CUDA".into(),
        name: name.into(),
        vendor: "NVIDIA Corporation".into(),
        driver: "580".into(),
        details: serde_json::json!({}),
    }
}

/// A unit table with a surrogate id and a natural key, samples keyed by (unit, rep), and a
/// log with nothing but a surrogate id.
const RESULTS: Schema = Schema {
    name: "results-v1",
    sql: "
        CREATE TABLE units (id INTEGER PRIMARY KEY,
                            device_id INTEGER NOT NULL REFERENCES devices(id),
                            name TEXT NOT NULL, UNIQUE (device_id, name));
        CREATE TABLE samples (unit_id INTEGER NOT NULL REFERENCES units(id), rep INTEGER NOT NULL,
                              ns INTEGER NOT NULL, PRIMARY KEY (unit_id, rep));
        CREATE TABLE log (id INTEGER PRIMARY KEY, device_id INTEGER REFERENCES devices(id),
                          line TEXT);
        CREATE TABLE notes (unit_id INTEGER PRIMARY KEY REFERENCES units(id), note TEXT);
    ",
};

fn shard(path: &std::path::Path, devices: &[&str], units: &[(&str, &str, &[i64])]) {
    let db = Database::open(path).unwrap();
    db.ensure_schema(&RESULTS).unwrap();
    for device in devices {
        db.device_id(&identity(device)).unwrap();
    }
    for (device, unit, samples) in units {
        let device_id = db.device_id(&identity(device)).unwrap();
        let conn = db.connection();
        conn.execute("INSERT INTO units (device_id, name) VALUES (?1, ?2)", (device_id, unit))
            .unwrap();
        let unit_id = conn.last_insert_rowid();
        // One note per unit, keyed by the unit's id itself.
        conn.execute(
            "INSERT INTO notes (unit_id, note) VALUES (?1, ?2)",
            (unit_id, format!("{device} {unit}")),
        )
        .unwrap();
        for (rep, ns) in samples.iter().enumerate() {
            conn.execute(
                "INSERT INTO samples (unit_id, rep, ns) VALUES (?1, ?2, ?3)",
                (unit_id, rep as i64, ns),
            )
            .unwrap();
        }
        conn.execute(
            "INSERT INTO log (device_id, line) VALUES (?1, ?2)",
            (device_id, format!("measured {unit}")),
        )
        .unwrap();
    }
}

fn contents(db: &Database) -> Vec<(String, String, i64, i64)> {
    let mut stmt = db
        .connection()
        .prepare(
            "SELECT d.name, u.name, s.rep, s.ns FROM samples s JOIN units u ON u.id = s.unit_id
             JOIN devices d ON d.id = u.device_id ORDER BY 1, 2, 3",
        )
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

#[test]
fn shards_merge_into_one_database_without_duplicates() {
    let dir = clmap_testkit::Scratch::new("db-merge");
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    // The devices are numbered the other way round in the second shard.
    shard(&a, &["h100", "h200"], &[("h100", "gemm", &[5, 6]), ("h200", "gemm", &[3])]);
    shard(&b, &["h200", "h100"], &[("h100", "syrk", &[9]), ("h200", "gemm", &[3])]);

    let mut merged = Database::open(&dir.path().join("out.db")).unwrap();
    let first = merged.merge_from(&a).unwrap();
    assert_eq!(first.tables["samples"].inserted, 3);
    let second = merged.merge_from(&b).unwrap();
    assert_eq!(second.tables["devices"].duplicates, 2);
    assert_eq!(second.tables["units"].inserted, 1, "{second:?}");
    assert_eq!(second.tables["units"].duplicates, 1);
    assert_eq!(second.tables["samples"].inserted, 1);
    assert_eq!(second.tables["samples"].duplicates, 1);
    // A row with only a surrogate id is the same row when everything else is the same.
    assert_eq!(second.tables["log"].inserted, 1);
    assert_eq!(second.tables["log"].duplicates, 1);
    assert_eq!(
        contents(&merged),
        [
            ("h100".into(), "gemm".into(), 0, 5),
            ("h100".into(), "gemm".into(), 1, 6),
            ("h100".into(), "syrk".into(), 0, 9),
            ("h200".into(), "gemm".into(), 0, 3),
        ]
    );
    assert!(merged.schemas().unwrap().contains(&"results-v1".to_string()));
    // A primary key that is a foreign key follows the row it names.
    assert_eq!(second.tables["notes"].inserted, 1);
    let mut stmt = merged
        .connection()
        .prepare("SELECT u.name, n.note FROM notes n JOIN units u ON u.id = n.unit_id ORDER BY 2")
        .unwrap();
    let notes: Vec<(String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
    drop(stmt);
    assert_eq!(
        notes,
        [
            ("gemm".to_string(), "h100 gemm".to_string()),
            ("syrk".to_string(), "h100 syrk".to_string()),
            ("gemm".to_string(), "h200 gemm".to_string()),
        ]
    );

    // Merging a shard again adds nothing.
    let again = merged.merge_from(&b).unwrap();
    assert!(again.tables.values().all(|t| t.inserted == 0 && t.conflicts == 0), "{again:?}");
    let log: i64 =
        merged.connection().query_row("SELECT count(*) FROM log", [], |r| r.get(0)).unwrap();
    assert_eq!(log, 3);

    // A sample measured differently under the same key is a conflict; the first stays.
    let c = dir.path().join("c.db");
    shard(&c, &["h100"], &[("h100", "gemm", &[7])]);
    let conflicting = merged.merge_from(&c).unwrap();
    assert_eq!(conflicting.tables["samples"].conflicts, 1);
    assert_eq!(contents(&merged)[0], ("h100".into(), "gemm".into(), 0, 5));
}
