//! Images and samplers in workloads.
//!
//! An image is a buffer with an [`ImageSpec`]: the buffer's bytes are the image's texels, row
//! by row and slice by slice with no padding, as `clEnqueueWriteImage` with zero pitches takes
//! them, and its elements are the texels' channels (a `CL_RGBA`/`CL_FLOAT` image is a `float`
//! buffer of four elements per texel), so initial data, outputs and tolerances work as they do
//! for buffers. A sampler argument is the value of the `CLK_*` flags the kernel would write in
//! a `sampler_t` constant.
//!
//! Formats are named as the host API names them (`CL_RGBA`, `CL_UNORM_INT8`); the numbers are
//! the host API's too, so a platform or a device runtime takes them as they are.

use std::fmt;

/// The image types of OpenCL 1.2, by their kernel type names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageType {
    Image1d,
    Image1dBuffer,
    Image1dArray,
    Image2d,
    Image2dArray,
    Image3d,
}

impl ImageType {
    pub const ALL: [ImageType; 6] = [
        ImageType::Image1d,
        ImageType::Image1dBuffer,
        ImageType::Image1dArray,
        ImageType::Image2d,
        ImageType::Image2dArray,
        ImageType::Image3d,
    ];

    /// The kernel parameter type: `image2d_t` …
    pub fn name(self) -> &'static str {
        match self {
            ImageType::Image1d => "image1d_t",
            ImageType::Image1dBuffer => "image1d_buffer_t",
            ImageType::Image1dArray => "image1d_array_t",
            ImageType::Image2d => "image2d_t",
            ImageType::Image2dArray => "image2d_array_t",
            ImageType::Image3d => "image3d_t",
        }
    }

    /// The type from its kernel name, with or without the `_t`.
    pub fn parse(text: &str) -> Option<ImageType> {
        let text = text.trim();
        let text = text.strip_suffix("_t").unwrap_or(text);
        ImageType::ALL.into_iter().find(|t| t.name().strip_suffix("_t") == Some(text))
    }

    /// `CL_MEM_OBJECT_IMAGE2D` … as the host numbers them.
    pub fn mem_object_type(self) -> u32 {
        match self {
            ImageType::Image2d => 0x10F1,
            ImageType::Image3d => 0x10F2,
            ImageType::Image2dArray => 0x10F3,
            ImageType::Image1d => 0x10F4,
            ImageType::Image1dArray => 0x10F5,
            ImageType::Image1dBuffer => 0x10F6,
        }
    }

    /// The type of a host `cl_mem_object_type`.
    pub fn from_mem_object_type(code: u32) -> Option<ImageType> {
        ImageType::ALL.into_iter().find(|t| t.mem_object_type() == code)
    }
}

impl fmt::Display for ImageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `CL_R` … with their host numbers and channel counts.
const CHANNEL_ORDERS: &[(&str, u32, u64)] = &[
    ("CL_R", 0x10B0, 1),
    ("CL_A", 0x10B1, 1),
    ("CL_RG", 0x10B2, 2),
    ("CL_RA", 0x10B3, 2),
    ("CL_RGB", 0x10B4, 3),
    ("CL_RGBA", 0x10B5, 4),
    ("CL_BGRA", 0x10B6, 4),
    ("CL_ARGB", 0x10B7, 4),
    ("CL_INTENSITY", 0x10B8, 1),
    ("CL_LUMINANCE", 0x10B9, 1),
    ("CL_Rx", 0x10BA, 2),
    ("CL_RGx", 0x10BB, 3),
    ("CL_RGBx", 0x10BC, 4),
    ("CL_DEPTH", 0x10BD, 1),
];

/// `CL_SNORM_INT8` … with their host numbers and bytes per channel (per texel for the
/// packed types, marked by channel count 0).
const CHANNEL_TYPES: &[(&str, u32, u64, bool)] = &[
    ("CL_SNORM_INT8", 0x10D0, 1, false),
    ("CL_SNORM_INT16", 0x10D1, 2, false),
    ("CL_UNORM_INT8", 0x10D2, 1, false),
    ("CL_UNORM_INT16", 0x10D3, 2, false),
    ("CL_UNORM_SHORT_565", 0x10D4, 2, true),
    ("CL_UNORM_SHORT_555", 0x10D5, 2, true),
    ("CL_UNORM_INT_101010", 0x10D6, 4, true),
    ("CL_SIGNED_INT8", 0x10D7, 1, false),
    ("CL_SIGNED_INT16", 0x10D8, 2, false),
    ("CL_SIGNED_INT32", 0x10D9, 4, false),
    ("CL_UNSIGNED_INT8", 0x10DA, 1, false),
    ("CL_UNSIGNED_INT16", 0x10DB, 2, false),
    ("CL_UNSIGNED_INT32", 0x10DC, 4, false),
    ("CL_HALF_FLOAT", 0x10DD, 2, false),
    ("CL_FLOAT", 0x10DE, 4, false),
];

