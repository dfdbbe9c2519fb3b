//! Measurements that make a record able to decide, beyond the one unit per (MAP, variant,
//! dataset, work-group) a campaign takes:
//!
//! - **Launch-bound records are scaled.** At a kernel's own small dataset a microbenchmark can
//!   take little more than a launch, staged or not, so its ratio says nothing about the access
//!   pattern. The launch's cost on the work-group is the MAP's `nolocal` microbenchmark on the
//!   smallest dataset the work-group tiles (one work-group's side, [`floor_dataset`]); while the
//!   kernel-as-written time b is under [`LAUNCH_MULTIPLE`] times that, the same MAP on the same
//!   work-group is measured on a dataset of twice the side, up to what the device's memory
//!   holds. Every such unit is stored with its real dataset; [`deciding_dataset`] picks the
//!   record that decides from the database alone, so `--nearest` and later runs follow it.
//! - **Ties are measured again.** A record whose ratio lies within its runs' spread has both
//!   units timed again, b and B in alternating rounds, until each side holds a fixed number of
//!   samples ([`RefineSettings::pool_to`]) or the time allowed runs out; the samples join the
//!   units', and the rules judge the pooled means ([`crate::rules::relative_noise`]).
//!
//! Both are resumable: what was measured is in the database, and a rerun finds nothing to do.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::campaign::{self, CampaignError, Measurer};
use crate::query::{Impact, MapRecord, NO_LOCAL_VARIANT};
use crate::rules::{similarity_margin, Similarity};
use crate::store::{self, StoredUnit, UnitKey, UnitResult};
use clmap_db::Database;

/// How many launches' worth of time the kernel as written must take for its record to decide,
/// when launch-bound records are scaled (`clmap advise --launch-multiple 4`).
pub const LAUNCH_MULTIPLE: f64 = 4.0;

/// What `clmap advise` and `clmap tune` use unless told otherwise: 0, the kernel's own dataset
/// decides. Scaling answers what the access pattern does on large data, but the advice is for
/// the launch as it is, and on the H100 the own-shape record predicted the winner more often:
/// of the full accuracy table of 2026-12-07, re-judged both ways from the same database, 37 of
/// 52 verdicts were right without scaling and 32 with it (seven turned right, two wrong;
/// docs/advise.md), and on the matrix multiplies of 2026-11-28 scaling staged the operand
/// that loses. On PoCL no own-shape record was launch-bound, so nothing changes there.
pub const DEFAULT_LAUNCH_MULTIPLE: f64 = 0.0;

/// Largest dataset side a scaled measurement grows to, whatever the device holds.
pub const MAX_SCALED_DATASET: usize = 8192;

/// Samples per alternating round of a re-measurement.
pub const ROUND_SAMPLES: u32 = 10;

/// The smallest dataset `work_group` tiles: one work-group's side in each dimension.
pub fn floor_dataset(work_group: [usize; 2]) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let (x, y) = (work_group[0].max(1), work_group[1].max(1));
    x / gcd(x, y) * y
}

/// The largest square dataset side (a power-of-two multiple of `start`) whose input and output
/// fit a device with `max_alloc_bytes` per buffer and `global_mem_bytes` in all (a quarter of
/// it, to leave room for the staged variant's buffers and the flush buffer).
pub fn max_dataset(max_alloc_bytes: u64, global_mem_bytes: u64) -> usize {
    let budget = (max_alloc_bytes).min(global_mem_bytes / 8) / 4;
    let side = (budget as f64).sqrt() as usize;
    side.min(MAX_SCALED_DATASET)
}

/// What the refinement may do.
#[derive(Clone, Debug)]
pub struct RefineSettings {
    /// The variant b comes from: `nolocal`, or for an interleaved pair the version with the
    /// candidate in global memory ([`crate::compose_kernels::InterleavedVersion`]).
    pub reference_variant: String,
    /// The variant B comes from.
    pub local_variant: String,
    /// Table 5's δ, the narrowest tie.
    pub delta: f64,
    /// Launches' worth of time that make a record decisive ([`LAUNCH_MULTIPLE`]).
    pub launch_multiple: f64,
    /// Largest dataset side to scale to ([`max_dataset`]).
    pub max_dataset: usize,
    /// Samples each side of a tie is measured up to (at least
    /// [`crate::rules::POOLED_SAMPLES`], so that the pooled record is judged by its means).
    pub pool_to: usize,
    /// Time one question's re-measurement may take.
    pub pool_time: Duration,
    /// No scaled dataset or re-measurement is started after this instant; what is left is
    /// taken by a later run (none: no limit).
    pub deadline: Option<Instant>,
}

