//! The image built-ins over the active lanes of a work-group.
//!
//! Every lane finds its image from the address in its image argument, so an image passed on
//! through helper functions works like any other. Texel reads and writes are reported to the
//! observer as loads and stores of the image's storage, one batch per texel of the footprint
//! (a linear read of a 2-D image is four batches). A write outside the image stores nothing
//! and is an out-of-bounds report; a read outside gives the border colour, as `CLK_ADDRESS_CLAMP`
//! defines it and as the simulator chooses for the cases OpenCL leaves undefined.

use clmap_lang::ir::{AddressingMode, FilterMode, ImageQuery, ImageValue, SamplerBits};

use super::sampling::{footprint, Coordinates};
use super::texel::{self, MAX_TEXEL_BYTES};
use crate::exec::GroupExec;
use crate::mask::Mask;
use crate::memory::BufferStorage;
use crate::observer::{AccessKind, Observer, StoredValues};
use crate::program::BuiltinCall;
use crate::report::ReportKind;
use crate::value::normalise;
use clmap_lang::ir::Scalar;

const PLAIN_SAMPLER: SamplerBits = SamplerBits {
    normalized_coords: false,
    addressing: AddressingMode::None,
    filter: FilterMode::Nearest,
};

/// Texel addresses touched by one instruction, gathered per footprint position so each can
/// be reported to the observer as one batch over the lanes.
struct Touched {
    rounds: Vec<(Vec<u64>, Mask)>,
    lanes: usize,
}

impl Touched {
    fn new(lanes: usize) -> Touched {
        Touched { rounds: Vec::new(), lanes }
    }

    fn add(&mut self, round: usize, lane: usize, address: u64) {
        while self.rounds.len() <= round {
            self.rounds.push((vec![0; self.lanes], Mask::none(self.lanes)));
        }
        let (addresses, mask) = &mut self.rounds[round];
        addresses[lane] = address;
        mask.set(lane, true);
    }

    fn notify<O: Observer>(
        self,
        ex: &mut GroupExec<'_, O>,
        size: u64,
        site: u32,
        kind: AccessKind,
    ) {
        let size = u32::try_from(size).unwrap_or(u32::MAX);
        for (addresses, mask) in &self.rounds {
            ex.notify_addresses(addresses, size, site, mask, kind);
        }
    }

    /// Reports stores of one texel per lane with the bytes each lane wrote (`texels`: 8
    /// bytes a component, component `c` of lane `l` at `c * lanes + l`), so that the race
    /// checker can tell work-items writing the same pixel value from lost data.
    fn notify_stores<O: Observer>(
        self,
        ex: &mut GroupExec<'_, O>,
        size: u64,
        site: u32,
        texels: &[u64],
    ) {
        let size = u32::try_from(size).unwrap_or(u32::MAX);
        let lanes = self.lanes;
        for (addresses, mask) in &self.rounds {
            let stored = StoredValues { regs: texels, lanes, scalar: Scalar::ULong };
            ex.notify_stores(addresses, size, site, mask, stored);
        }
    }
}

fn read_texel(storage: &BufferStorage, offset: u64, size: u64) -> [u8; MAX_TEXEL_BYTES] {
    let mut bytes = [0u8; MAX_TEXEL_BYTES];
    let size = size.min(MAX_TEXEL_BYTES as u64);
    if !storage.in_bounds(offset, size) {
        return bytes;
    }
    let mut at = 0;
    while at < size {
        let chunk = (size - at).min(8) as u32;
        let value = storage.read(offset + at, chunk).to_le_bytes();
        bytes[at as usize..at as usize + chunk as usize].copy_from_slice(&value[..chunk as usize]);
        at += u64::from(chunk);
    }
    bytes
}

fn write_texel(storage: &BufferStorage, offset: u64, bytes: &[u8]) {
    if !storage.in_bounds(offset, bytes.len() as u64) {
        return;
    }
    for (i, chunk) in bytes.chunks(8).enumerate() {
        let mut le = [0u8; 8];
        le[..chunk.len()].copy_from_slice(chunk);
        storage.write(offset + 8 * i as u64, chunk.len() as u32, u64::from_le_bytes(le));
    }
}

