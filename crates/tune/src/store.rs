//! Tuning's table in clmap's database (schema `tune-v1`): one row per device, workload, kernel
//! and variant, with how the variant was built, its validation and its timing samples. A row
//! is committed as soon as its variant is settled, so an interrupted run resumes where it
//! stopped, and a second run answers from the table.

use clmap_db::rusqlite::{params, OptionalExtension};
use clmap_db::{Database, DbError, Schema};

pub const SCHEMA: Schema = Schema {
    name: "tune-v1",
    sql: "
        CREATE TABLE IF NOT EXISTS tune_variants (
            id                INTEGER PRIMARY KEY,
            device_id         INTEGER NOT NULL REFERENCES devices(id),
            workload          TEXT NOT NULL,
            label             TEXT NOT NULL,
            kernel            TEXT NOT NULL,
            variant           TEXT NOT NULL,
            variant_identity  TEXT NOT NULL,
            kind              TEXT NOT NULL,
            how               TEXT NOT NULL,
            work_group        TEXT,
            status            TEXT NOT NULL
                              CHECK (status IN ('timed', 'refused', 'invalid', 'failed')),
            detail            TEXT NOT NULL DEFAULT '',
            seeds             INTEGER NOT NULL DEFAULT 0,
            max_abs           REAL,
            median_ns         REAL,
            min_ns            REAL,
            mean_ns           REAL,
            std_ns            REAL,
            samples_ns        TEXT NOT NULL DEFAULT '[]',
            warmup            INTEGER NOT NULL DEFAULT 0,
            flush             INTEGER NOT NULL DEFAULT 0,
            measured          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (device_id, workload, kernel, variant)
        );
    ",
};

/// How a variant's tuning ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Settled {
    /// Validated and timed: the samples in nanoseconds.
    Timed { seeds: u64, max_abs: f64, samples_ns: Vec<u64>, warmup: u32, flush: bool },
    /// The producer could not build it.
    Refused(String),
    /// Its outputs differ from the original's, or a checker found a fault.
    Invalid(String),
    /// It validated but did not run or time on the device.
    Failed(String),
}

impl Settled {
    pub fn status(&self) -> &'static str {
        match self {
            Settled::Timed { .. } => "timed",
            Settled::Refused(_) => "refused",
            Settled::Invalid(_) => "invalid",
            Settled::Failed(_) => "failed",
        }
    }
}

/// One stored variant.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredVariant {
    pub variant: String,
    /// The hash of the variant's workload when it was settled; a different build of the same
    /// name (a changed kernel, an improved transform) is tuned again.
    pub variant_identity: String,
    pub settled: Settled,
    pub measured: String,
}

/// A variant as it is recorded.
pub struct Record<'a> {
    pub variant: &'a str,
    pub variant_identity: &'a str,
    pub kind: &'a str,
    pub how: &'a str,
    pub work_group: Option<String>,
    pub settled: &'a Settled,
}

/// Where one workload's variants on one device are kept.
pub struct TuneStore<'a> {
    db: &'a Database,
    device_id: i64,
    workload: String,
    label: String,
    kernel: String,
}

