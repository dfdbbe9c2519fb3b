//! Images and samplers.
//!
//! An image's texels live in the simulator's storage, tightly packed (row pitch = width ×
//! texel bytes, slice pitch = row pitch × height; the layers of an array are its slices), which
//! is the layout the simulator's image built-ins read. Host transfers convert between that and
//! the host's pitches. A `CL_MEM_USE_HOST_PTR` image shares the host's array when the host's
//! pitches are the packed ones (the usual case); otherwise its texels are copied in, and the
//! host sees the kernel's writes through reads and maps, as the specification allows.

use std::ffi::c_void;

use clmap_sim::image::{
    image_kind_of_mem_object_type, mem_object_type, supported_image_formats, ImageKind,
};
use clmap_sim::{ArgValue, ImageArg, ImageDesc, SharedBuffer};

use crate::cl::*;
use crate::info::{created, Info};
use crate::memory::{
    check_flags, map_region, next_label, read_triple, release_mem_object, with_default_access,
    HostPtr, Mem, MemKind, Rect, Root,
};
use crate::object::{Kind, Obj, Object, Ptr};
use crate::queue::{enqueue_holding, Enqueue};
use crate::{cl_command_queue, cl_context, cl_event, cl_mem, cl_sampler};

/// Whether the device supports images.
pub const SUPPORTED: bool = true;

/// Largest width and height of a 2-D image, and edge of a 3-D one (reported by the device).
pub const MAX_2D: usize = 8192;
pub const MAX_3D: usize = 2048;
pub const MAX_ARRAY: usize = 2048;
pub const MAX_BUFFER_TEXELS: usize = 65536;

/// What an image memory object is, besides its bytes.
#[derive(Clone, Copy, Debug)]
pub struct ImageMeta {
    pub object_type: u32,
    pub desc: ImageDesc,
    /// The buffer behind an `image1d_buffer_t` (retained by the image).
    pub buffer: cl_mem,
}

impl ImageMeta {
    pub fn pixel_bytes(&self) -> usize {
        self.desc.pixel_bytes().unwrap_or(1) as usize
    }
    pub fn row_pitch(&self) -> usize {
        self.desc.width as usize * self.pixel_bytes()
    }
    /// Bytes between slices (or layers); for 1-D arrays one row.
    pub fn slice_pitch(&self) -> usize {
        match self.desc.kind {
            ImageKind::Image1dArray => self.row_pitch(),
            ImageKind::Image2dArray | ImageKind::Image3d => {
                self.row_pitch() * self.desc.height as usize
            }
            // A single 2-D image (and a 1-D one) has no slices: the specification says 0.
            _ => 0,
        }
    }
    /// A host region's origin and size in storage terms: rows and slices as the packed
    /// layout has them (a 1-D array's layers are rows of one texel row each).
    fn storage_rect(&self, origin: [usize; 3]) -> Result<Rect, i32> {
        let px = self.pixel_bytes();
        let o = [origin[0] * px, origin[1], origin[2]];
        let slice = self.slice_pitch().max(self.row_pitch());
        Rect::new(o, [1, 1, 1], self.row_pitch(), slice)
    }
    /// The texels a region covers must lie inside the image, in the coordinates its type has.
    fn check_region(&self, origin: [usize; 3], region: [usize; 3]) -> Result<(), i32> {
        let d = &self.desc;
        let (w, h, s) = match d.kind {
            ImageKind::Image1d | ImageKind::Image1dBuffer => (d.width, 1, 1),
            ImageKind::Image1dArray => (d.width, d.array_size, 1),
            ImageKind::Image2d => (d.width, d.height, 1),
            ImageKind::Image2dArray => (d.width, d.height, d.array_size),
            ImageKind::Image3d => (d.width, d.height, d.depth),
        };
        let limits = [w as usize, h as usize, s as usize];
        for i in 0..3 {
            if region[i] == 0 || origin[i].checked_add(region[i]).is_none_or(|end| end > limits[i])
            {
                return Err(CL_INVALID_VALUE);
            }
        }
        Ok(())
    }
}

