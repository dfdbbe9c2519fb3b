//! Image formats (OpenCL 1.2 §5.3.1.1): channel orders, channel types, and which pairs make a
//! format.
//!
//! The orders are those of OpenCL 1.2 but `CL_Rx`, `CL_RGx` and `CL_RGBx`, whose padding
//! channels implementations lay out differently; the OpenCL 2.0 sRGB and depth orders are
//! not supported either.

/// Channel order, numbered as the host's `CL_*` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelOrder {
    R = 0x10B0,
    A = 0x10B1,
    Rg = 0x10B2,
    Ra = 0x10B3,
    Rgb = 0x10B4,
    Rgba = 0x10B5,
    Bgra = 0x10B6,
    Argb = 0x10B7,
    Intensity = 0x10B8,
    Luminance = 0x10B9,
}

/// Channel data type, numbered as the host's `CL_*` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelType {
    SnormInt8 = 0x10D0,
    SnormInt16 = 0x10D1,
    UnormInt8 = 0x10D2,
    UnormInt16 = 0x10D3,
    UnormShort565 = 0x10D4,
    UnormShort555 = 0x10D5,
    UnormInt101010 = 0x10D6,
    SignedInt8 = 0x10D7,
    SignedInt16 = 0x10D8,
    SignedInt32 = 0x10D9,
    UnsignedInt8 = 0x10DA,
    UnsignedInt16 = 0x10DB,
    UnsignedInt32 = 0x10DC,
    HalfFloat = 0x10DD,
    Float = 0x10DE,
}

/// A colour component of the `float4`/`int4`/`uint4` a read returns (and a write takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Component {
    R,
    G,
    B,
    A,
    /// `CL_INTENSITY`: read into all four components.
    Intensity,
    /// `CL_LUMINANCE`: read into red, green and blue.
    Luminance,
}

impl ChannelOrder {
    pub const ALL: [ChannelOrder; 10] = [
        ChannelOrder::R,
        ChannelOrder::A,
        ChannelOrder::Rg,
        ChannelOrder::Ra,
        ChannelOrder::Rgb,
        ChannelOrder::Rgba,
        ChannelOrder::Bgra,
        ChannelOrder::Argb,
        ChannelOrder::Intensity,
        ChannelOrder::Luminance,
    ];

    pub fn from_code(code: u32) -> Option<ChannelOrder> {
        ChannelOrder::ALL.into_iter().find(|o| o.code() == code)
    }

    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The channels in memory order (a packed `CL_RGB` texel lists them from the high bits).
    pub(crate) const fn components(self) -> &'static [Component] {
        use Component as C;
        match self {
            ChannelOrder::R => &[C::R],
            ChannelOrder::A => &[C::A],
            ChannelOrder::Rg => &[C::R, C::G],
            ChannelOrder::Ra => &[C::R, C::A],
            ChannelOrder::Rgb => &[C::R, C::G, C::B],
            ChannelOrder::Rgba => &[C::R, C::G, C::B, C::A],
            ChannelOrder::Bgra => &[C::B, C::G, C::R, C::A],
            ChannelOrder::Argb => &[C::A, C::R, C::G, C::B],
            ChannelOrder::Intensity => &[C::Intensity],
            ChannelOrder::Luminance => &[C::Luminance],
        }
    }

    /// Whether the order stores alpha: the border colour is then transparent black, else
    /// opaque black (§8.2).
    pub(crate) const fn has_alpha(self) -> bool {
        matches!(
            self,
            ChannelOrder::A
                | ChannelOrder::Ra
                | ChannelOrder::Rgba
                | ChannelOrder::Bgra
                | ChannelOrder::Argb
                | ChannelOrder::Intensity
        )
    }
}

impl ChannelType {
    pub const ALL: [ChannelType; 15] = [
        ChannelType::SnormInt8,
        ChannelType::SnormInt16,
        ChannelType::UnormInt8,
        ChannelType::UnormInt16,
        ChannelType::UnormShort565,
        ChannelType::UnormShort555,
        ChannelType::UnormInt101010,
        ChannelType::SignedInt8,
        ChannelType::SignedInt16,
        ChannelType::SignedInt32,
        ChannelType::UnsignedInt8,
        ChannelType::UnsignedInt16,
        ChannelType::UnsignedInt32,
        ChannelType::HalfFloat,
        ChannelType::Float,
    ];

