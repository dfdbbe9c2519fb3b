//! Fusion's table in clmap's database (schema `fusion-v1`): every candidate `--measure`
//! validated and timed, per device and pipeline, so that a later run on the same device
//! takes the fastest one without searching again.

use clmap_db::rusqlite::{params, OptionalExtension};
use clmap_db::{Database, DbError, Schema};

pub const SCHEMA: Schema = Schema {
    name: "fusion-v1",
    sql: "
        CREATE TABLE IF NOT EXISTS fusion_candidates (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER NOT NULL REFERENCES devices(id),
            pipeline    TEXT NOT NULL,
            label       TEXT NOT NULL,
            variant     TEXT NOT NULL,
            steps       INTEGER NOT NULL,
            tile        TEXT NOT NULL,
            work_group  TEXT NOT NULL,
            unfused_ns  REAL NOT NULL,
            fused_ns    REAL,
            rejected    TEXT,
            measured    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
        );
        CREATE INDEX IF NOT EXISTS fusion_by_pipeline
            ON fusion_candidates (device_id, pipeline, variant);
    ",
};

/// One measured candidate: how it was tiled, and its time or why the device rejected it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub steps: u32,
    pub tile: Vec<u64>,
    pub work_group: Vec<u64>,
    pub unfused_ns: f64,
    pub outcome: Result<f64, String>,
}

/// Where a pipeline's candidates are kept: the pipeline is its workload's identity (a hash
/// of what can change results), `label` its file name for people reading the table.
pub struct FusionStore<'a> {
    db: &'a Database,
    device_id: i64,
    pipeline: String,
    label: String,
    variant: String,
}

impl<'a> FusionStore<'a> {
    pub fn open(
        db: &'a Database,
        device_id: i64,
        pipeline: String,
        label: String,
        variant: &str,
    ) -> Result<FusionStore<'a>, DbError> {
        db.ensure_schema(&SCHEMA)?;
        Ok(FusionStore { db, device_id, pipeline, label, variant: variant.to_string() })
    }

    pub fn record(&self, c: &Candidate) -> Result<(), DbError> {
        let (fused, rejected) = match &c.outcome {
            Ok(ns) => (Some(*ns), None),
            Err(why) => (None, Some(why.as_str())),
        };
        self.db.connection().execute(
            "INSERT INTO fusion_candidates
                 (device_id, pipeline, label, variant, steps, tile, work_group, unfused_ns,
                  fused_ns, rejected)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                self.device_id,
                self.pipeline,
                self.label,
                self.variant,
                c.steps,
                join(&c.tile),
                join(&c.work_group),
                c.unfused_ns,
                fused,
                rejected
            ],
        )?;
        Ok(())
    }

    /// The fastest validated candidate measured so far, if any.
    pub fn best(&self) -> Result<Option<Candidate>, DbError> {
        let row = self
            .db
            .connection()
            .query_row(
                "SELECT steps, tile, work_group, unfused_ns, fused_ns FROM fusion_candidates
                 WHERE device_id = ?1 AND pipeline = ?2 AND variant = ?3 AND fused_ns IS NOT NULL
                 ORDER BY fused_ns ASC LIMIT 1",
                params![self.device_id, self.pipeline, self.variant],
                |row| {
                    Ok((
                        row.get::<_, u32>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, f64>(3)?,
                        row.get::<_, f64>(4)?,
                    ))
                },
            )
            .optional()?;
        Ok(row.map(|(steps, tile, group, unfused_ns, fused_ns)| Candidate {
            steps,
            tile: split(&tile),
            work_group: split(&group),
            unfused_ns,
            outcome: Ok(fused_ns),
        }))
    }
}

fn join(v: &[u64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x")
}

fn split(text: &str) -> Vec<u64> {
    text.split('x').filter_map(|p| p.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clmap_db::DeviceIdentity;

    fn candidate(steps: u32, outcome: Result<f64, String>) -> Candidate {
        Candidate {
            steps,
            tile: vec![64, 32],
            work_group: vec![32, 4],
            unfused_ns: 1000.0,
            outcome,
        }
    }

    #[test]
    fn the_fastest_validated_candidate_is_kept_per_device_and_pipeline() {
        let db = Database::in_memory().unwrap();
        let identity = DeviceIdentity {
            kind: "opencl".into(),
            platform: "p".into(),
            name: "gpu".into(),
            vendor: "v".into(),
            driver: "1".into(),
            details: Default::default(),
        };
        let device = db.device_id(&identity).unwrap();
        let store = FusionStore::open(&db, device, "h".into(), "a.toml".into(), "o").unwrap();
        assert_eq!(store.best().unwrap(), None);
        store.record(&candidate(3, Ok(500.0))).unwrap();
        store.record(&candidate(9, Ok(300.0))).unwrap();
        store.record(&candidate(15, Err("differs".into()))).unwrap();
        let best = store.best().unwrap().expect("a validated candidate");
        assert_eq!((best.steps, best.outcome), (9, Ok(300.0)));
        assert_eq!(best.tile, vec![64, 32]);
        let other = FusionStore::open(&db, device, "other".into(), "b.toml".into(), "o").unwrap();
        assert_eq!(other.best().unwrap(), None, "another pipeline has its own candidates");
    }
}
