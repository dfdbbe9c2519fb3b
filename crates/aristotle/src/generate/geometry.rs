//! Where a work-group's data lies and how a local tile holds it (§5.1.1), as plain numbers:
//! the kernel emitter turns these into code, the tests check them against the paper.

use crate::generate::Variant;
use serde::Serialize;

use crate::map::{EMap, IMapKind, Map};

/// A linear form `p·ty + q·tx` with 0/1 coefficients (one row of an eMAP).
pub type Form = [u8; 2];

/// The extent of a form over a work-group: the number of distinct values it takes.
pub fn exact_extent(form: Form, work_group: [usize; 2]) -> usize {
    let [wx, wy] = work_group;
    usize::from(form[0]) * (wy - 1) + usize::from(form[1]) * (wx - 1) + 1
}

/// The paper's max-approach extent: `WG` for one `1`, `2·WG` for two, and 1 for none (a
/// coordinate that does not move with the work-item).
pub fn max_extent(form: Form, work_group: [usize; 2]) -> usize {
    let [wx, wy] = work_group;
    (usize::from(form[0]) * wy + usize::from(form[1]) * wx).max(1)
}

fn sub(a: Form, b: Form) -> Option<Form> {
    let d0 = a[0].checked_sub(b[0])?;
    let d1 = a[1].checked_sub(b[1])?;
    Some([d0, d1])
}

fn is_unit(f: Form) -> bool {
    u16::from(f[0]) + u16::from(f[1]) == 1
}

/// How tile coordinates `(u, v)` relate to the element `(r, c)` relative to the group's
/// origin. Sheared layouts let the min-approach store diagonal and slanted footprints
/// without the empty corners of their bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shear {
    /// `u = r`, `v = c`.
    None,
    /// `u = r`, `v = c − r`: for footprints slanted to the right (eMAPs 07, 09, 14, 15, 16).
    Columns,
    /// `u = r − c`, `v = c`: for footprints slanted downwards (eMAPs 12, 13).
    Rows,
}

/// The shape of a local tile: a core of `core_rows × core_cols` cells that the work-group's
/// base indices fill, a halo of `halo_rows`/`halo_cols` cells on each side for the iMAP's
/// reach, and a row pitch that may exceed the row's width (padding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileLayout {
    pub shear: Shear,
    pub core_rows: usize,
    pub core_cols: usize,
    pub halo_rows: usize,
    pub halo_cols: usize,
    /// Cells from one tile row to the next (`cols()` or more).
    pub pitch: usize,
}

impl TileLayout {
    pub fn rows(&self) -> usize {
        self.core_rows + 2 * self.halo_rows
    }

    pub fn cols(&self) -> usize {
        self.core_cols + 2 * self.halo_cols
    }

    /// Cells allocated.
    pub fn cells(&self) -> usize {
        self.rows() * self.pitch
    }

    /// Cells holding data (the allocation less the padding).
    pub fn used_cells(&self) -> usize {
        self.rows() * self.cols()
    }
}

/// The layout of the tile for a Single, Block or Neighbor MAP in a local-memory variant.
///
/// The max-approach takes the bounding box of the footprint (§5.1.1: `(w + 2R) × (h + 2R)`);
/// the min-approach stores only the slanted band the footprint covers, e.g. `(WG + 2R) ×
/// (4R + 1)` cells for MAP-407; the padded variant adds one cell to each max-approach row.
pub fn block_tile(map: &Map, variant: Variant, work_group: [usize; 2]) -> TileLayout {
    let radius = map.radius as usize;
    let row = map.emap.row_coefficients();
    let col = map.emap.col_coefficients();
    match variant {
        Variant::LocalMin => min_tile(row, col, radius, work_group),
        Variant::NoLocal | Variant::LocalMax | Variant::LocalPadded => {
            let mut tile = TileLayout {
                shear: Shear::None,
                core_rows: max_extent(row, work_group),
                core_cols: max_extent(col, work_group),
                halo_rows: radius,
                halo_cols: radius,
                pitch: 0,
            };
            tile.pitch = tile.cols() + usize::from(variant == Variant::LocalPadded);
            tile
        }
    }
}

