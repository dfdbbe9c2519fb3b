//! The tables of MAP campaigns in the performance database (schema `aristotle-v1`).
//!
//! A *unit* is one (device, MAP, variant, dataset) measurement. It is written together with all
//! of its samples in a single transaction, so a campaign killed at any instant leaves each unit
//! either complete or absent: a rerun skips complete units and redoes absent ones, and nothing is
//! lost or counted twice. Skipped units (a variant that does not fit the device) are units too,
//! with a reason and no samples, so a rerun does not try them again.

use clmap_db::rusqlite::{self, params, OptionalExtension};
use clmap_db::{Database, DbError, Schema};
use serde::Serialize;

/// The campaign tables. Sample keys are `(unit, rep)`, so a duplicated sample cannot be stored.
pub const SCHEMA: Schema = Schema {
    name: "aristotle-v1",
    sql: "
        CREATE TABLE aristotle_units (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER NOT NULL REFERENCES devices(id),
            map         INTEGER NOT NULL,
            variant     TEXT NOT NULL,
            dataset     INTEGER NOT NULL,
            wg_x        INTEGER NOT NULL,
            wg_y        INTEGER NOT NULL,
            status      TEXT NOT NULL CHECK (status IN ('measured', 'skipped', 'failed')),
            reason      TEXT NOT NULL DEFAULT '',
            bytes_moved INTEGER NOT NULL DEFAULT 0,
            warmup      INTEGER NOT NULL DEFAULT 0,
            flush_cache INTEGER NOT NULL DEFAULT 0,
            recorded    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (device_id, map, variant, dataset)
        );
        CREATE TABLE aristotle_samples (
            unit_id       INTEGER NOT NULL REFERENCES aristotle_units(id) ON DELETE CASCADE,
            rep           INTEGER NOT NULL,
            kernel_ns     INTEGER NOT NULL,
            bandwidth_gbs REAL NOT NULL,
            PRIMARY KEY (unit_id, rep)
        );
        CREATE TABLE aristotle_validations (
            device_id   INTEGER NOT NULL REFERENCES devices(id),
            map         INTEGER NOT NULL,
            variant     TEXT NOT NULL,
            dataset     INTEGER NOT NULL,
            equal       INTEGER NOT NULL,
            detail      TEXT NOT NULL DEFAULT '',
            recorded    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (device_id, map, variant)
        );
        CREATE TABLE aristotle_history (
            device_id   INTEGER NOT NULL REFERENCES devices(id),
            map         INTEGER NOT NULL,
            dataset     INTEGER NOT NULL,
            b_mean      REAL NOT NULL,
            b_std       REAL NOT NULL,
            big_b_mean  REAL NOT NULL,
            big_b_std   REAL NOT NULL,
            mbr_mean    REAL NOT NULL,
            mbr_file    REAL,
            UNIQUE (device_id, map, dataset)
        );
        CREATE TABLE aristotle_compose_units (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER NOT NULL REFERENCES devices(id),
            map1        INTEGER NOT NULL,
            map2        INTEGER NOT NULL,
            version     TEXT NOT NULL CHECK (version IN ('v0', 'v1', 'v2')),
            dataset     INTEGER NOT NULL,
            status      TEXT NOT NULL CHECK (status IN ('measured', 'skipped', 'failed')),
            reason      TEXT NOT NULL DEFAULT '',
            bytes_moved INTEGER NOT NULL DEFAULT 0,
            recorded    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (device_id, map1, map2, version, dataset)
        );
        CREATE TABLE aristotle_compose_samples (
            unit_id       INTEGER NOT NULL REFERENCES aristotle_compose_units(id) ON DELETE CASCADE,
            rep           INTEGER NOT NULL,
            kernel_ns     INTEGER NOT NULL,
            bandwidth_gbs REAL NOT NULL,
            PRIMARY KEY (unit_id, rep)
        );
    ",
};