/// The coordinate argument of `lane`: up to four components, `int` or `float`.
fn coordinates<O: Observer>(ex: &GroupExec<'_, O>, call: &BuiltinCall, lane: usize) -> Coordinates {
    let Some(arg) = call.args.last() else { return Coordinates::Int([0; 4]) };
    let component = |c: u32| if c < arg.width { ex.get(arg.slot, c, lane) } else { 0 };
    if arg.scalar.is_float() {
        Coordinates::Float(std::array::from_fn(|c| f32::from_bits(component(c as u32) as u32)))
    } else {
        Coordinates::Int(std::array::from_fn(|c| component(c as u32) as i64))
    }
}

/// `read_imagef` / `read_imagei` / `read_imageui`.
pub(crate) fn read<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    value: ImageValue,
    mask: &Mask,
) {
    let Some(image_arg) = call.args.first() else { return };
    let sampler_arg = (call.args.len() == 3).then(|| call.args[1].slot);
    let mut touched = Touched::new(ex.lanes());
    let mut texel_size = 0;
    for lane in mask.iter() {
        let handle = ex.get(image_arg.slot, 0, lane);
        let Some((image, storage, base)) = ex.image(handle) else {
            for c in 0..4 {
                ex.set(call.dst, c, lane, 0);
            }
            continue;
        };
        texel_size = image.pixel_bytes;
        // An invalid sampler cannot get here (sema and argument binding check them); read it
        // as the plainest sampler rather than fail.
        let sampler = sampler_arg
            .map(|slot| SamplerBits::decode(ex.get(slot, 0, lane) as u32).unwrap_or(PLAIN_SAMPLER));
        let kind = image.desc.kind;
        let footprint = footprint(
            image.desc.extent(),
            kind.dimensions() as usize,
            kind.is_array(),
            coordinates(ex, call, lane),
            sampler,
            value == ImageValue::Float,
        );
        let mut result = [0u32; 4];
        if value == ImageValue::Float {
            let mut texels = footprint.taps.iter().enumerate().map(|(round, (at, weight))| {
                let texel = match at {
                    Some(at) => {
                        let offset = image.desc.offset(*at, image.pixel_bytes);
                        touched.add(round, lane, base.wrapping_add(offset));
                        let bytes = read_texel(storage, offset, image.pixel_bytes);
                        texel::read_float(image.format, &bytes)
                    }
                    None => texel::border_float(image.format),
                };
                (texel, *weight)
            });
            let color = if footprint.taps.len() == 1 {
                // Nearest: the texel itself (a weighted sum would turn -0.0 into 0.0).
                texels.next().map_or([0.0; 4], |(texel, _)| texel)
            } else {
                texels.fold([0f32; 4], |mut sum, (texel, weight)| {
                    for c in 0..4 {
                        sum[c] += weight * texel[c];
                    }
                    sum
                })
            };
            result = color.map(f32::to_bits);
        } else if let Some((at, _)) = footprint.taps.first() {
            result = match at {
                Some(at) => {
                    let offset = image.desc.offset(*at, image.pixel_bytes);
                    touched.add(0, lane, base.wrapping_add(offset));
                    let bytes = read_texel(storage, offset, image.pixel_bytes);
                    texel::read_integer(image.format, &bytes)
                }
                None => texel::border_integer(image.format),
            };
        }
        let scalar = value.scalar();
        for (c, bits) in result.into_iter().enumerate() {
            ex.set(call.dst, c as u32, lane, normalise(scalar, u64::from(bits)));
        }
    }
    touched.notify(ex, texel_size, call.site, AccessKind::Load);
}

