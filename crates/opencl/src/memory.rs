//! Memory objects: buffers, sub-buffers, and the host commands that move their bytes.
//!
//! A buffer's bytes live in a [`SharedBuffer`], the simulator's own storage, so a kernel
//! launch passes it without a copy. A buffer created with `CL_MEM_USE_HOST_PTR` is the host's
//! array instead: host commands read and write that array directly, and a launch copies it
//! into the simulator's storage before the kernel and back after it, which is what makes the
//! kernel's writes visible to a host that reads its own array after `clFinish`.
//!
//! A sub-buffer is a window of its parent's bytes (offset and size); it shares the parent's
//! root storage.

use std::ffi::c_void;
use std::sync::Mutex;

use clmap_sim::SharedBuffer;

use crate::cl::*;
use crate::config::config;
use crate::info::{created, Info};
use crate::object::{Kind, Obj, Object};
use crate::queue::{enqueue, enqueue_holding, Enqueue};
use crate::{cl_command_queue, cl_context, cl_event, cl_mem};

/// The storage a buffer and its sub-buffers share.
#[derive(Clone)]
pub struct Root {
    pub storage: SharedBuffer,
    /// The host's array, for `CL_MEM_USE_HOST_PTR`.
    pub host: Option<usize>,
}

impl Root {
    /// Copies the host's array into the simulator's storage (before a kernel runs).
    pub fn sync_in(&self) {
        if let Some(host) = self.host {
            let len = self.storage.len() as usize;
            let bytes = unsafe { std::slice::from_raw_parts(host as *const u8, len) };
            let _ = self.storage.write_bytes(0, bytes);
        }
    }

    /// Copies what a kernel changed in the simulator's storage back into the host's array
    /// (after a kernel ran), chunk by chunk, from the first to the last byte that differs in
    /// each: nothing is written where nothing changed, since a buffer the kernel only read
    /// may lie over memory the host cannot write (a `static const` table handed over with
    /// `CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY`), where writing its own bytes back would fault.
    pub fn sync_out(&self) {
        const CHUNK: usize = 64 * 1024;
        let Some(host) = self.host else { return };
        let len = self.storage.len() as usize;
        let mut chunk = vec![0u8; CHUNK.min(len)];
        let mut start = 0;
        while start < len {
            let n = CHUNK.min(len - start);
            let stored = &mut chunk[..n];
            if self.storage.read_bytes(start as u64, stored).is_err() {
                return;
            }
            // SAFETY: the host promised `len` bytes at `host` for the buffer's life
            // (CL_MEM_USE_HOST_PTR). They are read here; only the span from the first to the
            // last byte the kernel changed is written, and a kernel that changed bytes of a
            // buffer wrote to it, so that span is memory the host can write.
            let theirs = unsafe { std::slice::from_raw_parts((host + start) as *const u8, n) };
            let differs = |(i, byte): (usize, &u8)| (theirs[i] != *byte).then_some(i);
            let first = stored.iter().enumerate().find_map(differs);
            let last = stored.iter().enumerate().rev().find_map(differs);
            if let (Some(first), Some(last)) = (first, last) {
                let changed = &stored[first..=last];
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        changed.as_ptr(),
                        (host + start + first) as *mut u8,
                        changed.len(),
                    )
                };
            }
            start += n;
        }
    }

    pub fn same(&self, other: &Root) -> bool {
        std::sync::Arc::ptr_eq(&self.storage.storage, &other.storage.storage)
    }
}

pub enum MemKind {
    Buffer,
    SubBuffer { parent: cl_mem },
    Image(crate::image::ImageMeta),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub ptr: usize,
    pub offset: usize,
    pub size: usize,
    pub writes: bool,
    /// Memory the platform allocated for the mapping (not the host's own array).
    pub owned: bool,
}

pub type MemDestructor = unsafe extern "C" fn(mem: cl_mem, user: *mut c_void);

