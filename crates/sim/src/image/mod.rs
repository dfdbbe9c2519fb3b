//! Images: the kernel argument a platform passes for an image, its format, and the image
//! built-ins (`read_image*`, `write_image*`, `get_image_*`) over lanes.
//!
//! An image's texels live in a [`SharedBuffer`], tightly packed: the row pitch is
//! `width × pixel bytes`, the slice pitch `row pitch × height`, and the layers of an image
//! array are its slices (OpenCL 1.2 §5.3.1.2 with zero pitches). At launch the storage becomes
//! one of the launch's buffers, so an image value in a register is the address of its first
//! texel, image accesses go to observers as loads and stores of that buffer, and the
//! descriptor is found again from the address.
//!
//! - [`format`](mod@format): channel orders and types, texel sizes.
//! - `texel`: texel bytes ↔ `float4`/`int4`/`uint4` (§8.3).
//! - `sampling`: coordinates → texels and weights (addressing and filtering, §8.2).
//! - `run`: the built-ins over the lanes of a work-group.

pub mod format;
pub(crate) mod run;
pub(crate) mod sampling;
pub(crate) mod texel;

pub use clmap_lang::ir::ImageKind;
pub use format::{supported_image_formats, ChannelOrder, ChannelType};

use crate::memory::SharedBuffer;

/// An image kernel argument: the texels and what they mean.
#[derive(Clone, Debug)]
pub struct ImageArg {
    pub storage: SharedBuffer,
    pub desc: ImageDesc,
}

/// What an image is: its type, size and format. Sizes a type does not use are 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    pub kind: ImageKind,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    pub array_size: u64,
    /// `CL_R` … as the host numbers them (0x10B0 …).
    pub channel_order: u32,
    /// `CL_SNORM_INT8` … `CL_FLOAT` as the host numbers them (0x10D0 … 0x10DE).
    pub channel_type: u32,
}

impl ImageDesc {
    /// Bytes of one texel; `None` for an order and type that do not make a format OpenCL 1.2
    /// defines (or that the simulator does not support, see [`format`](mod@format)).
    pub fn pixel_bytes(&self) -> Option<u64> {
        format::Format::new(self.channel_order, self.channel_type).map(|f| u64::from(f.bytes()))
    }

    /// Bytes of the whole image (0 for an unsupported format); saturates rather than wraps.
    pub fn byte_len(&self) -> u64 {
        let [width, height, slices] = self.extent();
        self.pixel_bytes()
            .unwrap_or(0)
            .saturating_mul(width)
            .saturating_mul(height)
            .saturating_mul(slices)
    }

    /// Width, height and number of slices (depth of a 3-D image, layers of an array) that
    /// the image's type uses; the others count as 1 whatever the descriptor says.
    pub(crate) fn extent(&self) -> [u64; 3] {
        let (height, slices) = match self.kind {
            ImageKind::Image1d | ImageKind::Image1dBuffer => (1, 1),
            ImageKind::Image1dArray => (1, self.array_size),
            ImageKind::Image2d => (self.height, 1),
            ImageKind::Image2dArray => (self.height, self.array_size),
            ImageKind::Image3d => (self.height, self.depth),
        };
        [self.width, height, slices]
    }

    /// Why the descriptor cannot describe an image backed by `storage_len` bytes, if it
    /// cannot.
    pub(crate) fn problem(&self, storage_len: u64) -> Option<String> {
        if self.pixel_bytes().is_none() {
            return Some(format!(
                "channel order {:#x} with channel type {:#x} is not a supported image format",
                self.channel_order, self.channel_type
            ));
        }
        if self.extent().contains(&0) {
            return Some(format!("an image of size {:?} has no texels", self.extent()));
        }
        // Offsets are computed in 64 bits and must stay inside one address region.
        let len = self.byte_len();
        if len > crate::memory::OFFSET_MASK {
            return Some(format!("an image of {len} bytes is larger than the simulator allows"));
        }
        if storage_len < len {
            return Some(format!(
                "the image needs {len} bytes of storage, its buffer has {storage_len}"
            ));
        }
        None
    }