/// A buffer's question as the refinement sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Question {
    pub map: u16,
    pub dataset: usize,
    pub work_group: [usize; 2],
}

/// Which record decides a question, and why it is not the question's own dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decider {
    /// The dataset whose record decides.
    pub dataset: usize,
    /// Set when it is a scaled dataset, not the question's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled: Option<Scaled>,
}

/// Why a larger dataset decides: the question's own record was launch-bound.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scaled {
    /// The question's dataset and the median time of its kernel as written (ns).
    pub own_dataset: usize,
    pub own_b_ns: f64,
    /// The launch's cost: the `nolocal` microbenchmark on one work-group (ns), and its dataset.
    pub floor_dataset: usize,
    pub floor_ns: f64,
    /// The deciding record's kernel-as-written time (ns).
    pub b_ns: f64,
    /// The multiple of the launch's cost asked for.
    pub multiple: f64,
}

impl Scaled {
    /// A sentence for the advice.
    pub fn describe(&self, map: u16, dataset: usize, work_group: [usize; 2]) -> String {
        let [x, y] = work_group;
        format!(
            "MAP-{map} at the kernel's N = {} on {x}x{y} took {:.1} µs as written, under {} × \
             the launch's cost ({:.1} µs, one work-group at N = {}): the launch, not the access \
             pattern, would decide there, so the record at N = {dataset} ({:.1} µs) decided",
            self.own_dataset,
            self.own_b_ns / 1e3,
            self.multiple,
            self.floor_ns / 1e3,
            self.floor_dataset,
            self.b_ns / 1e3,
        )
    }
}

fn unit<'u>(
    units: &'u [StoredUnit],
    map: u16,
    variant: &str,
    dataset: usize,
    work_group: [usize; 2],
) -> Option<&'u StoredUnit> {
    units.iter().find(|u| {
        u.key.map == map
            && u.key.variant == variant
            && u.key.dataset == dataset
            && u.work_group == work_group
    })
}

fn measured(unit: Option<&StoredUnit>) -> Option<&StoredUnit> {
    unit.filter(|u| u.status == "measured" && u.samples > 0)
}

/// The dataset whose record decides `q`, from the stored units alone: the question's own,
/// unless its kernel as written took under `multiple` launches (the one-work-group unit) and a
/// record of twice the side on the same work-group is stored, and so on while that holds.
pub fn deciding_dataset(
    units: &[StoredUnit],
    q: Question,
    local_variant: &str,
    multiple: f64,
) -> Decider {
    let own = Decider { dataset: q.dataset, scaled: None };
    let floor_n = floor_dataset(q.work_group);
    let Some(floor) = measured(unit(units, q.map, NO_LOCAL_VARIANT, floor_n, q.work_group)) else {
        return own;
    };
    let Some(first) = measured(unit(units, q.map, NO_LOCAL_VARIANT, q.dataset, q.work_group))
    else {
        return own;
    };
    let mut d = q.dataset;
    let mut b_ns = first.median_ns;
    while b_ns < multiple * floor.median_ns {
        let next = d * 2;
        let b = measured(unit(units, q.map, NO_LOCAL_VARIANT, next, q.work_group));
        let big_b = measured(unit(units, q.map, local_variant, next, q.work_group));
        match (b, big_b) {
            (Some(b), Some(_)) => {
                d = next;
                b_ns = b.median_ns;
            }
            _ => break,
        }
    }
    if d == q.dataset {
        return own;
    }
    Decider {
        dataset: d,
        scaled: Some(Scaled {
            own_dataset: q.dataset,
            own_b_ns: first.median_ns,
            floor_dataset: floor_n,
            floor_ns: floor.median_ns,
            b_ns,
            multiple,
        }),
    }
}

/// The record of (MAP, dataset, work-group) from stored units, when b and B are both measured.
pub fn record_of(
    units: &[StoredUnit],
    map: u16,
    dataset: usize,
    work_group: [usize; 2],
    local_variant: &str,
) -> Option<MapRecord> {
    record_between(units, map, dataset, work_group, NO_LOCAL_VARIANT, local_variant)
}