/// The units keyed by work-group shape as well: the same MAP, variant and dataset timed on
/// 16×16 and on 32×8 work-groups are two measurements (a kernel's advice asks for its own
/// launch's), where `aristotle-v1` kept whichever came first. SQLite cannot change a table's
/// `UNIQUE` clause, so the units and their samples are copied into new tables (ids kept) that
/// take the old names.
pub const SCHEMA_V2: Schema = Schema {
    name: "aristotle-v2",
    sql: "
        CREATE TABLE aristotle_units_v2 (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER NOT NULL REFERENCES devices(id),
            map         INTEGER NOT NULL,
            variant     TEXT NOT NULL,
            dataset     INTEGER NOT NULL,
            wg_x        INTEGER NOT NULL,
            wg_y        INTEGER NOT NULL,
            status      TEXT NOT NULL CHECK (status IN ('measured', 'skipped', 'failed')),
            reason      TEXT NOT NULL DEFAULT '',
            bytes_moved INTEGER NOT NULL DEFAULT 0,
            warmup      INTEGER NOT NULL DEFAULT 0,
            flush_cache INTEGER NOT NULL DEFAULT 0,
            recorded    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (device_id, map, variant, dataset, wg_x, wg_y)
        );
        INSERT INTO aristotle_units_v2 SELECT id, device_id, map, variant, dataset, wg_x, wg_y,
            status, reason, bytes_moved, warmup, flush_cache, recorded FROM aristotle_units;
        CREATE TABLE aristotle_samples_v2 (
            unit_id       INTEGER NOT NULL REFERENCES aristotle_units_v2(id) ON DELETE CASCADE,
            rep           INTEGER NOT NULL,
            kernel_ns     INTEGER NOT NULL,
            bandwidth_gbs REAL NOT NULL,
            PRIMARY KEY (unit_id, rep)
        );
        INSERT INTO aristotle_samples_v2 SELECT unit_id, rep, kernel_ns, bandwidth_gbs
            FROM aristotle_samples;
        DROP TABLE aristotle_samples;
        DROP TABLE aristotle_units;
        ALTER TABLE aristotle_units_v2 RENAME TO aristotle_units;
        ALTER TABLE aristotle_samples_v2 RENAME TO aristotle_samples;
    ",
};

/// Creates the campaign tables if this database does not have them yet, and brings tables
/// of older clmap versions up to date.
pub fn ensure_schema(db: &Database) -> Result<(), DbError> {
    db.ensure_schema(&SCHEMA)?;
    db.ensure_schema(&SCHEMA_V2)
}

/// What identifies a single-MAP measurement on one device.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct UnitKey {
    /// MAP number (e.g. 407).
    pub map: u16,
    /// Variant name as the generator spells it (`nolocal`, `max`, `min`, `padded`, …).
    pub variant: String,
    /// Side of the square dataset (128 … 4096).
    pub dataset: usize,
}

/// How a unit ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum UnitResult {
    /// Timed: one kernel time per measured repetition, in run order.
    Measured {
        /// Bytes the kernel moves by §6.1's formula (W × H × N × size).
        bytes_moved: u64,
        /// Kernel time of each measured repetition.
        samples_ns: Vec<u64>,
    },
    /// Not run, because the variant cannot run on this device as generated.
    Skipped {
        /// Why, in words.
        reason: String,
    },
    /// Attempted and failed (build error, launch error, outputs that differ). Reruns retry it.
    Failed {
        /// Why, in words.
        reason: String,
    },
}

/// How a unit was timed, recorded beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UnitSetup {
    /// Work-group size `[x, y]`.
    pub work_group: [usize; 2],
    /// Discarded runs before the measured ones.
    pub warmup: u32,
    /// Whether caches were flushed before every measured run.
    pub flush_cache: bool,
}

/// Effective bandwidth in GB/s of moving `bytes` in `ns` nanoseconds (bytes per nanosecond are
/// gigabytes per second); 0 for a zero time, which a profiler can report for tiny kernels.
pub fn bandwidth_gbs(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 / ns as f64
    }
}