    /// Byte offset of texel (x, y, slice), which the caller has checked are inside.
    pub(crate) fn offset(&self, texel: [u64; 3], pixel_bytes: u64) -> u64 {
        let [width, height, _] = self.extent();
        let row = width.saturating_mul(pixel_bytes);
        let slice = row.saturating_mul(height);
        texel[0]
            .saturating_mul(pixel_bytes)
            .saturating_add(texel[1].saturating_mul(row))
            .saturating_add(texel[2].saturating_mul(slice))
    }
}

/// The image type of a host `cl_mem_object_type` (`CL_MEM_OBJECT_IMAGE2D` = 0x10F1 …);
/// `None` for buffers and pipes.
pub fn image_kind_of_mem_object_type(code: u32) -> Option<ImageKind> {
    Some(match code {
        0x10F1 => ImageKind::Image2d,
        0x10F2 => ImageKind::Image3d,
        0x10F3 => ImageKind::Image2dArray,
        0x10F4 => ImageKind::Image1d,
        0x10F5 => ImageKind::Image1dArray,
        0x10F6 => ImageKind::Image1dBuffer,
        _ => return None,
    })
}

/// The host `cl_mem_object_type` of an image type.
pub fn mem_object_type(kind: ImageKind) -> u32 {
    match kind {
        ImageKind::Image2d => 0x10F1,
        ImageKind::Image3d => 0x10F2,
        ImageKind::Image2dArray => 0x10F3,
        ImageKind::Image1d => 0x10F4,
        ImageKind::Image1dArray => 0x10F5,
        ImageKind::Image1dBuffer => 0x10F6,
    }
}

/// An image bound to a launch: its descriptor, checked, with the format decoded once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundImage {
    pub desc: ImageDesc,
    pub format: format::Format,
    pub pixel_bytes: u64,
}

