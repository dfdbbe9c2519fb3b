//! Texel bytes ↔ the `float4`, `int4` and `uint4` of the image built-ins (OpenCL 1.2 §8.3).
//!
//! Reads normalise (`CL_UNORM_INT8`: c / 255), convert half floats and sign-extend signed
//! integers, then place the stored channels in the result with the missing ones 0, 0, 0, 1
//! (`CL_INTENSITY` fills all four, `CL_LUMINANCE` red, green and blue). Writes take the
//! channels the order stores and convert with saturation and round-to-nearest-even
//! (`convert_uchar_sat_rte(c * 255.0f)`), half floats rounding to nearest even.
//!
//! A read or write whose function does not match the channel type (`read_imagef` of a
//! `CL_SIGNED_INT8` image) is undefined in OpenCL; here it converts the number (float reads
//! of integer channels give their value, integer reads of other channels their stored
//! integer or bits, writes convert the value as the type's own function would).

use super::format::{ChannelType, Component, Format};
use crate::value::{f16_bits_to_f32, f32_to_f16_bits};

/// Most bytes a texel has (`CL_RGBA` of `CL_FLOAT`).
pub(crate) const MAX_TEXEL_BYTES: usize = 16;

/// The stored channels of one texel in memory order, as raw unsigned values.
fn raw_channels(format: Format, bytes: &[u8]) -> ([u32; 4], usize) {
    let mut raw = [0u32; 4];
    let size = format.ty.bytes() as usize;
    let word = |at: usize, size: usize| {
        let mut le = [0u8; 4];
        for (i, b) in bytes.iter().skip(at).take(size).enumerate() {
            le[i] = *b;
        }
        u32::from_le_bytes(le)
    };
    if format.ty.is_packed() {
        let w = word(0, size);
        raw = match format.ty {
            ChannelType::UnormShort565 => [(w >> 11) & 0x1f, (w >> 5) & 0x3f, w & 0x1f, 0],
            ChannelType::UnormShort555 => [(w >> 10) & 0x1f, (w >> 5) & 0x1f, w & 0x1f, 0],
            _ => [(w >> 20) & 0x3ff, (w >> 10) & 0x3ff, w & 0x3ff, 0],
        };
        return (raw, 3);
    }
    let count = format.order.components().len();
    for (c, slot) in raw.iter_mut().enumerate().take(count) {
        *slot = word(c * size, size);
    }
    (raw, count)
}

/// The largest value of each channel of a packed type (red, green, blue).
fn packed_maxima(ty: ChannelType) -> [u32; 3] {
    match ty {
        ChannelType::UnormShort565 => [31, 63, 31],
        ChannelType::UnormShort555 => [31, 31, 31],
        _ => [1023, 1023, 1023],
    }
}

/// One stored channel as the number a float read sees.
fn channel_float(ty: ChannelType, raw: u32, packed_max: u32) -> f32 {
    match ty {
        ChannelType::SnormInt8 => (raw as u8 as i8 as f32 / 127.0).max(-1.0),
        ChannelType::SnormInt16 => (raw as u16 as i16 as f32 / 32767.0).max(-1.0),
        ChannelType::UnormInt8 => raw as f32 / 255.0,
        ChannelType::UnormInt16 => raw as f32 / 65535.0,
        ChannelType::UnormShort565 | ChannelType::UnormShort555 | ChannelType::UnormInt101010 => {
            raw as f32 / packed_max as f32
        }
        ChannelType::SignedInt8 => raw as u8 as i8 as f32,
        ChannelType::SignedInt16 => raw as u16 as i16 as f32,
        ChannelType::SignedInt32 => raw as i32 as f32,
        ChannelType::UnsignedInt8 | ChannelType::UnsignedInt16 | ChannelType::UnsignedInt32 => {
            raw as f32
        }
        ChannelType::HalfFloat => f16_bits_to_f32(raw as u16),
        ChannelType::Float => f32::from_bits(raw),
    }
}