/// The record whose b is `reference_variant` and B `local_variant` (both measured), of one
/// MAP, dataset and work-group: an interleaved pair's versions as well as b and B.
pub fn record_between(
    units: &[StoredUnit],
    map: u16,
    dataset: usize,
    work_group: [usize; 2],
    reference_variant: &str,
    local_variant: &str,
) -> Option<MapRecord> {
    let b = measured(unit(units, map, reference_variant, dataset, work_group))?;
    let big_b = measured(unit(units, map, local_variant, dataset, work_group))?;
    Some(MapRecord {
        map,
        dataset,
        b_mean: b.bandwidth_mean,
        b_std: b.bandwidth_std,
        big_b_mean: big_b.bandwidth_mean,
        big_b_std: big_b.bandwidth_std,
        mbr: if b.bandwidth_mean > 0.0 {
            big_b.bandwidth_mean / b.bandwidth_mean
        } else {
            f64::NAN
        },
        work_group: Some(work_group),
        samples: Some([b.samples, big_b.samples]),
    })
}

/// What the refinement did for a question.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refinement {
    /// The launch's cost measured: the MAP's `nolocal` microbenchmark on one work-group.
    Floor { map: u16, dataset: usize, work_group: [usize; 2] },
    /// b and B measured on a larger dataset because the smaller one was launch-bound.
    Scaled { map: u16, from: usize, to: usize, work_group: [usize; 2] },
    /// A tie measured again: samples per side before and after.
    Pooled {
        map: u16,
        dataset: usize,
        work_group: [usize; 2],
        before: [usize; 2],
        after: [usize; 2],
    },
}

/// The next measurement a question needs, from the database alone.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Floor(UnitKey),
    Scale { from: usize, to: usize },
    Pool(usize),
    Done,
}

fn next_step(units: &[StoredUnit], q: Question, settings: &RefineSettings) -> Step {
    let variant = settings.local_variant.as_str();
    let reference = settings.reference_variant.as_str();
    // Nothing to refine until the question's own b and B are measured.
    if record_between(units, q.map, q.dataset, q.work_group, reference, variant).is_none() {
        return Step::Done;
    }
    // A multiple of 0 scales nothing, so the launch's cost is not needed.
    if settings.launch_multiple <= 0.0 {
        return pool_or_done(units, q, q.dataset, settings);
    }
    let floor_n = floor_dataset(q.work_group);
    let floor_key = UnitKey { map: q.map, variant: NO_LOCAL_VARIANT.into(), dataset: floor_n };
    match unit(units, q.map, NO_LOCAL_VARIANT, floor_n, q.work_group) {
        None => return Step::Floor(floor_key),
        Some(u) if u.status == "measured" => {}
        // Skipped or failed: the launch's cost is unknown and nothing is scaled.
        Some(_) => return pool_or_done(units, q, q.dataset, settings),
    }
    let decider = deciding_dataset(units, q, variant, settings.launch_multiple);
    let d = decider.dataset;
    let b_ns = decider.scaled.as_ref().map_or_else(
        || {
            measured(unit(units, q.map, NO_LOCAL_VARIANT, d, q.work_group))
                .map_or(0.0, |u| u.median_ns)
        },
        |s| s.b_ns,
    );
    let floor_ns = measured(unit(units, q.map, NO_LOCAL_VARIANT, floor_n, q.work_group))
        .map_or(0.0, |u| u.median_ns);
    let next = d * 2;
    let tried = |v: &str| unit(units, q.map, v, next, q.work_group).is_some();
    if b_ns < settings.launch_multiple * floor_ns
        && next <= settings.max_dataset
        && !(tried(NO_LOCAL_VARIANT) && tried(variant))
    {
        return Step::Scale { from: d, to: next };
    }
    pool_or_done(units, q, d, settings)
}

fn pool_or_done(units: &[StoredUnit], q: Question, d: usize, settings: &RefineSettings) -> Step {
    let (reference, variant) = (&settings.reference_variant, &settings.local_variant);
    let Some(record) = record_between(units, q.map, d, q.work_group, reference, variant) else {
        return Step::Done;
    };
    let margin = similarity_margin(&record, settings.delta, Similarity::DeltaOrNoise);
    let tie = Impact::of(record.mbr, margin) == Impact::Similar;
    let short = record.samples.is_some_and(|[b, big_b]| b.min(big_b) < settings.pool_to);
    if tie && short {
        Step::Pool(d)
    } else {
        Step::Done
    }
}

/// Whether `q` needs a measurement [`refine`] would take (so that the device is opened only
/// then).
pub fn pending(units: &[StoredUnit], q: Question, settings: &RefineSettings) -> bool {
    next_step(units, q, settings) != Step::Done
}

