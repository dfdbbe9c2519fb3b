//! Seed 000's evaluation on a real device: is the kernel faster without local memory?
//!
//! The normalised performance np = t(with local memory) / t(without) compares the original
//! kernel with its validated rewrite on one device. The paper reads np > 1 as a gain from
//! removing local memory; differences within its noise band are "similar".

use clmap_device::{Device, Timing, TimingOptions};
use clmap_exec::{time_on_device, ExecError, PreparedWorkload};

/// Differences of np from 1 up to this fraction are reported as similar performance.
pub const SIMILAR_BAND: f64 = 0.05;

/// What removing local memory did to the kernel's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Impact {
    /// Faster without local memory (np above 1 + [`SIMILAR_BAND`]).
    Gain,
    /// Within the band around np = 1.
    Similar,
    /// Slower without local memory.
    Loss,
}

impl Impact {
    /// The verdict for a normalised performance `np`.
    pub fn of(np: f64) -> Impact {
        if (np - 1.0).abs() <= SIMILAR_BAND {
            Impact::Similar
        } else if np > 1.0 {
            Impact::Gain
        } else {
            Impact::Loss
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Impact::Gain => "gain",
            Impact::Similar => "similar",
            Impact::Loss => "loss",
        }
    }
}

/// The two timings and their ratio.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub device: String,
    pub with_local: Timing,
    pub without_local: Timing,
    /// t(with local memory) / t(without), from the medians.
    pub np: f64,
    pub impact: Impact,
}

/// Times the original and the rewrite on `device` with the same options.
pub fn measure(
    device: &Device,
    original: &PreparedWorkload,
    rewrite: &PreparedWorkload,
    options: &TimingOptions,
) -> Result<Measurement, ExecError> {
    let with_local = time_on_device(device, original.workload(), options)?;
    let without_local = time_on_device(device, rewrite.workload(), options)?;
    let np = with_local.median / without_local.median;
    Ok(Measurement {
        device: device.info().name.clone(),
        impact: Impact::of(np),
        with_local,
        without_local,
        np,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_band_around_one() {
        assert_eq!(Impact::of(1.0), Impact::Similar);
        assert_eq!(Impact::of(1.04), Impact::Similar);
        assert_eq!(Impact::of(0.96), Impact::Similar);
        assert_eq!(Impact::of(1.06), Impact::Gain);
        assert_eq!(Impact::of(2.5), Impact::Gain);
        assert_eq!(Impact::of(0.94), Impact::Loss);
        assert_eq!(Impact::of(0.1), Impact::Loss);
        assert_eq!(Impact::of(f64::NAN), Impact::Loss);
    }
}