fn min_tile(row: Form, col: Form, radius: usize, work_group: [usize; 2]) -> TileLayout {
    let (shear, core_rows, core_cols, halo_rows, halo_cols) = if row == col {
        // Row and column move together: a diagonal line, one cell wide in `v`.
        (Shear::Columns, exact_extent(row, work_group), 1, radius, 2 * radius)
    } else if let Some(d) = sub(col, row).filter(|d| is_unit(*d)) {
        (
            Shear::Columns,
            exact_extent(row, work_group),
            exact_extent(d, work_group),
            radius,
            2 * radius,
        )
    } else if let Some(d) = sub(row, col).filter(|d| is_unit(*d)) {
        (
            Shear::Rows,
            exact_extent(d, work_group),
            exact_extent(col, work_group),
            2 * radius,
            radius,
        )
    } else {
        (Shear::None, exact_extent(row, work_group), exact_extent(col, work_group), radius, radius)
    };
    let mut tile = TileLayout { shear, core_rows, core_cols, halo_rows, halo_cols, pitch: 0 };
    tile.pitch = tile.cols();
    tile
}

/// For Row and Column MAPs: the work-group walks along the row (column) in chunks; the tile
/// holds `lines × chunk` cells (Row) or `chunk × lines` (Column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StripTile {
    /// Distinct rows (Row MAPs) or columns (Column MAPs) the group reads.
    pub lines: usize,
    /// Elements of each line staged per step.
    pub chunk: usize,
    /// Cells from one line to the next in the tile.
    pub pitch: usize,
}

impl StripTile {
    pub fn cells(&self) -> usize {
        self.lines * self.pitch
    }
}

/// The strip tile of a Row or Column MAP.
pub fn strip_tile(map: &Map, variant: Variant, work_group: [usize; 2]) -> StripTile {
    let [wx, wy] = work_group;
    let form = match map.imap {
        IMapKind::Column => map.emap.col_coefficients(),
        _ => map.emap.row_coefficients(),
    };
    let lines = match variant {
        Variant::LocalMin => exact_extent(form, work_group),
        _ => max_extent(form, work_group),
    };
    // The chunk runs along the work-group's x for rows, y for columns, so staging a chunk is
    // one pass of the group over it.
    let chunk = if map.imap == IMapKind::Column { wy } else { wx };
    let pitch = chunk + usize::from(variant == Variant::LocalPadded);
    StripTile { lines, chunk, pitch }
}

/// Rows and columns of the input array: the base indices of an `n × n` grid of work-items
/// plus the iMAP's reach (a halo of `R` on each side, the whole row or column for Row and
/// Column MAPs). Sized from the max-approach extents so that every tile the local variants
/// stage lies inside the array.
pub fn input_shape(map: &Map, n: usize) -> (usize, usize) {
    let radius = map.radius as usize;
    let side = |form: Form| {
        let ones = usize::from(form[0]) + usize::from(form[1]);
        ones.max(1) * n + 2 * radius
    };
    (side(map.emap.row_coefficients()), side(map.emap.col_coefficients()))
}

/// The iMAP offsets `(dr, dc)` one work-item reads, in the order every variant sums them (the
/// order fixes the float rounding, so all variants give identical results).
pub fn block_offsets(map: &Map) -> Vec<(i64, i64)> {
    let r = i64::from(map.radius);
    match map.imap {
        IMapKind::Single => vec![(0, 0)],
        IMapKind::Neighbor => vec![(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)],
        _ => (-r..=r).flat_map(|dr| (-r..=r).map(move |dc| (dr, dc))).collect(),
    }
}

/// Reads per distinct element of one work-group's footprint: how often, on average, the group
/// reads each element it touches. 1 means no element is read twice, so a tile would add a copy
/// and save no global read (the stager refuses such a footprint).
pub fn group_reuse(map: &Map, work_group: [usize; 2]) -> f64 {
    let [wx, wy] = work_group;
    let (rows, cols) = (map.emap.row_coefficients(), map.emap.col_coefficients());
    let at =
        |form: Form, ty: usize, tx: usize| usize::from(form[0]) * ty + usize::from(form[1]) * tx;
    let items = (0..wy).flat_map(|ty| (0..wx).map(move |tx| (ty, tx)));
    let reads = (wx * wy) as f64;
    match map.imap {
        // Every work-item reads a whole line: the group reads each of its lines once per
        // work-item on it.
        IMapKind::Row | IMapKind::Column => {
            let form = if map.imap == IMapKind::Row { rows } else { cols };
            let lines: std::collections::BTreeSet<usize> =
                items.map(|(ty, tx)| at(form, ty, tx)).collect();
            reads / lines.len().max(1) as f64
        }
        _ => {
            let offsets = block_offsets(map);
            let cells: std::collections::BTreeSet<(i64, i64)> = items
                .flat_map(|(ty, tx)| {
                    let (r, c) = (at(rows, ty, tx) as i64, at(cols, ty, tx) as i64);
                    offsets.iter().map(move |(dr, dc)| (r + dr, c + dc))
                })
                .collect();
            reads * offsets.len() as f64 / cells.len().max(1) as f64
        }
    }
}