// The buffer handle is kept alive by the image's reference to it.
unsafe impl Send for ImageMeta {}
unsafe impl Sync for ImageMeta {}

pub struct Sampler {
    pub context: cl_context,
    pub normalized: bool,
    pub addressing: u32,
    pub filter: u32,
}

unsafe impl Send for Sampler {}
unsafe impl Sync for Sampler {}

impl Object for Sampler {
    const KIND: Kind = Kind::Sampler;
    const INVALID: i32 = CL_INVALID_SAMPLER;
}

impl Sampler {
    /// The `CLK_*` bits a kernel's `sampler_t` holds.
    fn bits(&self) -> u32 {
        let address = match self.addressing {
            CL_ADDRESS_CLAMP_TO_EDGE => 2,
            CL_ADDRESS_CLAMP => 4,
            CL_ADDRESS_REPEAT => 6,
            CL_ADDRESS_MIRRORED_REPEAT => 8,
            _ => 0,
        };
        let filter = if self.filter == CL_FILTER_LINEAR { 0x20 } else { 0x10 };
        u32::from(self.normalized) | address | filter
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ImageFormat {
    pub order: u32,
    pub data_type: u32,
}

#[repr(C)]
pub struct ImageDescriptor {
    pub image_type: u32,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    pub row_pitch: usize,
    pub slice_pitch: usize,
    pub num_mip_levels: u32,
    pub num_samples: u32,
    pub buffer: cl_mem,
}

unsafe fn new_image(
    context: cl_context,
    flags: u64,
    format: *const ImageFormat,
    descriptor: *const ImageDescriptor,
    host_ptr: *mut c_void,
) -> Result<cl_mem, i32> {
    Obj::get(context)?;
    if format.is_null() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    if descriptor.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let format = *format;
    let d = &*descriptor;
    let kind = image_kind_of_mem_object_type(d.image_type).ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    if d.num_mip_levels != 0 || d.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let is_buffer_image = kind == ImageKind::Image1dBuffer;
    if is_buffer_image == d.buffer.is_null() {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if is_buffer_image {
        check_flags(
            flags & !(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR),
            std::ptr::null_mut(),
        )?;
    } else {
        check_flags(flags, host_ptr)?;
    }
    let one = |x: usize| x.max(1) as u64;
    let desc = ImageDesc {
        kind,
        width: d.width as u64,
        height: if matches!(kind, ImageKind::Image2d | ImageKind::Image2dArray | ImageKind::Image3d)
        {
            one(d.height)
        } else {
            1
        },
        depth: if kind == ImageKind::Image3d { one(d.depth) } else { 1 },
        array_size: if matches!(kind, ImageKind::Image1dArray | ImageKind::Image2dArray) {
            one(d.array_size)
        } else {
            1
        },
        channel_order: format.order,
        channel_type: format.data_type,
    };
    let px = desc.pixel_bytes().ok_or(CL_IMAGE_FORMAT_NOT_SUPPORTED)? as usize;
    let too_big = match kind {
        ImageKind::Image1dBuffer => d.width > MAX_BUFFER_TEXELS,
        ImageKind::Image3d => d.width > MAX_3D || d.height > MAX_3D || d.depth > MAX_3D,
        _ => d.width > MAX_2D || d.height > MAX_2D || d.array_size > MAX_ARRAY,
    };
    if d.width == 0 || too_big {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    if matches!(kind, ImageKind::Image2d | ImageKind::Image2dArray | ImageKind::Image3d)
        && d.height == 0
    {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    if (kind == ImageKind::Image3d && d.depth == 0)
        || (matches!(kind, ImageKind::Image1dArray | ImageKind::Image2dArray) && d.array_size == 0)
    {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    let meta = ImageMeta { object_type: d.image_type, desc, buffer: d.buffer };
    let size = desc.byte_len() as usize;
    let flags = with_default_access(flags);
    if is_buffer_image {
        let buffer = Obj::get(d.buffer)?;
        if size > buffer.inner.size || !buffer.inner.is_whole_root() {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
        Obj::retain(d.buffer);
        let label = format!("{}-image", buffer.inner.label);
        return Ok(Mem::create(
            context,
            flags,
            size,
            MemKind::Image(meta),
            buffer.inner.root.clone(),
            buffer.inner.host_ptr,
            label,
        ));
    }
    // The host's pitches: 0 means packed; otherwise at least packed and a multiple of a texel.
    let packed_row = meta.row_pitch();
    let packed_slice = meta.slice_pitch();
    let host_row = if d.row_pitch == 0 { packed_row } else { d.row_pitch };
    let host_slice = if d.slice_pitch == 0 {
        if kind == ImageKind::Image1dArray {
            host_row
        } else {
            host_row * desc.height as usize
        }
    } else {
        d.slice_pitch
    };
    if host_ptr.is_null() && (d.row_pitch != 0 || d.slice_pitch != 0) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if host_row < packed_row || host_row % px != 0 || (packed_slice > 0 && host_slice < host_row) {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let label = next_label();
    let mut storage = SharedBuffer::zeroed(&label, size as u64);
    let mut host = None;
    if flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) != 0 {
        let packed = host_row == packed_row
            && (packed_slice == 0
                || host_slice == packed_slice
                || kind == ImageKind::Image1dArray && host_slice == packed_row);
        if packed {
            storage = SharedBuffer::from_bytes(
                &label,
                std::slice::from_raw_parts(host_ptr as *const u8, size),
            );
            if flags & CL_MEM_USE_HOST_PTR != 0 {
                host = Some(host_ptr as usize);
            }
        } else {
            // Row by row from the host's pitches into the packed layout.
            let [w, h, s] = rows_of(&meta);
            let host_rect = host_rect_of(&meta, [0, 0, 0], [w, h, s], host_row, host_slice)?;
            let image_rect = meta.storage_rect([0, 0, 0])?;
            for z in 0..s {
                for y in 0..h {
                    let from = std::slice::from_raw_parts(
                        (host_ptr as *const u8).add(host_rect.row(y, z)),
                        w * px,
                    );
                    let _ = storage.write_bytes(image_rect.row(y, z) as u64, from);
                }
            }
        }
    }
    let root = Root { storage, host };
    let reported_host = if flags & CL_MEM_USE_HOST_PTR != 0 { host_ptr as usize } else { 0 };
    Ok(Mem::create(context, flags, size, MemKind::Image(meta), root, reported_host, label))
}

/// Width in texels and the numbers of rows and slices of the whole image, in storage terms.
fn rows_of(meta: &ImageMeta) -> [usize; 3] {
    let d = &meta.desc;
    match d.kind {
        ImageKind::Image1d | ImageKind::Image1dBuffer => [d.width as usize, 1, 1],
        ImageKind::Image1dArray => [d.width as usize, d.array_size as usize, 1],
        ImageKind::Image2d => [d.width as usize, d.height as usize, 1],
        ImageKind::Image2dArray => [d.width as usize, d.height as usize, d.array_size as usize],
        ImageKind::Image3d => [d.width as usize, d.height as usize, d.depth as usize],
    }
}

/// The host side of a transfer: a 1-D array's layers are spaced by its slice pitch.
fn host_rect_of(
    meta: &ImageMeta,
    origin: [usize; 3],
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<Rect, i32> {
    let px = meta.pixel_bytes();
    let row_bytes = region[0] * px;
    if meta.desc.kind == ImageKind::Image1dArray {
        let layer = if slice_pitch == 0 {
            if row_pitch == 0 {
                row_bytes
            } else {
                row_pitch
            }
        } else {
            slice_pitch
        };
        return Rect::new(
            [origin[0] * px, origin[1], origin[2]],
            [row_bytes, region[1], region[2]],
            layer,
            layer * region[1].max(1),
        );
    }
    Rect::new(
        [origin[0] * px, origin[1], origin[2]],
        [row_bytes, region[1], region[2]],
        row_pitch,
        slice_pitch,
    )
}

pub unsafe extern "C" fn create_image(
    context: cl_context,
    flags: u64,
    format: *const ImageFormat,
    desc: *const ImageDescriptor,
    host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    created(new_image(context, flags, format, desc, host_ptr), errcode_ret)
}

pub unsafe extern "C" fn create_image_2d(
    context: cl_context,
    flags: u64,
    format: *const ImageFormat,
    width: usize,
    height: usize,
    row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let desc = ImageDescriptor {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        width,
        height,
        depth: 1,
        array_size: 1,
        row_pitch,
        slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    };
    created(new_image(context, flags, format, &desc, host_ptr), errcode_ret)
}

pub unsafe extern "C" fn create_image_3d(
    context: cl_context,
    flags: u64,
    format: *const ImageFormat,
    width: usize,
    height: usize,
    depth: usize,
    row_pitch: usize,
    slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut i32,
) -> cl_mem {
    let desc = ImageDescriptor {
        image_type: CL_MEM_OBJECT_IMAGE3D,
        width,
        height,
        depth,
        array_size: 1,
        row_pitch,
        slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    };
    created(new_image(context, flags, format, &desc, host_ptr), errcode_ret)
}

pub unsafe extern "C" fn get_supported_image_formats(
    context: cl_context,
    _flags: u64,
    image_type: u32,
    num_entries: u32,
    formats: *mut ImageFormat,
    num_formats: *mut u32,
) -> i32 {
    if let Err(code) = Obj::get(context) {
        return code;
    }
    if image_kind_of_mem_object_type(image_type).is_none()
        || (num_entries == 0 && !formats.is_null())
    {
        return CL_INVALID_VALUE;
    }
    let all: Vec<(u32, u32)> = supported_image_formats().collect();
    if !formats.is_null() {
        for (i, (order, data_type)) in all.iter().take(num_entries as usize).enumerate() {
            *formats.add(i) = ImageFormat { order: *order, data_type: *data_type };
        }
    }
    if !num_formats.is_null() {
        *num_formats = all.len() as u32;
    }
    CL_SUCCESS
}

fn image_of<'a>(mem: cl_mem) -> Result<(&'a Obj<Mem>, ImageMeta), i32> {
    let m = Obj::get(mem)?;
    match m.inner.kind {
        MemKind::Image(meta) => Ok((m, meta)),
        _ => Err(CL_INVALID_MEM_OBJECT),
    }
}

pub unsafe extern "C" fn get_image_info(
    image: cl_mem,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let (_, meta) = match image_of(image) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let d = &meta.desc;
    let uses = |k: &[ImageKind]| k.contains(&d.kind);
    let info = match param {
        CL_IMAGE_FORMAT => {
            Info::Bytes([d.channel_order.to_ne_bytes(), d.channel_type.to_ne_bytes()].concat())
        }
        CL_IMAGE_ELEMENT_SIZE => Info::size(meta.pixel_bytes()),
        CL_IMAGE_ROW_PITCH => Info::size(meta.row_pitch()),
        CL_IMAGE_SLICE_PITCH => Info::size(meta.slice_pitch()),
        CL_IMAGE_WIDTH => Info::size(d.width as usize),
        CL_IMAGE_HEIGHT => Info::size(
            if uses(&[ImageKind::Image2d, ImageKind::Image2dArray, ImageKind::Image3d]) {
                d.height as usize
            } else {
                0
            },
        ),
        CL_IMAGE_DEPTH => {
            Info::size(if uses(&[ImageKind::Image3d]) { d.depth as usize } else { 0 })
        }
        CL_IMAGE_ARRAY_SIZE => {
            Info::size(if uses(&[ImageKind::Image1dArray, ImageKind::Image2dArray]) {
                d.array_size as usize
            } else {
                0
            })
        }
        CL_IMAGE_BUFFER => Info::ptr(meta.buffer),
        CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => Info::uint(0),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

/// The simulator argument for an image memory object.
pub fn argument(mem: &Mem) -> Option<ArgValue> {
    let MemKind::Image(meta) = mem.kind else { return None };
    Some(ArgValue::Image(ImageArg { storage: mem.root.storage.clone(), desc: meta.desc }))
}

/// The simulator argument for a sampler.
pub fn sampler_argument(sampler: cl_sampler) -> Option<ArgValue> {
    Obj::get(sampler).ok().map(|s| ArgValue::Sampler(s.inner.bits()))
}

/// Drops what an image holds besides its context: the buffer behind a 1-D buffer image.
pub unsafe fn release_parts(meta: &ImageMeta) {
    if !meta.buffer.is_null() {
        release_mem_object(meta.buffer);
    }
}

pub unsafe extern "C" fn create_sampler(
    context: cl_context,
    normalized: u32,
    addressing: u32,
    filter: u32,
    errcode_ret: *mut i32,
) -> cl_sampler {
    let result = (|| {
        Obj::get(context)?;
        if !(CL_ADDRESS_NONE..=CL_ADDRESS_MIRRORED_REPEAT).contains(&addressing)
            || !(CL_FILTER_NEAREST..=CL_FILTER_LINEAR).contains(&filter)
            || normalized > 1
        {
            return Err(CL_INVALID_VALUE);
        }
        // Repeat modes need normalised coordinates (section 5.7).
        if normalized == 0 && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
            return Err(CL_INVALID_VALUE);
        }
        crate::context::retain_context(context);
        Ok(Obj::create(Sampler { context, normalized: normalized != 0, addressing, filter }))
    })();
    created(result, errcode_ret)
}

pub unsafe extern "C" fn retain_sampler(sampler: cl_sampler) -> i32 {
    Obj::retain(sampler)
}

pub unsafe extern "C" fn release_sampler(sampler: cl_sampler) -> i32 {
    match Obj::release(sampler) {
        Ok(Some(s)) => crate::context::release_context(s.context),
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn get_sampler_info(
    sampler: cl_sampler,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let s = try_cl!(Obj::get(sampler));
    let info = match param {
        CL_SAMPLER_REFERENCE_COUNT => Info::uint(s.ref_count()),
        CL_SAMPLER_CONTEXT => Info::ptr(s.inner.context),
        CL_SAMPLER_NORMALIZED_COORDS => Info::bool(s.inner.normalized),
        CL_SAMPLER_ADDRESSING_MODE => Info::uint(s.inner.addressing),
        CL_SAMPLER_FILTER_MODE => Info::uint(s.inner.filter),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

/// Checks a transfer's image, queue and region.
unsafe fn transfer_image<'a>(
    queue: cl_command_queue,
    image: cl_mem,
    origin: *const usize,
    region: *const usize,
) -> Result<(&'a Obj<Mem>, ImageMeta, [usize; 3], [usize; 3]), i32> {
    let q = Obj::<crate::queue::Queue>::get(queue)?;
    let (m, meta) = image_of(image)?;
    if m.inner.context != q.inner.context {
        return Err(CL_INVALID_CONTEXT);
    }
    let (Some(origin), Some(region)) = (read_triple(origin), read_triple(region)) else {
        return Err(CL_INVALID_VALUE);
    };
    meta.check_region(origin, region)?;
    Ok((m, meta, origin, region))
}

/// Copies the texels of `region` at `origin` between an image and host memory laid out with
/// `host` (row by row; `to_host` says which way).
fn copy_rows(
    mem: &Mem,
    meta: &ImageMeta,
    origin: [usize; 3],
    region: [usize; 3],
    host: Rect,
    ptr: usize,
    to_host: bool,
) {
    let px = meta.pixel_bytes();
    let Ok(image) = meta.storage_rect(origin) else { return };
    let bytes = region[0] * px;
    let mut row = vec![0u8; bytes];
    for z in 0..region[2] {
        for y in 0..region[1] {
            let at = host.row(y, z);
            if to_host {
                mem.read(image.row(y, z), &mut row);
                unsafe {
                    std::ptr::copy_nonoverlapping(row.as_ptr(), (ptr as *mut u8).add(at), bytes)
                };
            } else {
                let from = unsafe { std::slice::from_raw_parts((ptr as *const u8).add(at), bytes) };
                mem.write(image.row(y, z), from);
            }
        }
    }
}

pub unsafe extern "C" fn enqueue_read_image(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: u32,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    transfer(
        queue,
        image,
        blocking,
        origin,
        region,
        row_pitch,
        slice_pitch,
        ptr as usize,
        true,
        num_events,
        events,
        event,
    )
}

pub unsafe extern "C" fn enqueue_write_image(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: u32,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *const c_void,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    transfer(
        queue,
        image,
        blocking,
        origin,
        region,
        row_pitch,
        slice_pitch,
        ptr as usize,
        false,
        num_events,
        events,
        event,
    )
}

unsafe fn transfer(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: u32,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: usize,
    to_host: bool,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let (_, meta, origin, region) = match transfer_image(queue, image, origin, region) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if ptr == 0 {
        return CL_INVALID_VALUE;
    }
    let host = try_cl!(host_rect_of(&meta, [0, 0, 0], region, row_pitch, slice_pitch));
    let mp = Ptr(image);
    let target = HostPtr(ptr);
    let work = move || {
        copy_rows(&mp.obj().inner, &meta, origin, region, host, target.0, to_host);
        CL_SUCCESS
    };
    let command = if to_host { CL_COMMAND_READ_IMAGE } else { CL_COMMAND_WRITE_IMAGE };
    enqueue_holding(
        queue,
        Enqueue::new(command).blocking(blocking),
        &[image],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_copy_image(
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let (_, smeta, so, region3) = match transfer_image(queue, src, src_origin, region) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (_, dmeta, dor, _) = match transfer_image(queue, dst, dst_origin, region) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if (smeta.desc.channel_order, smeta.desc.channel_type)
        != (dmeta.desc.channel_order, dmeta.desc.channel_type)
    {
        return CL_IMAGE_FORMAT_MISMATCH;
    }
    let (sp, dp) = (Ptr(src), Ptr(dst));
    let work = move || {
        let px = smeta.pixel_bytes();
        let mut staged = vec![0u8; region3[0] * px * region3[1] * region3[2]];
        let packed = Rect::new([0; 3], [region3[0] * px, region3[1], region3[2]], 0, 0)
            .expect("packed pitches are valid");
        copy_rows(&sp.obj().inner, &smeta, so, region3, packed, staged.as_mut_ptr() as usize, true);
        copy_rows(&dp.obj().inner, &dmeta, dor, region3, packed, staged.as_ptr() as usize, false);
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_COPY_IMAGE),
        &[src, dst],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_copy_image_to_buffer(
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let (_, meta, origin, region3) = match transfer_image(queue, src, src_origin, region) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let buffer = try_cl!(crate::memory::queue_buffer(queue, dst));
    let bytes = region3[0] * meta.pixel_bytes() * region3[1] * region3[2];
    if dst_offset.checked_add(bytes).is_none_or(|end| end > buffer.inner.size) {
        return CL_INVALID_VALUE;
    }
    let (sp, dp) = (Ptr(src), Ptr(dst));
    let work = move || {
        let mut staged = vec![0u8; bytes];
        let packed =
            Rect::new([0; 3], [region3[0] * meta.pixel_bytes(), region3[1], region3[2]], 0, 0)
                .expect("packed pitches are valid");
        copy_rows(
            &sp.obj().inner,
            &meta,
            origin,
            region3,
            packed,
            staged.as_mut_ptr() as usize,
            true,
        );
        dp.obj().inner.write(dst_offset, &staged);
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_COPY_IMAGE_TO_BUFFER),
        &[src, dst],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_copy_buffer_to_image(
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let (_, meta, origin, region3) = match transfer_image(queue, dst, dst_origin, region) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let buffer = try_cl!(crate::memory::queue_buffer(queue, src));
    let bytes = region3[0] * meta.pixel_bytes() * region3[1] * region3[2];
    if src_offset.checked_add(bytes).is_none_or(|end| end > buffer.inner.size) {
        return CL_INVALID_VALUE;
    }
    let (sp, dp) = (Ptr(src), Ptr(dst));
    let work = move || {
        let mut staged = vec![0u8; bytes];
        sp.obj().inner.read(src_offset, &mut staged);
        let packed =
            Rect::new([0; 3], [region3[0] * meta.pixel_bytes(), region3[1], region3[2]], 0, 0)
                .expect("packed pitches are valid");
        copy_rows(&dp.obj().inner, &meta, origin, region3, packed, staged.as_ptr() as usize, false);
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_COPY_BUFFER_TO_IMAGE),
        &[src, dst],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_fill_image(
    queue: cl_command_queue,
    image: cl_mem,
    color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let (_, meta, origin, region3) = match transfer_image(queue, image, origin, region) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if color.is_null() {
        return CL_INVALID_VALUE;
    }
    let mut bytes = [0u8; 16];
    std::ptr::copy_nonoverlapping(color as *const u8, bytes.as_mut_ptr(), 16);
    let Some(texel) =
        clmap_sim::image::fill_texel(meta.desc.channel_order, meta.desc.channel_type, bytes)
    else {
        return CL_IMAGE_FORMAT_NOT_SUPPORTED;
    };
    let mp = Ptr(image);
    let work = move || {
        let row: Vec<u8> = texel.iter().copied().cycle().take(texel.len() * region3[0]).collect();
        let packed = Rect::new(
            [0; 3],
            [row.len(), region3[1], region3[2]],
            row.len(),
            row.len() * region3[1],
        )
        .expect("packed pitches are valid");
        let staged: Vec<u8> =
            row.iter().copied().cycle().take(row.len() * region3[1] * region3[2]).collect();
        copy_rows(&mp.obj().inner, &meta, origin, region3, packed, staged.as_ptr() as usize, false);
        CL_SUCCESS
    };
    enqueue_holding(
        queue,
        Enqueue::new(CL_COMMAND_FILL_IMAGE),
        &[image],
        num_events,
        events,
        event,
        work,
    )
}

pub unsafe extern "C" fn enqueue_map_image(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: u32,
    flags: u64,
    origin: *const usize,
    region: *const usize,
    row_pitch: *mut usize,
    slice_pitch: *mut usize,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut i32,
) -> *mut c_void {
    let result = (|| {
        let (_, meta, origin, region3) = transfer_image(queue, image, origin, region)?;
        if row_pitch.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        if slice_pitch.is_null()
            && matches!(
                meta.desc.kind,
                ImageKind::Image3d | ImageKind::Image1dArray | ImageKind::Image2dArray
            )
        {
            return Err(CL_INVALID_VALUE);
        }
        // The mapping covers whole rows from the origin to the end of the region, with the
        // image's own pitches.
        let image_rect = meta.storage_rect(origin)?;
        let start = image_rect.row(0, 0);
        let end = image_rect.row(region3[1] - 1, region3[2] - 1) + region3[0] * meta.pixel_bytes();
        *row_pitch = meta.row_pitch();
        if !slice_pitch.is_null() {
            *slice_pitch = meta.slice_pitch();
        }
        map_region(queue, image, blocking, flags, start, end - start, num_events, events, event)
    })();
    created(result, errcode_ret)
}

/// The parameter type name `clGetKernelArgInfo` reports for an image kind.
pub fn type_name(kind: ImageKind) -> &'static str {
    kind.name()
}

/// The host's numbering of an image kind.
pub fn object_type(kind: ImageKind) -> u32 {
    mem_object_type(kind)
}
