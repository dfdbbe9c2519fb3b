//! Validation of the composing rules (seed 001 §8): kernels with two data structures measured
//! in versions v0 (no local memory), v1 (local memory on the first) and v2 (on both), and the
//! share of steps v0 → v1 and v1 → v2 whose outcome the rules predicted (Table 6).
//!
//! Measurements are stored like single-MAP units: one transaction per (device, pair, version,
//! dataset) with all its samples, so compose campaigns resume after a kill too.

use crate::campaign::CampaignSummary;
use crate::compose_kernels::{generate_pair, ComposeVersion};
use crate::map::{map_by_id, MapId};
use crate::query::MapTable;
use crate::rules::{self, DataStructure};
use crate::store::{self, UnitResult};
use clmap_db::rusqlite::{params, OptionalExtension};
use clmap_db::{Database, DbError};
use clmap_device::{Device, TimingOptions};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// One compose measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct PairUnit {
    pub map1: u16,
    pub map2: u16,
    pub version: ComposeVersion,
    pub dataset: usize,
}

/// Measures one pair version.
pub trait PairMeasurer {
    fn measure(&mut self, unit: &PairUnit) -> UnitResult;
}

/// Multiplier of the second MAP's position in [`sample_pairs`]: coprime with 33, and so is one
/// less than it, so the first 33 pairs put every MAP once first and once second.
const SAMPLE_MULTIPLIER: usize = 10;

/// A deterministic sample of `k` ordered pairs of `maps` (at most all of them), spread so
/// that both structures vary: pair `i` takes `maps[i mod n]` first and
/// `maps[(10·i + ⌊i/n⌋) mod n]` second, n = 33 for the valid MAPs. Each round of n pairs uses
/// every MAP once first and once second, a later round shifts the second by one, so no pair
/// repeats before all n² are taken, and a smaller sample is a prefix of a larger one: growing
/// `k` later reuses everything already measured.
pub fn sample_pairs(maps: &[u16], k: usize) -> Vec<(u16, u16)> {
    let n = maps.len();
    (0..k.min(n * n))
        .filter_map(|i| {
            let first = maps.get(i % n)?;
            let second = maps.get((SAMPLE_MULTIPLIER * i + i / n) % n)?;
            Some((*first, *second))
        })
        .collect()
}

/// The units of `pairs` × `datasets` × the three versions, by dataset first.
pub fn plan(pairs: &[(u16, u16)], datasets: &[usize]) -> Vec<PairUnit> {
    let mut out = Vec::new();
    for &dataset in datasets {
        for &(map1, map2) in pairs {
            for version in ComposeVersion::ALL {
                out.push(PairUnit { map1, map2, version, dataset });
            }
        }
    }
    out
}

fn done(db: &Database, device_id: i64, u: &PairUnit) -> Result<bool, DbError> {
    let status: Option<String> = db
        .connection()
        .query_row(
            "SELECT status FROM aristotle_compose_units WHERE device_id = ?1 AND map1 = ?2
             AND map2 = ?3 AND version = ?4 AND dataset = ?5",
            params![device_id, u.map1, u.map2, u.version.as_str(), u.dataset as i64],
            |row| row.get(0),
        )
        .optional()?;
    Ok(matches!(status.as_deref(), Some("measured") | Some("skipped")))
}

fn record(db: &mut Database, device_id: i64, u: &PairUnit, r: &UnitResult) -> Result<(), DbError> {
    db.transaction(|tx| {
        tx.execute(
            "DELETE FROM aristotle_compose_units WHERE device_id = ?1 AND map1 = ?2
             AND map2 = ?3 AND version = ?4 AND dataset = ?5 AND status = 'failed'",
            params![device_id, u.map1, u.map2, u.version.as_str(), u.dataset as i64],
        )?;
        let (status, reason, bytes) = match r {
            UnitResult::Measured { bytes_moved, .. } => ("measured", "", *bytes_moved),
            UnitResult::Skipped { reason } => ("skipped", reason.as_str(), 0),
            UnitResult::Failed { reason } => ("failed", reason.as_str(), 0),
        };
        tx.execute(
            "INSERT INTO aristotle_compose_units
                 (device_id, map1, map2, version, dataset, status, reason, bytes_moved)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                device_id,
                u.map1,
                u.map2,
                u.version.as_str(),
                u.dataset as i64,
                status,
                reason,
                i64::try_from(bytes).unwrap_or(i64::MAX)
            ],
        )?;
        let id = tx.last_insert_rowid();
        if let UnitResult::Measured { bytes_moved, samples_ns } = r {
            store::insert_samples(tx, "aristotle_compose_samples", id, *bytes_moved, samples_ns)?;
        }
        Ok(())
    })
}

