//! The search's tables in clmap's database (schema `phase-v1`).
//!
//! A *context* is everything a result depends on: the workload (full and small), the device and
//! the toolchain. Inside one context, a sequence maps to a PTX hash (or a compile failure), and
//! a PTX hash maps to a verdict and its timing samples. Because both maps are stored as soon as
//! they are known, a rerun of the same search finds every answer it needs and computes only what
//! is missing, and a PTX produced by two sequences (or two runs) is validated and timed once.

use clmap_db::rusqlite::{params, OptionalExtension};
use clmap_db::{Database, DbError, Schema};

use crate::compiler::CompileFailureKind;
use crate::evaluator::{median, Verdict};

/// The tables of the phase-order search.
pub const SCHEMA: Schema = Schema {
    name: "phase-v1",
    sql: "
        CREATE TABLE IF NOT EXISTS phase_contexts (
            id             INTEGER PRIMARY KEY,
            key            TEXT NOT NULL UNIQUE,
            workload       TEXT NOT NULL,
            small_workload TEXT NOT NULL,
            device_id      INTEGER REFERENCES devices(id),
            device         TEXT NOT NULL,
            toolchain      TEXT NOT NULL,
            created        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
        );
        CREATE TABLE IF NOT EXISTS phase_sequences (
            context_id      INTEGER NOT NULL REFERENCES phase_contexts(id),
            seq_hash        TEXT NOT NULL,
            passes          TEXT NOT NULL,
            origin          TEXT NOT NULL,
            compile_status  TEXT NOT NULL,
            compile_message TEXT,
            ptx_hash        TEXT,
            evaluated       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            PRIMARY KEY (context_id, seq_hash)
        );
        CREATE INDEX IF NOT EXISTS phase_sequences_by_ptx ON phase_sequences (context_id, ptx_hash);
        CREATE TABLE IF NOT EXISTS phase_ptx (
            context_id INTEGER NOT NULL REFERENCES phase_contexts(id),
            ptx_hash   TEXT NOT NULL,
            verdict    TEXT NOT NULL,
            reason     TEXT NOT NULL DEFAULT '',
            samples    TEXT,
            median_ns  REAL,
            PRIMARY KEY (context_id, ptx_hash)
        );
        CREATE TABLE IF NOT EXISTS phase_baselines (
            context_id INTEGER NOT NULL REFERENCES phase_contexts(id),
            name       TEXT NOT NULL,
            ptx_hash   TEXT,
            samples    TEXT NOT NULL,
            median_ns  REAL,
            measured   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            PRIMARY KEY (context_id, name)
        );
        CREATE TABLE IF NOT EXISTS phase_reports (
            context_id INTEGER PRIMARY KEY REFERENCES phase_contexts(id),
            report     TEXT NOT NULL,
            written    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
        );
    ",
};

/// Candidates that broke the device (added to databases written before it existed).
pub const BROKEN_SCHEMA: Schema = Schema {
    name: "phase-broken-v1",
    sql: "
        CREATE TABLE IF NOT EXISTS phase_broken (
            context_id INTEGER NOT NULL REFERENCES phase_contexts(id),
            ptx_hash   TEXT NOT NULL,
            error      TEXT NOT NULL,
            ptx        TEXT NOT NULL,
            recorded   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            PRIMARY KEY (context_id, ptx_hash)
        );
    ",
};

/// A PTX whose run left the device unusable, kept with its text so that it can be studied.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BrokenPtx {
    /// The PTX hash.
    pub ptx_hash: String,
    /// What the device said.
    pub error: String,
    /// The shortest stored sequence that compiles to it (empty when none is stored, e.g. a
    /// finalist of another context).
    pub passes: Vec<String>,
    /// How many stored sequences compile to it.
    pub sequences: u64,
}

/// What identifies a search context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextKey {
    /// A hash of everything below (computed by [`ContextKey::key`]).
    pub workload_identity: String,
    /// The small workload's identity.
    pub small_identity: String,
    /// The device as described by the evaluator.
    pub device: String,
    /// The database's device id, when the device is a live OpenCL device.
    pub device_id: Option<i64>,
    /// The toolchain as described by the compiler.
    pub toolchain: String,
    /// Workload and small workload as the user named them (for humans reading the table).
    pub workload_label: String,
    /// The small workload's label.
    pub small_label: String,
}

