//! Built programs: binding arguments, launching kernels, reading results back.

use std::ffi::c_void;
use std::sync::Arc;

use cl3::memory::{cl_mem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, Image, Sampler};
use opencl3::program::Program as ClProgram;
use opencl3::types::CL_BLOCKING;

use crate::device::DeviceContext;
use crate::error::{ClResultExt, DeviceError};
use crate::image::{create_image, create_sampler, read_image, ImageLayout};
use crate::launch::{
    check_allocation, check_launch_shape, check_local_arguments, work_group_error, KernelArg,
    LaunchSpec,
};

/// CL_INVALID_KERNEL_NAME.
const INVALID_KERNEL_NAME: i32 = -46;
/// CL_INVALID_WORK_GROUP_SIZE.
const INVALID_WORK_GROUP_SIZE: i32 = -54;

/// A program built for one device, ready to launch its kernels.
pub struct Program {
    // Field order is drop order: the program goes before the device context.
    pub(crate) program: ClProgram,
    pub(crate) device: Arc<DeviceContext>,
    kernel_names: Vec<String>,
}

/// What one launch reports besides the buffers it read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// Kernel execution time from CL_PROFILING_COMMAND_START to _END, when the device profiles.
    pub kernel_ns: Option<u64>,
}

/// A buffer shared by the launches of a sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedBuffer {
    /// Initial contents; after the sequence, final contents when `read_back` is set.
    pub bytes: Vec<u8>,
    /// Whether to copy the buffer back after the last launch.
    pub read_back: bool,
}

/// The buffers of a sequence, addressed by position from [`SequenceArg::Shared`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BufferTable {
    /// The buffers, in the order launches refer to them.
    pub buffers: Vec<SharedBuffer>,
}

impl BufferTable {
    /// Appends a buffer and returns the index launches use to refer to it.
    pub fn push(&mut self, bytes: Vec<u8>, read_back: bool) -> usize {
        self.buffers.push(SharedBuffer { bytes, read_back });
        self.buffers.len() - 1
    }
}

/// One argument of a launch in a sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SequenceArg {
    /// The device buffer for this table index, shared with every other launch that names it.
    Shared(usize),
    /// A null pointer for a buffer parameter.
    Null,
    /// A by-value parameter, as raw bytes.
    Scalar(Vec<u8>),
    /// A `__local` pointer parameter with this many bytes per work-group.
    Local(usize),
    /// The table entry as an image of this layout: the entry's bytes are its packed texels.
    /// Every launch that names the entry must name it as the same image.
    SharedImage(usize, ImageLayout),
    /// A sampler, as the value of the kernel language's `CLK_*` flags.
    Sampler(u32),
    /// `len` bytes of the table entry's device buffer from byte `offset` on (a workload's
    /// view): an OpenCL sub-buffer where the device's base-address alignment
    /// (`CL_DEVICE_MEM_BASE_ADDR_ALIGN`) allows the offset; otherwise a device buffer of its
    /// own, which the window is copied into before the launch and back out of after it, on
    /// the device, in queue order.
    SharedView { index: usize, offset: usize, len: usize },
}

/// The device buffer a view argument is bound to, and, when it is not a sub-buffer, the
/// window (table entry, byte offset, bytes) it was copied from.
struct ViewBuffer {
    buffer: Buffer<u8>,
    copied_from: Option<(usize, usize, usize)>,
}

/// A table entry on the device: a buffer, or an image where launches take it as one.
enum DeviceMemory {
    Buffer(Buffer<u8>),
    Image(Image, ImageLayout),
}

impl DeviceMemory {
    fn handle(&self) -> cl_mem {
        match self {
            DeviceMemory::Buffer(b) => b.get(),
            DeviceMemory::Image(i, _) => i.get(),
        }
    }
}

/// One launch of a sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceLaunch {
    /// Kernel, sizes and offset.
    pub launch: LaunchSpec,
    /// Arguments, one per kernel parameter.
    pub args: Vec<SequenceArg>,
    /// Host writes into shared buffers, enqueued before the launch (the queue is in order).
    pub writes_before: Vec<SequenceWrite>,
}