/// Runs the compose plan, resuming like [`crate::campaign::run`].
pub fn run(
    db: &mut Database,
    device_id: i64,
    units: &[PairUnit],
    measurer: &mut dyn PairMeasurer,
    deadline: Option<Duration>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CampaignSummary, DbError> {
    store::ensure_schema(db)?;
    let started = Instant::now();
    let mut s = CampaignSummary { planned: units.len(), ..CampaignSummary::default() };
    for (i, u) in units.iter().enumerate() {
        if done(db, device_id, u)? {
            s.resumed += 1;
        } else if deadline.is_some_and(|d| started.elapsed() >= d) {
            s.left_for_later = units.len() - i;
            break;
        } else {
            let r = measurer.measure(u);
            record(db, device_id, u, &r)?;
            match &r {
                UnitResult::Measured { samples_ns, .. } => {
                    s.measured += 1;
                    s.samples += samples_ns.len();
                }
                UnitResult::Skipped { .. } => s.skipped += 1,
                UnitResult::Failed { reason } => {
                    s.failed += 1;
                    s.failures.push(format!(
                        "MAP-{}+MAP-{} {} {}: {reason}",
                        u.map1, u.map2, u.version, u.dataset
                    ));
                }
            }
        }
        progress(i + 1, units.len());
    }
    s.elapsed_s = started.elapsed().as_secs_f64();
    Ok(s)
}

/// Mean kernel time (ns) of every measured compose unit of a device.
pub fn mean_times(db: &Database, device_id: i64) -> Result<BTreeMap<PairUnit, f64>, DbError> {
    store::ensure_schema(db)?;
    let mut stmt = db.connection().prepare(
        "SELECT u.map1, u.map2, u.version, u.dataset, avg(s.kernel_ns)
         FROM aristotle_compose_units u JOIN aristotle_compose_samples s ON s.unit_id = u.id
         WHERE u.device_id = ?1 AND u.status = 'measured'
         GROUP BY u.id",
    )?;
    let rows = stmt.query_map([device_id], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, i64>(3)?,
            row.get::<_, f64>(4)?,
        ))
    })?;
    let mut out = BTreeMap::new();
    for row in rows {
        let (m1, m2, version, dataset, mean) = row?;
        let Ok(version) = version.parse::<ComposeVersion>() else { continue };
        let unit = PairUnit {
            map1: u16::try_from(m1).unwrap_or(0),
            map2: u16::try_from(m2).unwrap_or(0),
            version,
            dataset: usize::try_from(dataset).unwrap_or(0),
        };
        out.insert(unit, mean);
    }
    Ok(out)
}

/// Table 6 for one device: per dataset, the steps tested and how many the rules predicted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyRow {
    pub dataset: usize,
    pub tests: usize,
    pub successes: usize,
    /// successes / tests × 100.
    pub accuracy_percent: f64,
}

/// Scores the rules against the measured pairs: for each pair and dataset with all three
/// versions, step v0 → v1 tests the prediction for MAP1, step v1 → v2 the one for MAP2
/// (§8.1: a test fails when a structure predicted to gain slows the kernel, or one predicted
/// not to gain speeds it up, beyond δ). Predictions come from `table`, the device's single-MAP
/// database.
pub fn accuracy(table: &MapTable, times: &BTreeMap<PairUnit, f64>, delta: f64) -> Vec<AccuracyRow> {
    let mut by_size: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (u, &t0) in times.iter().filter(|(u, _)| u.version == ComposeVersion::V0) {
        let at = |version| times.get(&PairUnit { version, ..*u }).copied();
        let (Some(t1), Some(t2)) = (at(ComposeVersion::V1), at(ComposeVersion::V2)) else {
            continue;
        };
        let structures =
            [u.map1, u.map2].map(|map| DataStructure::new(format!("MAP-{map}"), map, u.dataset, 0));
        let advice = rules::compose(table, &structures, None, delta);
        let (Some(first), Some(second)) = (advice.choices.first(), advice.choices.get(1)) else {
            continue;
        };
        if first.mbr.is_none() || second.mbr.is_none() || t1 <= 0.0 || t2 <= 0.0 {
            continue;
        }
        let entry = by_size.entry(u.dataset).or_default();
        for (predicted, speedup) in [(first.use_local, t0 / t1), (second.use_local, t1 / t2)] {
            entry.0 += 1;
            if rules::prediction_holds(predicted, speedup, delta) {
                entry.1 += 1;
            }
        }
    }
    by_size
        .into_iter()
        .map(|(dataset, (tests, successes))| AccuracyRow {
            dataset,
            tests,
            successes,
            accuracy_percent: if tests > 0 { successes as f64 * 100.0 / tests as f64 } else { 0.0 },
        })
        .collect()
}