impl ContextKey {
    /// The unique key: a hash over the identities, the device, the toolchain and the
    /// validation rule (a verdict reached under another rule must not be reused).
    pub fn key(&self) -> String {
        crate::sequence::text_hash(&format!(
            "{}\n{}\n{}\n{}\n{}",
            self.workload_identity,
            self.small_identity,
            self.device,
            self.toolchain,
            crate::validation::RULE
        ))
    }
}

/// What is stored about one sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSequence {
    /// The passes.
    pub passes: Vec<String>,
    /// Which strategy proposed it first (`random:17`, `evolve:3:5`, `minimise`).
    pub origin: String,
    /// `Ok(ptx hash)` or the compile failure.
    pub outcome: Result<String, (CompileFailureKind, String)>,
}

/// What is stored about one PTX.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPtx {
    /// Validation on the small inputs.
    pub verdict: Verdict,
    /// Timing samples on the full workload (empty when not timed).
    pub samples: Vec<u64>,
}

impl StoredPtx {
    /// The median time, when timed.
    pub fn median_ns(&self) -> Option<f64> {
        median(&self.samples)
    }
}

/// A ranked, valid, timed sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedSequence {
    /// The passes.
    pub passes: Vec<String>,
    /// The PTX hash.
    pub ptx_hash: String,
    /// Median time in ns.
    pub median_ns: f64,
    /// The samples.
    pub samples: Vec<u64>,
}

/// The phase search's view of the database, bound to one context.
pub struct PhaseStore {
    db: Database,
    context_id: i64,
}

fn verdict_columns(verdict: &Verdict) -> (&'static str, &str) {
    match verdict {
        Verdict::Valid => ("valid", ""),
        Verdict::Wrong(reason) => ("wrong", reason),
        Verdict::Failed(reason) => ("failed", reason),
    }
}

fn verdict_from_columns(verdict: &str, reason: String) -> Verdict {
    match verdict {
        "valid" => Verdict::Valid,
        "wrong" => Verdict::Wrong(reason),
        _ => Verdict::Failed(reason),
    }
}

