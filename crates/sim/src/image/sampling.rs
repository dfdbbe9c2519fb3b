//! Which texels a read touches, and with what weights (OpenCL 1.2 §8.2).
//!
//! Each spatial axis is addressed on its own: normalised coordinates are scaled by the size,
//! then the addressing mode maps them to one texel index (nearest) or two indices and a
//! fraction (linear). Indices outside the image, where the mode lets them be (`CLAMP`, and
//! `NONE`, for which OpenCL leaves the result undefined), stand for the border colour. The
//! footprint is the product of the axes: 1 texel for nearest, 2, 4 or 8 for linear. The
//! layer of an image array is never normalised or filtered: it is rounded to nearest even
//! and clamped.

use clmap_lang::ir::{AddressingMode, FilterMode, SamplerBits};

/// A coordinate as the kernel passed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Coordinates {
    Int([i64; 4]),
    Float([f32; 4]),
}

/// Where a read lands: texels `(x, y, slice)` (`None`: the border colour) and their weights.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Footprint {
    pub taps: Vec<(Option<[u64; 3]>, f32)>,
}

/// Texel indices along one axis with their weights (one for nearest, two for linear).
#[derive(Clone, Copy, Debug, PartialEq)]
struct AxisTaps {
    index: [Option<u64>; 2],
    weight: [f32; 2],
    count: usize,
}

impl AxisTaps {
    fn one(index: Option<u64>) -> AxisTaps {
        AxisTaps { index: [index, None], weight: [1.0, 0.0], count: 1 }
    }
}

/// `i` as a texel index of an axis of `size` texels, or `None` outside.
fn inside(i: i64, size: u64) -> Option<u64> {
    u64::try_from(i).ok().filter(|&i| i < size)
}

/// `floor` to an index; NaN becomes 0 and infinities saturate (`as` does both).
fn floor_index(x: f32) -> i64 {
    x.floor() as i64
}

fn frac(x: f32) -> f32 {
    x - x.floor()
}

/// The sampled texels of one axis for a float coordinate.
fn axis(coordinate: f32, size: u64, sampler: SamplerBits, linear: bool) -> AxisTaps {
    let n = size as f32;
    let top = i64::try_from(size).unwrap_or(i64::MAX).saturating_sub(1);
    let normalized = sampler.normalized_coords;
    match sampler.addressing {
        AddressingMode::Repeat | AddressingMode::MirroredRepeat => {
            // Defined for normalised coordinates only; unnormalised ones are normalised
            // first so the result stays a texel of the image.
            let s = if normalized { coordinate } else { coordinate / n };
            let u = if sampler.addressing == AddressingMode::Repeat {
                (s - s.floor()) * n
            } else {
                let mirrored = (s - 2.0 * (0.5 * s).round_ties_even()).abs();
                mirrored * n
            };
            let repeat = sampler.addressing == AddressingMode::Repeat;
            if !linear {
                let mut i = floor_index(u);
                if repeat && i > top {
                    i -= top + 1;
                }
                return AxisTaps::one(inside(i.clamp(0, top), size));
            }
            let i0 = floor_index(u - 0.5);
            let i1 = i0.saturating_add(1);
            let (i0, i1) = if repeat {
                (if i0 < 0 { i0 + top + 1 } else { i0 }, if i1 > top { i1 - (top + 1) } else { i1 })
            } else {
                (i0.max(0), i1.min(top))
            };
            let a = frac(u - 0.5);
            AxisTaps {
                index: [inside(i0.clamp(0, top), size), inside(i1.clamp(0, top), size)],
                weight: [1.0 - a, a],
                count: 2,
            }
        }
        mode => {
            let u = if normalized { coordinate * n } else { coordinate };
            let address = |i: i64| match mode {
                AddressingMode::ClampToEdge => inside(i.clamp(0, top), size),
                _ => inside(i, size),
            };
            if !linear {
                return AxisTaps::one(address(floor_index(u)));
            }
            let i0 = floor_index(u - 0.5);
            let a = frac(u - 0.5);
            AxisTaps {
                index: [address(i0), address(i0.saturating_add(1))],
                weight: [1.0 - a, a],
                count: 2,
            }
        }
    }
}