/// What a device's stored composer measurements say of the composing rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleScore {
    /// Distinct (MAP1, MAP2) pairs with at least one measured version.
    pub pairs: usize,
    /// Measured (pair, version, dataset) units.
    pub measured_versions: usize,
    /// Whether the device has single-MAP records to predict from; without them no step can be
    /// scored.
    pub has_map_records: bool,
    /// Table 6 of the device.
    pub accuracy: Vec<AccuracyRow>,
}

/// Scores the rules on everything a device has stored: its single-MAP table (the `max`
/// variant) predicts, its composer measurements test ([`accuracy`]).
pub fn score(
    db: &Database,
    device: &clmap_db::DeviceRecord,
    delta: f64,
) -> Result<RuleScore, DbError> {
    let table = crate::query::map_table(db, device, crate::query::DEFAULT_LOCAL_VARIANT)?;
    let times = mean_times(db, device.id)?;
    let pairs: std::collections::BTreeSet<(u16, u16)> =
        times.keys().map(|u| (u.map1, u.map2)).collect();
    Ok(RuleScore {
        pairs: pairs.len(),
        measured_versions: times.len(),
        has_map_records: !table.records.is_empty(),
        accuracy: accuracy(&table, &times, delta),
    })
}

/// Times pair kernels on an OpenCL device, with the campaign's method. Before a v1 or v2
/// kernel is timed, it runs once beside v0 on the same inputs and must produce the same
/// outputs; one that does not is recorded as skipped with the difference, never timed.
pub struct DevicePairMeasurer<'d> {
    device: &'d Device,
    work_group: [usize; 2],
    /// Runs including the warm-up.
    reps: u32,
    flush_cache: bool,
    /// v0's outputs for the last (pair, dataset) checked: the plan runs v0, v1 and v2 of one
    /// pair in a row, so one entry is all the reuse there is.
    reference: Option<((u16, u16, usize), clmap_workload::BufferSet)>,
}

impl<'d> DevicePairMeasurer<'d> {
    /// A measurer making `reps` runs per unit (the first discarded as warm-up).
    pub fn new(device: &'d Device, work_group: [usize; 2], reps: u32, flush_cache: bool) -> Self {
        DevicePairMeasurer { device, work_group, reps, flush_cache, reference: None }
    }

    /// Runs `candidate` and v0 of the same pair once each on the device and compares outputs:
    /// `Ok(None)` when they agree, `Ok(Some(difference))` when they do not.
    fn check_against_v0(
        &mut self,
        u: &PairUnit,
        candidate: &clmap_workload::Workload,
        a: &crate::map::Map,
        b: &crate::map::Map,
    ) -> Result<Option<String>, String> {
        let key = (u.map1, u.map2, u.dataset);
        let v0 = generate_pair(a, b, ComposeVersion::V0, u.dataset, self.work_group)
            .map_err(|e| format!("v0 not generated: {e}"))?;
        let expected = match &self.reference {
            Some((known, outputs)) if *known == key => outputs.clone(),
            _ => {
                let run = clmap_exec::run_on_device(self.device, &v0.workload, 0)
                    .map_err(|e| format!("v0: {e}"))?;
                self.reference = Some((key, run.buffers.clone()));
                run.buffers
            }
        };
        let actual = clmap_exec::run_on_device(self.device, candidate, 0)
            .map_err(|e| format!("{}: {e}", u.version))?;
        Ok(crate::campaign_device::output_differences(&v0.workload, &expected, &actual.buffers))
    }
}