impl BoundImage {
    /// Checks an image argument for a parameter of type `kind`.
    pub(crate) fn new(arg: &ImageArg, kind: ImageKind) -> Result<BoundImage, String> {
        let mut desc = arg.desc;
        // An image with one layer fewer dimension is an array of one layer: its texels are
        // laid out alike. OpenCL asks for the array type; Oclgrind, and programs tested on
        // it, pass the plain image.
        let one_layer = matches!(
            (desc.kind, kind),
            (ImageKind::Image2d, ImageKind::Image2dArray)
                | (ImageKind::Image1d, ImageKind::Image1dArray)
        );
        if one_layer {
            desc = ImageDesc { kind, array_size: 1, ..desc };
        }
        if desc.kind != kind {
            return Err(format!(
                "the parameter is an {}, the image an {}",
                kind.name(),
                desc.kind.name()
            ));
        }
        if let Some(problem) = desc.problem(arg.storage.len()) {
            return Err(problem);
        }
        let format = format::Format::new(desc.channel_order, desc.channel_type)
            .ok_or_else(|| "unsupported image format".to_string())?;
        Ok(BoundImage { desc, format, pixel_bytes: u64::from(format.bytes()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(kind: ImageKind, order: u32, ty: u32) -> ImageDesc {
        ImageDesc {
            kind,
            width: 4,
            height: 3,
            depth: 2,
            array_size: 5,
            channel_order: order,
            channel_type: ty,
        }
    }

    #[test]
    fn a_plain_image_binds_to_an_array_parameter_as_one_layer() {
        let image = |kind| ImageArg {
            storage: SharedBuffer::zeroed("img", 4 * 4 * 3 * 4),
            desc: desc(kind, 0x10B5, 0x10D2),
        };
        let bound = BoundImage::new(&image(ImageKind::Image2d), ImageKind::Image2dArray).unwrap();
        assert_eq!((bound.desc.kind, bound.desc.array_size), (ImageKind::Image2dArray, 1));
        assert_eq!(bound.desc.extent(), [4, 3, 1]);
        let bound = BoundImage::new(&image(ImageKind::Image1d), ImageKind::Image1dArray).unwrap();
        assert_eq!(bound.desc.extent(), [4, 1, 1]);
        // Other mismatches stay errors, and an array is no plain image.
        assert!(BoundImage::new(&image(ImageKind::Image2d), ImageKind::Image3d).is_err());
        assert!(BoundImage::new(&image(ImageKind::Image2dArray), ImageKind::Image2d).is_err());
    }

    #[test]
    fn sizes_count_only_the_dimensions_of_the_type() {
        let rgba8 = desc(ImageKind::Image2d, 0x10B5, 0x10D2);
        assert_eq!(rgba8.pixel_bytes(), Some(4));
        assert_eq!(rgba8.byte_len(), 4 * 4 * 3);
        let r_float_3d = desc(ImageKind::Image3d, 0x10B0, 0x10DE);
        assert_eq!(r_float_3d.byte_len(), 4 * 4 * 3 * 2);
        let layers = desc(ImageKind::Image1dArray, 0x10B2, 0x10DD);
        assert_eq!(layers.byte_len(), 4 * 4 * 5);
        assert_eq!(layers.offset([1, 0, 2], 4), 4 + 2 * 16);
        let rgb565 = desc(ImageKind::Image1d, 0x10B4, 0x10D4);
        assert_eq!(rgb565.pixel_bytes(), Some(2));
        // CL_RGB with an unpacked type (as Oclgrind accepts it): three channels.
        assert_eq!(desc(ImageKind::Image2d, 0x10B4, 0x10D2).pixel_bytes(), Some(3));
        assert_eq!(desc(ImageKind::Image2d, 0x10B5, 0x10D4).pixel_bytes(), None);
        assert_eq!(desc(ImageKind::Image2d, 0x10B8, 0x10DA).pixel_bytes(), None);
        assert!(desc(ImageKind::Image2d, 0x10B5, 0x10D2).problem(47).is_some());
        assert!(desc(ImageKind::Image2d, 0x10B5, 0x10D2).problem(48).is_none());
    }

    #[test]
    fn mem_object_types_map_both_ways() {
        for kind in ImageKind::ALL {
            assert_eq!(image_kind_of_mem_object_type(mem_object_type(kind)), Some(kind));
        }
        assert_eq!(image_kind_of_mem_object_type(0x10F0), None, "CL_MEM_OBJECT_BUFFER");
    }
}

/// The texel bytes `clEnqueueFillImage` writes for `color`, which the host gives as four
/// floats for normalised and floating formats, four signed integers for `CL_SIGNED_INT*` and
/// four unsigned integers for `CL_UNSIGNED_INT*` (16 bytes, native order); `None` for an
/// unsupported format.
pub fn fill_texel(channel_order: u32, channel_type: u32, color: [u8; 16]) -> Option<Vec<u8>> {
    let format = format::Format::new(channel_order, channel_type)?;
    let words: [u32; 4] = std::array::from_fn(|i| {
        u32::from_ne_bytes([color[4 * i], color[4 * i + 1], color[4 * i + 2], color[4 * i + 3]])
    });
    let mut out = [0u8; texel::MAX_TEXEL_BYTES];
    let n = match format.ty {
        ChannelType::SignedInt8 | ChannelType::SignedInt16 | ChannelType::SignedInt32 => {
            texel::write_integer(format, words, true, &mut out)
        }
        ChannelType::UnsignedInt8 | ChannelType::UnsignedInt16 | ChannelType::UnsignedInt32 => {
            texel::write_integer(format, words, false, &mut out)
        }
        _ => texel::write_float(format, words.map(f32::from_bits), &mut out),
    };
    Some(out[..n].to_vec())
}

#[cfg(test)]
mod fill_tests {
    use super::*;

    #[test]
    fn fill_colours_encode_as_the_format_stores_them() {
        let rgba_unorm8 = (0x10B5, 0x10D2);
        let color: Vec<u8> = [1.0f32, 0.5, 0.0, 1.0].iter().flat_map(|f| f.to_ne_bytes()).collect();
        let texel = fill_texel(rgba_unorm8.0, rgba_unorm8.1, color.try_into().unwrap()).unwrap();
        assert_eq!(texel, vec![255, 128, 0, 255]);
        let r_uint16 = (0x10B0, 0x10DB);
        let color: Vec<u8> = [70000u32, 0, 0, 0].iter().flat_map(|u| u.to_ne_bytes()).collect();
        // Unsigned writes saturate.
        assert_eq!(
            fill_texel(r_uint16.0, r_uint16.1, color.try_into().unwrap()).unwrap(),
            vec![0xff, 0xff]
        );
        assert!(fill_texel(0x10B5, 0x10D4, [0; 16]).is_none());
    }
}