/// The sampled texels of one axis for an integer coordinate: exact, whatever its size (with
/// an integer coordinate OpenCL allows only unnormalised nearest sampling without repeat).
fn integer_axis(coordinate: i64, size: u64, addressing: AddressingMode) -> AxisTaps {
    let top = i64::try_from(size).unwrap_or(i64::MAX).saturating_sub(1);
    match addressing {
        AddressingMode::ClampToEdge => AxisTaps::one(inside(coordinate.clamp(0, top), size)),
        _ => AxisTaps::one(inside(coordinate, size)),
    }
}

/// The texels of a read of an image of `extent` (width, height, slices) whose first
/// `dimensions` coordinates are spatial and, for an array, the next one the layer.
/// `sampler` is `None` for a sampler-less read (integer coordinates, no addressing: outside
/// is the border colour). `filter_linear` is false for integer reads, which OpenCL defines
/// only with nearest filtering.
pub(crate) fn footprint(
    extent: [u64; 3],
    dimensions: usize,
    arrayed: bool,
    coordinates: Coordinates,
    sampler: Option<SamplerBits>,
    filter_linear: bool,
) -> Footprint {
    let linear = filter_linear && sampler.is_some_and(|s| s.filter == FilterMode::Linear);
    let unsampled = SamplerBits {
        normalized_coords: false,
        addressing: AddressingMode::None,
        filter: FilterMode::Nearest,
    };
    let bits = sampler.unwrap_or(unsampled);
    let mut axes = [AxisTaps::one(Some(0)); 3];
    for (d, slot) in axes.iter_mut().enumerate().take(dimensions.min(3)) {
        *slot = match coordinates {
            // Integer coordinates are exact on the unnormalised nearest path; other samplers
            // (undefined with integers in OpenCL) take them as floats.
            Coordinates::Int(c) if !bits.normalized_coords && !linear => {
                integer_axis(c[d], extent[d], bits.addressing)
            }
            Coordinates::Int(c) => axis(c[d] as f32, extent[d], bits, linear),
            Coordinates::Float(c) => axis(c[d], extent[d], bits, linear),
        };
    }
    if arrayed {
        let layers = extent[2];
        let top = i64::try_from(layers).unwrap_or(i64::MAX).saturating_sub(1);
        let layer = match coordinates {
            Coordinates::Int(c) => c[dimensions],
            Coordinates::Float(c) => c[dimensions].round_ties_even() as i64,
        };
        // The layer slot is the third axis whatever the spatial dimensions.
        axes[2] = if sampler.is_some() {
            AxisTaps::one(inside(layer.clamp(0, top), layers))
        } else {
            AxisTaps::one(inside(layer, layers))
        };
        if dimensions == 1 {
            axes[1] = AxisTaps::one(Some(0));
        }
    }
    let mut taps = Vec::with_capacity(8);
    for k in 0..axes[2].count {
        for j in 0..axes[1].count {
            for i in 0..axes[0].count {
                let weight = axes[0].weight[i] * axes[1].weight[j] * axes[2].weight[k];
                let texel = match (axes[0].index[i], axes[1].index[j], axes[2].index[k]) {
                    (Some(x), Some(y), Some(z)) => Some([x, y, z]),
                    _ => None,
                };
                taps.push((texel, weight));
            }
        }
    }
    Footprint { taps }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler(normalized: bool, addressing: AddressingMode, filter: FilterMode) -> SamplerBits {
        SamplerBits { normalized_coords: normalized, addressing, filter }
    }

    fn nearest_1d(x: f32, size: u64, normalized: bool, mode: AddressingMode) -> Option<u64> {
        let s = sampler(normalized, mode, FilterMode::Nearest);
        let f = footprint(
            [size, 1, 1],
            1,
            false,
            Coordinates::Float([x, 0.0, 0.0, 0.0]),
            Some(s),
            true,
        );
        assert_eq!(f.taps.len(), 1);
        f.taps[0].0.map(|t| t[0])
    }

    #[test]
    fn nearest_addressing_modes_at_the_border() {
        use AddressingMode as A;
        assert_eq!(nearest_1d(-0.5, 4, false, A::ClampToEdge), Some(0));
        assert_eq!(nearest_1d(9.0, 4, false, A::ClampToEdge), Some(3));
        assert_eq!(nearest_1d(-0.5, 4, false, A::Clamp), None);
        assert_eq!(nearest_1d(4.0, 4, false, A::Clamp), None);
        assert_eq!(nearest_1d(3.9, 4, false, A::Clamp), Some(3));
        assert_eq!(nearest_1d(4.5, 4, false, A::None), None);
        // Repeat: 1.125 wraps to 0.125 → texel 0; -0.125 wraps to 0.875 → texel 3.
        assert_eq!(nearest_1d(1.125, 4, true, A::Repeat), Some(0));
        assert_eq!(nearest_1d(-0.125, 4, true, A::Repeat), Some(3));
        // Mirrored repeat: 1.125 mirrors to 0.875 → texel 3; -0.125 to 0.125 → texel 0.
        assert_eq!(nearest_1d(1.125, 4, true, A::MirroredRepeat), Some(3));
        assert_eq!(nearest_1d(-0.125, 4, true, A::MirroredRepeat), Some(0));
        assert_eq!(nearest_1d(0.625, 4, true, A::ClampToEdge), Some(2));
        assert_eq!(nearest_1d(f32::NAN, 4, false, A::ClampToEdge), Some(0));
        assert_eq!(nearest_1d(f32::INFINITY, 4, false, A::Clamp), None);
    }

    #[test]
    fn linear_filtering_weighs_the_four_neighbours() {
        let s = sampler(false, AddressingMode::ClampToEdge, FilterMode::Linear);
        let f = footprint(
            [2, 2, 1],
            2,
            false,
            Coordinates::Float([1.0, 0.75, 0.0, 0.0]),
            Some(s),
            true,
        );
        // u - 0.5 = 0.5 → i0 = 0, a = 0.5; v - 0.5 = 0.25 → j0 = 0, b = 0.25.
        assert_eq!(
            f.taps,
            vec![
                (Some([0, 0, 0]), 0.5 * 0.75),
                (Some([1, 0, 0]), 0.5 * 0.75),
                (Some([0, 1, 0]), 0.5 * 0.25),
                (Some([1, 1, 0]), 0.5 * 0.25),
            ]
        );
        // Integer reads filter nearest whatever the sampler says.
        let f = footprint(
            [2, 2, 1],
            2,
            false,
            Coordinates::Float([1.0, 0.75, 0.0, 0.0]),
            Some(s),
            false,
        );
        assert_eq!(f.taps, vec![(Some([1, 0, 0]), 1.0)]);
    }

    #[test]
    fn array_layers_round_and_clamp() {
        let s = sampler(true, AddressingMode::Clamp, FilterMode::Nearest);
        let f =
            footprint([4, 1, 3], 1, true, Coordinates::Float([0.5, 1.5, 0.0, 0.0]), Some(s), true);
        assert_eq!(f.taps, vec![(Some([2, 0, 2]), 1.0)], "1.5 rounds to even 2");
        let f =
            footprint([4, 1, 3], 1, true, Coordinates::Float([0.5, 7.0, 0.0, 0.0]), Some(s), true);
        assert_eq!(f.taps, vec![(Some([2, 0, 2]), 1.0)], "layers clamp");
        let f = footprint([4, 2, 3], 2, true, Coordinates::Int([1, 1, 5, 0]), None, true);
        assert_eq!(f.taps, vec![(None, 1.0)], "a sampler-less read outside is the border");
    }
}