impl<'a> TuneStore<'a> {
    /// `workload` is the workload's identity (a hash of what can change results), `label` its
    /// file name for people reading the table.
    pub fn open(
        db: &'a Database,
        device_id: i64,
        workload: String,
        label: String,
        kernel: String,
    ) -> Result<TuneStore<'a>, DbError> {
        db.ensure_schema(&SCHEMA)?;
        Ok(TuneStore { db, device_id, workload, label, kernel })
    }

    /// Records a settled variant, replacing what an earlier run stored under its name.
    pub fn record(&self, r: &Record<'_>) -> Result<(), DbError> {
        let (seeds, max_abs, timing, samples, warmup, flush, detail) = match r.settled {
            Settled::Timed { seeds, max_abs, samples_ns, warmup, flush } => {
                let timing = clmap_device::Timing::from_samples(samples_ns.clone());
                (
                    *seeds,
                    Some(*max_abs),
                    timing,
                    serde_json::to_string(samples_ns).unwrap_or_else(|_| "[]".into()),
                    *warmup,
                    *flush,
                    String::new(),
                )
            }
            Settled::Refused(why) | Settled::Invalid(why) | Settled::Failed(why) => {
                (0, None, None, "[]".to_string(), 0, false, why.clone())
            }
        };
        self.db.connection().execute(
            "INSERT INTO tune_variants
                 (device_id, workload, label, kernel, variant, variant_identity, kind, how,
                  work_group, status, detail, seeds, max_abs, median_ns, min_ns, mean_ns, std_ns,
                  samples_ns, warmup, flush)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                     ?18, ?19, ?20)
             ON CONFLICT (device_id, workload, kernel, variant) DO UPDATE SET
                 label = excluded.label, variant_identity = excluded.variant_identity,
                 kind = excluded.kind, how = excluded.how, work_group = excluded.work_group,
                 status = excluded.status, detail = excluded.detail, seeds = excluded.seeds,
                 max_abs = excluded.max_abs, median_ns = excluded.median_ns,
                 min_ns = excluded.min_ns, mean_ns = excluded.mean_ns, std_ns = excluded.std_ns,
                 samples_ns = excluded.samples_ns, warmup = excluded.warmup,
                 flush = excluded.flush,
                 measured = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
            params![
                self.device_id,
                self.workload,
                self.label,
                self.kernel,
                r.variant,
                r.variant_identity,
                r.kind,
                r.how,
                r.work_group,
                r.settled.status(),
                detail,
                seeds as i64,
                max_abs,
                timing.as_ref().map(|t| t.median),
                timing.as_ref().map(|t| t.min),
                timing.as_ref().map(|t| t.mean),
                timing.as_ref().map(|t| t.std),
                samples,
                warmup,
                flush,
            ],
        )?;
        Ok(())
    }

    /// What an earlier run stored for `variant`, if anything.
    pub fn get(&self, variant: &str) -> Result<Option<StoredVariant>, DbError> {
        let row = self
            .db
            .connection()
            .query_row(
                "SELECT variant_identity, status, detail, seeds, max_abs, samples_ns, warmup,
                        flush, measured
                 FROM tune_variants
                 WHERE device_id = ?1 AND workload = ?2 AND kernel = ?3 AND variant = ?4",
                params![self.device_id, self.workload, self.kernel, variant],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, i64>(3)?,
                        row.get::<_, Option<f64>>(4)?,
                        row.get::<_, String>(5)?,
                        row.get::<_, u32>(6)?,
                        row.get::<_, bool>(7)?,
                        row.get::<_, String>(8)?,
                    ))
                },
            )
            .optional()?;
        let Some((
            variant_identity,
            status,
            detail,
            seeds,
            max_abs,
            samples,
            warmup,
            flush,
            measured,
        )) = row
        else {
            return Ok(None);
        };
        let settled = match status.as_str() {
            "timed" => Settled::Timed {
                seeds: seeds.max(0) as u64,
                max_abs: max_abs.unwrap_or(0.0),
                // A hand-edited samples column must not make the table unreadable.
                samples_ns: serde_json::from_str(&samples).unwrap_or_default(),
                warmup,
                flush,
            },
            "refused" => Settled::Refused(detail),
            "invalid" => Settled::Invalid(detail),
            _ => Settled::Failed(detail),
        };
        if matches!(&settled, Settled::Timed { samples_ns, .. } if samples_ns.is_empty()) {
            return Ok(None);
        }
        Ok(Some(StoredVariant {
            variant: variant.to_string(),
            variant_identity,
            settled,
            measured,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clmap_db::DeviceIdentity;

    fn device(db: &Database) -> i64 {
        db.device_id(&DeviceIdentity {
            kind: "gpu".into(),
            platform: "p".into(),
            name: "test gpu".into(),
            vendor: "v".into(),
            driver: "1".into(),
            details: Default::default(),
        })
        .unwrap()
    }

    #[test]
    fn a_settled_variant_is_read_back_and_replaced_by_a_later_run() {
        let db = Database::in_memory().unwrap();
        let id = device(&db);
        let store = TuneStore::open(&db, id, "hash".into(), "w.toml".into(), "k".into()).unwrap();
        assert_eq!(store.get("as-written").unwrap(), None);
        let timed = Settled::Timed {
            seeds: 3,
            max_abs: 0.0,
            samples_ns: vec![30, 10, 20],
            warmup: 1,
            flush: false,
        };
        let record = |settled: &Settled| {
            store
                .record(&Record {
                    variant: "wg:8x8",
                    variant_identity: "v1",
                    kind: "work_group",
                    how: "launched in 8x8",
                    work_group: Some("8x8".into()),
                    settled,
                })
                .unwrap()
        };
        record(&timed);
        let got = store.get("wg:8x8").unwrap().expect("stored");
        assert_eq!((got.variant_identity.as_str(), &got.settled), ("v1", &timed));
        let median: f64 = db
            .connection()
            .query_row("SELECT median_ns FROM tune_variants", [], |r| r.get(0))
            .unwrap();
        assert_eq!(median, 20.0);
        let invalid = Settled::Invalid("out differs".into());
        record(&invalid);
        assert_eq!(store.get("wg:8x8").unwrap().unwrap().settled, invalid);
        let rows: i64 = db
            .connection()
            .query_row("SELECT count(*) FROM tune_variants", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1, "a variant has one row per device and workload");
        let other = TuneStore::open(&db, id, "other".into(), "x.toml".into(), "k".into()).unwrap();
        assert_eq!(other.get("wg:8x8").unwrap(), None);
    }
}
