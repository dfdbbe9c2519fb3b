//! Evicting the caches between timed runs.
//!
//! A small kernel of clmap's own *reads* a buffer larger than the last-level cache. Reading,
//! not writing: a flush that fills a buffer leaves the cache full of dirty lines, and the next
//! timed kernel pays for writing them back (measured that way on an H100, whose 50 MB L2 held a
//! 64 MiB fill, the identity MAP reached 75 % of the copy bandwidth). After a read the cache
//! holds clean lines of the flush buffer only, and the timed kernel's dirty lines were written
//! back during the flush.
//!
//! The kernel and its buffer are made once per device and kept in its context: building the
//! kernel and allocating and filling hundreds of MiB for every timed workload cost more than
//! the flushes themselves on a CPU device.

use opencl3::kernel::Kernel;
use opencl3::memory::Buffer;
use opencl3::memory::ClMem;
use opencl3::program::Program as ClProgram;

use crate::device::DeviceContext;
use crate::error::{ClResultExt, DeviceError};

/// Smallest flush buffer: larger than the last-level cache of current CPUs and GPUs even when a
/// device under-reports its cache (NVIDIA reports 4 MiB for the H100, whose L2 holds 50 MB).
const MIN_FLUSH_BYTES: u64 = 128 << 20;

/// The flush reads this many times the reported cache size: twice evicts an LRU-like cache,
/// and more only costs time (PoCL reports 300 MiB on a 16-core Xeon).
const FLUSH_CACHE_FACTOR: u64 = 2;

/// Work-items of the flush: enough to keep every compute unit of a GPU streaming, few enough
/// for a CPU device.
const FLUSH_WORK_ITEMS: usize = 1 << 16;

/// XORs the buffer together; the store happens only if the result equals a constant that the
/// buffer's contents never produce, so no compiler can drop the loads.
const FLUSH_SOURCE: &str = "__kernel void clmap_flush(__global const uint4 *data, \
    __global uint *sink, uint count) {
    uint4 acc = (uint4)(0u);
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) { acc ^= data[i]; }
    uint all = acc.x ^ acc.y ^ acc.z ^ acc.w;
    if (all == 0x9E3779B9u) { sink[0] = all; }
}
";

/// The flush kernel with its arguments bound, kept in the device's context.
pub(crate) struct CacheFlusher {
    // Field order is drop order: the kernel refers to the buffers and the program.
    kernel: Kernel,
    _data: Buffer<u8>,
    _sink: Buffer<u8>,
    _program: ClProgram,
}

/// Reads the device's flush buffer once and waits for it; the in-order queue has finished every
/// earlier command by then. The flusher is made on the first call.
pub(crate) fn flush_caches(device: &DeviceContext) -> Result<(), DeviceError> {
    let mut slot = device.flusher.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let flusher = match &mut *slot {
        Some(flusher) => flusher,
        empty => empty.insert(CacheFlusher::new(device)?),
    };
    let global = [FLUSH_WORK_ITEMS];
    // SAFETY: the kernel's three arguments are bound, one dimension with a global size and no
    // offset or local size is a valid launch of it, and `global` outlives the call.
    let event = unsafe {
        device.queue.enqueue_nd_range_kernel(
            flusher.kernel.get(),
            1,
            std::ptr::null(),
            global.as_ptr(),
            std::ptr::null(),
            &[],
        )
    }
    .during("clEnqueueNDRangeKernel (cache flush)")?;
    event.wait().during("clWaitForEvents (cache flush)")?;
    Ok(())
}

impl CacheFlusher {
    fn new(device: &DeviceContext) -> Result<Self, DeviceError> {
        let info = &device.info;
        let wanted =
            info.global_mem_cache_bytes.saturating_mul(FLUSH_CACHE_FACTOR).max(MIN_FLUSH_BYTES);
        let bytes = wanted.min(info.max_mem_alloc_bytes).max(16);
        let count = usize::try_from(bytes / 16).unwrap_or(usize::MAX / 16).min(u32::MAX as usize);
        let mut program = ClProgram::create_from_source(&device.context, FLUSH_SOURCE)
            .during("clCreateProgramWithSource (cache flush)")?;
        program.build(&[device.handle.id()], "").during("clBuildProgram (cache flush)")?;
        let mut data = device.scratch_buffer(count * 16, "cache flush buffer")?;
        let sink = device.scratch_buffer(4, "cache flush sink")?;
        // Filled once on the device with a non-zero pattern whose XOR is not the sentinel; the
        // dirty lines this leaves are written back by the first flush.
        // SAFETY: the fill covers exactly the buffer and the pattern is one byte.
        unsafe { device.queue.enqueue_fill_buffer(&mut data, &[0x5Bu8], 0, count * 16, &[]) }
            .during("clEnqueueFillBuffer (cache flush buffer)")?
            .wait()
            .during("clWaitForEvents (cache flush buffer)")?;
        let kernel =
            Kernel::create(&program, "clmap_flush").during("clCreateKernel (cache flush)")?;
        let count = count as u32;
        // SAFETY: the argument types match the kernel's parameters (two buffers, one uint).
        unsafe {
            kernel.set_arg(0, &data.get()).during("clSetKernelArg (cache flush)")?;
            kernel.set_arg(1, &sink.get()).during("clSetKernelArg (cache flush)")?;
            kernel.set_arg(2, &count).during("clSetKernelArg (cache flush)")?;
        }
        Ok(CacheFlusher { kernel, _data: data, _sink: sink, _program: program })
    }
}