pub struct Mem {
    pub context: cl_context,
    pub flags: u64,
    pub size: usize,
    pub kind: MemKind,
    pub root: Root,
    /// Where this object starts in its root.
    pub offset: usize,
    /// What `CL_MEM_HOST_PTR` reports.
    pub host_ptr: usize,
    pub maps: Mutex<Vec<Mapping>>,
    /// Memory of mappings the host has unmapped, kept until the object is released: a
    /// pointer stays readable after unmapping, as it does on Oclgrind and on CPU devices, whose
    /// maps point into the buffer itself (reading it is undefined by the standard, and real
    /// programs do it). A later map of the same region uses it again, so a program that maps
    /// in a loop does not grow.
    retired: Mutex<Vec<Mapping>>,
    destructors: Mutex<Vec<(MemDestructor, usize)>>,
    /// A name for findings and captures: `buffer3`.
    pub label: String,
}

unsafe impl Send for Mem {}
unsafe impl Sync for Mem {}

impl Object for Mem {
    const KIND: Kind = Kind::Mem;
    const INVALID: i32 = CL_INVALID_MEM_OBJECT;
}

impl Drop for Mem {
    fn drop(&mut self) {
        let retired = self.retired.get_mut().unwrap_or_else(|e| e.into_inner());
        for mapping in retired.drain(..) {
            // SAFETY: retired mappings are blocks `map_region` allocated as boxed slices of
            // `size` bytes, each held here only.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    mapping.ptr as *mut u8,
                    mapping.size,
                ))
            });
        }
    }
}

impl Mem {
    /// The host's current mappings of this object.
    pub fn current_maps(&self) -> Vec<Mapping> {
        self.maps.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Before a kernel runs on a buffer the host had mapped when it enqueued the kernel
    /// (`maps`): what the host wrote into those write mappings still outstanding goes into
    /// the buffer. With [`Mem::buffer_into_maps`] after the kernel, mappings behave as views
    /// of the buffer, as they are on Oclgrind and CPU devices, whose maps point into the
    /// buffer itself: programs that launch kernels on mapped buffers (an error Oclgrind and
    /// clmap report) see what they see there.
    pub fn maps_into_buffer(&self, maps: &[Mapping]) {
        let current = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        for map in maps.iter().filter(|m| m.owned && m.writes && current.contains(m)) {
            // SAFETY: an owned mapping is a live block of `size` bytes until it is unmapped,
            // and unmapping takes the lock held here.
            let bytes = unsafe { std::slice::from_raw_parts(map.ptr as *const u8, map.size) };
            self.write(map.offset, bytes);
        }
    }

    /// After a kernel ran on a buffer the host had mapped when it enqueued the kernel: the
    /// buffer's bytes go into those mappings still outstanding (see
    /// [`Mem::maps_into_buffer`]).
    pub fn buffer_into_maps(&self, maps: &[Mapping]) {
        let current = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        for map in maps.iter().filter(|m| m.owned && current.contains(m)) {
            // SAFETY: as in `maps_into_buffer`.
            let bytes = unsafe { std::slice::from_raw_parts_mut(map.ptr as *mut u8, map.size) };
            self.read(map.offset, bytes);
        }
    }

    /// Copies `out.len()` bytes at `offset` (within this object) to `out`.
    pub fn read(&self, offset: usize, out: &mut [u8]) {
        let at = self.offset + offset;
        match self.root.host {
            Some(host) => unsafe {
                std::ptr::copy_nonoverlapping(
                    (host as *const u8).add(at),
                    out.as_mut_ptr(),
                    out.len(),
                )
            },
            None => {
                let _ = self.root.storage.read_bytes(at as u64, out);
            }
        }
    }

    /// Copies `bytes` to `offset` (within this object).
    pub fn write(&self, offset: usize, bytes: &[u8]) {
        let at = self.offset + offset;
        match self.root.host {
            Some(host) => unsafe {
                std::ptr::copy(bytes.as_ptr(), (host as *mut u8).add(at), bytes.len())
            },
            None => {
                let _ = self.root.storage.write_bytes(at as u64, bytes);
            }
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.size];
        self.read(0, &mut out);
        out
    }

    /// Whether this object covers its whole root (a launch can pass the storage itself).
    pub fn is_whole_root(&self) -> bool {
        self.offset == 0 && self.size as u64 == self.root.storage.len()
    }
}

pub fn next_label() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!("buffer{}", COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// Checks `flags` and `host_ptr` against each other, as every `clCreate*` for memory does.
pub fn check_flags(flags: u64, host_ptr: *mut c_void) -> Result<(), i32> {
    let access = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
    let host_access =
        flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS);
    let known = CL_MEM_READ_WRITE
        | CL_MEM_WRITE_ONLY
        | CL_MEM_READ_ONLY
        | CL_MEM_USE_HOST_PTR
        | CL_MEM_ALLOC_HOST_PTR
        | CL_MEM_COPY_HOST_PTR
        | CL_MEM_HOST_WRITE_ONLY
        | CL_MEM_HOST_READ_ONLY
        | CL_MEM_HOST_NO_ACCESS;
    if flags & !known != 0 || access.count_ones() > 1 || host_access.count_ones() > 1 {
        return Err(CL_INVALID_VALUE);
    }
    let uses = flags & CL_MEM_USE_HOST_PTR != 0;
    if uses && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 {
        return Err(CL_INVALID_VALUE);
    }
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return Err(CL_INVALID_HOST_PTR);
    }
    Ok(())
}

