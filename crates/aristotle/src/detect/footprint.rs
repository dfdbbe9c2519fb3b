//! Classifies what work-items read as a MAP: given, for some work-items `(ty, tx)`, the set of
//! elements each reads from one buffer, and a row length `W` that turns an element index into
//! `(row, col)`, find the eMAP (how the set moves from one work-item to its neighbours in x
//! and y) and the iMAP (the shape of the set around the work-item's base).
//!
//! The classifier works on concrete sets, so the same code judges sets predicted from the
//! kernel's index forms and sets read off the simulator's trace.

use std::collections::{BTreeMap, BTreeSet};

use crate::map::{EMap, IMapKind, Map, MAX_BLOCK_RADIUS};

/// The elements each work-item reads, keyed by its global id `(ty, tx)`.
pub type Footprints = BTreeMap<[i64; 2], BTreeSet<i64>>;

/// A MAP found for a buffer, with what it was found from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified {
    pub map: Map,
    /// The row length the buffer was read with.
    pub width: i64,
    /// Offsets `(dr, dc)` from the work-item's base `eMAP · (ty, tx)` (not centred).
    pub offsets: BTreeSet<(i64, i64)>,
}

/// Tries the row lengths in `widths` and returns the first that gives a valid MAP, or why
/// none does (the reason found with the first width tried).
///
/// A linear index fixes the elements but not the row length: `ty·(W+1) + tx` is the
/// diagonal-slanted MAP-114 on rows of `W` and the identity on rows of `W + 1`. A matrix
/// fills its buffer with whole rows, so widths that divide the buffer's length are tried
/// first, largest first, then the others.
pub fn classify(
    footprints: &Footprints,
    widths: &[i64],
    buffer_len: i64,
) -> Result<Classified, String> {
    let mut widths: Vec<i64> = widths.iter().copied().filter(|w| *w >= 2).collect();
    let whole_rows = |w: i64| buffer_len > 0 && buffer_len % w == 0;
    widths.sort_unstable_by(|a, b| whole_rows(*b).cmp(&whole_rows(*a)).then(b.cmp(a)));
    widths.dedup();
    if footprints.values().all(BTreeSet::is_empty) {
        return Err("no work-item of the sampled work-groups reads it".into());
    }
    let mut first_error = None;
    for width in &widths {
        match classify_with_width(footprints, *width, buffer_len) {
            Ok(c) => return Ok(c),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // A vector every work-item walks whole (`x[k]` under a loop over `k`, as in a
    // matrix-vector product) has no row step in its index: it is one row, the buffer's length.
    // Tried last, so a matrix is never read as one long row while a row length fits it.
    if buffer_len >= 2 && !widths.contains(&buffer_len) {
        match classify_with_width(footprints, buffer_len, buffer_len) {
            Ok(c) => return Ok(c),
            // Read as one row it is still no MAP: say why, unless a row length said so first.
            Err(e) if first_error.is_none() && e.contains("33 MAPs") => first_error = Some(e),
            Err(_) => {}
        }
    }
    Err(first_error.unwrap_or_else(|| {
        "the index has no row length (a 1-D access: no term is a multiple of a row)".into()
    }))
}

fn to_2d(e: i64, width: i64) -> (i64, i64) {
    (e.div_euclid(width), e.rem_euclid(width))
}

fn classify_with_width(
    footprints: &Footprints,
    width: i64,
    buffer_len: i64,
) -> Result<Classified, String> {
    let cells = |item: &[i64; 2]| -> Option<BTreeSet<(i64, i64)>> {
        footprints
            .get(item)
            .filter(|s| !s.is_empty())
            .map(|s| s.iter().map(|e| to_2d(*e, width)).collect())
    };
    // The eMAP column of a coordinate: how the set moves to the next work-item along it.
    let shift_along = |step: [i64; 2]| -> Result<Option<(i64, i64)>, String> {
        for item in footprints.keys() {
            let next = [item[0] + step[0], item[1] + step[1]];
            let (Some(here), Some(there)) = (cells(item), cells(&next)) else { continue };
            let (a, b) = (here.iter().next().copied(), there.iter().next().copied());
            let (Some(a), Some(b)) = (a, b) else { continue };
            let shift = (b.0 - a.0, b.1 - a.1);
            let moved: BTreeSet<(i64, i64)> =
                here.iter().map(|(r, c)| (r + shift.0, c + shift.1)).collect();
            if moved != there || here.len() != there.len() {
                return Err(format!(
                    "work-items ({}, {}) and ({}, {}) read sets that are not a translation of each other",
                    item[0], item[1], next[0], next[1]
                ));
            }
            return Ok(Some(shift));
        }
        Ok(None)
    };
    let along_x = shift_along([0, 1])?.unwrap_or((0, 0));
    let observed_y = shift_along([1, 0])?;
    let along_y = observed_y.unwrap_or((0, 0));
    let mut matrix = [[along_y.0, along_x.0], [along_y.1, along_x.1]];
    if matrix.iter().flatten().any(|m| !(0..=1).contains(m)) {
        return Err(format!(
            "with rows of {width} elements, the base moves by (row {}, col {}) from one work-item to the next along x and (row {}, col {}) along y, which no eMAP does (each coordinate must move by 0 or 1)",
            along_x.0, along_x.1, along_y.0, along_y.1
        ));
    }
    let emap = emap_of(&matrix).ok_or("no eMAP has this matrix")?;
    let mut offsets: Option<BTreeSet<(i64, i64)>> = None;
    for (item, _) in footprints.iter() {
        let Some(here) = cells(item) else { continue };
        let [ty, tx] = *item;
        let base = (matrix[0][0] * ty + matrix[0][1] * tx, matrix[1][0] * ty + matrix[1][1] * tx);
        let relative: BTreeSet<(i64, i64)> =
            here.iter().map(|(r, c)| (r - base.0, c - base.1)).collect();
        match &offsets {
            None => offsets = Some(relative),
            Some(o) if *o == relative => {}
            Some(_) => {
                return Err(format!(
                    "work-item ({ty}, {tx}) reads another shape around its base than the others"
                ))
            }
        }
    }
    let offsets = offsets.ok_or("no work-item reads it")?;
    let rows = if width > 0 { buffer_len / width } else { 0 };
    let (imap, radius) = imap_of(&offsets, width, rows)?;
    // In a launch one work-item high (a 1-D kernel) no work-item has a neighbour along y, so
    // how the base moves with `ty` is not observed: `ty` is 0 everywhere. A whole row that
    // every work-item of such a group reads (a vector walked by a loop counter) is then the
    // Row MAP whose row follows `ty`, MAP-205 [1 0; 0 0]: the work-items of a row of the
    // group share one row, which is what a 1-D group reading one vector does. Other iMAPs are
    // left as observed.
    let emap = match (observed_y, imap, Map::new(emap, imap)) {
        (None, IMapKind::Row, None) if matrix[0][0] == 0 && matrix[1][0] == 0 => {
            matrix[0][0] = 1;
            emap_of(&matrix).unwrap_or(emap)
        }
        _ => emap,
    };
    let map = Map::new(emap, imap).ok_or_else(|| {
        format!(
            "{emap} ({}) with a {} iMAP is not one of the 33 MAPs: the pair is {}",
            emap.formula(),
            imap.name(),
            if matches!(imap, IMapKind::Row | IMapKind::Column) {
                "over- or under-specified (the iMAP sweeps a coordinate the eMAP also moves, or none moves)"
            } else {
                "underspecified (a coordinate of the base does not move with the work-item, so work-items collapse onto one row or column)"
            }
        )
    })?;
    let map = if imap == IMapKind::Block { map.with_radius(radius)? } else { map };
    Ok(Classified { map, width, offsets })
}

/// The iMAP of a set of offsets, with the Block radius.
fn imap_of(
    offsets: &BTreeSet<(i64, i64)>,
    width: i64,
    rows: i64,
) -> Result<(IMapKind, u32), String> {
    let n = offsets.len() as i64;
    let (r_lo, r_hi) = span_of(offsets.iter().map(|o| o.0));
    let (c_lo, c_hi) = span_of(offsets.iter().map(|o| o.1));
    let (height, breadth) = (r_hi - r_lo + 1, c_hi - c_lo + 1);
    if n == 1 {
        return Ok((IMapKind::Single, 0));
    }
    if height == 1 && breadth == n {
        if n == width {
            return Ok((IMapKind::Row, 0));
        }
        return Err(format!("each work-item reads {n} consecutive elements of a row of {width}: a partial row, which no iMAP describes"));
    }
    if breadth == 1 && height == n {
        if n == rows || n == width {
            return Ok((IMapKind::Column, 0));
        }
        return Err(format!("each work-item reads {n} consecutive elements of a column of {rows}: a partial column, which no iMAP describes"));
    }
    if height == breadth && height % 2 == 1 && n == height * breadth {
        let radius = (height - 1) / 2;
        if radius > i64::from(MAX_BLOCK_RADIUS) {
            return Err(format!("each work-item reads a {height}x{height} block: radius {radius} is above {MAX_BLOCK_RADIUS}"));
        }
        return Ok((IMapKind::Block, radius as u32));
    }
    if n == 5 && height == 3 && breadth == 3 {
        let (cr, cc) = (r_lo + 1, c_lo + 1);
        let cross: BTreeSet<(i64, i64)> =
            [(cr - 1, cc), (cr, cc - 1), (cr, cc), (cr, cc + 1), (cr + 1, cc)]
                .into_iter()
                .collect();
        if *offsets == cross {
            return Ok((IMapKind::Neighbor, 1));
        }
    }
    Err(format!(
        "each work-item reads {n} elements spanning {height} rows and {breadth} columns around its base, a shape no iMAP describes (one element, a whole row or column, a square block, the 5-point cross)"
    ))
}

fn span_of(values: impl Iterator<Item = i64>) -> (i64, i64) {
    values.fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// A short description of a set of elements for messages: count and first few `(row, col)`.
pub fn summarise(elements: &BTreeSet<i64>, width: i64) -> String {
    let shown: Vec<String> = elements
        .iter()
        .take(6)
        .map(|e| {
            let (r, c) = to_2d(*e, width.max(1));
            format!("({r},{c})")
        })
        .collect();
    let more = if elements.len() > 6 { ", …" } else { "" };
    format!("{} elements {{{}{more}}}", elements.len(), shown.join(", "))
}

/// The eMAP whose matrix is `matrix` (rows: how the base row and column follow ty and tx).
fn emap_of(matrix: &[[i64; 2]; 2]) -> Option<EMap> {
    EMap::all().find(|e| {
        e.matrix().iter().flatten().zip(matrix.iter().flatten()).all(|(a, b)| i64::from(*a) == *b)
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    fn footprints(f: impl Fn(i64, i64) -> Vec<i64>) -> Footprints {
        let mut out = Footprints::new();
        for ty in 4..8 {
            for tx in 4..8 {
                out.insert([ty, tx], f(ty, tx).into_iter().collect());
            }
        }
        out
    }

    #[test]
    fn identity_single_is_map_108() {
        let fp = footprints(|ty, tx| vec![ty * 64 + tx]);
        assert_eq!(classify(&fp, &[64, 63], 4096).unwrap().map.name(), "MAP-108");
    }

    #[test]
    fn diagonal_block_prefers_the_width_that_gives_a_map() {
        // (tx+ty, tx+ty) with a 3x3 block: coefficients W+1 tempt W+1 as the row length.
        let fp = footprints(|ty, tx| {
            let b = tx + ty;
            (0..3).flat_map(|dr| (0..3).map(move |dc| (b + dr) * 40 + b + dc)).collect()
        });
        let c = classify(&fp, &[41, 40], 1600).unwrap();
        assert_eq!((c.map.name(), c.map.radius, c.width), ("MAP-416".to_string(), 1, 40));
    }

    #[test]
    fn a_partial_row_is_refused_with_its_size() {
        let fp = footprints(|ty, _| (0..4).map(|k| ty * 32 + k).collect());
        let e = classify(&fp, &[32], 1024).unwrap_err();
        assert!(e.contains("partial row"), "{e}");
    }

    #[test]
    fn a_vector_every_item_of_a_one_high_group_walks_is_map_205() {
        // `x[k]` for k < 256 in a 1-D kernel: no row step in the index, no neighbour along y.
        let mut fp = Footprints::new();
        for tx in 64..128 {
            fp.insert([0, tx], (0..256).collect());
        }
        let c = classify(&fp, &[], 256).unwrap();
        assert_eq!((c.map.name(), c.width), ("MAP-205".to_string(), 256));
        // The same vector read by every work-item of a 2-D group is underspecified: the rows
        // of the group are observed not to move it.
        let fp = footprints(|_, _| (0..256).collect());
        let e = classify(&fp, &[], 256).unwrap_err();
        assert!(e.contains("not one of the 33 MAPs"), "{e}");
        // A 1-D copy `in[gx]` has no row to sweep and stays refused.
        let mut fp = Footprints::new();
        for tx in 64..128 {
            fp.insert([0, tx], [tx].into_iter().collect());
        }
        assert!(classify(&fp, &[], 256).is_err());
    }

    #[test]
    fn rows_and_columns_and_crosses() {
        let row = footprints(|ty, _| (0..32).map(|k| ty * 32 + k).collect());
        assert_eq!(classify(&row, &[32], 1024).unwrap().map.name(), "MAP-205");
        let col = footprints(|_, tx| (0..32).map(|k| k * 32 + tx).collect());
        assert_eq!(classify(&col, &[32], 1024).unwrap().map.name(), "MAP-302");
        let cross = footprints(|ty, tx| {
            let c = (ty + 1) * 34 + tx + 1;
            vec![c, c - 1, c + 1, c - 34, c + 34]
        });
        assert_eq!(classify(&cross, &[34], 34 * 34).unwrap().map.name(), "MAP-508");
    }
}
