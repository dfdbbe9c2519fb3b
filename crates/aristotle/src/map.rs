//! The MAP model of Aristotle (seed 001 §4): a memory access pattern is an *eMAP*, a 2×2 0/1
//! matrix that maps a work-item's 2-D index `(ty, tx)` to the base index `(row, col)` of the
//! element it starts from, plus an *iMAP*, the set of offsets from that base the work-item
//! reads (one element, its row, its column, a block around it or its four neighbours).
//!
//! Of the 16 × 5 combinations, only 33 are neither under- nor over-specified (Table 3); they are
//! named by the iMAP digit followed by the two-digit eMAP number, as in `MAP-407`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The radius the campaigns use for Block MAPs (§6.2: `Rx = Ry = 3`).
pub const DEFAULT_BLOCK_RADIUS: u32 = 3;

/// The largest block radius accepted: larger blocks would not fit local memory for any
/// sensible work-group and make the microbenchmarks meaningless.
pub const MAX_BLOCK_RADIUS: u32 = 8;

/// The inter-thread part: `row = m[0][0]·ty + m[0][1]·tx`, `col = m[1][0]·ty + m[1][1]·tx`.
///
/// The numbering 01–16 follows Figure 3 of the paper: the zero matrix first, then the
/// matrices with one, two, three and four ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EMap {
    /// Figure 3's number, 1 to 16.
    number: u8,
}

/// The 16 eMAP matrices in Figure 3's order, rows `[M00 M01; M10 M11]`.
const EMAP_MATRICES: [[[u8; 2]; 2]; 16] = [
    [[0, 0], [0, 0]], // 01
    [[0, 0], [0, 1]], // 02
    [[0, 0], [1, 0]], // 03
    [[0, 1], [0, 0]], // 04
    [[1, 0], [0, 0]], // 05
    [[0, 0], [1, 1]], // 06
    [[0, 1], [0, 1]], // 07
    [[1, 0], [0, 1]], // 08
    [[1, 0], [1, 0]], // 09
    [[0, 1], [1, 0]], // 10
    [[1, 1], [0, 0]], // 11
    [[1, 1], [1, 0]], // 12
    [[1, 1], [0, 1]], // 13
    [[1, 0], [1, 1]], // 14
    [[0, 1], [1, 1]], // 15
    [[1, 1], [1, 1]], // 16
];

impl EMap {
    /// The eMAP with Figure 3's number, `None` outside 1–16.
    pub fn from_number(number: u8) -> Option<EMap> {
        (1..=16).contains(&number).then_some(EMap { number })
    }

    /// Every eMAP, 01 to 16.
    pub fn all() -> impl Iterator<Item = EMap> {
        (1..=16).map(|number| EMap { number })
    }

    pub fn number(self) -> u8 {
        self.number
    }

    /// The matrix `[[M00, M01], [M10, M11]]`.
    pub fn matrix(self) -> [[u8; 2]; 2] {
        EMAP_MATRICES[usize::from(self.number - 1) % EMAP_MATRICES.len()]
    }

    /// Coefficients of `(ty, tx)` in the base row.
    pub fn row_coefficients(self) -> [u8; 2] {
        self.matrix()[0]
    }

    /// Coefficients of `(ty, tx)` in the base column.
    pub fn col_coefficients(self) -> [u8; 2] {
        self.matrix()[1]
    }

    /// The base index formula in words, e.g. `(ty, ty+tx)`.
    pub fn formula(self) -> String {
        fn term(coefficients: [u8; 2]) -> String {
            match coefficients {
                [0, 0] => "0".to_string(),
                [1, 0] => "ty".to_string(),
                [0, 1] => "tx".to_string(),
                _ => "ty+tx".to_string(),
            }
        }
        format!("({}, {})", term(self.row_coefficients()), term(self.col_coefficients()))
    }
}

impl fmt::Display for EMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [[a, b], [c, d]] = self.matrix();
        write!(f, "eMAP-{:02} [{a} {b}; {c} {d}]", self.number)
    }
}

/// The intra-thread part: which elements one work-item reads around its base index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IMapKind {
    /// One element, at the base.
    Single,
    /// The whole row the base lies in.
    Row,
    /// The whole column the base lies in.
    Column,
    /// The `(2R+1) × (2R+1)` block centred at the base.
    Block,
    /// The base and its four neighbours.
    Neighbor,
}

impl IMapKind {
    pub const ALL: [IMapKind; 5] =
        [IMapKind::Single, IMapKind::Row, IMapKind::Column, IMapKind::Block, IMapKind::Neighbor];

    /// The digit that starts a MAP's number (1 to 5).
    pub fn digit(self) -> u16 {
        match self {
            IMapKind::Single => 1,
            IMapKind::Row => 2,
            IMapKind::Column => 3,
            IMapKind::Block => 4,
            IMapKind::Neighbor => 5,
        }
    }

