//! Timing kernels with profiling events, and the device's own copy bandwidth as a reference.

use opencl3::event::Event;
use opencl3::memory::Buffer;

use crate::device::Device;
use crate::error::{ClResultExt, DeviceError};
use crate::launch::{KernelArg, LaunchSpec};
use crate::program::{bindings, ArgBinding, Program};

/// Smallest cache-flush buffer: larger than the last-level cache of current CPUs and GPUs even
/// when a device under-reports its cache (NVIDIA reports 4 MiB for the H100, whose L2 holds
/// 50 MB).
const MIN_FLUSH_BYTES: u64 = 128 << 20;

/// The flush reads this many times the reported cache size: twice evicts an LRU-like cache,
/// and more only costs time (PoCL reports 300 MiB on the GPU machine's Xeon).
const FLUSH_CACHE_FACTOR: u64 = 2;

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

/// Evicts the caches between timed runs by *reading* a buffer larger than the last-level
/// cache with a small kernel of its own.
///
/// Reading, not writing: a flush that fills a buffer leaves the cache full of dirty lines,
/// and the next timed kernel pays for writing them back (on an H100, whose 50 MB L2 held a
/// 64 MiB fill, the identity MAP then reached 75 % of the copy bandwidth instead of the
/// copy's own rate). After a read the cache holds clean lines of the flush buffer only, and
/// the timed kernel's dirty lines were written back during the flush.
struct CacheFlusher {
    // Field order is drop order: the kernel refers to the buffers and the program.
    kernel: opencl3::kernel::Kernel,
    _data: Buffer<u8>,
    _sink: Buffer<u8>,
    launch: LaunchSpec,
    program: Program,
}

/// XORs the buffer together; the store happens only if the result equals a constant the
/// buffer's contents never produce, so no compiler can drop the loads.
const FLUSH_SOURCE: &str = "__kernel void clmap_flush(__global const uint4 *data, \
    __global uint *sink, uint count) {
    uint4 acc = (uint4)(0u);
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) { acc ^= data[i]; }
    uint all = acc.x ^ acc.y ^ acc.z ^ acc.w;
    if (all == 0x9E3779B9u) { sink[0] = all; }
}
";

/// Work-items of the flush: enough to keep every compute unit of a GPU streaming, few enough
/// for a CPU device.
const FLUSH_WORK_ITEMS: usize = 1 << 16;

impl CacheFlusher {
    fn new(program: &Program) -> Result<Self, DeviceError> {
        let info = &program.device.info;
        let wanted =
            info.global_mem_cache_bytes.saturating_mul(FLUSH_CACHE_FACTOR).max(MIN_FLUSH_BYTES);
        let bytes = wanted.min(info.max_mem_alloc_bytes).max(16);
        let count = usize::try_from(bytes / 16).unwrap_or(usize::MAX / 16).min(u32::MAX as usize);
        let device = Device { shared: std::sync::Arc::clone(&program.device) };
        let flush_program = device.build(FLUSH_SOURCE, "")?;
        let create = |size: usize| {
            // SAFETY: no host pointer is passed.
            unsafe {
                Buffer::<u8>::create(
                    &program.device.context,
                    cl3::memory::CL_MEM_READ_WRITE,
                    size,
                    std::ptr::null_mut(),
                )
            }
            .during(&format!("clCreateBuffer (cache flush buffer, {size} bytes)"))
        };
        let mut data = create(count * 16)?;
        let sink = create(4)?;
        // Filled once on the device (a non-zero pattern, whose XOR is not the sentinel); the
        // dirty lines this leaves are written back during the warm-up runs.
        // SAFETY: the fill covers exactly the buffer and the pattern is one byte.
        unsafe {
            program.device.queue.enqueue_fill_buffer(&mut data, &[0x5Bu8], 0, count * 16, &[])
        }
        .during("clEnqueueFillBuffer (cache flush buffer)")?
        .wait()
        .during("clWaitForEvents (cache flush buffer)")?;
        let count_bytes = (count as u32).to_le_bytes();
        let launch = LaunchSpec::new("clmap_flush", vec![FLUSH_WORK_ITEMS]);
        let kernel = flush_program.prepare_kernel(
            &launch,
            &[
                ArgBinding::Buffer(&data),
                ArgBinding::Buffer(&sink),
                ArgBinding::Scalar(&count_bytes),
            ],
        )?;
        Ok(CacheFlusher { kernel, _data: data, _sink: sink, launch, program: flush_program })
    }

    /// Enqueues the flush kernel; the in-order queue runs it before the next kernel.
    fn flush(&mut self) -> Result<Event, DeviceError> {
        self.program.enqueue(&self.kernel, &self.launch)
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
        let mut flusher = if options.flush_cache { Some(CacheFlusher::new(self)?) } else { None };
        for _ in 0..options.warmup.max(1) {
            self.enqueue(&kernel, launch)?.wait().during("clWaitForEvents (warm-up)")?;
        }
        let mut samples = Vec::with_capacity(options.reps as usize);
        for _ in 0..options.reps {
            if let Some(flusher) = flusher.as_mut() {
                flusher.flush()?.wait().during("clWaitForEvents (cache flush)")?;
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
    let create = || {
        // SAFETY: no host pointer is passed.
        unsafe {
            Buffer::<u8>::create(
                &shared.context,
                cl3::memory::CL_MEM_READ_WRITE,
                bytes,
                std::ptr::null_mut(),
            )
        }
        .during(&format!("clCreateBuffer (copy bandwidth, {bytes} bytes)"))
    };
    let mut source = create()?;
    let mut destination = create()?;
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
    fn relative_spread_is_std_over_mean() {
        let timing = Timing::from_samples(vec![10, 10, 10]).expect("samples");
        assert_eq!(timing.relative_spread(), 0.0);
        let timing = Timing::from_samples(vec![90, 110]).expect("samples");
        assert!((timing.relative_spread() - (200.0f64).sqrt() / 100.0).abs() < 1e-12);
    }
}
