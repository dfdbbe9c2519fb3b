//! Images and samplers on a device: what a workload's image arguments become.
//!
//! An image travels as its texels packed row by row (no padding), which is what
//! `clEnqueueWriteImage`/`clEnqueueReadImage` take with zero pitches; formats and types are the
//! host API's numbers. Samplers are created from the value of the kernel language's `CLK_*`
//! flags, the form workloads keep them in.

use std::ffi::c_void;

use cl3::memory::{cl_mem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use cl3::types::{cl_image_format, cl_uint};
use opencl3::context::Context;
use opencl3::memory::{ClMem, Image, Sampler};

use crate::error::{ClResultExt, DeviceError};

/// `CL_MEM_OBJECT_IMAGE1D_BUFFER`, which needs a buffer behind it.
const IMAGE1D_BUFFER: u32 = 0x10F6;

/// The type, size and format of an image, as the host API numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLayout {
    /// `CL_MEM_OBJECT_IMAGE2D` …
    pub mem_object_type: u32,
    pub width: usize,
    /// 1 for 1-D images.
    pub height: usize,
    /// 1 except for 3-D images.
    pub depth: usize,
    /// Layers of an array type, 1 otherwise.
    pub array_size: usize,
    /// `CL_RGBA` …
    pub channel_order: u32,
    /// `CL_FLOAT` …
    pub channel_type: u32,
}

impl ImageLayout {
    /// Width, height and slices (depth or layers) that `clEnqueueReadImage`'s region names.
    fn region(&self) -> [usize; 3] {
        match self.mem_object_type {
            // 1-D array: layers are the second coordinate.
            0x10F5 => [self.width, self.array_size, 1],
            0x10F3 => [self.width, self.height, self.array_size],
            0x10F2 => [self.width, self.height, self.depth],
            0x10F1 => [self.width, self.height, 1],
            _ => [self.width, 1, 1],
        }
    }
}

/// `cl_image_desc` of OpenCL 1.2, laid out as the runtime reads it (the headers' union of
/// `buffer` and `mem_object` is one pointer).
#[repr(C)]
struct ImageDesc {
    image_type: cl_uint,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_array_size: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    num_mip_levels: cl_uint,
    num_samples: cl_uint,
    buffer: cl_mem,
}

/// A device image holding `bytes` (texels packed, no padding).
pub(crate) fn create_image(
    context: &Context,
    layout: &ImageLayout,
    bytes: &[u8],
    what: &str,
) -> Result<Image, DeviceError> {
    if layout.mem_object_type == IMAGE1D_BUFFER {
        return Err(DeviceError::cl(
            format!("clCreateImage ({what}): image1d_buffer_t arguments run on the simulator only"),
            -40,
        ));
    }
    let format = cl_image_format {
        image_channel_order: layout.channel_order,
        image_channel_data_type: layout.channel_type,
    };
    let desc = ImageDesc {
        image_type: layout.mem_object_type,
        image_width: layout.width,
        image_height: layout.height,
        image_depth: layout.depth,
        image_array_size: layout.array_size,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    };
    // SAFETY: `format` and `desc` live for the call and have the layout the API defines; with
    // CL_MEM_COPY_HOST_PTR and zero pitches the runtime copies exactly the packed texels,
    // which `bytes` holds (the workload checked its size against the layout).
    unsafe {
        Image::create(
            context,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            &format,
            (&desc as *const ImageDesc).cast(),
            bytes.as_ptr() as *mut c_void,
        )
    }
    .during(&format!("clCreateImage ({what})"))
}

/// Copies an image's texels back into `bytes`.
pub(crate) fn read_image(
    queue: &opencl3::command_queue::CommandQueue,
    image: &Image,
    layout: &ImageLayout,
    bytes: &mut [u8],
) -> Result<(), DeviceError> {
    let origin = [0usize; 3];
    let region = layout.region();
    // SAFETY: the read is blocking, so `bytes` outlives the transfer; the region is the whole
    // image, whose packed size is `bytes.len()`.
    unsafe {
        cl3::command_queue::enqueue_read_image(
            queue.get(),
            image.get(),
            opencl3::types::CL_BLOCKING,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            0,
            bytes.as_mut_ptr().cast(),
            0,
            std::ptr::null(),
        )
    }
    .map(|event| {
        // The read was blocking; the event is only released.
        let _ = opencl3::event::Event::new(event);
    })
    .during("clEnqueueReadImage")
}

/// A sampler from the value of `CLK_NORMALIZED_COORDS_* | CLK_ADDRESS_* | CLK_FILTER_*`.
pub(crate) fn create_sampler(context: &Context, bits: u32) -> Result<Sampler, DeviceError> {
    let normalized = bits & 1;
    let addressing = match bits & 0xE {
        2 => 0x1131, // CL_ADDRESS_CLAMP_TO_EDGE
        4 => 0x1132, // CL_ADDRESS_CLAMP
        6 => 0x1133, // CL_ADDRESS_REPEAT
        8 => 0x1134, // CL_ADDRESS_MIRRORED_REPEAT
        _ => 0x1130, // CL_ADDRESS_NONE
    };
    let filter = if bits & 0x30 == 0x20 { 0x1141 } else { 0x1140 };
    #[allow(deprecated)]
    Sampler::create(context, normalized, addressing, filter)
        .during(&format!("clCreateSampler ({bits:#x})"))
}
