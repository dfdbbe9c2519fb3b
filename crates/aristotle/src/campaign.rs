//! MAP campaigns (seed 001 §6.2): every (MAP, variant, dataset) unit measured on one device and
//! recorded with all its samples.
//!
//! The engine is separate from how a unit is measured ([`Measurer`]): the OpenCL measurer lives
//! in [`crate::campaign_device`], tests use a scripted one. Resumption is the engine's job and
//! rests on one invariant: a unit reaches the database only as a whole, in one transaction with
//! its samples ([`store::record_unit`]). A rerun therefore asks the database which units are
//! done and measures only the others.

use crate::store::{self, UnitKey, UnitResult, UnitSetup, Validation};
use clmap_db::{Database, DbError};
use serde::Serialize;
use std::time::{Duration, Instant};

/// The name of the variant every other variant is checked against and divided by.
pub const REFERENCE_VARIANT: &str = "nolocal";

/// The variant `variant` is checked against: [`REFERENCE_VARIANT`], or for a version of an
/// interleaved pair the same pair with neither structure staged (which is its own reference,
/// as `nolocal` is).
pub fn reference_of(variant: &str) -> String {
    match crate::compose_kernels::InterleavedVersion::parse(variant) {
        Some(version) => version.reference().variant(),
        None => REFERENCE_VARIANT.to_string(),
    }
}

/// How one unit is checked and timed. Implementations never panic on a failing device: they
/// report the failure as a [`UnitResult::Failed`] or an `Err` with a sentence.
pub trait Measurer {
    /// How units are timed (recorded beside every unit).
    fn setup(&self) -> UnitSetup;
    /// Why this unit cannot run on the device as generated (local memory, work-group limits),
    /// or `None` when it can.
    fn skip_reason(&mut self, key: &UnitKey) -> Option<String>;
    /// Runs `variant` and the reference variant once each on `dataset` and compares outputs.
    fn validate(&mut self, map: u16, variant: &str, dataset: usize) -> Result<Validation, String>;
    /// Times the unit.
    fn measure(&mut self, key: &UnitKey) -> UnitResult;
    /// Times the unit with `samples` stored runs (after the usual warm-up), for a
    /// re-measurement that is pooled with the first; measurers that cannot change their count
    /// time it as [`Measurer::measure`] does.
    fn measure_samples(&mut self, key: &UnitKey, samples: u32) -> UnitResult {
        let _ = samples;
        self.measure(key)
    }
}

/// The units of a campaign over `maps` × `variants` × `datasets`, in the order they run: by
/// dataset first, so a campaign cut short still covers every MAP on the small datasets.
pub fn plan(maps: &[u16], variants: &[String], datasets: &[usize]) -> Vec<UnitKey> {
    let mut units = Vec::with_capacity(maps.len() * variants.len() * datasets.len());
    for &dataset in datasets {
        for &map in maps {
            for variant in variants {
                units.push(UnitKey { map, variant: variant.clone(), dataset });
            }
        }
    }
    units
}

/// What happened to one unit in this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitFate {
    /// Already in the database from an earlier run.
    Resumed,
    Measured,
    Skipped,
    Failed,
}

/// Where a campaign stands, reported after every unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// Units finished in this run or an earlier one.
    pub done: usize,
    /// Units in the plan.
    pub total: usize,
    /// The unit just finished.
    pub unit: UnitKey,
    pub fate: UnitFate,
}

/// What a campaign run did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CampaignSummary {
    pub planned: usize,
    pub resumed: usize,
    pub measured: usize,
    pub skipped: usize,
    pub failed: usize,
    /// Samples written in this run.
    pub samples: usize,
    /// Units not reached because the time limit ran out.
    pub left_for_later: usize,
    /// Failures, as `MAP-407 max 128: reason`.
    pub failures: Vec<String>,
    pub elapsed_s: f64,
}

/// Why a campaign stopped early.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error(transparent)]
    Db(#[from] DbError),
}

/// Runs the plan on one device. Units already done are skipped; each other unit is validated
/// (once per MAP and variant on this device), timed and committed with its samples. With a
/// `deadline`, no unit is started after it, so a time-limited command ends cleanly.
pub fn run(
    db: &mut Database,
    device_id: i64,
    units: &[UnitKey],
    measurer: &mut dyn Measurer,
    deadline: Option<Duration>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<CampaignSummary, CampaignError> {
    store::ensure_schema(db)?;
    let started = Instant::now();
    let setup = measurer.setup();
    let mut summary = CampaignSummary { planned: units.len(), ..CampaignSummary::default() };
    for (index, key) in units.iter().enumerate() {
        let fate = if store::unit_done(db, device_id, key, setup.work_group)? {
            summary.resumed += 1;
            UnitFate::Resumed
        } else if deadline.is_some_and(|limit| started.elapsed() >= limit) {
            summary.left_for_later = units.len() - index;
            break;
        } else {
            let result = measure_unit(db, device_id, key, measurer)?;
            store::record_unit(db, device_id, key, &setup, &result)?;
            match &result {
                UnitResult::Measured { samples_ns, .. } => {
                    summary.measured += 1;
                    summary.samples += samples_ns.len();
                    UnitFate::Measured
                }
                UnitResult::Skipped { .. } => {
                    summary.skipped += 1;
                    UnitFate::Skipped
                }
                UnitResult::Failed { reason } => {
                    summary.failed += 1;
                    summary
                        .failures
                        .push(format!("MAP-{} {} {}: {reason}", key.map, key.variant, key.dataset));
                    UnitFate::Failed
                }
            }
        };
        progress(&Progress { done: index + 1, total: units.len(), unit: key.clone(), fate });
    }
    summary.elapsed_s = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Skip check, validation against the reference variant (recorded once per device, MAP and
/// variant), then timing.
fn measure_unit(
    db: &Database,
    device_id: i64,
    key: &UnitKey,
    measurer: &mut dyn Measurer,
) -> Result<UnitResult, CampaignError> {
    if let Some(reason) = measurer.skip_reason(key) {
        return Ok(UnitResult::Skipped { reason });
    }
    let reference = reference_of(&key.variant);
    if key.variant != reference {
        let check = match store::validation(db, device_id, key.map, &key.variant)? {
            Some(check) => check,
            None => match measurer.validate(key.map, &key.variant, key.dataset) {
                Ok(check) => {
                    store::record_validation(db, device_id, key.map, &key.variant, &check)?;
                    check
                }
                Err(reason) => {
                    return Ok(UnitResult::Failed { reason: format!("validation: {reason}") })
                }
            },
        };
        if !check.equal {
            return Ok(UnitResult::Skipped {
                reason: format!(
                    "outputs differ from the {reference} variant on this device \
                     (dataset {}): {}",
                    check.dataset, check.detail
                ),
            });
        }
    }
    Ok(measurer.measure(key))
}
