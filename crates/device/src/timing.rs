//! Timing kernels with profiling events, and the device's own copy bandwidth as a reference.

use crate::device::Device;
use crate::error::{ClResultExt, DeviceError};
use crate::launch::{KernelArg, LaunchSpec};
use crate::program::{bindings, Program};

/// How to time a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimingOptions {
    /// Runs before measuring, discarded: they absorb JIT compilation, first-touch page faults
    /// and clock ramp-up. At least one is always made, since the first run of a kernel is
    /// never representative.
    pub warmup: u32,
    /// Measured runs (at least one).
    pub reps: u32,
    /// Overwrite a buffer larger than the last-level cache before every measured run, so each
    /// run starts with cold caches.
    pub flush_cache: bool,
}

impl Default for TimingOptions {
    fn default() -> Self {
        TimingOptions { warmup: 2, reps: 10, flush_cache: false }
    }
}

/// Kernel times of the measured runs and their statistics, in nanoseconds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Timing {
    /// One sample per measured run, in run order.
    pub samples_ns: Vec<u64>,
    /// Fastest run.
    pub min: f64,
    /// Median run (mean of the two middle samples for an even count).
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for a single sample).
    pub std: f64,
}

impl Timing {
    /// Statistics of the given samples; `None` when there are none.
    pub fn from_samples(samples_ns: Vec<u64>) -> Option<Timing> {
        let count = samples_ns.len();
        if count == 0 {
            return None;
        }
        let mut sorted = samples_ns.clone();
        sorted.sort_unstable();
        let min = *sorted.first()? as f64;
        let median = if count % 2 == 1 {
            *sorted.get(count / 2)? as f64
        } else {
            (*sorted.get(count / 2 - 1)? as f64 + *sorted.get(count / 2)? as f64) / 2.0
        };
        let mean = samples_ns.iter().map(|&ns| ns as f64).sum::<f64>() / count as f64;
        let std = if count > 1 {
            let squares: f64 = samples_ns.iter().map(|&ns| (ns as f64 - mean).powi(2)).sum();
            (squares / (count - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Timing { samples_ns, min, median, mean, std })
    }

    /// Spread relative to the mean (coefficient of variation); 0 when the mean is 0.
    pub fn relative_spread(&self) -> f64 {
        if self.mean > 0.0 {
            self.std / self.mean
        } else {
            0.0
        }
    }
}

/// A duration in nanoseconds, in the unit that reads best: `812 ns`, `3.50 µs`, `1.250 ms`,
/// `2.000 s`.
pub fn human_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

impl Program {
    /// Times one launch with profiling events: `warmup` runs (at least one) discarded, then
    /// `reps` runs, each
    /// timed from CL_PROFILING_COMMAND_START to _END, optionally after a cache flush. The
    /// buffers are created once and not reset between runs; those marked `read_back` hold the
    /// results of the last run afterwards.
    pub fn time(
        &self,
        launch: &LaunchSpec,
        args: &mut [KernelArg],
        options: &TimingOptions,
    ) -> Result<Timing, DeviceError> {
        if !self.device.profiling {
            return Err(DeviceError::ProfilingUnavailable {
                device: self.device.info.name.clone(),
            });
        }
        if options.reps == 0 {
            return Err(DeviceError::InvalidLaunch {
                kernel: launch.kernel.clone(),
                reason: "timing needs at least one measured repetition".to_string(),
            });
        }
        let buffers = self.create_argument_buffers(args)?;
        let kernel = self.prepare_kernel(launch, &bindings(args, &buffers))?;
        for _ in 0..options.warmup.max(1) {
            self.enqueue(&kernel, launch)?.wait().during("clWaitForEvents (warm-up)")?;
        }
        let mut samples = Vec::with_capacity(options.reps as usize);
        for _ in 0..options.reps {
            if options.flush_cache {
                crate::flush::flush_caches(&self.device)?;
            }
            let event = self.enqueue(&kernel, launch)?;
            event.wait().during("clWaitForEvents")?;
            samples.push(self.elapsed_ns(&event)?.unwrap_or(0));
        }
        self.read_back_arguments(args, &buffers)?;
        Timing::from_samples(samples).ok_or_else(|| DeviceError::InvalidLaunch {
            kernel: launch.kernel.clone(),
            reason: "no samples were taken".to_string(),
        })
    }
}

/// The device's own copy bandwidth in GB/s: `clEnqueueCopyBuffer` of `bytes` between two
/// device buffers, one warm-up copy, then the median of `reps` copies timed with profiling
/// events. A copy reads and writes `bytes` each, so 2 × `bytes` are counted as moved, as
/// STREAM's copy does.
pub fn copy_bandwidth(device: &Device, bytes: usize, reps: u32) -> Result<f64, DeviceError> {
    let shared = &device.shared;
    let info = &shared.info;
    if !shared.profiling {
        return Err(DeviceError::ProfilingUnavailable { device: info.name.clone() });
    }
    let invalid = |reason: &str| DeviceError::InvalidLaunch {
        kernel: "copy bandwidth".to_string(),
        reason: reason.to_string(),
    };
    if bytes == 0 || reps == 0 {
        return Err(invalid("the copy needs a positive size and at least one repetition"));
    }
    crate::launch::check_allocation(info, "for the copy".to_string(), bytes)?;
    let mut source = shared.scratch_buffer(bytes, "copy bandwidth")?;
    let mut destination = shared.scratch_buffer(bytes, "copy bandwidth")?;
    // Touch the source so the copies read committed memory, not lazily allocated pages.
    // SAFETY: the fill covers exactly the buffer.
    unsafe { shared.queue.enqueue_fill_buffer(&mut source, &[0x5Au8], 0, bytes, &[]) }
        .during("clEnqueueFillBuffer")?
        .wait()
        .during("clWaitForEvents")?;
    let mut samples = Vec::with_capacity(reps as usize);
    for round in 0..=reps {
        // SAFETY: both buffers have `bytes` bytes and do not overlap.
        let event = unsafe {
            shared.queue.enqueue_copy_buffer(&source, &mut destination, 0, 0, bytes, &[])
        }
        .during("clEnqueueCopyBuffer")?;
        event.wait().during("clWaitForEvents")?;
        let start = event.profiling_command_start().during("clGetEventProfilingInfo")?;
        let end = event.profiling_command_end().during("clGetEventProfilingInfo")?;
        if round > 0 {
            samples.push(end.saturating_sub(start).max(1));
        }
    }
    let timing = Timing::from_samples(samples).ok_or_else(|| invalid("no samples were taken"))?;
    // Bytes per nanosecond are gigabytes (10^9 bytes) per second.
    Ok(2.0 * bytes as f64 / timing.median)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_known_samples() {
        let timing = Timing::from_samples(vec![4, 1, 3, 2]).expect("samples");
        assert_eq!(timing.min, 1.0);
        assert_eq!(timing.median, 2.5);
        assert_eq!(timing.mean, 2.5);
        assert!((timing.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(timing.samples_ns, vec![4, 1, 3, 2]);
        let single = Timing::from_samples(vec![7]).expect("one sample");
        assert_eq!((single.median, single.std), (7.0, 0.0));
        assert!(Timing::from_samples(Vec::new()).is_none());
    }

    #[test]
    fn durations_read_in_the_unit_that_fits() {
        assert_eq!(human_ns(812.4), "812 ns");
        assert_eq!(human_ns(999.0), "999 ns");
        assert_eq!(human_ns(1_000.0), "1.00 µs");
        assert_eq!(human_ns(3_504.0), "3.50 µs");
        assert_eq!(human_ns(1_250_000.0), "1.250 ms");
        assert_eq!(human_ns(2e9), "2.000 s");
        assert_eq!(human_ns(0.0), "0 ns");
    }

    #[test]
    fn relative_spread_is_std_over_mean() {
        let timing = Timing::from_samples(vec![10, 10, 10]).expect("samples");
        assert_eq!(timing.relative_spread(), 0.0);
        let timing = Timing::from_samples(vec![90, 110]).expect("samples");
        assert!((timing.relative_spread() - (200.0f64).sqrt() / 100.0).abs() < 1e-12);
    }
}