/// One stored channel as the integer an integer read sees (the bits of an `int` or `uint`).
fn channel_integer(ty: ChannelType, raw: u32) -> u32 {
    match ty {
        ChannelType::SignedInt8 | ChannelType::SnormInt8 => raw as u8 as i8 as i32 as u32,
        ChannelType::SignedInt16 | ChannelType::SnormInt16 => raw as u16 as i16 as i32 as u32,
        _ => raw,
    }
}

/// Places the stored channels in the four components (§8.3, "missing channels").
fn assemble<T: Copy>(format: Format, values: [T; 4], count: usize, zero: T, one: T) -> [T; 4] {
    let mut out = [zero, zero, zero, one];
    let components: &[Component] = format.order.components();
    for (component, value) in components.iter().zip(values).take(count) {
        match component {
            Component::R => out[0] = value,
            Component::G => out[1] = value,
            Component::B => out[2] = value,
            Component::A => out[3] = value,
            Component::Intensity => out = [value; 4],
            Component::Luminance => {
                out[0] = value;
                out[1] = value;
                out[2] = value;
            }
        }
    }
    out
}

/// `read_imagef` of one texel.
pub(crate) fn read_float(format: Format, bytes: &[u8]) -> [f32; 4] {
    let (raw, count) = raw_channels(format, bytes);
    let maxima = packed_maxima(format.ty);
    let mut values = [0f32; 4];
    for c in 0..count {
        values[c] = channel_float(format.ty, raw[c], maxima.get(c).copied().unwrap_or(1));
    }
    assemble(format, values, count, 0.0, 1.0)
}

/// `read_imagei` / `read_imageui` of one texel, as the bits of each 32-bit component.
pub(crate) fn read_integer(format: Format, bytes: &[u8]) -> [u32; 4] {
    let (raw, count) = raw_channels(format, bytes);
    let mut values = [0u32; 4];
    for c in 0..count {
        values[c] = channel_integer(format.ty, raw[c]);
    }
    assemble(format, values, count, 0, 1)
}

/// The colour of texels outside the image (§8.2, `CLK_ADDRESS_CLAMP`): transparent black
/// when the order has alpha, opaque black otherwise.
pub(crate) fn border_float(format: Format) -> [f32; 4] {
    [0.0, 0.0, 0.0, if format.order.has_alpha() { 0.0 } else { 1.0 }]
}

pub(crate) fn border_integer(format: Format) -> [u32; 4] {
    [0, 0, 0, u32::from(!format.order.has_alpha())]
}

/// The component of a written colour that a stored channel takes.
fn written(component: Component) -> usize {
    match component {
        Component::R | Component::Intensity | Component::Luminance => 0,
        Component::G => 1,
        Component::B => 2,
        Component::A => 3,
    }
}

/// A number converted to a channel of type `ty`, saturating, rounding to nearest even
/// (`NaN` becomes 0, as `convert_*_sat` makes it).
fn float_to_channel(ty: ChannelType, value: f32, packed_max: u32) -> u32 {
    let rte = |x: f32| x.round_ties_even();
    match ty {
        ChannelType::SnormInt8 => rte(value * 127.0) as i8 as u8 as u32,
        ChannelType::SnormInt16 => rte(value * 32767.0) as i16 as u16 as u32,
        ChannelType::UnormInt8 => rte(value * 255.0) as u8 as u32,
        ChannelType::UnormInt16 => rte(value * 65535.0) as u16 as u32,
        ChannelType::UnormShort565 | ChannelType::UnormShort555 | ChannelType::UnormInt101010 => {
            (rte(value * packed_max as f32) as u32).min(packed_max)
        }
        ChannelType::SignedInt8 => rte(value) as i8 as u8 as u32,
        ChannelType::SignedInt16 => rte(value) as i16 as u16 as u32,
        ChannelType::SignedInt32 => rte(value) as i32 as u32,
        ChannelType::UnsignedInt8 => rte(value) as u8 as u32,
        ChannelType::UnsignedInt16 => rte(value) as u16 as u32,
        ChannelType::UnsignedInt32 => rte(value) as u32,
        ChannelType::HalfFloat => u32::from(f32_to_f16_bits(value)),
        ChannelType::Float => value.to_bits(),
    }
}

