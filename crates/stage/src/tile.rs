//! The work-group footprint of a buffer as a box.
//!
//! Every read's index is `Σ g_d·group_d + Σ a·atom + k`, where the atoms are local ids and
//! loop counters, each with a range the launch fixes. Viewing the buffer as rows of `W`
//! elements, each coefficient splits exactly into a row and a column step (`a = r·W + c`,
//! `c` the remainder nearest 0), so the elements one work-group reads lie in a box of rows by
//! columns whose origin moves with the group ids alone. The tile holds that box; the element
//! at `(row, col)` of the view is `row·W + col` whatever `W` is, so the choice of `W` changes
//! only the tile's size, and the width that gives the smallest tile is taken.

use std::collections::{BTreeMap, BTreeSet};

use clmap_aristotle::detect::index_forms::{Affine, GlobalRead, IndexAtom, LaunchFacts};
use clmap_lang::Refusal;

/// The box a work-group's reads of one buffer fall in, and where each read lands in it.
#[derive(Clone, Debug, PartialEq)]
pub struct TileBox {
    /// The row length of the view (0: the buffer as one row).
    pub width: i64,
    pub rows: u64,
    pub columns: u64,
    /// Linear coefficient of each group id in the tile's origin.
    pub group: BTreeMap<u8, i64>,
    /// The origin's linear index with every group id 0.
    pub base: i64,
    /// Row and column steps of the group ids, for the description.
    pub group_steps: BTreeMap<u8, (i64, i64)>,
    /// The first row and column of the box for group 0.
    pub first: (i64, i64),
    /// For each read, its row and column in the tile as affine forms of the local ids and
    /// loop counters (the element is `row·columns + column` of the tile).
    pub cells: Vec<TileCell>,
    /// Element reads one work-group makes (guards ignored).
    pub accesses_per_group: u64,
}

/// Where one read falls in the tile.
#[derive(Clone, Debug, PartialEq)]
pub struct TileCell {
    pub row: Affine,
    pub column: Affine,
}

impl TileBox {
    pub fn elements(&self) -> u64 {
        self.rows.saturating_mul(self.columns)
    }

    /// `row 16*g0, column 0`.
    pub fn origin_text(&self) -> String {
        let part = |pick: fn(&(i64, i64)) -> i64, first: i64| {
            let mut terms: Vec<String> = self
                .group_steps
                .iter()
                .filter(|(_, s)| pick(s) != 0)
                .map(|(d, s)| match pick(s) {
                    1 => format!("g{d}"),
                    c => format!("{c}*g{d}"),
                })
                .collect();
            if first != 0 || terms.is_empty() {
                terms.push(first.to_string());
            }
            terms.join(" + ").replace("+ -", "- ")
        };
        if self.width == 0 {
            return format!("element {}", part(|s| s.1, self.first.1));
        }
        format!("row {}, column {}", part(|s| s.0, self.first.0), part(|s| s.1, self.first.1))
    }

    /// Finds the box of `reads` (all of one buffer) for the launch `facts` describes.
    pub fn of(reads: &[GlobalRead], facts: &LaunchFacts) -> Result<TileBox, Refusal> {
        let mut forms = Vec::new();
        let mut group: Option<(BTreeMap<u8, i64>, &GlobalRead)> = None;
        let mut accesses: u64 = 0;
        let items: u64 = facts.local.iter().map(|l| (*l).max(1)).product();
        for read in reads {
            let index = read.index.as_ref().map_err(|reason| {
                Refusal::new(format!("the index is not affine: {reason}"), read.span)
            })?;
            let mut ranges = BTreeMap::new();
            let mut groups = BTreeMap::new();
            for (atom, c) in &index.terms {
                match atom {
                    IndexAtom::GroupId(d) => {
                        groups.insert(*d, *c);
                    }
                    IndexAtom::LocalId(d) => {
                        let top = facts.local[usize::from(*d)].max(1) as i64 - 1;
                        ranges.insert(*atom, (*c, 0, top));
                    }
                    IndexAtom::Loop(v) => {
                        let counted = read.loops.iter().find(|l| l.counter == *v);
                        let bounds = counted
                            .and_then(|l| Some((l.lo.as_constant()?, l.hi.as_constant()?, l.step)));
                        let Some((lo, hi, step)) = bounds else {
                            return Err(Refusal::new(
                                "the bounds of a loop around the read depend on the work-item or \
                                 its work-group, so the work-groups' footprints are not one box",
                                read.span,
                            ));
                        };
                        let last = if hi > lo { lo + (hi - 1 - lo) / step * step } else { lo };
                        ranges.insert(*atom, (*c, lo, last));
                    }
                }
            }
            match &group {
                None => group = Some((groups, read)),
                Some((g, _)) if *g == groups => {}
                Some((g, _)) => {
                    return Err(Refusal::new(
                        format!(
                        "this read moves with the work-group by {} elements, an earlier read of \
                             the buffer by {}: one tile cannot follow both",
                        describe_groups(&groups),
                        describe_groups(g)
                    ),
                        read.span,
                    ))
                }
            }
            let trips: u64 = read
                .loops
                .iter()
                .map(|l| match (l.lo.as_constant(), l.hi.as_constant()) {
                    (Some(lo), Some(hi)) if hi > lo => ((hi - lo - 1) / l.step + 1) as u64,
                    _ => 1,
                })
                .fold(1u64, |a, b| a.saturating_mul(b));
            accesses = accesses.saturating_add(items.saturating_mul(trips));
            forms.push((ranges, index.constant));
        }
        let group = group.map(|(g, _)| g).unwrap_or_default();

        let mut widths: BTreeSet<i64> = BTreeSet::from([0]);
        for (ranges, _) in &forms {
            for (c, _, _) in ranges.values() {
                let c = c.abs();
                for w in [c - 1, c, c + 1] {
                    if w >= 2 {
                        widths.insert(w);
                    }
                }
            }
        }
        let mut best: Option<TileBox> = None;
        for width in widths {
            let Some(candidate) = box_with_width(width, &forms, &group) else { continue };
            let better = match &best {
                None => true,
                Some(b) => {
                    (candidate.elements(), candidate.width == 0, -candidate.width)
                        < (b.elements(), b.width == 0, -b.width)
                }
            };
            if better {
                best = Some(candidate);
            }
        }
        let mut best = best.ok_or_else(|| {
            let span = reads.first().map_or(clmap_lang::Span::UNDEFINED, |r| r.span);
            Refusal::new("the footprint's size overflows 64 bits", span)
        })?;
        best.accesses_per_group = accesses;
        Ok(best)
    }
}