fn to_i64(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Whether the unit is finished on this device with `work_group` (measured or skipped); failed
/// units are not, so that a rerun tries them again.
pub fn unit_done(
    db: &Database,
    device_id: i64,
    key: &UnitKey,
    work_group: [usize; 2],
) -> Result<bool, DbError> {
    let status: Option<String> = db
        .connection()
        .query_row(
            "SELECT status FROM aristotle_units
             WHERE device_id = ?1 AND map = ?2 AND variant = ?3 AND dataset = ?4
               AND wg_x = ?5 AND wg_y = ?6",
            params![
                device_id,
                key.map,
                key.variant,
                to_i64(key.dataset),
                to_i64(work_group[0]),
                to_i64(work_group[1])
            ],
            |row| row.get(0),
        )
        .optional()?;
    Ok(matches!(status.as_deref(), Some("measured") | Some("skipped")))
}

/// Records a unit and all its samples in one transaction, replacing an earlier failed attempt
/// on the same work-group shape (`setup.work_group`).
pub fn record_unit(
    db: &mut Database,
    device_id: i64,
    key: &UnitKey,
    setup: &UnitSetup,
    result: &UnitResult,
) -> Result<(), DbError> {
    db.transaction(|tx| {
        tx.execute(
            "DELETE FROM aristotle_units
             WHERE device_id = ?1 AND map = ?2 AND variant = ?3 AND dataset = ?4
               AND wg_x = ?5 AND wg_y = ?6 AND status = 'failed'",
            params![
                device_id,
                key.map,
                key.variant,
                to_i64(key.dataset),
                to_i64(setup.work_group[0]),
                to_i64(setup.work_group[1])
            ],
        )?;
        let (status, reason, bytes) = match result {
            UnitResult::Measured { bytes_moved, .. } => ("measured", "", *bytes_moved),
            UnitResult::Skipped { reason } => ("skipped", reason.as_str(), 0),
            UnitResult::Failed { reason } => ("failed", reason.as_str(), 0),
        };
        tx.execute(
            "INSERT INTO aristotle_units
                 (device_id, map, variant, dataset, wg_x, wg_y, status, reason, bytes_moved,
                  warmup, flush_cache)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                device_id,
                key.map,
                key.variant,
                to_i64(key.dataset),
                to_i64(setup.work_group[0]),
                to_i64(setup.work_group[1]),
                status,
                reason,
                i64::try_from(bytes).unwrap_or(i64::MAX),
                setup.warmup,
                setup.flush_cache,
            ],
        )?;
        let unit_id = tx.last_insert_rowid();
        if let UnitResult::Measured { bytes_moved, samples_ns } = result {
            insert_samples(tx, "aristotle_samples", unit_id, *bytes_moved, samples_ns)?;
        }
        Ok(())
    })
}

pub(crate) fn insert_samples(
    tx: &rusqlite::Transaction<'_>,
    table: &str,
    unit_id: i64,
    bytes_moved: u64,
    samples_ns: &[u64],
) -> Result<(), DbError> {
    // `table` is one of this module's constants, never user text.
    let mut insert = tx.prepare(&format!(
        "INSERT INTO {table} (unit_id, rep, kernel_ns, bandwidth_gbs) VALUES (?1, ?2, ?3, ?4)"
    ))?;
    for (rep, &ns) in samples_ns.iter().enumerate() {
        insert.execute(params![
            unit_id,
            to_i64(rep),
            i64::try_from(ns).unwrap_or(i64::MAX),
            bandwidth_gbs(bytes_moved, ns)
        ])?;
    }
    Ok(())
}

/// The recorded check that a local-memory variant computes what the variant without local
/// memory computes on the same device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// Whether every output was equal.
    pub equal: bool,
    /// The dataset it was checked on.
    pub dataset: usize,
    /// What differed, or how it was compared.
    pub detail: String,
}

/// The validation recorded for (device, MAP, variant), if any.
pub fn validation(
    db: &Database,
    device_id: i64,
    map: u16,
    variant: &str,
) -> Result<Option<Validation>, DbError> {
    Ok(db
        .connection()
        .query_row(
            "SELECT equal, dataset, detail FROM aristotle_validations
             WHERE device_id = ?1 AND map = ?2 AND variant = ?3",
            params![device_id, map, variant],
            |row| {
                Ok(Validation {
                    equal: row.get::<_, i64>(0)? != 0,
                    dataset: usize::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    detail: row.get(2)?,
                })
            },
        )
        .optional()?)
}