    pub fn from_digit(digit: u16) -> Option<IMapKind> {
        IMapKind::ALL.into_iter().find(|k| k.digit() == digit)
    }

    pub fn name(self) -> &'static str {
        match self {
            IMapKind::Single => "Single",
            IMapKind::Row => "Row",
            IMapKind::Column => "Column",
            IMapKind::Block => "Block",
            IMapKind::Neighbor => "Neighbor",
        }
    }

    /// The validity rule of §4.4: which eMAPs give a pattern that is neither under- nor
    /// over-specified with this iMAP.
    pub fn accepts(self, emap: EMap) -> bool {
        let [top, bottom] = emap.matrix();
        let nonzero = |row: [u8; 2]| row.iter().any(|&m| m != 0);
        match self {
            // Every coordinate of the base must move with the work-item, or work-items
            // collapse onto one row or column of elements.
            IMapKind::Single | IMapKind::Block | IMapKind::Neighbor => {
                nonzero(top) && nonzero(bottom)
            }
            // The iMAP already sweeps the columns: the eMAP must pick the row only.
            IMapKind::Row => nonzero(top) && !nonzero(bottom),
            IMapKind::Column => !nonzero(top) && nonzero(bottom),
        }
    }
}

impl fmt::Display for IMapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A MAP number such as 407; parses from `"407"` or `"MAP-407"` (any case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MapId(pub u16);

impl fmt::Display for MapId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MAP-{}", self.0)
    }
}

/// A MAP name that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("`{text}` is not a MAP number: write it as 407 or MAP-407 (see `clmap maps list`)")]
pub struct MapIdError {
    pub text: String,
}

impl FromStr for MapId {
    type Err = MapIdError;

    fn from_str(text: &str) -> Result<MapId, MapIdError> {
        let trimmed = text.trim();
        // `get` rather than slicing: the text may hold multi-byte characters.
        let digits = match (trimmed.get(..4), trimmed.get(4..)) {
            (Some(prefix), Some(rest)) if prefix.eq_ignore_ascii_case("map-") => rest,
            _ => trimmed,
        };
        if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(MapIdError { text: text.to_string() });
        }
        digits.parse().map(MapId).map_err(|_| MapIdError { text: text.to_string() })
    }
}

/// One memory access pattern: an eMAP, an iMAP and, for Block MAPs, the block radius.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Map {
    pub emap: EMap,
    pub imap: IMapKind,
    /// Block radius `R` (`Rx = Ry = R`); 1 for Neighbor (its reach), 0 otherwise.
    pub radius: u32,
}

impl Map {
    /// The MAP of an eMAP and an iMAP if the pair is valid, with the default radius.
    pub fn new(emap: EMap, imap: IMapKind) -> Option<Map> {
        imap.accepts(emap).then(|| Map { emap, imap, radius: default_radius(imap) })
    }

    pub fn id(&self) -> MapId {
        MapId(self.imap.digit() * 100 + u16::from(self.emap.number()))
    }

    /// `MAP-407`.
    pub fn name(&self) -> String {
        self.id().to_string()
    }

    /// The same MAP with another block radius (only Block MAPs have a free radius).
    pub fn with_radius(self, radius: u32) -> Result<Map, String> {
        if self.imap != IMapKind::Block {
            return Err(format!(
                "{} is not a Block MAP: only Block MAPs take a radius",
                self.name()
            ));
        }
        if !(1..=MAX_BLOCK_RADIUS).contains(&radius) {
            return Err(format!("radius {radius} is outside 1..={MAX_BLOCK_RADIUS}"));
        }
        Ok(Map { radius, ..self })
    }

    /// Number of elements one work-item reads on an `n × n` dataset (the `N` of §6.1).
    pub fn elements_per_item(&self, n: usize) -> u64 {
        match self.imap {
            IMapKind::Single => 1,
            IMapKind::Row | IMapKind::Column => n as u64,
            IMapKind::Block => u64::from(2 * self.radius + 1).pow(2),
            IMapKind::Neighbor => 5,
        }
    }

    /// A short description of the access pattern.
    pub fn description(&self) -> String {
        let base = self.emap.formula();
        let spread = emap_spread(self.emap);
        match self.imap {
            IMapKind::Single => format!("each work-item reads the element at {base}; {spread}"),
            IMapKind::Row => {
                let row = form_text(self.emap.row_coefficients());
                format!("each work-item reads all of row {row}; {}", line_sharing(row, "rows"))
            }
            IMapKind::Column => {
                let col = form_text(self.emap.col_coefficients());
                format!(
                    "each work-item reads all of column {col}; {}",
                    line_sharing(col, "columns")
                )
            }
            IMapKind::Block => format!(
                "each work-item reads the {0}x{0} block centred at {base}; {spread}",
                2 * self.radius + 1
            ),
            IMapKind::Neighbor => {
                format!("each work-item reads {base} and its four neighbours; {spread}")
            }
        }
    }
}