/// An `int` (`signed`) or `uint` converted to a channel of an integer type, saturating
/// (`convert_char_sat` …); other types take the number as a float.
fn integer_to_channel(ty: ChannelType, bits: u32, signed: bool, packed_max: u32) -> u32 {
    let value = if signed { i64::from(bits as i32) } else { i64::from(bits) };
    let saturate = |lo: i64, hi: i64| value.clamp(lo, hi) as u32;
    match ty {
        ChannelType::SignedInt8 => saturate(-128, 127) & 0xff,
        ChannelType::SignedInt16 => saturate(-32768, 32767) & 0xffff,
        ChannelType::SignedInt32 => saturate(i64::from(i32::MIN), i64::from(i32::MAX)),
        ChannelType::UnsignedInt8 => saturate(0, 255),
        ChannelType::UnsignedInt16 => saturate(0, 65535),
        ChannelType::UnsignedInt32 => saturate(0, i64::from(u32::MAX)),
        other => float_to_channel(other, value as f32, packed_max),
    }
}

/// Stores raw channel values (memory order) as texel bytes; returns the texel's size.
fn store_channels(format: Format, raw: [u32; 4], out: &mut [u8; MAX_TEXEL_BYTES]) -> usize {
    let size = format.ty.bytes() as usize;
    if format.ty.is_packed() {
        let word = match format.ty {
            ChannelType::UnormShort565 => (raw[0] << 11) | (raw[1] << 5) | raw[2],
            ChannelType::UnormShort555 => (raw[0] << 10) | (raw[1] << 5) | raw[2],
            _ => (raw[0] << 20) | (raw[1] << 10) | raw[2],
        };
        out[..size].copy_from_slice(&word.to_le_bytes()[..size]);
        return size;
    }
    let count = format.order.components().len();
    for (c, value) in raw.iter().enumerate().take(count) {
        out[c * size..(c + 1) * size].copy_from_slice(&value.to_le_bytes()[..size]);
    }
    size * count
}

/// `write_imagef`: the texel bytes of `color`; returns how many there are.
pub(crate) fn write_float(
    format: Format,
    color: [f32; 4],
    out: &mut [u8; MAX_TEXEL_BYTES],
) -> usize {
    let maxima = packed_maxima(format.ty);
    let mut raw = [0u32; 4];
    for (c, component) in format.order.components().iter().enumerate() {
        let max = maxima.get(c).copied().unwrap_or(1);
        raw[c] = float_to_channel(format.ty, color[written(*component)], max);
    }
    store_channels(format, raw, out)
}