/// A host constant from its name (`CL_RGBA`, `RGBA`, or a number such as `0x10B5`).
fn lookup<T: Copy>(
    table: &[T],
    name_of: impl Fn(&T) -> (&'static str, u32),
    text: &str,
) -> Option<u32> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let code = u32::from_str_radix(hex, 16).ok()?;
        return table.iter().map(&name_of).find(|(_, c)| *c == code).map(|(_, c)| c);
    }
    let bare = text.strip_prefix("CL_").unwrap_or(text);
    table
        .iter()
        .map(&name_of)
        .find(|(name, _)| name.strip_prefix("CL_").is_some_and(|n| n.eq_ignore_ascii_case(bare)))
        .map(|(_, c)| c)
}

/// The number of a channel order name (`CL_RGBA` or `RGBA`).
pub fn channel_order_code(text: &str) -> Option<u32> {
    lookup(CHANNEL_ORDERS, |(n, c, _)| (*n, *c), text)
}

/// The number of a channel type name (`CL_FLOAT` or `FLOAT`).
pub fn channel_type_code(text: &str) -> Option<u32> {
    lookup(CHANNEL_TYPES, |(n, c, _, _)| (*n, *c), text)
}

/// The host name of a channel order number.
pub fn channel_order_name(code: u32) -> Option<&'static str> {
    CHANNEL_ORDERS.iter().find(|(_, c, _)| *c == code).map(|(n, _, _)| *n)
}

/// The host name of a channel type number.
pub fn channel_type_name(code: u32) -> Option<&'static str> {
    CHANNEL_TYPES.iter().find(|(_, c, _, _)| *c == code).map(|(n, _, _, _)| *n)
}

/// What a buffer holding an image describes: the image's type, size and format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSpec {
    pub ty: ImageType,
    pub width: u64,
    /// 1 for the 1-D types.
    pub height: u64,
    /// 1 except for `image3d_t`.
    pub depth: u64,
    /// Layers of an array type, 1 otherwise.
    pub array_size: u64,
    /// `CL_RGBA` … as the host numbers it.
    pub channel_order: u32,
    /// `CL_FLOAT` … as the host numbers it.
    pub channel_type: u32,
}

impl ImageSpec {
    /// Width, height and slices (depth or layers) the type uses; the others count as 1.
    pub fn extent(&self) -> [u64; 3] {
        match self.ty {
            ImageType::Image1d | ImageType::Image1dBuffer => [self.width, 1, 1],
            ImageType::Image1dArray => [self.width, self.array_size, 1],
            ImageType::Image2d => [self.width, self.height, 1],
            ImageType::Image2dArray => [self.width, self.height, self.array_size],
            ImageType::Image3d => [self.width, self.height, self.depth],
        }
    }

    /// Bytes of one texel, `None` when the order and type make no OpenCL 1.2 format.
    pub fn texel_bytes(&self) -> Option<u64> {
        let (_, _, channels) = CHANNEL_ORDERS.iter().find(|(_, c, _)| *c == self.channel_order)?;
        let (_, _, bytes, packed) =
            CHANNEL_TYPES.iter().find(|(_, c, _, _)| *c == self.channel_type)?;
        if *packed {
            // 565 and 555 pack RGB(x) into 16 bits, 101010 into 32; no other order packs.
            let order = channel_order_name(self.channel_order)?;
            return matches!(order, "CL_RGB" | "CL_RGBx").then_some(*bytes);
        }
        Some(channels * bytes)
    }

    /// Bytes of the whole image (saturating), `None` for a format that does not exist.
    pub fn byte_len(&self) -> Option<u64> {
        let texel = self.texel_bytes()?;
        Some(self.extent().iter().fold(texel, |acc, d| acc.saturating_mul(*d)))
    }

    /// Why this cannot describe an image in a buffer of `buffer_bytes`, if it cannot.
    pub fn problem(&self, buffer_bytes: u64) -> Option<String> {
        let Some(len) = self.byte_len() else {
            return Some(format!(
                "channel order {} with channel type {} is not an OpenCL image format",
                self.order_name(),
                self.type_name()
            ));
        };
        if self.extent().contains(&0) {
            return Some(format!("a {} of size {:?} has no texels", self.ty, self.extent()));
        }
        if len != buffer_bytes {
            return Some(format!(
                "a {} of {:?} texels of {} bytes holds {len} bytes, the buffer has {buffer_bytes}",
                self.ty,
                self.extent(),
                self.texel_bytes().unwrap_or(0)
            ));
        }
        None
    }

    /// `CL_RGBA`, or the number when it has no name.
    pub fn order_name(&self) -> String {
        channel_order_name(self.channel_order)
            .map_or_else(|| format!("{:#x}", self.channel_order), str::to_string)
    }

    /// `CL_FLOAT`, or the number when it has no name.
    pub fn type_name(&self) -> String {
        channel_type_name(self.channel_type)
            .map_or_else(|| format!("{:#x}", self.channel_type), str::to_string)
    }
}