/// Takes the measurements `q` needs beyond its own b and B: the launch's cost, the scaled
/// datasets while the record is launch-bound, and a tie's re-measurement. `measurer` times
/// on `q.work_group`. Each step is decided from the database, so a rerun resumes.
pub fn refine(
    db: &mut Database,
    device_id: i64,
    q: Question,
    measurer: &mut dyn Measurer,
    settings: &RefineSettings,
    progress: &mut dyn FnMut(&Refinement),
) -> Result<Vec<Refinement>, CampaignError> {
    let mut done = Vec::new();
    let mut pooled = BTreeSet::new();
    // Each step measures something new or stops, so the loop ends; the bound is a guard.
    for _ in 0..64 {
        let units = store::units(db, device_id)?;
        let step = next_step(&units, q, settings);
        let late = settings.deadline.is_some_and(|d| Instant::now() >= d);
        let refinement = match step {
            Step::Done => break,
            // The launch's cost is one small unit; scaling and pooling wait for a later run.
            Step::Scale { .. } | Step::Pool(_) if late => break,
            Step::Floor(key) => {
                campaign::run(db, device_id, &[key.clone()], measurer, None, &mut |_| {})?;
                Refinement::Floor { map: q.map, dataset: key.dataset, work_group: q.work_group }
            }
            Step::Scale { from, to } => {
                let keys: Vec<UnitKey> = [NO_LOCAL_VARIANT, settings.local_variant.as_str()]
                    .iter()
                    .map(|v| UnitKey { map: q.map, variant: v.to_string(), dataset: to })
                    .collect();
                campaign::run(db, device_id, &keys, measurer, None, &mut |_| {})?;
                Refinement::Scaled { map: q.map, from, to, work_group: q.work_group }
            }
            Step::Pool(d) => {
                if !pooled.insert(d) {
                    // Its time ran out earlier in this run: a later run goes on.
                    break;
                }
                pool(db, device_id, q, d, measurer, settings)?
            }
        };
        progress(&refinement);
        done.push(refinement);
    }
    Ok(done)
}

/// Measures b and B of (MAP, d) in alternating rounds until each side has `pool_to` samples
/// or the time is up; every sample joins its unit.
fn pool(
    db: &mut Database,
    device_id: i64,
    q: Question,
    d: usize,
    measurer: &mut dyn Measurer,
    settings: &RefineSettings,
) -> Result<Refinement, CampaignError> {
    let keys = [settings.reference_variant.as_str(), settings.local_variant.as_str()]
        .map(|v| UnitKey { map: q.map, variant: v.to_string(), dataset: d });
    let count = |db: &Database, key: &UnitKey| -> Result<usize, CampaignError> {
        Ok(store::units(db, device_id)?
            .iter()
            .find(|u| &u.key == key && u.work_group == q.work_group)
            .map_or(0, |u| u.samples))
    };
    let before = [count(db, &keys[0])?, count(db, &keys[1])?];
    let mut now = before;
    let started = Instant::now();
    let in_time = || {
        started.elapsed() < settings.pool_time
            && settings.deadline.is_none_or(|d| Instant::now() < d)
    };
    while now[0].min(now[1]) < settings.pool_to && in_time() {
        let mut progressed = false;
        for (side, key) in keys.iter().enumerate() {
            if now[side] >= settings.pool_to {
                continue;
            }
            let want = (settings.pool_to - now[side]).min(ROUND_SAMPLES as usize) as u32;
            if let UnitResult::Measured { samples_ns, .. } = measurer.measure_samples(key, want) {
                if !samples_ns.is_empty() {
                    now[side] =
                        store::append_samples(db, device_id, key, q.work_group, &samples_ns)?;
                    progressed = true;
                }
            }
        }
        if !progressed {
            break;
        }
    }
    Ok(Refinement::Pooled { map: q.map, dataset: d, work_group: q.work_group, before, after: now })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_one_work_group() {
        assert_eq!(floor_dataset([16, 16]), 16);
        assert_eq!(floor_dataset([32, 8]), 32);
        assert_eq!(floor_dataset([32, 1]), 32);
        assert_eq!(floor_dataset([8, 12]), 24);
    }

    #[test]
    fn the_largest_dataset_fits_the_device() {
        // 1 GiB per buffer and 80 GiB in all: capped.
        assert_eq!(max_dataset(1 << 30, 80 << 30), MAX_SCALED_DATASET);
        // 16 MiB per buffer: 4 Mi floats, a side of 2048.
        assert_eq!(max_dataset(16 << 20, 1 << 40), 2048);
    }
}