/// How a work-group's reads of each element split between the work-items of one warp (SIMD
/// group) and different warps. Work-items are numbered x fastest, `ty · wx + tx`, and warps
/// are consecutive runs of `simd` of them, as OpenCL devices schedule a work-group.
///
/// `within · across` is [`group_reuse`]: `across` is how many distinct warps read an element,
/// `within` how many work-items of one such warp read it in the same step. Work-items of one
/// warp reading one element in the same step are a broadcast the memory system serves with
/// one transaction, so staging saves global transactions only for the reuse across warps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WarpReuse {
    /// The warp (SIMD group) width the split was computed for.
    pub simd_width: usize,
    /// Reads of an element by the work-items of one warp, on average over the warps that
    /// read it.
    pub within_warp: f64,
    /// Distinct warps of the work-group reading an element, on average over its footprint.
    pub across_warps: f64,
}

impl WarpReuse {
    /// Whether every element a work-group reads more than once is read by one warp only: a
    /// broadcast, whose reuse a `__local` tile cannot turn into fewer global transactions.
    pub fn broadcast_only(&self) -> bool {
        self.within_warp > 1.0 && self.across_warps <= 1.0
    }

    /// "reuse 32× within a warp (broadcast), 1× across warps (warps of 32)".
    pub fn describe(&self) -> String {
        let times = |x: f64| {
            if (x - x.round()).abs() < 0.05 {
                format!("{}×", x.round())
            } else {
                format!("{x:.1}×")
            }
        };
        let broadcast = if self.within_warp > 1.0 { " (broadcast)" } else { "" };
        format!(
            "reuse {} within a warp{broadcast}, {} across warps (warps of {})",
            times(self.within_warp),
            times(self.across_warps),
            self.simd_width
        )
    }
}

/// The split of [`group_reuse`] between and within the warps of `simd` work-items of a
/// `work_group` reading through `map` (Row and Column MAPs: one step of the walk along the
/// line, which every step repeats).
pub fn warp_reuse(map: &Map, work_group: [usize; 2], simd: usize) -> WarpReuse {
    let [wx, wy] = work_group;
    let simd = simd.max(1);
    let (rows, cols) = (map.emap.row_coefficients(), map.emap.col_coefficients());
    let at = |form: Form, ty: usize, tx: usize| {
        (usize::from(form[0]) * ty + usize::from(form[1]) * tx) as i64
    };
    let offsets = match map.imap {
        IMapKind::Row | IMapKind::Column => vec![(0, 0)],
        _ => block_offsets(map),
    };
    // (element, warp) → reads; an element of a Row (Column) MAP is its line at the step.
    let mut reads: std::collections::BTreeMap<((i64, i64), usize), usize> = Default::default();
    for ty in 0..wy {
        for tx in 0..wx {
            let warp = (ty * wx + tx) / simd;
            let (r, c) = match map.imap {
                IMapKind::Row => (at(rows, ty, tx), 0),
                IMapKind::Column => (0, at(cols, ty, tx)),
                _ => (at(rows, ty, tx), at(cols, ty, tx)),
            };
            for (dr, dc) in &offsets {
                *reads.entry(((r + dr, c + dc), warp)).or_default() += 1;
            }
        }
    }
    let total: usize = reads.values().sum();
    let pairs = reads.len().max(1);
    let elements: std::collections::BTreeSet<(i64, i64)> =
        reads.keys().map(|(element, _)| *element).collect();
    WarpReuse {
        simd_width: simd,
        within_warp: total as f64 / pairs as f64,
        across_warps: pairs as f64 / elements.len().max(1) as f64,
    }
}