/// Sampler flag names and their bits, as the kernel language defines the `CLK_*` constants.
const SAMPLER_FLAGS: &[(&str, u32)] = &[
    ("CLK_NORMALIZED_COORDS_FALSE", 0),
    ("CLK_NORMALIZED_COORDS_TRUE", 1),
    ("CLK_ADDRESS_NONE", 0),
    ("CLK_ADDRESS_CLAMP_TO_EDGE", 2),
    ("CLK_ADDRESS_CLAMP", 4),
    ("CLK_ADDRESS_REPEAT", 6),
    ("CLK_ADDRESS_MIRRORED_REPEAT", 8),
    ("CLK_FILTER_NEAREST", 0x10),
    ("CLK_FILTER_LINEAR", 0x20),
];

const ADDRESS_MASK: u32 = 0xE;
const FILTER_MASK: u32 = 0x30;

/// A sampler value from `CLK_A | CLK_B | …` or a number; checks that the bits make a sampler.
pub fn parse_sampler(text: &str) -> Result<u32, String> {
    let mut bits = 0u32;
    for part in text.split('|').map(str::trim) {
        let value = if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            u32::from_str_radix(hex, 16).ok()
        } else if part.chars().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            part.parse().ok()
        } else {
            SAMPLER_FLAGS.iter().find(|(name, _)| *name == part).map(|(_, bits)| *bits)
        };
        let Some(value) = value else {
            let names: Vec<&str> = SAMPLER_FLAGS.iter().map(|(n, _)| *n).collect();
            return Err(format!("`{part}` is not a sampler flag (known: {})", names.join(", ")));
        };
        bits |= value;
    }
    sampler_problem(bits).map_or(Ok(bits), Err)
}

/// Why `bits` is not a sampler value, if it is not.
pub fn sampler_problem(bits: u32) -> Option<String> {
    if bits & !(1 | ADDRESS_MASK | FILTER_MASK) != 0 || bits & ADDRESS_MASK > 8 {
        return Some(format!("{bits:#x} sets bits no CLK_* sampler flag has"));
    }
    if bits & FILTER_MASK == FILTER_MASK {
        return Some(format!("{bits:#x} names both filter modes"));
    }
    None
}

/// The sampler value as flags, the way a kernel would write it.
pub fn sampler_text(bits: u32) -> String {
    let coords =
        if bits & 1 != 0 { "CLK_NORMALIZED_COORDS_TRUE" } else { "CLK_NORMALIZED_COORDS_FALSE" };
    let address = SAMPLER_FLAGS
        .iter()
        .find(|(name, b)| name.starts_with("CLK_ADDRESS") && *b == bits & ADDRESS_MASK)
        .map_or("CLK_ADDRESS_NONE", |(n, _)| n);
    let filter =
        if bits & FILTER_MASK == 0x20 { "CLK_FILTER_LINEAR" } else { "CLK_FILTER_NEAREST" };
    format!("{coords} | {address} | {filter}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba_float(w: u64, h: u64) -> ImageSpec {
        ImageSpec {
            ty: ImageType::Image2d,
            width: w,
            height: h,
            depth: 1,
            array_size: 1,
            channel_order: channel_order_code("CL_RGBA").unwrap(),
            channel_type: channel_type_code("FLOAT").unwrap(),
        }
    }

    #[test]
    fn sizes_follow_the_format_and_the_type() {
        let spec = rgba_float(8, 4);
        assert_eq!(spec.texel_bytes(), Some(16));
        assert_eq!(spec.byte_len(), Some(512));
        assert_eq!(spec.problem(512), None);
        assert!(spec.problem(500).unwrap().contains("holds 512 bytes"));
        // A 2-D image ignores depth and layers.
        assert_eq!(ImageSpec { depth: 9, array_size: 3, ..spec }.byte_len(), Some(512));
        let packed = ImageSpec {
            channel_order: 0x10B4,
            channel_type: channel_type_code("CL_UNORM_SHORT_565").unwrap(),
            ..spec
        };
        assert_eq!(packed.texel_bytes(), Some(2));
        let wrong = ImageSpec { channel_order: 0x10B5, ..packed };
        assert!(wrong.problem(64).unwrap().contains("not an OpenCL image format"));
    }

    #[test]
    fn names_and_numbers_round_trip() {
        for t in ImageType::ALL {
            assert_eq!(ImageType::parse(t.name()), Some(t));
            assert_eq!(ImageType::from_mem_object_type(t.mem_object_type()), Some(t));
        }
        assert_eq!(ImageType::parse("image3d"), Some(ImageType::Image3d));
        assert_eq!(channel_order_code("bgra"), Some(0x10B6));
        assert_eq!(channel_order_code("0x10B5"), Some(0x10B5));
        assert_eq!(channel_order_code("CL_NOPE"), None);
        assert_eq!(channel_type_name(0x10DE), Some("CL_FLOAT"));
    }

    #[test]
    fn samplers_parse_from_flags_and_print_back() {
        let text = "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST";
        let bits = parse_sampler(text).unwrap();
        assert_eq!(bits, 0x14);
        assert_eq!(sampler_text(bits), text);
        assert_eq!(parse_sampler("0x21"), Ok(0x21));
        assert!(parse_sampler("CLK_FILTER_CUBIC").unwrap_err().contains("not a sampler flag"));
        assert!(parse_sampler("0x30").unwrap_err().contains("both filter modes"));
        assert!(parse_sampler("0x100").is_err());
    }
}