impl SequenceLaunch {
    /// A launch with no host writes before it.
    pub fn new(launch: LaunchSpec, args: Vec<SequenceArg>) -> SequenceLaunch {
        SequenceLaunch { launch, args, writes_before: Vec::new() }
    }
}

/// The host writing bytes into a shared buffer between launches (`clEnqueueWriteBuffer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceWrite {
    /// The table index of the buffer written.
    pub buffer: usize,
    /// Byte offset of the first byte written.
    pub offset: usize,
    pub bytes: Vec<u8>,
}

/// What a sequence reports besides the buffers it read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceOutcome {
    /// Execution time of each launch, in order, when the device profiles.
    pub kernel_ns: Vec<Option<u64>>,
    /// From the start of the first launch to the end of the last, when the device profiles:
    /// the kernels plus the gaps between them (launch overhead, host writes in between),
    /// which is what removing launches saves.
    pub span_ns: Option<u64>,
}

/// An argument resolved to what `clSetKernelArg` receives.
pub(crate) enum ArgBinding<'a> {
    Buffer(&'a Buffer<u8>),
    /// An image or another memory object, by handle (alive for the binding's lifetime).
    Mem(cl_mem),
    Sampler(&'a Sampler),
    Null,
    Scalar(&'a [u8]),
    Local(usize),
}

impl Program {
    pub(crate) fn new(device: Arc<DeviceContext>, program: ClProgram) -> Result<Self, DeviceError> {
        let kernel_names = program
            .kernel_names()
            .split(';')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        Ok(Program { program, device, kernel_names })
    }

    /// The device the program was built for.
    pub fn device_info(&self) -> &crate::info::DeviceInfo {
        &self.device.info
    }

    /// Names of the kernels the program defines.
    pub fn kernel_names(&self) -> &[String] {
        &self.kernel_names
    }

    /// The device binary the runtime built (PTX on NVIDIA), as `build_binary` accepts it.
    pub fn binary(&self) -> Result<Vec<u8>, DeviceError> {
        let binaries =
            self.program.get_binaries().during("clGetProgramInfo(CL_PROGRAM_BINARIES)")?;
        binaries
            .into_iter()
            .next()
            .filter(|binary| !binary.is_empty())
            .ok_or_else(|| DeviceError::cl("clGetProgramInfo(CL_PROGRAM_BINARIES): no binary", -45))
    }

    /// Runs one launch; buffers are created from the bytes, read back when asked.
    pub fn run(
        &self,
        launch: &LaunchSpec,
        args: &mut [KernelArg],
    ) -> Result<RunOutcome, DeviceError> {
        let buffers = self.create_argument_buffers(args)?;
        let kernel = self.prepare_kernel(launch, &bindings(args, &buffers))?;
        let event = self.enqueue(&kernel, launch)?;
        event.wait().during("clWaitForEvents")?;
        let kernel_ns = self.elapsed_ns(&event)?;
        self.read_back_arguments(args, &buffers)?;
        Ok(RunOutcome { kernel_ns })
    }

    /// Runs launches in order over shared buffers, so that launch k+1 sees launch k's results
    /// without host round trips; buffers marked `read_back` are copied back at the end.
    pub fn run_sequence(
        &self,
        launches: &[SequenceLaunch],
        table: &mut BufferTable,
    ) -> Result<SequenceOutcome, DeviceError> {
        let info = &self.device.info;
        for (launch_index, launch) in launches.iter().enumerate() {
            check_launch_shape(info, &launch.launch)?;
            let shared = launch.args.iter().filter_map(|arg| match arg {
                SequenceArg::Shared(index)
                | SequenceArg::SharedImage(index, _)
                | SequenceArg::SharedView { index, .. } => Some(*index),
                _ => None,
            });
            for index in shared.chain(launch.writes_before.iter().map(|w| w.buffer)) {
                if index >= table.buffers.len() {
                    return Err(DeviceError::UnknownSharedBuffer {
                        launch: launch_index,
                        index,
                        count: table.buffers.len(),
                    });
                }
            }
            for arg in &launch.args {
                let SequenceArg::SharedView { index, offset, len } = arg else { continue };
                let fits = offset
                    .checked_add(*len)
                    .is_some_and(|end| end <= table.buffers[*index].bytes.len());
                if !fits || *len == 0 {
                    return Err(DeviceError::InvalidLaunch {
                        kernel: launch.launch.kernel.clone(),
                        reason: format!(
                            "a view of {len} bytes at offset {offset} of table entry {index} \
                             ({} bytes) before launch {launch_index} is empty or does not fit",
                            table.buffers[*index].bytes.len()
                        ),
                    });
                }
            }
            for write in &launch.writes_before {
                let fits = write
                    .offset
                    .checked_add(write.bytes.len())
                    .is_some_and(|end| end <= table.buffers[write.buffer].bytes.len());
                if !fits {
                    return Err(DeviceError::InvalidLaunch {
                        kernel: launch.launch.kernel.clone(),
                        reason: format!(
                        "a host write of {} bytes at offset {} before launch {launch_index} does \
                         not fit in table entry {} of {} bytes",
                        write.bytes.len(),
                        write.offset,
                        write.buffer,
                        table.buffers[write.buffer].bytes.len()
                    ),
                    });
                }
            }
        }
        let layouts = image_layouts(launches, table.buffers.len())?;
        let mut device_buffers = Vec::with_capacity(table.buffers.len());
        for (index, (shared, layout)) in table.buffers.iter().zip(&layouts).enumerate() {
            let what = format!("table entry {index}");
            device_buffers.push(match layout {
                Some(layout) => DeviceMemory::Image(
                    create_image(&self.device.context, layout, &shared.bytes, &what)?,
                    *layout,
                ),
                None => DeviceMemory::Buffer(self.create_buffer(&shared.bytes, what)?),
            });
        }
        self.make_resident(&device_buffers)?;
        let mut samplers: Vec<(u32, Sampler)> = Vec::new();
        for launch in launches {
            for arg in &launch.args {
                if let SequenceArg::Sampler(bits) = arg {
                    if !samplers.iter().any(|(b, _)| b == bits) {
                        samplers.push((*bits, create_sampler(&self.device.context, *bits)?));
                    }
                }
            }
        }
        let mut events = Vec::with_capacity(launches.len());
        for launch in launches {
            for write in &launch.writes_before {
                if write.bytes.is_empty() {
                    continue;
                }
                let DeviceMemory::Buffer(target) = &mut device_buffers[write.buffer] else {
                    return Err(DeviceError::InvalidLaunch {
                        kernel: launch.launch.kernel.clone(),
                        reason: format!(
                            "a host write into table entry {}, an image, between launches is \
                             not supported on devices",
                            write.buffer
                        ),
                    });
                };
                // SAFETY: the write is blocking, so `write.bytes` outlives the transfer; the
                // range was checked against the buffer's size above.
                unsafe {
                    self.device.queue.enqueue_write_buffer(
                        target,
                        CL_BLOCKING,
                        write.offset,
                        &write.bytes,
                        &[],
                    )
                }
                .during("clEnqueueWriteBuffer")?;
            }
            let views = self.create_views(&launch.args, &device_buffers)?;
            let mut arg_bindings = Vec::with_capacity(launch.args.len());
            let mut view_buffers = views.iter();
            for arg in &launch.args {
                arg_bindings.push(match arg {
                    SequenceArg::SharedView { .. } => match view_buffers.next() {
                        Some(view) => ArgBinding::Buffer(&view.buffer),
                        None => return Err(DeviceError::cl("binding a view", -38)),
                    },
                    SequenceArg::Shared(index) | SequenceArg::SharedImage(index, _) => {
                        match device_buffers.get(*index) {
                            Some(DeviceMemory::Buffer(buffer)) => ArgBinding::Buffer(buffer),
                            Some(memory) => ArgBinding::Mem(memory.handle()),
                            None => return Err(DeviceError::cl("binding a shared buffer", -38)),
                        }
                    }
                    SequenceArg::Sampler(bits) => match samplers.iter().find(|(b, _)| b == bits) {
                        Some((_, sampler)) => ArgBinding::Sampler(sampler),
                        None => return Err(DeviceError::cl("binding a sampler", -41)),
                    },
                    SequenceArg::Null => ArgBinding::Null,
                    SequenceArg::Scalar(bytes) => ArgBinding::Scalar(bytes),
                    SequenceArg::Local(size) => ArgBinding::Local(*size),
                });
            }
            let kernel = self.prepare_kernel(&launch.launch, &arg_bindings)?;
            // The queue is in order, so each launch starts after the previous one finished.
            events.push(self.enqueue(&kernel, &launch.launch)?);
            drop(arg_bindings);
            self.copy_views_back(&views, &mut device_buffers)?;
        }
        self.device.queue.finish().during("clFinish")?;
        let mut kernel_ns = Vec::with_capacity(events.len());
        for event in &events {
            kernel_ns.push(self.elapsed_ns(event)?);
        }
        let span_ns = match (events.first(), events.last()) {
            (Some(first), Some(last)) if self.device.profiling => {
                let start = first.profiling_command_start().during("clGetEventProfilingInfo")?;
                let end = last.profiling_command_end().during("clGetEventProfilingInfo")?;
                Some(end.saturating_sub(start))
            }
            _ => None,
        };
        for (shared, memory) in table.buffers.iter_mut().zip(&device_buffers) {
            if shared.read_back {
                match memory {
                    DeviceMemory::Buffer(buffer) => self.read_buffer(buffer, &mut shared.bytes)?,
                    DeviceMemory::Image(image, layout) => {
                        read_image(&self.device.queue, image, layout, &mut shared.bytes)?
                    }
                }
            }
        }
        Ok(SequenceOutcome { kernel_ns, span_ns })
    }

    /// The device buffers of a launch's views, in argument order: sub-buffers of their
    /// table entry's buffer where the device's alignment allows the offset, else buffers of
    /// their own with the window copied in (in queue order, before the launch).
    fn create_views(
        &self,
        args: &[SequenceArg],
        device_buffers: &[DeviceMemory],
    ) -> Result<Vec<ViewBuffer>, DeviceError> {
        let mut views = Vec::new();
        for arg in args {
            let SequenceArg::SharedView { index, offset, len } = arg else { continue };
            let Some(DeviceMemory::Buffer(parent)) = device_buffers.get(*index) else {
                return Err(DeviceError::cl("a view of an image", -38));
            };
            let align_bytes = self.device.handle.mem_base_addr_align().unwrap_or(0) as usize / 8;
            if align_bytes > 0 && offset.is_multiple_of(align_bytes) {
                // SAFETY: the region lies inside the parent (checked before the sequence ran).
                let buffer = unsafe { parent.create_sub_buffer(CL_MEM_READ_WRITE, *offset, *len) }
                    .during("clCreateSubBuffer")?;
                views.push(ViewBuffer { buffer, copied_from: None });
                continue;
            }
            check_allocation(&self.device.info, format!("view of table entry {index}"), *len)?;
            // SAFETY: no host pointer is passed; the runtime allocates `len` (> 0) bytes.
            let mut buffer = unsafe {
                Buffer::<u8>::create(
                    &self.device.context,
                    CL_MEM_READ_WRITE,
                    *len,
                    std::ptr::null_mut(),
                )
            }
            .during("clCreateBuffer (view)")?;
            // SAFETY: both ranges lie inside their buffers.
            unsafe {
                self.device.queue.enqueue_copy_buffer(parent, &mut buffer, *offset, 0, *len, &[])
            }
            .during("clEnqueueCopyBuffer")?;
            views.push(ViewBuffer { buffer, copied_from: Some((*index, *offset, *len)) });
        }
        Ok(views)
    }

    /// Copies the views that are buffers of their own back into their windows (in queue
    /// order, after the launch).
    fn copy_views_back(
        &self,
        views: &[ViewBuffer],
        device_buffers: &mut [DeviceMemory],
    ) -> Result<(), DeviceError> {
        for view in views {
            let Some((index, offset, len)) = view.copied_from else { continue };
            let Some(DeviceMemory::Buffer(parent)) = device_buffers.get_mut(index) else {
                continue;
            };
            // SAFETY: both ranges lie inside their buffers.
            unsafe {
                self.device.queue.enqueue_copy_buffer(&view.buffer, parent, 0, offset, len, &[])
            }
            .during("clEnqueueCopyBuffer")?;
        }
        Ok(())
    }

    /// Moves every buffer to the device and waits. Runtimes may copy a buffer's initial
    /// data lazily, inside the first kernel that touches it; the kernels' profiled times
    /// would then include transfers, and a pipeline that touches fewer buffers (a fused one)
    /// would look faster for it.
    fn make_resident(&self, buffers: &[DeviceMemory]) -> Result<(), DeviceError> {
        if buffers.is_empty() {
            return Ok(());
        }
        let handles: Vec<_> = buffers.iter().map(DeviceMemory::handle).collect();
        // SAFETY: the handles are live buffers of this queue's context, borrowed for the
        // call; flags 0 migrate them to the queue's device.
        unsafe {
            self.device.queue.enqueue_migrate_mem_object(
                handles.len() as u32,
                handles.as_ptr(),
                0,
                &[],
            )
        }
        .during("clEnqueueMigrateMemObjects")?;
        self.device.queue.finish().during("clFinish")
    }

    /// One device buffer per buffer argument (`None` for the others), checked against the
    /// device's allocation limit first.
    pub(crate) fn create_argument_buffers(
        &self,
        args: &[KernelArg],
    ) -> Result<Vec<Option<Buffer<u8>>>, DeviceError> {
        let mut buffers = Vec::with_capacity(args.len());
        for (index, arg) in args.iter().enumerate() {
            buffers.push(match arg {
                KernelArg::Buffer { bytes, .. } => {
                    Some(self.create_buffer(bytes, format!("argument {index}"))?)
                }
                _ => None,
            });
        }
        Ok(buffers)
    }

    /// A read-write buffer initialised with `bytes` (at least one byte, since OpenCL forbids
    /// empty buffers).
    pub(crate) fn create_buffer(
        &self,
        bytes: &[u8],
        what: String,
    ) -> Result<Buffer<u8>, DeviceError> {
        check_allocation(&self.device.info, what.clone(), bytes.len())?;
        let context = &self.device.context;
        // SAFETY: with CL_MEM_COPY_HOST_PTR the runtime copies `bytes.len()` bytes during the
        // call and keeps no pointer; the empty case passes no pointer at all.
        let buffer = unsafe {
            if bytes.is_empty() {
                Buffer::<u8>::create(context, CL_MEM_READ_WRITE, 1, std::ptr::null_mut())
            } else {
                Buffer::<u8>::create(
                    context,
                    CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    bytes.len(),
                    bytes.as_ptr() as *mut c_void,
                )
            }
        };
        buffer.during(&format!("clCreateBuffer ({what}, {} bytes)", bytes.len()))
    }

    /// Copies buffers back into the arguments that asked for it.
    pub(crate) fn read_back_arguments(
        &self,
        args: &mut [KernelArg],
        buffers: &[Option<Buffer<u8>>],
    ) -> Result<(), DeviceError> {
        for (arg, buffer) in args.iter_mut().zip(buffers) {
            if let (KernelArg::Buffer { bytes, read_back: true }, Some(buffer)) = (arg, buffer) {
                self.read_buffer(buffer, bytes)?;
            }
        }
        Ok(())
    }

    fn read_buffer(&self, buffer: &Buffer<u8>, bytes: &mut [u8]) -> Result<(), DeviceError> {
        if bytes.is_empty() {
            return Ok(());
        }
        // SAFETY: the read is blocking, so `bytes` outlives the transfer, and the buffer was
        // created with exactly `bytes.len()` bytes.
        unsafe { self.device.queue.enqueue_read_buffer(buffer, CL_BLOCKING, 0, bytes, &[]) }
            .during("clEnqueueReadBuffer")?;
        Ok(())
    }

    /// Creates the kernel, binds the arguments and checks the launch against the device's and
    /// the kernel's limits (the kernel's are known only once it is compiled).
    pub(crate) fn prepare_kernel(
        &self,
        launch: &LaunchSpec,
        arg_bindings: &[ArgBinding<'_>],
    ) -> Result<Kernel, DeviceError> {
        let info = &self.device.info;
        check_launch_shape(info, launch)?;
        // The name travels as a C string; an interior NUL could only name a kernel that the
        // program does not have.
        if launch.kernel.contains('\0') {
            return Err(DeviceError::KernelNotFound {
                name: launch.kernel.escape_debug().to_string(),
                available: self.kernel_names.join(", "),
            });
        }
        let kernel = match Kernel::create(&self.program, &launch.kernel) {
            Ok(kernel) => kernel,
            Err(error) if error.0 == INVALID_KERNEL_NAME => {
                return Err(DeviceError::KernelNotFound {
                    name: launch.kernel.clone(),
                    available: self.kernel_names.join(", "),
                })
            }
            Err(error) => return Err(DeviceError::cl("clCreateKernel", error.0)),
        };
        let parameter_count = kernel.num_args().during("clGetKernelInfo(CL_KERNEL_NUM_ARGS)")?;
        if parameter_count as usize != arg_bindings.len() {
            return Err(DeviceError::ArgumentCount {
                kernel: launch.kernel.clone(),
                expected: parameter_count as usize,
                given: arg_bindings.len(),
            });
        }
        check_local_arguments(
            info,
            &launch.kernel,
            arg_bindings.iter().filter_map(|binding| match binding {
                ArgBinding::Local(size) => Some(*size),
                _ => None,
            }),
        )?;
        for (index, binding) in arg_bindings.iter().enumerate() {
            set_argument(&kernel, index, binding).map_err(|code| {
                DeviceError::cl(
                    format!("clSetKernelArg (argument {index} of `{}`)", launch.kernel),
                    code,
                )
            })?;
        }
        self.check_kernel_limits(&kernel, launch)?;
        Ok(kernel)
    }

    fn check_kernel_limits(&self, kernel: &Kernel, launch: &LaunchSpec) -> Result<(), DeviceError> {
        let info = &self.device.info;
        let id = self.device.handle.id();
        // The total includes static __local arrays, which only the compiler knows about.
        if let Ok(local_bytes) = kernel.get_local_mem_size(id) {
            if local_bytes > info.local_mem_bytes {
                return Err(DeviceError::LocalMemoryExceeded {
                    kernel: launch.kernel.clone(),
                    device: info.name.clone(),
                    requested: local_bytes,
                    available: info.local_mem_bytes,
                    detail: "static __local arrays and __local arguments, as compiled".to_string(),
                });
            }
        }
        if let (Some(local), Ok(kernel_max)) = (&launch.local, kernel.get_work_group_size(id)) {
            let items = local.iter().product::<usize>();
            if items > kernel_max {
                return Err(work_group_error(
                    info,
                    launch,
                    local,
                    format!(
                        "{items} work-items per group exceed this kernel's maximum {kernel_max} \
                         (CL_KERNEL_WORK_GROUP_SIZE: registers or local memory limit it below the \
                         device's)"
                    ),
                    Some(kernel_max),
                ));
            }
        }
        Ok(())
    }

    /// Enqueues the kernel; a rejected work-group size is reported with every limit named.
    pub(crate) fn enqueue(
        &self,
        kernel: &Kernel,
        launch: &LaunchSpec,
    ) -> Result<Event, DeviceError> {
        let offset_pointer =
            if launch.offset.is_empty() { std::ptr::null() } else { launch.offset.as_ptr() };
        let local_pointer = launch.local.as_ref().map_or(std::ptr::null(), |local| local.as_ptr());
        // SAFETY: check_launch_shape guaranteed that global, local and offset have the same
        // number (1 to 3) of entries as `work_dim`, and the slices outlive the call.
        let enqueued = unsafe {
            self.device.queue.enqueue_nd_range_kernel(
                kernel.get(),
                launch.global.len() as u32,
                offset_pointer,
                launch.global.as_ptr(),
                local_pointer,
                &[],
            )
        };
        match enqueued {
            Ok(event) => Ok(event),
            Err(error) if error.0 == INVALID_WORK_GROUP_SIZE => {
                let local = launch.local.clone().unwrap_or_default();
                let kernel_max = kernel.get_work_group_size(self.device.handle.id()).ok();
                Err(work_group_error(
                    &self.device.info,
                    launch,
                    &local,
                    format!(
                        "the runtime rejected it (CL_INVALID_WORK_GROUP_SIZE): the global size \
                         {:?} may not be a multiple of it, or the kernel requires another size",
                        launch.global
                    ),
                    kernel_max,
                ))
            }
            Err(error) => Err(DeviceError::cl(
                format!("clEnqueueNDRangeKernel (`{}`)", launch.kernel),
                error.0,
            )),
        }
    }

    /// Kernel time of a finished command, or `None` on a queue without profiling.
    pub(crate) fn elapsed_ns(&self, event: &Event) -> Result<Option<u64>, DeviceError> {
        if !self.device.profiling {
            return Ok(None);
        }
        let start = event.profiling_command_start().during("clGetEventProfilingInfo")?;
        let end = event.profiling_command_end().during("clGetEventProfilingInfo")?;
        Ok(Some(end.saturating_sub(start)))
    }
}

/// Pairs each argument with its device buffer.
pub(crate) fn bindings<'a>(
    args: &'a [KernelArg],
    buffers: &'a [Option<Buffer<u8>>],
) -> Vec<ArgBinding<'a>> {
    args.iter()
        .zip(buffers)
        .map(|(arg, buffer)| match (arg, buffer) {
            (KernelArg::Buffer { .. }, Some(buffer)) => ArgBinding::Buffer(buffer),
            (KernelArg::Buffer { .. }, None) | (KernelArg::Null, _) => ArgBinding::Null,
            (KernelArg::Scalar(bytes), _) => ArgBinding::Scalar(bytes),
            (KernelArg::Local(size), _) => ArgBinding::Local(*size),
        })
        .collect()
}

fn set_argument(kernel: &Kernel, index: usize, binding: &ArgBinding<'_>) -> Result<(), i32> {
    let index = u32::try_from(index).map_err(|_| -49)?;
    let handle_size = std::mem::size_of::<cl_mem>();
    // SAFETY: each pointer refers to memory of the stated size that lives for the call; the
    // runtime copies argument values before returning.
    unsafe {
        match binding {
            ArgBinding::Buffer(buffer) => {
                let handle: cl_mem = opencl3::memory::ClMem::get(*buffer);
                cl3::kernel::set_kernel_arg(
                    kernel.get(),
                    index,
                    handle_size,
                    (&handle as *const cl_mem).cast(),
                )
            }
            ArgBinding::Mem(handle) => cl3::kernel::set_kernel_arg(
                kernel.get(),
                index,
                handle_size,
                (handle as *const cl_mem).cast(),
            ),
            ArgBinding::Sampler(sampler) => {
                let handle = sampler.get();
                cl3::kernel::set_kernel_arg(
                    kernel.get(),
                    index,
                    std::mem::size_of_val(&handle),
                    (&handle as *const _ as *const c_void).cast(),
                )
            }
            ArgBinding::Null => {
                cl3::kernel::set_kernel_arg(kernel.get(), index, handle_size, std::ptr::null())
            }
            ArgBinding::Scalar(bytes) => {
                cl3::kernel::set_kernel_arg(kernel.get(), index, bytes.len(), bytes.as_ptr().cast())
            }
            ArgBinding::Local(size) => {
                cl3::kernel::set_kernel_arg(kernel.get(), index, *size, std::ptr::null())
            }
        }
    }
}

/// The image layout of each table entry that launches take as an image (`None`: a buffer);
/// an entry taken as a buffer and as an image, or as two layouts, is refused.
fn image_layouts(
    launches: &[SequenceLaunch],
    entries: usize,
) -> Result<Vec<Option<ImageLayout>>, DeviceError> {
    let mut layouts: Vec<Option<ImageLayout>> = vec![None; entries];
    let mut as_buffer = vec![false; entries];
    for launch in launches {
        for arg in &launch.args {
            let conflict = match arg {
                SequenceArg::SharedImage(index, layout) if *index < entries => {
                    let seen = layouts[*index].replace(*layout);
                    as_buffer[*index] || seen.is_some_and(|s| s != *layout)
                }
                SequenceArg::Shared(index) if *index < entries => {
                    as_buffer[*index] = true;
                    layouts[*index].is_some()
                }
                _ => false,
            };
            if conflict {
                return Err(DeviceError::InvalidLaunch {
                    kernel: launch.launch.kernel.clone(),
                    reason: "one table entry is used as a buffer and as an image (or as two \
                             different images); devices keep the two apart"
                        .to_string(),
                });
            }
        }
    }
    Ok(layouts)
}