/// Records a validation; a later one for the same (device, MAP, variant) replaces it.
pub fn record_validation(
    db: &Database,
    device_id: i64,
    map: u16,
    variant: &str,
    check: &Validation,
) -> Result<(), DbError> {
    db.connection().execute(
        "INSERT INTO aristotle_validations (device_id, map, variant, dataset, equal, detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (device_id, map, variant) DO UPDATE
         SET dataset = excluded.dataset, equal = excluded.equal, detail = excluded.detail",
        params![device_id, map, variant, to_i64(check.dataset), check.equal, check.detail],
    )?;
    Ok(())
}

/// A unit as stored, with its samples' bandwidth statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredUnit {
    /// Which measurement.
    pub key: UnitKey,
    /// The work-group `[x, y]` it was timed with.
    pub work_group: [usize; 2],
    /// `measured`, `skipped` or `failed`.
    pub status: String,
    /// Why it was skipped or failed.
    pub reason: String,
    /// Number of samples stored.
    pub samples: usize,
    /// Mean bandwidth of the samples (GB/s); 0 without samples.
    pub bandwidth_mean: f64,
    /// Sample standard deviation of the bandwidth (GB/s).
    pub bandwidth_std: f64,
    /// Median kernel time of the samples (ns); 0 without samples.
    pub median_ns: f64,
}