    pub fn from_code(code: u32) -> Option<ChannelType> {
        ChannelType::ALL.into_iter().find(|t| t.code() == code)
    }

    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The three formats that pack red, green and blue into one 16- or 32-bit word.
    pub(crate) const fn is_packed(self) -> bool {
        matches!(
            self,
            ChannelType::UnormShort565 | ChannelType::UnormShort555 | ChannelType::UnormInt101010
        )
    }

    /// Bytes of one channel; of the whole texel for the packed types.
    pub(crate) const fn bytes(self) -> u32 {
        match self {
            ChannelType::SnormInt8
            | ChannelType::UnormInt8
            | ChannelType::SignedInt8
            | ChannelType::UnsignedInt8 => 1,
            ChannelType::SnormInt16
            | ChannelType::UnormInt16
            | ChannelType::SignedInt16
            | ChannelType::UnsignedInt16
            | ChannelType::HalfFloat
            | ChannelType::UnormShort565
            | ChannelType::UnormShort555 => 2,
            ChannelType::SignedInt32
            | ChannelType::UnsignedInt32
            | ChannelType::Float
            | ChannelType::UnormInt101010 => 4,
        }
    }
}

/// A channel order with a channel type that OpenCL 1.2 allows for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    pub order: ChannelOrder,
    pub ty: ChannelType,
}

impl Format {
    /// The format of host codes; `None` when the pair is not a format (§5.3.1.1: packed
    /// types only with `CL_RGB`; intensity and luminance only normalised or floating;
    /// `CL_BGRA` and `CL_ARGB` only 8-bit). `CL_RGB` also takes the unpacked types, three
    /// channels of the type per texel, which §5.3.1.1 leaves out but Oclgrind, and programs
    /// written against it, use (`CL_RGB` with `CL_FLOAT`).
    pub fn new(order: u32, ty: u32) -> Option<Format> {
        let order = ChannelOrder::from_code(order)?;
        let ty = ChannelType::from_code(ty)?;
        use ChannelType as T;
        let allowed = match order {
            ChannelOrder::Rgb => true,
            _ if ty.is_packed() => false,
            ChannelOrder::Intensity | ChannelOrder::Luminance => matches!(
                ty,
                T::UnormInt8
                    | T::UnormInt16
                    | T::SnormInt8
                    | T::SnormInt16
                    | T::HalfFloat
                    | T::Float
            ),
            ChannelOrder::Bgra | ChannelOrder::Argb => {
                matches!(ty, T::UnormInt8 | T::SnormInt8 | T::SignedInt8 | T::UnsignedInt8)
            }
            _ => true,
        };
        allowed.then_some(Format { order, ty })
    }

    /// Bytes of one texel.
    pub fn bytes(self) -> u32 {
        if self.ty.is_packed() {
            self.ty.bytes()
        } else {
            self.ty.bytes() * self.order.components().len() as u32
        }
    }
}

/// Every (channel order, channel type) pair the simulator reads and writes, as host codes:
/// what a platform lists for `clGetSupportedImageFormats`.
pub fn supported_image_formats() -> impl Iterator<Item = (u32, u32)> {
    ChannelOrder::ALL.into_iter().flat_map(|order| {
        ChannelType::ALL
            .into_iter()
            .filter(move |ty| Format::new(order.code(), ty.code()).is_some())
            .map(move |ty| (order.code(), ty.code()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_hosts() {
        assert_eq!(ChannelOrder::from_code(0x10B5), Some(ChannelOrder::Rgba));
        assert_eq!(ChannelOrder::Luminance.code(), 0x10B9);
        assert_eq!(ChannelType::from_code(0x10DD), Some(ChannelType::HalfFloat));
        assert_eq!(ChannelType::from_code(0x10DF), None, "CL_UNORM_INT24 is OpenCL 2.0");
        // R, A, RG, RA, RGB and RGBA take the 12 unpacked types, intensity and luminance 6
        // each, BGRA and ARGB 4 each, RGB the 3 packed ones too.
        let count = supported_image_formats().count();
        assert_eq!(count, 6 * 12 + 2 * 6 + 2 * 4 + 3);
        let rgb_float = Format::new(ChannelOrder::Rgb.code(), ChannelType::Float.code());
        assert_eq!(rgb_float.map(Format::bytes), Some(12));
    }
}