/// `write_imagef` / `write_imagei` / `write_imageui`.
pub(crate) fn write<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    value: ImageValue,
    mask: &Mask,
) {
    let (Some(image_arg), Some(coord_arg), Some(color_arg)) =
        (call.args.first(), call.args.get(1), call.args.get(2))
    else {
        return;
    };
    let mut touched = Touched::new(ex.lanes());
    let mut texel_size = 0;
    // The bytes each lane writes, two 8-byte components (a texel is at most 16 bytes).
    let mut texels = vec![0u64; 2 * ex.lanes()];
    for lane in mask.iter() {
        let handle = ex.get(image_arg.slot, 0, lane);
        let Some((image, storage, base)) = ex.image(handle) else { continue };
        texel_size = image.pixel_bytes;
        let kind = image.desc.kind;
        let coordinate: [i64; 4] = std::array::from_fn(|c| {
            if (c as u32) < coord_arg.width {
                ex.get(coord_arg.slot, c as u32, lane) as i64
            } else {
                0
            }
        });
        let extent = image.desc.extent();
        let dimensions = kind.dimensions() as usize;
        // (x, y, slice): the layer of an array is its slice.
        let mut at = [0i64; 3];
        at[..dimensions].copy_from_slice(&coordinate[..dimensions]);
        if kind.is_array() {
            at[2] = coordinate[dimensions];
        }
        let inside = at.iter().zip(extent).all(|(&i, n)| u64::try_from(i).is_ok_and(|i| i < n));
        if !inside {
            let written = &coordinate[..coord_arg.width.clamp(1, 4) as usize];
            let message = format!(
                "{} at {written:?} outside the {} of {extent:?} texels (width, height, slices); nothing is written",
                call.function.name(),
                kind.name(),
            );
            let (span, object) = ex.site_span_and_object(call.site);
            ex.report(ReportKind::OutOfBounds, span, lane, message, object);
            continue;
        }
        let color: [u32; 4] = std::array::from_fn(|c| {
            if (c as u32) < color_arg.width {
                ex.get(color_arg.slot, c as u32, lane) as u32
            } else {
                0
            }
        });
        let mut bytes = [0u8; MAX_TEXEL_BYTES];
        let n = match value {
            ImageValue::Float => {
                texel::write_float(image.format, color.map(f32::from_bits), &mut bytes)
            }
            ImageValue::Int => texel::write_integer(image.format, color, true, &mut bytes),
            ImageValue::UInt => texel::write_integer(image.format, color, false, &mut bytes),
        };
        let offset = image.desc.offset(at.map(|i| i as u64), image.pixel_bytes);
        write_texel(storage, offset, &bytes[..n]);
        // A texel encoded from an undefined colour is undefined, and storing it is reported.
        ex.note_call_write(lane, base.wrapping_add(offset), n as u32);
        touched.add(0, lane, base.wrapping_add(offset));
        for (c, chunk) in bytes.chunks(8).enumerate().take(2) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            texels[c * ex.lanes() + lane] = u64::from_le_bytes(word);
        }
    }
    touched.notify_stores(ex, texel_size, call.site, &texels);
}

/// `get_image_width` … `get_image_array_size`: the descriptor's values.
pub(crate) fn query<O: Observer>(
    ex: &mut GroupExec<'_, O>,
    call: &BuiltinCall,
    query: ImageQuery,
    mask: &Mask,
) {
    let Some(image_arg) = call.args.first() else { return };
    for lane in mask.iter() {
        let handle = ex.get(image_arg.slot, 0, lane);
        let desc = ex.image(handle).map(|(image, _, _)| image.desc);
        let values: Vec<u64> = match desc {
            None => vec![0; call.width.max(1) as usize],
            Some(d) => match query {
                ImageQuery::Width => vec![d.width],
                ImageQuery::Height => vec![d.height],
                ImageQuery::Depth => vec![d.depth],
                ImageQuery::ChannelDataType => vec![u64::from(d.channel_type)],
                ImageQuery::ChannelOrder => vec![u64::from(d.channel_order)],
                ImageQuery::ArraySize => vec![d.array_size],
                // `int2` for 2-D images and arrays, `int4` (w = 0) for 3-D ones.
                ImageQuery::Dim => vec![d.width, d.height, d.depth, 0],
            },
        };
        for c in 0..call.width.max(1) {
            let v = values.get(c as usize).copied().unwrap_or(0);
            ex.set(call.dst, c, lane, normalise(call.result, v));
        }
    }
}