/// Every unit recorded for a device, in (MAP, variant, dataset, work-group) order.
pub fn units(db: &Database, device_id: i64) -> Result<Vec<StoredUnit>, DbError> {
    let conn = db.connection();
    let mut stmt = conn.prepare(
        "SELECT u.id, u.map, u.variant, u.dataset, u.status, u.reason, u.wg_x, u.wg_y
         FROM aristotle_units u WHERE u.device_id = ?1
         ORDER BY u.map, u.variant, u.dataset, u.wg_x, u.wg_y",
    )?;
    let heads = stmt
        .query_map([device_id], |row| {
            Ok((
                (row.get::<_, i64>(0)?, row.get::<_, i64>(1)?),
                row.get::<_, String>(2)?,
                row.get::<_, i64>(3)?,
                row.get::<_, String>(4)?,
                row.get::<_, String>(5)?,
                [row.get::<_, i64>(6)?, row.get::<_, i64>(7)?],
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut samples =
        conn.prepare("SELECT bandwidth_gbs, kernel_ns FROM aristotle_samples WHERE unit_id = ?1")?;
    let mut out = Vec::with_capacity(heads.len());
    for ((id, map), variant, dataset, status, reason, wg) in heads {
        let rows = samples
            .query_map([id], |row| Ok((row.get::<_, f64>(0)?, row.get::<_, i64>(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        let values: Vec<f64> = rows.iter().map(|r| r.0).collect();
        let mut times: Vec<f64> = rows.iter().map(|r| r.1 as f64).collect();
        let (mean, std) = mean_std(&values);
        out.push(StoredUnit {
            key: UnitKey {
                map: u16::try_from(map).unwrap_or(0),
                variant,
                dataset: usize::try_from(dataset).unwrap_or(0),
            },
            work_group: wg.map(|w| usize::try_from(w).unwrap_or(0)),
            status,
            reason,
            samples: values.len(),
            bandwidth_mean: mean,
            bandwidth_std: std,
            median_ns: median(&mut times),
        });
    }
    Ok(out)
}

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Adds samples to a measured unit (a re-measurement pooled with the first), numbered after
/// the ones it has, in one transaction; returns how many samples the unit has now. Units that
/// are not measured (skipped, failed, absent) take no samples.
pub fn append_samples(
    db: &mut Database,
    device_id: i64,
    key: &UnitKey,
    work_group: [usize; 2],
    samples_ns: &[u64],
) -> Result<usize, DbError> {
    db.transaction(|tx| {
        let unit: Option<(i64, i64)> = tx
            .query_row(
                "SELECT id, bytes_moved FROM aristotle_units
                 WHERE device_id = ?1 AND map = ?2 AND variant = ?3 AND dataset = ?4
                   AND wg_x = ?5 AND wg_y = ?6 AND status = 'measured'",
                params![
                    device_id,
                    key.map,
                    key.variant,
                    to_i64(key.dataset),
                    to_i64(work_group[0]),
                    to_i64(work_group[1])
                ],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let Some((unit_id, bytes)) = unit else { return Ok(0) };
        let next: i64 = tx.query_row(
            "SELECT coalesce(max(rep) + 1, 0) FROM aristotle_samples WHERE unit_id = ?1",
            [unit_id],
            |row| row.get(0),
        )?;
        let bytes = u64::try_from(bytes).unwrap_or(0);
        let mut insert = tx.prepare(
            "INSERT INTO aristotle_samples (unit_id, rep, kernel_ns, bandwidth_gbs)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (i, &ns) in samples_ns.iter().enumerate() {
            insert.execute(params![
                unit_id,
                next + to_i64(i),
                i64::try_from(ns).unwrap_or(i64::MAX),
                bandwidth_gbs(bytes, ns)
            ])?;
        }
        let count: i64 = tx.query_row(
            "SELECT count(*) FROM aristotle_samples WHERE unit_id = ?1",
            [unit_id],
            |row| row.get(0),
        )?;
        Ok(usize::try_from(count).unwrap_or(0))
    })
}

/// Mean and sample standard deviation (n − 1); (0, 0) for no values.
pub fn mean_std(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let std = if values.len() > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, std)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(map: u16, variant: &str, dataset: usize) -> UnitKey {
        UnitKey { map, variant: variant.to_string(), dataset }
    }

    fn setup() -> UnitSetup {
        UnitSetup { work_group: [16, 16], warmup: 1, flush_cache: true }
    }

    fn device(db: &Database) -> i64 {
        db.device_id(&clmap_db::DeviceIdentity {
            kind: "cpu".into(),
            platform: "test".into(),
            name: "test device".into(),
            vendor: "nobody".into(),
            driver: "1".into(),
            details: serde_json::json!({}),
        })
        .expect("device")
    }

    #[test]
    fn a_unit_is_stored_with_all_its_samples_and_then_done() {
        let mut db = Database::in_memory().expect("db");
        ensure_schema(&db).expect("schema");
        let dev = device(&db);
        let k = key(407, "max", 128);
        assert!(!unit_done(&db, dev, &k, [16, 16]).expect("query"));
        let result = UnitResult::Measured { bytes_moved: 1000, samples_ns: vec![10, 20, 40] };
        record_unit(&mut db, dev, &k, &setup(), &result).expect("record");
        assert!(unit_done(&db, dev, &k, [16, 16]).expect("query"));
        let stored = units(&db, dev).expect("units");
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].samples, 3);
        // 1000 bytes in 10, 20 and 40 ns: 100, 50 and 25 GB/s.
        assert!((stored[0].bandwidth_mean - 175.0 / 3.0).abs() < 1e-9);
        // Recording the same finished unit twice is refused, not duplicated.
        assert!(record_unit(&mut db, dev, &k, &setup(), &result).is_err());
        assert_eq!(units(&db, dev).expect("units")[0].samples, 3);
    }

    #[test]
    fn samples_appended_to_a_unit_are_pooled_with_the_first() {
        let mut db = Database::in_memory().expect("db");
        ensure_schema(&db).expect("schema");
        let dev = device(&db);
        let k = key(302, "stage", 64);
        let first = UnitResult::Measured { bytes_moved: 1000, samples_ns: vec![10, 30] };
        record_unit(&mut db, dev, &k, &setup(), &first).expect("record");
        assert_eq!(append_samples(&mut db, dev, &k, [16, 16], &[20, 20]).expect("append"), 4);
        let stored = &units(&db, dev).expect("units")[0];
        assert_eq!(stored.samples, 4);
        assert_eq!(stored.median_ns, 20.0);
        // Another work-group's unit, or one never measured, takes nothing.
        assert_eq!(append_samples(&mut db, dev, &k, [32, 8], &[5]).expect("append"), 0);
        assert_eq!(append_samples(&mut db, dev, &key(1, "x", 1), [16, 16], &[5]).expect("a"), 0);
        assert_eq!(units(&db, dev).expect("units")[0].samples, 4);
    }

    #[test]
    fn failed_units_are_retried_and_replaced() {
        let mut db = Database::in_memory().expect("db");
        ensure_schema(&db).expect("schema");
        let dev = device(&db);
        let k = key(205, "min", 256);
        let failed = UnitResult::Failed { reason: "build error".into() };
        record_unit(&mut db, dev, &k, &setup(), &failed).expect("record");
        assert!(!unit_done(&db, dev, &k, [16, 16]).expect("query"));
        let ok = UnitResult::Measured { bytes_moved: 8, samples_ns: vec![1, 2] };
        record_unit(&mut db, dev, &k, &setup(), &ok).expect("record");
        let stored = units(&db, dev).expect("units");
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].status, "measured");
    }

    #[test]
    fn a_unit_on_another_work_group_is_another_measurement() {
        let mut db = Database::in_memory().expect("db");
        ensure_schema(&db).expect("schema");
        let dev = device(&db);
        let k = key(205, "stage", 64);
        let result = UnitResult::Measured { bytes_moved: 100, samples_ns: vec![10, 10] };
        record_unit(&mut db, dev, &k, &setup(), &result).expect("record 16x16");
        assert!(unit_done(&db, dev, &k, [16, 16]).expect("query"));
        assert!(!unit_done(&db, dev, &k, [32, 8]).expect("query"));
        let wide = UnitSetup { work_group: [32, 8], ..setup() };
        let faster = UnitResult::Measured { bytes_moved: 100, samples_ns: vec![5, 5] };
        record_unit(&mut db, dev, &k, &wide, &faster).expect("record 32x8");
        let stored = units(&db, dev).expect("units");
        let shapes: Vec<([usize; 2], f64)> =
            stored.iter().map(|u| (u.work_group, u.bandwidth_mean)).collect();
        assert_eq!(shapes, [([16, 16], 10.0), ([32, 8], 20.0)]);
    }

    #[test]
    fn version_1_tables_are_migrated_with_their_samples() {
        let db = Database::in_memory().expect("db");
        db.ensure_schema(&SCHEMA).expect("v1");
        let dev = device(&db);
        let conn = db.connection();
        conn.execute(
            "INSERT INTO aristotle_units (device_id, map, variant, dataset, wg_x, wg_y, status,
                 bytes_moved) VALUES (?1, 204, 'nolocal', 128, 16, 16, 'measured', 100)",
            [dev],
        )
        .expect("v1 unit");
        let id = conn.last_insert_rowid();
        conn.execute(
            "INSERT INTO aristotle_samples VALUES (?1, 0, 10, 10.0), (?1, 1, 20, 5.0)",
            [id],
        )
        .expect("v1 samples");
        ensure_schema(&db).expect("migrate");
        let stored = units(&db, dev).expect("units");
        assert_eq!(stored.len(), 1);
        assert_eq!((stored[0].samples, stored[0].work_group), (2, [16, 16]));
        assert!(unit_done(&db, dev, &key(204, "nolocal", 128), [16, 16]).expect("query"));
        // The samples still follow their unit: deleting it deletes them.
        let conn = db.connection();
        conn.execute("DELETE FROM aristotle_units WHERE id = ?1", [id]).expect("delete");
        let left: i64 = conn
            .query_row("SELECT count(*) FROM aristotle_samples", [], |row| row.get(0))
            .expect("count");
        assert_eq!(left, 0);
        let broken: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |row| row.get(0))
            .expect("check");
        assert_eq!(broken, 0);
    }

    #[test]
    fn validations_are_replaced_not_duplicated() {
        let db = Database::in_memory().expect("db");
        ensure_schema(&db).expect("schema");
        let dev = device(&db);
        assert!(validation(&db, dev, 407, "max").expect("query").is_none());
        let bad = Validation { equal: false, dataset: 128, detail: "out differs".into() };
        record_validation(&db, dev, 407, "max", &bad).expect("record");
        let good = Validation { equal: true, dataset: 128, detail: String::new() };
        record_validation(&db, dev, 407, "max", &good).expect("record");
        assert_eq!(validation(&db, dev, 407, "max").expect("query"), Some(good));
    }

    #[test]
    fn statistics_and_bandwidth() {
        assert_eq!(mean_std(&[]), (0.0, 0.0));
        let (m, s) = mean_std(&[2.0, 4.0]);
        assert_eq!(m, 3.0);
        assert!((s - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(bandwidth_gbs(100, 0), 0.0);
        assert_eq!(bandwidth_gbs(100, 50), 2.0);
    }
}