/// A new memory object over fresh storage of `size` bytes, initialised from `host_ptr` when
/// the flags say so.
pub unsafe fn new_mem(
    context: cl_context,
    flags: u64,
    size: usize,
    host_ptr: *mut c_void,
    kind: MemKind,
) -> cl_mem {
    let flags = with_default_access(flags);
    let label = next_label();
    // One copy from the host's memory into the storage, none for a fresh buffer.
    let storage = if flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0 {
        SharedBuffer::from_bytes(&label, std::slice::from_raw_parts(host_ptr as *const u8, size))
    } else {
        SharedBuffer::zeroed(&label, size as u64)
    };
    let uses = flags & CL_MEM_USE_HOST_PTR != 0;
    let root = Root { storage, host: uses.then_some(host_ptr as usize) };
    Mem::create(context, flags, size, kind, root, if uses { host_ptr as usize } else { 0 }, label)
}

impl Mem {
    /// A new memory object over `root` (holding a reference to its context).
    // The context is only retained, which checks it against the registry first.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn create(
        context: cl_context,
        flags: u64,
        size: usize,
        kind: MemKind,
        root: Root,
        host_ptr: usize,
        label: String,
    ) -> cl_mem {
        unsafe { crate::context::retain_context(context) };
        Obj::create(Mem {
            context,
            flags,
            size,
            kind,
            root,
            offset: 0,
            host_ptr,
            maps: Mutex::new(Vec::new()),
            retired: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
            label,
        })
    }
}

/// The access flags of a new object: `CL_MEM_READ_WRITE` when none is given.
pub fn with_default_access(flags: u64) -> u64 {
    if flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY) == 0 {
        flags | CL_MEM_READ_WRITE
    } else {
        flags
    }
}

