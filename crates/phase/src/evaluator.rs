//! The device side of the search, behind a trait: validating a PTX against the reference
//! outputs and timing it. The real implementation runs on an OpenCL device
//! ([`crate::device_eval::DeviceEvaluator`]); tests use a deterministic fake, so search,
//! de-duplication and resumption are tested without a GPU.

use crate::compiler::CompiledPtx;
use serde::{Deserialize, Serialize};

/// Whether a PTX computes what the reference computes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "snake_case")]
pub enum Verdict {
    /// Every output within tolerance of the reference.
    Valid,
    /// The kernel ran but its outputs differ from the reference.
    Wrong(String),
    /// The PTX did not build or the kernel did not run (driver rejection, launch error).
    Failed(String),
}

impl Verdict {
    /// True for [`Verdict::Valid`].
    pub fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid)
    }

    /// The reason for a rejection (empty for a valid PTX).
    pub fn reason(&self) -> &str {
        match self {
            Verdict::Valid => "",
            Verdict::Wrong(reason) | Verdict::Failed(reason) => reason,
        }
    }
}

/// An error that stops the search: the device itself no longer works (as opposed to one PTX
/// failing, which is a [`Verdict`]).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct EvaluatorError(pub String);

/// Validates and times kernels for one workload on one device.
pub trait Evaluator {
    /// A one-line description of the device, for reports.
    fn describe(&self) -> String;

    /// Checks `ptx` on the small inputs against the reference outputs (the device vendor's own
    /// compilation of the source on the same inputs).
    fn validate_small(&mut self, ptx: &CompiledPtx) -> Result<Verdict, EvaluatorError>;

    /// Checks `ptx` on the full inputs with every random seed shifted by `seed_shift` (0 = the
    /// workload's own inputs) against the reference on the same inputs.
    fn validate_full(
        &mut self,
        ptx: &CompiledPtx,
        seed_shift: u64,
    ) -> Result<Verdict, EvaluatorError>;

    /// Kernel times in nanoseconds of `reps` runs of the full workload built from `ptx`, after
    /// one discarded warm-up run. A PTX that fails to build or run is a [`Verdict`] error.
    fn time_ptx(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError>;

    /// As [`Evaluator::time_ptx`], but a PTX whose warm-up run alone takes longer than
    /// `give_up_ns` is timed no further: the warm-up becomes its only sample. A search spends
    /// most of its device time on candidates far slower than the best (a kernel of 100 ms that
    /// a bad sequence makes ten times slower costs seconds per timing), and such a candidate
    /// cannot win; the default times every PTX in full.
    fn time_ptx_screened(
        &mut self,
        ptx: &CompiledPtx,
        reps: u32,
        _give_up_ns: u64,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.time_ptx(ptx, reps)
    }

    /// The same for the vendor's own compilation of the source (the "from source" baseline).
    fn time_source(&mut self, reps: u32) -> Result<Vec<u64>, EvaluatorError>;

    /// Checks `ptx` on inputs where two pointer arguments share one buffer, as far as the
    /// workload allows it (see [`crate::aliasing`]): one verdict per aliased layout, labelled
    /// (`y=tmp`). None by default.
    fn validate_aliased(
        &mut self,
        _ptx: &CompiledPtx,
    ) -> Result<Vec<(String, Verdict)>, EvaluatorError> {
        Ok(Vec::new())
    }

    /// Makes the device usable again after an [`EvaluatorError`] (a kernel that broke the
    /// context): a fresh context, the reference rebuilt and checked against its own outputs.
    /// `Err` when that is not possible; the search then stops. The default cannot recover.
    fn recover(&mut self) -> Result<(), EvaluatorError> {
        Err(EvaluatorError("this evaluator cannot recover from a device failure".to_string()))
    }

    /// Seconds each start of the device side took, for evaluators that start it anew in
    /// [`Evaluator::recover`]: the first start, then one per successful recovery (for the
    /// report: what a device-breaking candidate costs). None by default.
    fn start_seconds(&self) -> Vec<f64> {
        Vec::new()
    }
}

/// The evaluator of work that only compiles (minimisation's same-code stage on a machine
/// without the GPU): every call is an error, so a bug that reached the device here would say
/// so instead of measuring something else.
pub struct NoDevice;

impl NoDevice {
    fn refuse<T>(&self) -> Result<T, EvaluatorError> {
        Err(EvaluatorError(
            "no device was opened: this step only compiles and never runs a kernel".to_string(),
        ))
    }
}

impl Evaluator for NoDevice {
    fn describe(&self) -> String {
        "no device (compiling only)".to_string()
    }
    fn validate_small(&mut self, _: &CompiledPtx) -> Result<Verdict, EvaluatorError> {
        self.refuse()
    }
    fn validate_full(&mut self, _: &CompiledPtx, _: u64) -> Result<Verdict, EvaluatorError> {
        self.refuse()
    }
    fn time_ptx(
        &mut self,
        _: &CompiledPtx,
        _: u32,
    ) -> Result<Result<Vec<u64>, Verdict>, EvaluatorError> {
        self.refuse()
    }
    fn time_source(&mut self, _: u32) -> Result<Vec<u64>, EvaluatorError> {
        self.refuse()
    }
}

/// The median of samples (mean of the middle two for an even count); `None` when empty.
pub fn median(samples: &[u64]) -> Option<f64> {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    if n % 2 == 1 {
        sorted.get(n / 2).map(|&v| v as f64)
    } else {
        Some((*sorted.get(n / 2 - 1)? as f64 + *sorted.get(n / 2)? as f64) / 2.0)
    }
}

/// Spread of samples relative to their median: (upper quartile − lower quartile) / median, a
/// noise estimate that one outlier run cannot inflate. 0 for fewer than four samples.
pub fn relative_iqr(samples: &[u64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    if n < 4 {
        return 0.0;
    }
    let (Some(&lo), Some(&hi), Some(mid)) =
        (sorted.get(n / 4), sorted.get(3 * n / 4), median(samples))
    else {
        return 0.0;
    };
    if mid <= 0.0 {
        return 0.0;
    }
    (hi.saturating_sub(lo)) as f64 / mid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[5, 1, 3]), Some(3.0));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn iqr_ignores_one_outlier() {
        let calm = [100, 101, 99, 100, 100, 102, 98, 100];
        let spiky = [100, 101, 99, 100, 100, 102, 98, 1000];
        assert!(relative_iqr(&calm) < 0.05);
        assert!(relative_iqr(&spiky) < 0.05);
        assert_eq!(relative_iqr(&[1, 2]), 0.0);
    }
}