fn describe_groups(groups: &BTreeMap<u8, i64>) -> String {
    if groups.is_empty() {
        return "0".into();
    }
    groups.iter().map(|(d, c)| format!("{c}*g{d}")).collect::<Vec<_>>().join(" + ")
}

/// `a = r·W + c` with `c` the remainder nearest 0 (`W = 0`: all column).
fn split(a: i64, width: i64) -> (i64, i64) {
    if width == 0 {
        return (0, a);
    }
    let mut c = a.rem_euclid(width);
    if c > width / 2 {
        c -= width;
    }
    ((a - c) / width, c)
}

type Form = (BTreeMap<IndexAtom, (i64, i64, i64)>, i64);

fn box_with_width(width: i64, forms: &[Form], group: &BTreeMap<u8, i64>) -> Option<TileBox> {
    let (mut r_lo, mut r_hi, mut c_lo, mut c_hi) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
    for (ranges, constant) in forms {
        let (kr, kc) = split(*constant, width);
        let (mut rl, mut rh, mut cl, mut ch) = (kr, kr, kc, kc);
        for (c, lo, hi) in ranges.values() {
            let (r, col) = split(*c, width);
            let (a, b) = (r.checked_mul(*lo)?, r.checked_mul(*hi)?);
            rl = rl.checked_add(a.min(b))?;
            rh = rh.checked_add(a.max(b))?;
            let (a, b) = (col.checked_mul(*lo)?, col.checked_mul(*hi)?);
            cl = cl.checked_add(a.min(b))?;
            ch = ch.checked_add(a.max(b))?;
        }
        r_lo = r_lo.min(rl);
        r_hi = r_hi.max(rh);
        c_lo = c_lo.min(cl);
        c_hi = c_hi.max(ch);
    }
    let rows = u64::try_from(r_hi.checked_sub(r_lo)?.checked_add(1)?).ok()?;
    let columns = u64::try_from(c_hi.checked_sub(c_lo)?.checked_add(1)?).ok()?;
    rows.checked_mul(columns)?;
    i64::try_from(columns).ok()?;
    let mut cells = Vec::new();
    for (ranges, constant) in forms {
        let (kr, kc) = split(*constant, width);
        let mut row = Affine::constant(kr.checked_sub(r_lo)?);
        let mut column = Affine::constant(kc.checked_sub(c_lo)?);
        for (atom, (c, _, _)) in ranges {
            let (r, col) = split(*c, width);
            row = row.add(&Affine::atom(*atom).scale(r)?)?;
            column = column.add(&Affine::atom(*atom).scale(col)?)?;
        }
        cells.push(TileCell { row, column });
    }
    let group_steps = group.iter().map(|(d, g)| (*d, split(*g, width))).collect();
    let base = r_lo.checked_mul(width)?.checked_add(c_lo)?;
    Some(TileBox {
        width,
        rows,
        columns,
        group: group.clone(),
        base,
        group_steps,
        first: (r_lo, c_lo),
        cells,
        accesses_per_group: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_split_into_the_nearest_row_and_column_steps() {
        assert_eq!(split(256, 256), (1, 0));
        assert_eq!(split(4096, 256), (16, 0));
        assert_eq!(split(255, 256), (1, -1));
        assert_eq!(split(-1, 256), (0, -1));
        assert_eq!(split(-257, 256), (-1, -1));
        assert_eq!(split(7, 0), (0, 7));
    }

    fn form(terms: &[(IndexAtom, (i64, i64, i64))], constant: i64) -> Form {
        (terms.iter().copied().collect(), constant)
    }

    #[test]
    fn a_cross_is_the_work_group_with_a_halo_of_one() {
        // A[(ly + 16 g1 + dy) * 64 + lx + 16 g0 + dx] for the five offsets of a cross.
        let (ly, lx) = (IndexAtom::LocalId(1), IndexAtom::LocalId(0));
        let forms: Vec<Form> = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]
            .iter()
            .map(|(dy, dx)| form(&[(ly, (64, 0, 15)), (lx, (1, 0, 15))], dy * 64 + dx))
            .collect();
        let group = BTreeMap::from([(0, 16), (1, 1024)]);
        let b = box_with_width(64, &forms, &group).unwrap();
        assert_eq!((b.rows, b.columns, b.first), (18, 18, (-1, -1)));
        // The centre read of work-item (ly, lx) is the tile's (ly + 1, lx + 1).
        let centre = &b.cells[0];
        assert_eq!((centre.row.constant, centre.row.terms[&ly]), (1, 1));
        assert_eq!((centre.column.constant, centre.column.terms[&lx]), (1, 1));
        assert!(!centre.row.terms.contains_key(&lx));
        assert_eq!(b.group_steps[&1], (16, 0));
    }
}