pub unsafe extern "C" fn create_buffer(
    context: cl_context,
    flags: u64,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let result = (|| {
        Obj::get(context)?;
        check_flags(flags, host_ptr)?;
        if size == 0 || size as u64 > config().device.max_alloc {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        Ok(new_mem(context, flags, size, host_ptr, MemKind::Buffer))
    })();
    created(result, errcode_ret)
}

#[repr(C)]
struct BufferRegion {
    origin: usize,
    size: usize,
}

pub unsafe extern "C" fn create_sub_buffer(
    buffer: cl_mem,
    flags: u64,
    create_type: u32,
    info: *const c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let result = (|| {
        let parent = Obj::get(buffer)?;
        if !matches!(parent.inner.kind, MemKind::Buffer) {
            return Err(CL_INVALID_MEM_OBJECT);
        }
        if create_type != CL_BUFFER_CREATE_TYPE_REGION || info.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        check_flags(flags, std::ptr::null_mut())?;
        let region = &*(info as *const BufferRegion);
        if region.size == 0 {
            return Err(CL_INVALID_BUFFER_SIZE);
        }
        if region.origin.checked_add(region.size).is_none_or(|end| end > parent.inner.size) {
            return Err(CL_INVALID_VALUE);
        }
        // CL_DEVICE_MEM_BASE_ADDR_ALIGN is 1024 bits.
        if !region.origin.is_multiple_of(128) {
            return Err(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        }
        let access_mask = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
        let flags = if flags & access_mask == 0 {
            flags | (parent.inner.flags & access_mask)
        } else {
            flags
        };
        let host_mask = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
        Obj::retain(buffer);
        crate::context::retain_context(parent.inner.context);
        Ok(Obj::create(Mem {
            context: parent.inner.context,
            flags: flags | (parent.inner.flags & host_mask),
            size: region.size,
            kind: MemKind::SubBuffer { parent: buffer },
            root: parent.inner.root.clone(),
            offset: parent.inner.offset + region.origin,
            host_ptr: if parent.inner.host_ptr != 0 {
                parent.inner.host_ptr + region.origin
            } else {
                0
            },
            maps: Mutex::new(Vec::new()),
            retired: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
            label: format!("{}+{}", parent.inner.label, region.origin),
        }))
    })();
    created(result, errcode_ret)
}

pub unsafe extern "C" fn retain_mem_object(mem: cl_mem) -> i32 {
    Obj::retain(mem)
}

pub unsafe extern "C" fn release_mem_object(mem: cl_mem) -> i32 {
    match Obj::release(mem) {
        Ok(Some(m)) => {
            let callbacks =
                std::mem::take(&mut *m.destructors.lock().unwrap_or_else(|e| e.into_inner()));
            // Destructor callbacks run in the reverse order of registration.
            for (callback, user) in callbacks.into_iter().rev() {
                callback(mem, user as *mut c_void);
            }
            match &m.kind {
                MemKind::SubBuffer { parent } => {
                    release_mem_object(*parent);
                }
                MemKind::Image(meta) => crate::image::release_parts(meta),
                MemKind::Buffer => {}
            }
            crate::context::release_context(m.context);
            CL_SUCCESS
        }
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn set_mem_object_destructor_callback(
    mem: cl_mem,
    callback: Option<MemDestructor>,
    user: *mut c_void,
) -> i32 {
    let m = try_cl!(Obj::get(mem));
    let Some(callback) = callback else { return CL_INVALID_VALUE };
    m.inner.destructors.lock().unwrap_or_else(|e| e.into_inner()).push((callback, user as usize));
    CL_SUCCESS
}

pub unsafe extern "C" fn get_mem_object_info(
    mem: cl_mem,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let m = try_cl!(Obj::get(mem));
    let (object_type, associated, offset) = match &m.inner.kind {
        MemKind::Buffer => (CL_MEM_OBJECT_BUFFER, std::ptr::null_mut(), 0),
        MemKind::SubBuffer { parent } => (
            CL_MEM_OBJECT_BUFFER,
            *parent,
            m.inner.offset - Obj::get(*parent).map(|p| p.inner.offset).unwrap_or(0),
        ),
        MemKind::Image(meta) => (meta.object_type, std::ptr::null_mut(), 0),
    };
    let info = match param {
        CL_MEM_TYPE => Info::uint(object_type),
        CL_MEM_FLAGS => Info::ulong(m.inner.flags),
        CL_MEM_SIZE => Info::size(m.inner.size),
        CL_MEM_HOST_PTR => Info::size(m.inner.host_ptr),
        CL_MEM_MAP_COUNT => Info::uint(m.inner.maps.lock().map(|v| v.len() as u32).unwrap_or(0)),
        CL_MEM_REFERENCE_COUNT => Info::uint(m.ref_count()),
        CL_MEM_CONTEXT => Info::ptr(m.inner.context),
        CL_MEM_ASSOCIATED_MEMOBJECT => Info::ptr(associated),
        CL_MEM_OFFSET => Info::size(offset),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

/// The buffer behind a handle, checked to belong to the queue's context.
pub unsafe fn queue_buffer<'a>(queue: cl_command_queue, mem: cl_mem) -> Result<&'a Obj<Mem>, i32> {
    let q = Obj::<crate::queue::Queue>::get(queue)?;
    let m = Obj::get(mem)?;
    if m.inner.context != q.inner.context {
        return Err(CL_INVALID_CONTEXT);
    }
    if matches!(m.inner.kind, MemKind::Image(_)) {
        return Err(CL_INVALID_MEM_OBJECT);
    }
    Ok(m)
}

fn in_range(offset: usize, size: usize, total: usize) -> bool {
    offset.checked_add(size).is_some_and(|end| end <= total)
}

/// A raw pointer that a deferred command may carry to another thread; the host promises it
/// stays valid until the command's event completes.
#[derive(Clone, Copy)]
pub struct HostPtr(pub usize);

/// Moves the rectangle `region` between a buffer (laid out as `b`) and host memory at `host`
/// (laid out as `h`), row by row, straight between the two: every read and write command,
/// linear or rectangular, is one of these.
unsafe fn transfer(
    queue: cl_command_queue,
    buffer: cl_mem,
    how: Enqueue,
    b: Rect,
    h: Rect,
    region: [usize; 3],
    host: HostPtr,
    to_host: bool,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let mem = crate::object::Ptr(buffer);
    let work = move || {
        for z in 0..region[2] {
            for y in 0..region[1] {
                let at = (host.0 as *mut u8).add(h.row(y, z));
                if to_host {
                    mem.obj()
                        .inner
                        .read(b.row(y, z), std::slice::from_raw_parts_mut(at, region[0]));
                } else {
                    mem.obj().inner.write(b.row(y, z), std::slice::from_raw_parts(at, region[0]));
                }
            }
        }
        CL_SUCCESS
    };
    enqueue_holding(queue, how, &[buffer], num_events, events, event, work)
}

pub unsafe extern "C" fn enqueue_read_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: u32,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    linear_transfer(
        queue,
        buffer,
        blocking,
        offset,
        size,
        ptr as usize,
        true,
        (num_events, events, event),
    )
}

pub unsafe extern "C" fn enqueue_write_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: u32,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    linear_transfer(
        queue,
        buffer,
        blocking,
        offset,
        size,
        ptr as usize,
        false,
        (num_events, events, event),
    )
}

/// `clEnqueueReadBuffer` (`read`) and `clEnqueueWriteBuffer`: the rectangle of one row.
#[allow(clippy::too_many_arguments)]
unsafe fn linear_transfer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: u32,
    offset: usize,
    size: usize,
    ptr: usize,
    read: bool,
    (num_events, events, event): (u32, *const cl_event, *mut cl_event),
) -> i32 {
    let m = try_cl!(queue_buffer(queue, buffer));
    if ptr == 0 || size == 0 || !in_range(offset, size, m.inner.size) {
        return CL_INVALID_VALUE;
    }
    let region = [size, 1, 1];
    let b = try_cl!(Rect::new([offset, 0, 0], region, 0, 0));
    let h = try_cl!(Rect::new([0, 0, 0], region, 0, 0));
    let command = if read { CL_COMMAND_READ_BUFFER } else { CL_COMMAND_WRITE_BUFFER };
    let how = Enqueue::new(command).blocking(blocking);
    transfer(queue, buffer, how, b, h, region, HostPtr(ptr), read, num_events, events, event)
}

pub unsafe extern "C" fn enqueue_copy_buffer(
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let s = try_cl!(queue_buffer(queue, src));
    let d = try_cl!(queue_buffer(queue, dst));
    if size == 0
        || !in_range(src_offset, size, s.inner.size)
        || !in_range(dst_offset, size, d.inner.size)
    {
        return CL_INVALID_VALUE;
    }
    if s.inner.root.same(&d.inner.root) {
        let a = s.inner.offset + src_offset;
        let b = d.inner.offset + dst_offset;
        if a < b + size && b < a + size {
            return CL_MEM_COPY_OVERLAP;
        }
    }
    let (sp, dp) = (crate::object::Ptr(src), crate::object::Ptr(dst));
    let work = move || {
        let mut bytes = vec![0u8; size];
        sp.obj().inner.read(src_offset, &mut bytes);
        dp.obj().inner.write(dst_offset, &bytes);
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_COPY_BUFFER),
        &[src, dst],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_fill_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let m = try_cl!(queue_buffer(queue, buffer));
    if pattern.is_null()
        || ![1, 2, 4, 8, 16, 32, 64, 128].contains(&pattern_size)
        || !offset.is_multiple_of(pattern_size)
        || !size.is_multiple_of(pattern_size)
        || !in_range(offset, size, m.inner.size)
    {
        return CL_INVALID_VALUE;
    }
    // The pattern is copied now: the host may reuse it as soon as the call returns.
    let pattern = std::slice::from_raw_parts(pattern as *const u8, pattern_size).to_vec();
    let mem = crate::object::Ptr(buffer);
    let work = move || {
        let bytes: Vec<u8> = pattern.iter().copied().cycle().take(size).collect();
        mem.obj().inner.write(offset, &bytes);
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_FILL_BUFFER),
        &[buffer],
        num_events,
        events,
        event,
        work,
    )
}

/// A rectangle of bytes inside a linear memory: origin (bytes, rows, slices) and pitches.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// Applies the default pitches (`0` means tightly packed) and checks them.
    pub fn new(
        origin: [usize; 3],
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<Rect, i32> {
        let row_pitch = if row_pitch == 0 { region[0] } else { row_pitch };
        let slice_pitch = if slice_pitch == 0 { region[1] * row_pitch } else { slice_pitch };
        if row_pitch < region[0] || slice_pitch < region[1] * row_pitch {
            return Err(CL_INVALID_VALUE);
        }
        // The specification asks for a slice pitch that is a multiple of the row pitch.
        if row_pitch != 0 && slice_pitch % row_pitch != 0 {
            return Err(CL_INVALID_VALUE);
        }
        Ok(Rect { origin, row_pitch, slice_pitch })
    }

    /// Byte offset of the start of row `y` of slice `z` of the region.
    pub fn row(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }

    /// One past the last byte the region touches.
    pub fn end(&self, region: [usize; 3]) -> usize {
        self.row(region[1] - 1, region[2] - 1) + region[0]
    }
}

pub unsafe fn read_triple(p: *const usize) -> Option<[usize; 3]> {
    if p.is_null() {
        None
    } else {
        Some([*p, *p.add(1), *p.add(2)])
    }
}

/// Checks and normalises the arguments every rectangle command shares.
unsafe fn rect_args(
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    pitches: [usize; 4],
) -> Result<(Rect, Rect, [usize; 3]), i32> {
    let (Some(bo), Some(ho), Some(region)) =
        (read_triple(buffer_origin), read_triple(host_origin), read_triple(region))
    else {
        return Err(CL_INVALID_VALUE);
    };
    if region.contains(&0) {
        return Err(CL_INVALID_VALUE);
    }
    let b = Rect::new(bo, region, pitches[0], pitches[1])?;
    let h = Rect::new(ho, region, pitches[2], pitches[3])?;
    Ok((b, h, region))
}

pub unsafe extern "C" fn enqueue_read_buffer_rect(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: u32,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let m = try_cl!(queue_buffer(queue, buffer));
    let (b, h, region) = try_cl!(rect_args(
        buffer_origin,
        host_origin,
        region,
        [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch]
    ));
    if ptr.is_null() || b.end(region) > m.inner.size {
        return CL_INVALID_VALUE;
    }
    let how = Enqueue::new(CL_COMMAND_READ_BUFFER_RECT).blocking(blocking);
    transfer(
        queue,
        buffer,
        how,
        b,
        h,
        region,
        HostPtr(ptr as usize),
        true,
        num_events,
        events,
        event,
    )
}

pub unsafe extern "C" fn enqueue_write_buffer_rect(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: u32,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let m = try_cl!(queue_buffer(queue, buffer));
    let (b, h, region) = try_cl!(rect_args(
        buffer_origin,
        host_origin,
        region,
        [buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch]
    ));
    if ptr.is_null() || b.end(region) > m.inner.size {
        return CL_INVALID_VALUE;
    }
    let how = Enqueue::new(CL_COMMAND_WRITE_BUFFER_RECT).blocking(blocking);
    transfer(
        queue,
        buffer,
        how,
        b,
        h,
        region,
        HostPtr(ptr as usize),
        false,
        num_events,
        events,
        event,
    )
}

pub unsafe extern "C" fn enqueue_copy_buffer_rect(
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let s = try_cl!(queue_buffer(queue, src));
    let d = try_cl!(queue_buffer(queue, dst));
    let (sr, dr, region) = try_cl!(rect_args(
        src_origin,
        dst_origin,
        region,
        [src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch]
    ));
    if sr.end(region) > s.inner.size || dr.end(region) > d.inner.size {
        return CL_INVALID_VALUE;
    }
    if s.inner.root.same(&d.inner.root) {
        let a = (s.inner.offset + sr.row(0, 0), s.inner.offset + sr.end(region));
        let b = (d.inner.offset + dr.row(0, 0), d.inner.offset + dr.end(region));
        if a.0 < b.1 && b.0 < a.1 {
            return CL_MEM_COPY_OVERLAP;
        }
    }
    let (sp, dp) = (crate::object::Ptr(src), crate::object::Ptr(dst));
    let work = move || {
        let mut row = vec![0u8; region[0]];
        for z in 0..region[2] {
            for y in 0..region[1] {
                sp.obj().inner.read(sr.row(y, z), &mut row);
                dp.obj().inner.write(dr.row(y, z), &row);
            }
        }
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_COPY_BUFFER_RECT),
        &[src, dst],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_map_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: u32,
    map_flags: u64,
    offset: usize,
    size: usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut i32,
) -> *mut c_void {
    let result = (|| {
        let m = queue_buffer(queue, buffer)?;
        if size == 0 || !in_range(offset, size, m.inner.size) {
            return Err(CL_INVALID_VALUE);
        }
        if map_flags & !(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0
            || (map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0)
        {
            return Err(CL_INVALID_VALUE);
        }
        Ok(map_region(queue, buffer, blocking, map_flags, offset, size, num_events, events, event))
    })();
    match result {
        Ok(Ok(ptr)) => {
            crate::info::set_error(errcode_ret, CL_SUCCESS);
            ptr
        }
        Ok(Err(code)) | Err(code) => {
            crate::info::set_error(errcode_ret, code);
            std::ptr::null_mut()
        }
    }
}

/// Maps `size` bytes at `offset` of a buffer (or an image's linear storage): the host's own
/// array for `USE_HOST_PTR` objects, otherwise fresh memory filled when the command runs.
pub unsafe fn map_region(
    queue: cl_command_queue,
    mem: cl_mem,
    blocking: u32,
    map_flags: u64,
    offset: usize,
    size: usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> Result<*mut c_void, i32> {
    let m = Obj::get(mem)?;
    let writes = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
    let fill = map_flags & CL_MAP_WRITE_INVALIDATE_REGION == 0;
    let mut maps = m.inner.maps.lock().unwrap_or_else(|e| e.into_inner());
    // A region mapped again while still mapped gets the same memory, as it does where maps
    // point into the buffer: the host's writes through the first mapping are not lost to the
    // second's fill, and unmapping one pointer ends the earliest mapping made with it.
    let shared = maps.iter().find(|map| map.owned && map.offset == offset && map.size == size);
    let (ptr, owned, fill) = match (m.inner.root.host, shared) {
        (Some(host), _) => (host + m.inner.offset + offset, false, false),
        (None, Some(map)) => (map.ptr, true, false),
        (None, None) => {
            let mut retired = m.inner.retired.lock().unwrap_or_else(|e| e.into_inner());
            match retired.iter().position(|r| r.offset == offset && r.size == size) {
                Some(i) => (retired.swap_remove(i).ptr, true, fill),
                None => {
                    let memory = vec![0u8; size].into_boxed_slice();
                    (Box::into_raw(memory) as *mut u8 as usize, true, fill)
                }
            }
        }
    };
    maps.push(Mapping { ptr, offset, size, writes, owned });
    drop(maps);
    let target = HostPtr(ptr);
    let mp = crate::object::Ptr(mem);
    let work = move || {
        if owned && fill {
            let out = unsafe { std::slice::from_raw_parts_mut(target.0 as *mut u8, size) };
            mp.obj().inner.read(offset, out);
        }
        CL_SUCCESS
    };
    let command = if matches!(m.inner.kind, MemKind::Image(_)) {
        CL_COMMAND_MAP_IMAGE
    } else {
        CL_COMMAND_MAP_BUFFER
    };
    let code = enqueue_holding(
        queue,
        Enqueue::new(command).blocking(blocking),
        &[mem],
        num_events,
        events,
        event,
        work,
    );
    if code != CL_SUCCESS {
        return Err(code);
    }
    Ok(ptr as *mut c_void)
}

pub unsafe extern "C" fn enqueue_unmap_mem_object(
    queue: cl_command_queue,
    mem: cl_mem,
    mapped: *mut c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let q = try_cl!(Obj::<crate::queue::Queue>::get(queue));
    let m = try_cl!(Obj::get(mem));
    if m.inner.context != q.inner.context {
        return CL_INVALID_CONTEXT;
    }
    let (mapping, still_mapped) = {
        let mut maps = m.inner.maps.lock().unwrap_or_else(|e| e.into_inner());
        match maps.iter().position(|map| map.ptr == mapped as usize) {
            Some(i) => {
                let mapping = maps.remove(i);
                (mapping, maps.iter().any(|map| map.ptr == mapping.ptr))
            }
            None => return CL_INVALID_VALUE,
        }
    };
    let mp = crate::object::Ptr(mem);
    let work = move || {
        if mapping.owned {
            let bytes =
                unsafe { std::slice::from_raw_parts(mapping.ptr as *const u8, mapping.size) };
            if mapping.writes {
                mp.obj().inner.write(mapping.offset, bytes);
            }
            // Memory another mapping still uses is retired with the last of them.
            if !still_mapped {
                mp.obj().inner.retired.lock().unwrap_or_else(|e| e.into_inner()).push(mapping);
            }
        }
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_UNMAP_MEM_OBJECT),
        &[mem],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_migrate_mem_objects(
    queue: cl_command_queue,
    num_mems: u32,
    mems: *const cl_mem,
    flags: u64,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    if num_mems == 0 || mems.is_null() {
        return CL_INVALID_VALUE;
    }
    if flags & !(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) != 0 {
        return CL_INVALID_VALUE;
    }
    for m in crate::info::slice(mems, num_mems as usize) {
        try_cl!(Obj::get(*m));
    }
    // One device, one memory: migration has nothing to move.
    enqueue(
        queue,
        Enqueue::new(CL_COMMAND_MIGRATE_MEM_OBJECTS),
        num_events,
        events,
        event,
        Box::new(|| CL_SUCCESS),
    )
}