/// `write_imagei` (`signed`) / `write_imageui`: the texel bytes of `color`, given as the bits
/// of each 32-bit component.
pub(crate) fn write_integer(
    format: Format,
    color: [u32; 4],
    signed: bool,
    out: &mut [u8; MAX_TEXEL_BYTES],
) -> usize {
    let maxima = packed_maxima(format.ty);
    let mut raw = [0u32; 4];
    for (c, component) in format.order.components().iter().enumerate() {
        let max = maxima.get(c).copied().unwrap_or(1);
        raw[c] = integer_to_channel(format.ty, color[written(*component)], signed, max);
    }
    store_channels(format, raw, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::format::ChannelOrder;

    fn format(order: ChannelOrder, ty: ChannelType) -> Format {
        Format::new(order.code(), ty.code()).expect("a format")
    }

    fn written_f(format: Format, color: [f32; 4]) -> Vec<u8> {
        let mut out = [0u8; MAX_TEXEL_BYTES];
        let n = write_float(format, color, &mut out);
        out[..n].to_vec()
    }

    #[test]
    fn unorm_writes_round_to_nearest_even_and_saturate() {
        let rgba8 = format(ChannelOrder::Rgba, ChannelType::UnormInt8);
        // 0.5 × 255 = 127.5 → 128 (even); 2.5/255 × 255 = 2.5 → 2; saturation at both ends.
        assert_eq!(written_f(rgba8, [0.5, 2.5 / 255.0, -3.0, 7.0]), [128, 2, 0, 255]);
        assert_eq!(written_f(rgba8, [f32::NAN, 1.0, 0.0, 0.0]), [0, 255, 0, 0]);
        assert_eq!(read_float(rgba8, &[0, 51, 255, 128]), [0.0, 0.2, 1.0, 128.0 / 255.0]);
    }

    #[test]
    fn snorm_reads_clamp_the_most_negative_code_to_minus_one() {
        let r8 = format(ChannelOrder::R, ChannelType::SnormInt8);
        assert_eq!(read_float(r8, &[0x80]), [-1.0, 0.0, 0.0, 1.0]);
        assert_eq!(read_float(r8, &[0x81]), [-1.0, 0.0, 0.0, 1.0]);
        assert_eq!(written_f(r8, [-1.0, 0.0, 0.0, 0.0]), [0x81]);
        assert_eq!(written_f(r8, [-2.0, 0.0, 0.0, 0.0]), [0x80]);
    }

    #[test]
    fn missing_channels_read_as_zero_zero_zero_one() {
        let a = format(ChannelOrder::A, ChannelType::UnormInt8);
        assert_eq!(read_float(a, &[255]), [0.0, 0.0, 0.0, 1.0]);
        let ra = format(ChannelOrder::Ra, ChannelType::Float);
        let bytes: Vec<u8> = [2.0f32, 3.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        assert_eq!(read_float(ra, &bytes), [2.0, 0.0, 0.0, 3.0]);
        let intensity = format(ChannelOrder::Intensity, ChannelType::UnormInt8);
        assert_eq!(read_float(intensity, &[255]), [1.0; 4]);
        let luminance = format(ChannelOrder::Luminance, ChannelType::UnormInt8);
        assert_eq!(read_float(luminance, &[0]), [0.0, 0.0, 0.0, 1.0]);
        // Intensity and luminance store the red component; alpha stores alpha.
        assert_eq!(written_f(intensity, [1.0, 0.0, 0.0, 0.0]), [255]);
        assert_eq!(written_f(a, [1.0, 1.0, 1.0, 0.0]), [0]);
        let rg32 = format(ChannelOrder::Rg, ChannelType::SignedInt32);
        assert_eq!(read_integer(rg32, &[0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0]), [u32::MAX, 5, 0, 1]);
    }

    #[test]
    fn channel_orders_place_components() {
        let bgra = format(ChannelOrder::Bgra, ChannelType::UnsignedInt8);
        assert_eq!(read_integer(bgra, &[1, 2, 3, 4]), [3, 2, 1, 4]);
        let mut out = [0u8; MAX_TEXEL_BYTES];
        assert_eq!(write_integer(bgra, [3, 2, 1, 300], false, &mut out), 4);
        assert_eq!(out[..4], [1, 2, 3, 255]);
        let argb = format(ChannelOrder::Argb, ChannelType::SignedInt8);
        assert_eq!(write_integer(argb, [-200i32 as u32, 1, 2, 3], true, &mut out), 4);
        assert_eq!(out[..4], [3, 0x80, 1, 2]);
    }

    #[test]
    fn packed_and_half_formats() {
        let rgb565 = format(ChannelOrder::Rgb, ChannelType::UnormShort565);
        let bytes = written_f(rgb565, [1.0, 0.0, 1.0, 0.0]);
        assert_eq!(u16::from_le_bytes([bytes[0], bytes[1]]), (0b11111 << 11) | 0b11111);
        assert_eq!(read_float(rgb565, &bytes), [1.0, 0.0, 1.0, 1.0]);
        let r101010 = format(ChannelOrder::Rgb, ChannelType::UnormInt101010);
        let bytes = written_f(r101010, [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]), 1023 << 10);
        let half = format(ChannelOrder::R, ChannelType::HalfFloat);
        // 1 + 2^-11 is halfway between two halves: ties go to the even one, 1.0.
        assert_eq!(written_f(half, [1.0 + 1.0 / 2048.0, 0.0, 0.0, 0.0]), [0x00, 0x3c]);
        assert_eq!(read_float(half, &[0x00, 0xc0]), [-2.0, 0.0, 0.0, 1.0]);
    }
}