fn samples_from_json(text: Option<String>) -> Vec<u64> {
    // A hand-edited or truncated column must not stop a search; it only loses the samples.
    text.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

impl PhaseStore {
    /// Binds `db` to the context, creating the tables and the context row when needed.
    pub fn open(db: Database, context: &ContextKey) -> Result<PhaseStore, DbError> {
        db.ensure_schema(&SCHEMA)?;
        db.ensure_schema(&BROKEN_SCHEMA)?;
        let key = context.key();
        db.connection().execute(
            "INSERT INTO phase_contexts (key, workload, small_workload, device_id, device, toolchain)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (key) DO NOTHING",
            params![
                key,
                context.workload_label,
                context.small_label,
                context.device_id,
                context.device,
                context.toolchain
            ],
        )?;
        let context_id = db.connection().query_row(
            "SELECT id FROM phase_contexts WHERE key = ?1",
            params![key],
            |row| row.get(0),
        )?;
        Ok(PhaseStore { db, context_id })
    }

    /// The context's row id.
    pub fn context_id(&self) -> i64 {
        self.context_id
    }

    /// The stored result for a sequence hash.
    pub fn sequence(&self, seq_hash: &str) -> Result<Option<StoredSequence>, DbError> {
        let row = self
            .db
            .connection()
            .query_row(
                "SELECT passes, origin, compile_status, compile_message, ptx_hash
                 FROM phase_sequences WHERE context_id = ?1 AND seq_hash = ?2",
                params![self.context_id, seq_hash],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, Option<String>>(3)?,
                        row.get::<_, Option<String>>(4)?,
                    ))
                },
            )
            .optional()?;
        Ok(row.map(|(passes, origin, status, message, ptx_hash)| {
            let outcome = match (status.as_str(), ptx_hash) {
                ("ok", Some(hash)) => Ok(hash),
                (other, _) => Err((
                    CompileFailureKind::parse(other).unwrap_or(CompileFailureKind::Failed),
                    message.unwrap_or_default(),
                )),
            };
            StoredSequence {
                passes: crate::sequence::parse_sequence_text(&passes),
                origin,
                outcome,
            }
        }))
    }

    /// Records a sequence's compile outcome (the first record of a sequence wins).
    pub fn record_sequence(
        &self,
        seq_hash: &str,
        passes: &[String],
        origin: &str,
        outcome: &Result<String, (CompileFailureKind, String)>,
    ) -> Result<(), DbError> {
        let (status, message, ptx_hash) = match outcome {
            Ok(hash) => ("ok", None, Some(hash.as_str())),
            Err((kind, message)) => (kind.as_str(), Some(message.as_str()), None),
        };
        self.db.connection().execute(
            "INSERT INTO phase_sequences
                 (context_id, seq_hash, passes, origin, compile_status, compile_message, ptx_hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (context_id, seq_hash) DO NOTHING",
            params![
                self.context_id,
                seq_hash,
                crate::sequence::sequence_text(passes),
                origin,
                status,
                message,
                ptx_hash
            ],
        )?;
        Ok(())
    }

    /// The stored verdict and samples of a PTX.
    pub fn ptx(&self, ptx_hash: &str) -> Result<Option<StoredPtx>, DbError> {
        let row = self
            .db
            .connection()
            .query_row(
                "SELECT verdict, reason, samples FROM phase_ptx
                 WHERE context_id = ?1 AND ptx_hash = ?2",
                params![self.context_id, ptx_hash],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<String>>(2)?,
                    ))
                },
            )
            .optional()?;
        Ok(row.map(|(verdict, reason, samples)| StoredPtx {
            verdict: verdict_from_columns(&verdict, reason),
            samples: samples_from_json(samples),
        }))
    }

    /// Records (or replaces) a PTX's verdict and samples.
    pub fn record_ptx(&self, ptx_hash: &str, stored: &StoredPtx) -> Result<(), DbError> {
        let (verdict, reason) = verdict_columns(&stored.verdict);
        let samples = (!stored.samples.is_empty())
            .then(|| serde_json::to_string(&stored.samples).unwrap_or_default());
        self.db.connection().execute(
            "INSERT INTO phase_ptx (context_id, ptx_hash, verdict, reason, samples, median_ns)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (context_id, ptx_hash) DO UPDATE SET
                 verdict = excluded.verdict, reason = excluded.reason,
                 samples = excluded.samples, median_ns = excluded.median_ns",
            params![self.context_id, ptx_hash, verdict, reason, samples, stored.median_ns()],
        )?;
        Ok(())
    }

    /// Records a baseline measurement of this run (replacing the previous run's).
    pub fn record_baseline(
        &self,
        name: &str,
        ptx_hash: Option<&str>,
        samples: &[u64],
    ) -> Result<(), DbError> {
        self.db.connection().execute(
            "INSERT INTO phase_baselines (context_id, name, ptx_hash, samples, median_ns)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (context_id, name) DO UPDATE SET
                 ptx_hash = excluded.ptx_hash, samples = excluded.samples,
                 median_ns = excluded.median_ns,
                 measured = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
            params![
                self.context_id,
                name,
                ptx_hash,
                serde_json::to_string(samples).unwrap_or_default(),
                median(samples)
            ],
        )?;
        Ok(())
    }

    /// Records a PTX that broke the device, with its text (the first record stays).
    pub fn record_broken(&self, ptx_hash: &str, error: &str, ptx: &[u8]) -> Result<(), DbError> {
        let text = String::from_utf8_lossy(ptx);
        self.db.connection().execute(
            "INSERT INTO phase_broken (context_id, ptx_hash, error, ptx) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (context_id, ptx_hash) DO NOTHING",
            params![self.context_id, ptx_hash, error, text.trim_end_matches('\0')],
        )?;
        Ok(())
    }

    /// Every PTX of this context that broke the device, in the order they were recorded, with
    /// the shortest sequence that gives it.
    pub fn broken(&self) -> Result<Vec<BrokenPtx>, DbError> {
        let mut stmt = self.db.connection().prepare(
            "SELECT b.ptx_hash, b.error,
                    (SELECT s.passes FROM phase_sequences s
                     WHERE s.context_id = b.context_id AND s.ptx_hash = b.ptx_hash
                     ORDER BY length(s.passes), s.passes LIMIT 1),
                    (SELECT count(*) FROM phase_sequences s
                     WHERE s.context_id = b.context_id AND s.ptx_hash = b.ptx_hash)
             FROM phase_broken b WHERE b.context_id = ?1 ORDER BY b.rowid",
        )?;
        let rows = stmt.query_map(params![self.context_id], |row| {
            Ok(BrokenPtx {
                ptx_hash: row.get(0)?,
                error: row.get(1)?,
                passes: row
                    .get::<_, Option<String>>(2)?
                    .map(|p| crate::sequence::parse_sequence_text(&p))
                    .unwrap_or_default(),
                sequences: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The stored text of a PTX that broke the device.
    pub fn broken_ptx_text(&self, ptx_hash: &str) -> Result<Option<String>, DbError> {
        Ok(self
            .db
            .connection()
            .query_row(
                "SELECT ptx FROM phase_broken WHERE context_id = ?1 AND ptx_hash = ?2",
                params![self.context_id, ptx_hash],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// Stores the final report of a run as JSON.
    pub fn record_report(&self, report_json: &str) -> Result<(), DbError> {
        self.db.connection().execute(
            "INSERT INTO phase_reports (context_id, report) VALUES (?1, ?2)
             ON CONFLICT (context_id) DO UPDATE SET report = excluded.report,
                 written = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')",
            params![self.context_id, report_json],
        )?;
        Ok(())
    }

    /// The last stored report of the context (JSON), if any.
    pub fn report(&self) -> Result<Option<String>, DbError> {
        Ok(self
            .db
            .connection()
            .query_row(
                "SELECT report FROM phase_reports WHERE context_id = ?1",
                params![self.context_id],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// Valid, timed sequences, fastest first (ties broken by sequence text, so the order is
    /// stable). One entry per sequence; sequences sharing a PTX share its time.
    pub fn ranked(&self, limit: usize) -> Result<Vec<RankedSequence>, DbError> {
        let mut stmt = self.db.connection().prepare(
            "SELECT s.passes, s.ptx_hash, p.median_ns, p.samples
             FROM phase_sequences s JOIN phase_ptx p
               ON p.context_id = s.context_id AND p.ptx_hash = s.ptx_hash
             WHERE s.context_id = ?1 AND p.verdict = 'valid' AND p.median_ns IS NOT NULL
             ORDER BY p.median_ns ASC, length(s.passes) ASC, s.passes ASC
             LIMIT ?2",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map(params![self.context_id, limit], |row| {
            Ok(RankedSequence {
                passes: crate::sequence::parse_sequence_text(&row.get::<_, String>(0)?),
                ptx_hash: row.get(1)?,
                median_ns: row.get(2)?,
                samples: samples_from_json(row.get(3)?),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many sequences this context has stored.
    pub fn sequence_count(&self) -> Result<u64, DbError> {
        let n: i64 = self.db.connection().query_row(
            "SELECT count(*) FROM phase_sequences WHERE context_id = ?1",
            params![self.context_id],
            |row| row.get(0),
        )?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The underlying database (for exports and tests).
    pub fn database(&self) -> &Database {
        &self.db
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(device: &str) -> ContextKey {
        ContextKey {
            workload_identity: "w".into(),
            small_identity: "s".into(),
            device: device.into(),
            device_id: None,
            toolchain: "llvm 16".into(),
            workload_label: "gemm.toml".into(),
            small_label: "gemm.toml".into(),
        }
    }

    #[test]
    fn sequences_and_ptx_round_trip() {
        let store =
            PhaseStore::open(Database::in_memory().expect("db"), &context("gpu")).expect("store");
        let passes: Vec<String> = vec!["licm".into(), "gvn".into()];
        store.record_sequence("h1", &passes, "random:0", &Ok("p1".into())).expect("record");
        store
            .record_sequence(
                "h2",
                &passes,
                "random:1",
                &Err((CompileFailureKind::Crashed, "opt: signal 11".into())),
            )
            .expect("record");
        let stored = store.sequence("h1").expect("query").expect("present");
        assert_eq!(stored.passes, passes);
        assert_eq!(stored.outcome, Ok("p1".to_string()));
        let crashed = store.sequence("h2").expect("query").expect("present");
        assert_eq!(
            crashed.outcome,
            Err((CompileFailureKind::Crashed, "opt: signal 11".to_string()))
        );
        assert!(store.sequence("h3").expect("query").is_none());

        store
            .record_ptx("p1", &StoredPtx { verdict: Verdict::Valid, samples: vec![30, 10, 20] })
            .expect("record");
        let ptx = store.ptx("p1").expect("query").expect("present");
        assert_eq!(ptx.median_ns(), Some(20.0));
        let ranked = store.ranked(10).expect("ranked");
        assert_eq!(ranked.len(), 1);
        assert_eq!(ranked[0].median_ns, 20.0);
        assert_eq!(store.sequence_count().expect("count"), 2);
    }

    #[test]
    fn contexts_are_separate() {
        let db = Database::in_memory().expect("db");
        let store = PhaseStore::open(db, &context("gpu")).expect("store");
        store.record_sequence("h1", &[], "random:0", &Ok("p".into())).expect("record");
        let id = store.context_id();
        let db = store.db;
        let other = PhaseStore::open(db, &context("other gpu")).expect("store");
        assert_ne!(other.context_id(), id);
        assert!(other.sequence("h1").expect("query").is_none());
    }
}