/// Whether `emap` places the group's base indices in a box the work-group fills completely
/// (no saving for the min-approach).
pub fn is_full_box(emap: EMap) -> bool {
    matches!(emap.number(), 8 | 10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{map_by_id, MapId};

    fn map(id: u16) -> Map {
        map_by_id(MapId(id)).unwrap()
    }

    #[test]
    fn map_407_wg8_r1_needs_100_and_50_cells() {
        let m = map(407).with_radius(1).unwrap();
        assert_eq!(block_tile(&m, Variant::LocalMax, [8, 8]).cells(), 100);
        assert_eq!(block_tile(&m, Variant::LocalMin, [8, 8]).cells(), 50);
    }

    #[test]
    fn max_approach_follows_the_paper_formula() {
        // (w + 2R) × (h + 2R) with w, h = WG or 2·WG.
        let m = map(416);
        let t = block_tile(&m, Variant::LocalMax, [16, 16]);
        assert_eq!((t.rows(), t.cols()), (38, 38));
        let t = block_tile(&map(108), Variant::LocalMax, [16, 16]);
        assert_eq!(t.cells(), 256);
        let t = block_tile(&map(108), Variant::LocalPadded, [16, 16]);
        assert_eq!(t.cells(), 16 * 17);
    }

    #[test]
    fn min_approach_never_exceeds_max() {
        for m in crate::map::valid_maps() {
            if matches!(m.imap, IMapKind::Row | IMapKind::Column) {
                let max = strip_tile(&m, Variant::LocalMax, [16, 16]).cells();
                assert!(strip_tile(&m, Variant::LocalMin, [16, 16]).cells() <= max);
            } else {
                let max = block_tile(&m, Variant::LocalMax, [16, 16]).cells();
                let min = block_tile(&m, Variant::LocalMin, [16, 16]).cells();
                assert!(min <= max, "{m}: {min} > {max}");
                if !is_full_box(m.emap) {
                    assert!(min < max, "{m}: the min-approach saves nothing");
                }
            }
        }
    }

    #[test]
    fn reuse_counts_how_often_a_group_reads_each_element() {
        // The identity: every element once. Rows chosen by tx in a one-high group: each row
        // once. The same rows chosen by ty: one row shared by the whole group.
        assert_eq!(group_reuse(&map(108), [16, 16]), 1.0);
        assert_eq!(group_reuse(&map(204), [64, 1]), 1.0);
        assert_eq!(group_reuse(&map(205), [64, 1]), 64.0);
        assert_eq!(group_reuse(&map(204), [16, 16]), 16.0);
        // MAP-107 reads (tx, tx): the 16 work-items of a column of the group share it.
        assert_eq!(group_reuse(&map(107), [16, 16]), 16.0);
        // A 3x3 block (R = 1) on 2x2 items: 36 reads of 16 cells.
        let block = map(408).with_radius(1).unwrap();
        assert_eq!(group_reuse(&block, [2, 2]), 36.0 / 16.0);
    }

    #[test]
    fn warp_reuse_splits_the_group_reuse_between_and_within_warps() {
        let split = |id: u16, wg: [usize; 2], simd: usize| {
            let m = map(id);
            let w = warp_reuse(&m, wg, simd);
            // The split always multiplies back to the group's reuse.
            assert!((w.within_warp * w.across_warps - group_reuse(&m, wg)).abs() < 1e-9);
            (w.within_warp, w.across_warps)
        };
        // A matrix multiply's A (row ty, MAP-205) on 32x8 groups: each row is read by the 32
        // work-items of one warp. B (column tx, MAP-302): each column by one work-item of
        // each of the 8 warps.
        assert_eq!(split(205, [32, 8], 32), (32.0, 1.0));
        assert_eq!(split(302, [32, 8], 32), (1.0, 8.0));
        // On 16x16 groups a warp spans two rows of work-items.
        assert_eq!(split(205, [16, 16], 32), (16.0, 1.0));
        assert_eq!(split(302, [16, 16], 32), (2.0, 8.0));
        // PoCL's 8-wide groups: a row of 32 work-items is four warps.
        assert_eq!(split(205, [32, 8], 8), (8.0, 4.0));
        // A vector every work-item of a 64x1 group reads: two warps of 32.
        assert_eq!(split(205, [64, 1], 32), (32.0, 2.0));
        assert_eq!(split(205, [32, 1], 32), (32.0, 1.0));
        // No reuse at all: the identity.
        assert_eq!(split(108, [32, 8], 32), (1.0, 1.0));
        // MAP-107 reads (tx, tx): each element by the 16 work-items of a group column, two
        // of them in each of 8 warps.
        assert_eq!(split(107, [16, 16], 32), (2.0, 8.0));
        let w = warp_reuse(&map(205), [32, 8], 32);
        assert!(w.broadcast_only());
        assert_eq!(
            w.describe(),
            "reuse 32× within a warp (broadcast), 1× across warps (warps of 32)"
        );
        assert!(!warp_reuse(&map(302), [32, 8], 32).broadcast_only());
        assert!(!warp_reuse(&map(108), [32, 8], 32).broadcast_only());
    }

    #[test]
    fn input_covers_every_base_index() {
        let m = map(416);
        assert_eq!(input_shape(&m, 128), (256 + 6, 256 + 6));
        assert_eq!(input_shape(&map(204), 128), (128, 128));
        assert_eq!(block_offsets(&m).len(), 49);
    }
}