impl PairMeasurer for DevicePairMeasurer<'_> {
    fn measure(&mut self, u: &PairUnit) -> UnitResult {
        let (Some(a), Some(b)) = (map_by_id(MapId(u.map1)), map_by_id(MapId(u.map2))) else {
            return UnitResult::Skipped { reason: "not a valid MAP".into() };
        };
        let bench = match generate_pair(&a, &b, u.version, u.dataset, self.work_group) {
            Ok(bench) => bench,
            Err(e) => return UnitResult::Skipped { reason: format!("not generated: {e}") },
        };
        let info = self.device.info();
        let elem = bench.workload.buffers.first().map_or(4, |b| b.elem.size());
        let need = (bench.local_cells as u64).saturating_mul(elem);
        if need > info.local_mem_bytes {
            return UnitResult::Skipped {
                reason: format!(
                    "needs {need} bytes of local memory, the device has {}",
                    info.local_mem_bytes
                ),
            };
        }
        if u.version != ComposeVersion::V0 {
            match self.check_against_v0(u, &bench.workload, &a, &b) {
                Ok(None) => {}
                Ok(Some(difference)) => {
                    return UnitResult::Skipped {
                        reason: format!("outputs differ from v0 on this device: {difference}"),
                    }
                }
                Err(reason) => {
                    return UnitResult::Failed { reason: format!("validation: {reason}") }
                }
            }
        }
        let options =
            TimingOptions { warmup: 1, reps: self.reps.max(2) - 1, flush_cache: self.flush_cache };
        match clmap_exec::time_on_device(self.device, &bench.workload, &options) {
            Ok(t) => {
                UnitResult::Measured { bytes_moved: bench.bytes_moved, samples_ns: t.samples_ns }
            }
            Err(e) => UnitResult::Failed { reason: e.to_string() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::MapRecord;

    #[test]
    fn accuracy_scores_each_step_against_the_single_map_table() {
        let rec = |map, mbr| MapRecord::with_ratio(map, 256, mbr);
        let table = MapTable {
            device: "d".into(),
            local_variant: "max".into(),
            records: vec![rec(204, 2.0), rec(108, 0.5)],
        };
        let mut times = BTreeMap::new();
        let unit = |version| PairUnit { map1: 204, map2: 108, version, dataset: 256 };
        // v0 → v1 speeds up (204 predicted to gain: holds); v1 → v2 speeds up too (108 predicted
        // to lose: fails).
        times.insert(unit(ComposeVersion::V0), 100.0);
        times.insert(unit(ComposeVersion::V1), 50.0);
        times.insert(unit(ComposeVersion::V2), 40.0);
        let rows = accuracy(&table, &times, 0.05);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].tests, rows[0].successes), (2, 1));
        assert_eq!(rows[0].accuracy_percent, 50.0);
    }

    #[test]
    fn pair_samples_vary_both_structures_and_grow_by_prefix() {
        let maps: Vec<u16> = crate::map::valid_maps().iter().map(|m| m.id().0).collect();
        let round = sample_pairs(&maps, 33);
        let firsts: std::collections::BTreeSet<u16> = round.iter().map(|p| p.0).collect();
        let seconds: std::collections::BTreeSet<u16> = round.iter().map(|p| p.1).collect();
        assert_eq!((firsts.len(), seconds.len()), (33, 33), "{round:?}");
        let all = sample_pairs(&maps, 5000);
        assert_eq!(all.len(), 1089);
        let distinct: std::collections::BTreeSet<(u16, u16)> = all.iter().copied().collect();
        assert_eq!(distinct.len(), 1089, "every ordered pair exactly once");
        assert_eq!(&sample_pairs(&maps, 99)[..33], &round[..]);
        assert_eq!(&all[..99], &sample_pairs(&maps, 99)[..]);
        assert!(sample_pairs(&maps, 0).is_empty());
    }

    #[test]
    fn compose_units_resume_without_duplicates() {
        struct Fixed;
        impl PairMeasurer for Fixed {
            fn measure(&mut self, _: &PairUnit) -> UnitResult {
                UnitResult::Measured { bytes_moved: 10, samples_ns: vec![5, 5, 5] }
            }
        }
        let mut db = Database::in_memory().expect("db");
        store::ensure_schema(&db).expect("schema");
        let dev = db
            .device_id(&clmap_db::DeviceIdentity {
                kind: "cpu".into(),
                platform: "p".into(),
                name: "n".into(),
                vendor: "v".into(),
                driver: "1".into(),
                details: serde_json::json!({}),
            })
            .expect("device");
        let units = plan(&[(204, 108)], &[256]);
        let first = run(&mut db, dev, &units[..1], &mut Fixed, None, &mut |_, _| {}).expect("run");
        assert_eq!(first.measured, 1);
        let second = run(&mut db, dev, &units, &mut Fixed, None, &mut |_, _| {}).expect("run");
        assert_eq!((second.resumed, second.measured), (1, 2));
        assert_eq!(mean_times(&db, dev).expect("times").len(), 3);
    }
}