/// `ty`, `tx`, `ty+tx` or `0` for one row of an eMAP.
fn form_text(coefficients: [u8; 2]) -> &'static str {
    match coefficients {
        [0, 0] => "0",
        [1, 0] => "ty",
        [0, 1] => "tx",
        _ => "ty+tx",
    }
}

/// Which work-items of a group share the row (column) of a Row (Column) MAP.
fn line_sharing(form: &str, lines: &str) -> String {
    match form {
        "tx" => format!("work-items along x read different {lines}, those along y the same one"),
        "ty" => format!("work-items along y read different {lines}, those along x the same one"),
        _ => format!(
            "work-items on one anti-diagonal of the group read the same one of 2·WG-1 {lines}"
        ),
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

fn default_radius(imap: IMapKind) -> u32 {
    match imap {
        IMapKind::Block => DEFAULT_BLOCK_RADIUS,
        IMapKind::Neighbor => 1,
        _ => 0,
    }
}

/// How the base indices of neighbouring work-items relate, in words (for the eMAPs valid
/// with the Single, Block and Neighbor iMAPs).
fn emap_spread(emap: EMap) -> &'static str {
    match emap.number() {
        7 => "work-items along x walk the diagonal, those along y share their element",
        8 => "the identity: x walks columns, y walks rows",
        9 => "work-items along y walk the diagonal, those along x share their element",
        10 => "the transpose: x walks rows, y walks columns",
        12 => "x walks down the rows, y walks the diagonal",
        13 => "x walks the diagonal, y walks down the rows",
        14 => "x walks along the row, y walks the diagonal",
        15 => "x walks the diagonal, y walks along the row",
        16 => "x and y both walk the diagonal, so anti-diagonals of the group share an element",
        _ => "the base does not move with both coordinates",
    }
}

/// The 33 valid MAPs, in Table 3's order (by iMAP, then by eMAP).
pub fn valid_maps() -> Vec<Map> {
    IMapKind::ALL
        .into_iter()
        .flat_map(|imap| EMap::all().filter_map(move |emap| Map::new(emap, imap)))
        .collect()
}

/// The valid MAP with this number, `None` for numbers Table 3 marks impossible.
pub fn map_by_id(id: MapId) -> Option<Map> {
    let imap = IMapKind::from_digit(id.0 / 100)?;
    let emap = EMap::from_number(u8::try_from(id.0 % 100).ok()?)?;
    Map::new(emap, imap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_table_3() {
        let ids: Vec<u16> = valid_maps().iter().map(|m| m.id().0).collect();
        let table_3 = [
            107, 108, 109, 110, 112, 113, 114, 115, 116, 204, 205, 211, 302, 303, 306, 407, 408,
            409, 410, 412, 413, 414, 415, 416, 507, 508, 509, 510, 512, 513, 514, 515, 516,
        ];
        assert_eq!(ids, table_3);
    }

    #[test]
    fn emap_14_walks_row_in_x_and_diagonal_in_y() {
        // §4.2: with eMAP-14, consecutive x work-items read contiguous elements of a row,
        // consecutive y work-items read down the diagonal.
        let emap = EMap::from_number(14).unwrap();
        assert_eq!(emap.row_coefficients(), [1, 0]);
        assert_eq!(emap.col_coefficients(), [1, 1]);
    }

    #[test]
    fn ids_parse_both_spellings_and_reject_junk() {
        assert_eq!("407".parse::<MapId>(), Ok(MapId(407)));
        assert_eq!("MAP-407".parse::<MapId>(), Ok(MapId(407)));
        assert_eq!("map-205".parse::<MapId>(), Ok(MapId(205)));
        assert!("MAP-".parse::<MapId>().is_err());
        assert!("4070".parse::<MapId>().is_err());
        assert!("ab1".parse::<MapId>().is_err());
        assert!("".parse::<MapId>().is_err());
        assert!("mé407".parse::<MapId>().is_err());
        assert!("ééé".parse::<MapId>().is_err());
        assert!(map_by_id(MapId(101)).is_none());
        assert!(map_by_id(MapId(216)).is_none());
        assert!(map_by_id(MapId(999)).is_none());
        assert_eq!(map_by_id(MapId(407)).map(|m| m.radius), Some(DEFAULT_BLOCK_RADIUS));
    }

    #[test]
    fn every_map_has_a_distinct_description() {
        let descriptions: std::collections::BTreeSet<String> =
            valid_maps().iter().map(Map::description).collect();
        assert_eq!(descriptions.len(), 33);
    }
}
