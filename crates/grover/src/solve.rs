//! Data-index determination and the exact linear solve (seed 000 §III-B S1–S2, §IV-C, §IV-D).
//!
//! The local store index `LS(u)` is linear in the unknowns `u` (the storing work-item's local
//! ids and the induction variables of loops around the store that do not enclose the load).
//! Its terms are grouped by stride (`ly·S + lx` has strides `S` and `1`), outermost first;
//! the local load index is split the same way by exact division, which yields one equation
//! per dimension, as the paper's `+ → *` pattern does for 2D and 3D arrays but also for
//! flattened arrays with symbolic or numeric strides. The system is then solved by
//! Gauss–Jordan elimination over the rationals with polynomial right-hand sides.

use crate::poly::{Atom, Overflow, Poly, Rational};
use std::collections::BTreeMap;

/// `Σ coefficients[j] · unknowns[j] = rhs` for every row.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    pub unknowns: Vec<Atom>,
    pub rows: Vec<(Vec<Rational>, Poly)>,
}

/// The solved unknowns; `free` lists unknowns the system leaves open.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub values: BTreeMap<Atom, Poly>,
    pub free: Vec<Atom>,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolveError {
    #[error("the local store index is not linear in the work-item ids and loop counters")]
    NotLinear,
    #[error("the local load reads elements the store does not write (left over: {0})")]
    Residue(String),
    #[error("the linear system is inconsistent")]
    Inconsistent,
    #[error(transparent)]
    Overflow(#[from] Overflow),
    #[error("the index arithmetic cannot be split into dimensions")]
    Division,
    #[error("a row of the system does not have one coefficient per unknown")]
    Malformed,
    #[error("the local store index uses the bits of {0} split at two places ({1} and {2})")]
    MixedSplits(String, u8, u8),
}

/// Builds the system `LS(u) = LL` dimension by dimension, plus `extra` equations
/// `unknown = value` (guards such as `if (lid == 0)`).
pub fn build_system(
    ls: &Poly,
    ll: &Poly,
    unknowns: &[Atom],
    extra: &[(Atom, Poly)],
    name: &dyn Fn(Atom) -> String,
) -> Result<System, SolveError> {
    let (coefficients, offset) = ls.linear_in(unknowns).ok_or(SolveError::NotLinear)?;
    let mut groups: Vec<(Poly, Vec<Atom>)> = Vec::new();
    for (atom, c) in coefficients {
        match groups.iter_mut().find(|(g, _)| *g == c) {
            Some((_, atoms)) => atoms.push(atom),
            None => groups.push((c, vec![atom])),
        }
    }
    // Outermost dimension first: the largest stride takes its multiples before the smaller
    // ones see the rest (mixed radix).
    groups.sort_by_key(|g| std::cmp::Reverse(g.0.stride_key()));
    let used: Vec<Atom> = groups.iter().flat_map(|(_, a)| a.iter().copied()).collect();
    let mut all_unknowns = used.clone();
    for (a, _) in extra {
        if !all_unknowns.contains(a) {
            all_unknowns.push(*a);
        }
    }
    let mut rest = ll.sub(&offset)?;
    let mut quotients = Vec::new();
    for (stride, _) in &groups {
        let (q, r) = rest.divide(stride).ok_or(SolveError::Division)?;
        quotients.push(q);
        rest = r;
    }
    if !rest.is_zero() {
        return Err(SolveError::Residue(rest.display_with(name)));
    }
    settle_innermost(&groups, &mut quotients)?;
    let mut rows = Vec::new();
    for ((_, atoms), q) in groups.iter().zip(quotients) {
        let coefficients = all_unknowns
            .iter()
            .map(|u| if atoms.contains(u) { Rational::ONE } else { Rational::ZERO })
            .collect();
        rows.push((coefficients, q));
    }
    for (atom, value) in extra {
        let coefficients = all_unknowns
            .iter()
            .map(|u| if u == atom { Rational::ONE } else { Rational::ZERO })
            .collect();
        rows.push((coefficients, value.clone()));
    }
    Ok(System { unknowns: all_unknowns, rows })
}

/// Builds and solves the system between a store index and a load (or second store) index.
///
/// When the store index uses the high and low bits of an unknown separately (`tid >> 4`,
/// `tid & 15`), the unknown is solved as its two parts: `tid = 16·High + Low` is put for every
/// plain `tid` on both sides, the parts are the system's unknowns, and the solution gives
/// `tid` back as `16·High + Low` as well as each part (which the stored value's own `tid >> 4`
/// and `tid & 15` take).
pub fn solve_correspondence(
    ls: &Poly,
    ll: &Poly,
    unknowns: &[Atom],
    extra: &[(Atom, Poly)],
    name: &dyn Fn(Atom) -> String,
) -> Result<(System, Solution), SolveError> {
    let mut splits: BTreeMap<Atom, u8> = BTreeMap::new();
    for atom in ls.atoms() {
        let (Atom::High(x, k) | Atom::Low(x, k)) = atom else { continue };
        let whole = x.atom();
        if !unknowns.contains(&whole) {
            continue;
        }
        match splits.insert(whole, k) {
            Some(other) if other != k => {
                return Err(SolveError::MixedSplits(name(whole), other.min(k), other.max(k)))
            }
            _ => {}
        }
    }
    if splits.is_empty() {
        let system = build_system(ls, ll, unknowns, extra, name)?;
        let solution = solve(&system)?;
        return Ok((system, solution));
    }
    let parts = |whole: Atom, k: u8| -> (Atom, Atom) {
        let x = crate::poly::Splittable::of(whole).expect("split atoms are splittable");
        (Atom::High(x, k), Atom::Low(x, k))
    };
    let mut expand: BTreeMap<Atom, Poly> = BTreeMap::new();
    let mut split_unknowns = Vec::new();
    for &u in unknowns {
        match splits.get(&u) {
            Some(&k) => {
                let (high, low) = parts(u, k);
                let whole =
                    Poly::atom(high).scale(Rational::int(1i128 << k))?.add(&Poly::atom(low))?;
                expand.insert(u, whole);
                split_unknowns.push(high);
                split_unknowns.push(low);
            }
            None => split_unknowns.push(u),
        }
    }
    let mut split_extra = Vec::new();
    for (atom, value) in extra {
        match (splits.get(atom), value.as_constant()) {
            (Some(&k), Some(c)) if c.is_integer() => {
                let (high, low) = parts(*atom, k);
                split_extra.push((high, Poly::int(c.numerator() >> k)));
                split_extra.push((low, Poly::int(c.numerator() & ((1i128 << k) - 1))));
            }
            // A guard on a split id by a non-constant value is left out: the store is then
            // treated as unguarded, which only widens what the system must determine.
            (Some(_), _) => {}
            (None, _) => split_extra.push((*atom, value.clone())),
        }
    }
    let ls = ls.substitute(&expand)?;
    let ll = ll.substitute(&expand)?;
    let system = build_system(&ls, &ll, &split_unknowns, &split_extra, name)?;
    let mut solution = solve(&system)?;
    for (&whole, &k) in &splits {
        let (high, low) = parts(whole, k);
        if let (Some(h), Some(l)) = (solution.values.get(&high), solution.values.get(&low)) {
            let value = h.scale(Rational::int(1i128 << k))?.add(l)?.join_bits();
            solution.values.insert(whole, value);
        }
    }
    for value in solution.values.values_mut() {
        *value = value.join_bits();
    }
    Ok((system, solution))
}

/// Typical magnitudes of the symbols, to judge which of two equivalent splits is meant.
fn sample(a: Atom) -> i128 {
    match a {
        Atom::LocalSize(_) => 16,
        Atom::GlobalSize(_) => 1024,
        Atom::NumGroups(_) => 64,
        Atom::Param(_) => 1000,
        Atom::GroupId(_) => 3,
        Atom::GlobalOffset(_) => 0,
        Atom::LocalId(_) | Atom::ShadowLocalId(_) => 5,
        Atom::LoopVar(_) | Atom::ShadowLoopVar(_) => 7,
        Atom::High(..) => 3,
        Atom::Low(..) => 5,
    }
}

fn evaluate(p: &Poly) -> Option<Rational> {
    let mut total = Rational::ZERO;
    for (m, c) in p.terms() {
        let mut term = c;
        for (a, e) in m.factors() {
            for _ in 0..*e {
                term = term.checked_mul(Rational::int(sample(*a)))?;
            }
        }
        total = total.checked_add(term)?;
    }
    Some(total)
}

/// With a symbolic row stride such as `S + 2`, a column written as `S` could also be read as
/// row + 1, column - 2. A local id lies in `[0, S)`, and halo columns just outside it, so the
/// split that puts the innermost id closest to that range is the one meant.
fn settle_innermost(
    groups: &[(Poly, Vec<Atom>)],
    quotients: &mut [Poly],
) -> Result<(), SolveError> {
    let n = groups.len();
    if n < 2 || quotients.len() != n {
        return Ok(());
    }
    let (inner_stride, inner_atoms) = &groups[n - 1];
    let (outer_stride, _) = &groups[n - 2];
    let [Atom::LocalId(d)] = inner_atoms.as_slice() else { return Ok(()) };
    if inner_stride.as_constant() != Some(Rational::ONE) || outer_stride.as_constant().is_some() {
        return Ok(());
    }
    // Only ids, sizes and constants: a loop counter or a parameter may lie anywhere.
    let position_like = !quotients[n - 1].mentions(|a| {
        matches!(
            a,
            Atom::Param(_)
                | Atom::LoopVar(_)
                | Atom::ShadowLoopVar(_)
                | Atom::GroupId(_)
                | Atom::GlobalSize(_)
        )
    });
    if !position_like {
        return Ok(());
    }
    let size = Rational::int(sample(Atom::LocalSize(*d)));
    let distance = |v: &Poly| -> Option<Rational> {
        let x = evaluate(v)?;
        if x < Rational::ZERO {
            Rational::ZERO.checked_sub(x)
        } else if x >= size {
            x.checked_sub(size)?.checked_add(Rational::ONE)
        } else {
            Some(Rational::ZERO)
        }
    };
    let Some(mut best) = distance(&quotients[n - 1]).map(|d| (d, 0i128)) else { return Ok(()) };
    for t in [-2i128, -1, 1, 2] {
        let low = quotients[n - 1].sub(&outer_stride.scale(Rational::int(t))?)?;
        if let Some(dist) = distance(&low) {
            if dist < best.0 {
                best = (dist, t);
            }
        }
    }
    let t = best.1;
    if t != 0 {
        quotients[n - 1] = quotients[n - 1].sub(&outer_stride.scale(Rational::int(t))?)?;
        quotients[n - 2] = quotients[n - 2].add(&Poly::int(t))?;
    }
    Ok(())
}

/// Gauss–Jordan elimination. Unknowns without a pivot are free; an unknown whose row still
/// involves a free unknown is left out of `values` (it has no unique value).
pub fn solve(system: &System) -> Result<Solution, SolveError> {
    let n = system.unknowns.len();
    if system.rows.iter().any(|(coefficients, _)| coefficients.len() != n) {
        return Err(SolveError::Malformed);
    }
    let mut rows: Vec<(Vec<Rational>, Poly)> = system.rows.clone();
    let mut pivots: Vec<(usize, usize)> = Vec::new();
    let mut next_row = 0;
    for col in 0..n {
        let Some(found) = (next_row..rows.len()).find(|&r| !rows[r].0[col].is_zero()) else {
            continue;
        };
        rows.swap(next_row, found);
        let pivot = rows[next_row].0[col];
        let (coefficients, rhs) = rows[next_row].clone();
        let inverse = Rational::ONE.checked_div(pivot).ok_or(Overflow)?;
        let normalised: Vec<Rational> = coefficients
            .iter()
            .map(|c| c.checked_mul(inverse).ok_or(Overflow))
            .collect::<Result<_, _>>()?;
        let normalised_rhs = rhs.scale(inverse)?;
        rows[next_row] = (normalised.clone(), normalised_rhs.clone());
        for (r, (coefficients, rhs)) in rows.iter_mut().enumerate() {
            let factor = coefficients[col];
            if r == next_row || factor.is_zero() {
                continue;
            }
            for (c, k) in coefficients.iter_mut().zip(&normalised) {
                *c = c.checked_sub(k.checked_mul(factor).ok_or(Overflow)?).ok_or(Overflow)?;
            }
            *rhs = rhs.sub(&normalised_rhs.scale(factor)?)?;
        }
        pivots.push((next_row, col));
        next_row += 1;
    }
    for (coefficients, rhs) in &rows[next_row..] {
        if coefficients.iter().all(|c| c.is_zero()) && !rhs.is_zero() {
            return Err(SolveError::Inconsistent);
        }
    }
    let pivot_cols: Vec<usize> = pivots.iter().map(|(_, c)| *c).collect();
    let free: Vec<Atom> =
        (0..n).filter(|c| !pivot_cols.contains(c)).map(|c| system.unknowns[c]).collect();
    let mut values = BTreeMap::new();
    for (row, col) in pivots {
        let (coefficients, rhs) = &rows[row];
        let depends_on_free =
            (0..n).any(|j| j != col && !pivot_cols.contains(&j) && !coefficients[j].is_zero());
        if !depends_on_free {
            values.insert(system.unknowns[col], rhs.clone());
        }
    }
    Ok(Solution { values, free })
}

/// The system as equations, one per line (`lx = ly`).
pub fn display_system(system: &System, name: &dyn Fn(Atom) -> String) -> Vec<String> {
    system
        .rows
        .iter()
        .map(|(coefficients, rhs)| {
            let mut lhs = Poly::zero();
            for (c, u) in coefficients.iter().zip(&system.unknowns) {
                if let Ok(term) = Poly::atom(*u).scale(*c) {
                    lhs = lhs.add(&term).unwrap_or(lhs);
                }
            }
            format!("{} = {}", lhs.display_with(name), rhs.display_with(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::default_atom_name;

    fn a(x: Atom) -> Poly {
        Poly::atom(x)
    }

    const LX: Atom = Atom::LocalId(0);
    const LY: Atom = Atom::LocalId(1);

    #[test]
    fn transpose_with_padding_swaps_ids() {
        // LS: ly * 17 + lx, LL: lx * 17 + ly (the load's ids are the same atoms, read as
        // constants of the system).
        let ls = a(LY).scale(Rational::int(17)).unwrap().add(&a(LX)).unwrap();
        let ll = a(LX).scale(Rational::int(17)).unwrap().add(&a(LY)).unwrap();
        let system = build_system(&ls, &ll, &[LX, LY], &[], &default_atom_name).unwrap();
        let solution = solve(&system).unwrap();
        assert_eq!(solution.values[&LX], a(LY));
        assert_eq!(solution.values[&LY], a(LX));
        assert!(solution.free.is_empty());
    }

    #[test]
    fn vector_tile_rows_split_by_symbolic_stride() {
        // LS: (4 ly + r) L + lx; LL: (4 ly + 2) L + j.
        let l = a(Atom::LocalSize(0));
        let r = Atom::Param(9);
        let j = a(Atom::Param(8));
        let ls = a(LY)
            .scale(Rational::int(4))
            .unwrap()
            .add(&a(r))
            .unwrap()
            .mul(&l)
            .unwrap()
            .add(&a(LX))
            .unwrap();
        let ll = a(LY)
            .scale(Rational::int(4))
            .unwrap()
            .add(&Poly::int(2))
            .unwrap()
            .mul(&l)
            .unwrap()
            .add(&j)
            .unwrap();
        let system = build_system(&ls, &ll, &[LX, LY, r], &[], &default_atom_name).unwrap();
        let solution = solve(&system).unwrap();
        assert_eq!(solution.values[&LY], a(LY));
        assert_eq!(solution.values[&r], Poly::int(2));
        assert_eq!(solution.values[&LX], j);
    }

    #[test]
    fn shared_stride_is_not_unique() {
        // LS: lx + ly: one equation, two unknowns.
        let ls = a(LX).add(&a(LY)).unwrap();
        let ll = a(Atom::Param(0));
        let system = build_system(&ls, &ll, &[LX, LY], &[], &default_atom_name).unwrap();
        let solution = solve(&system).unwrap();
        assert!(solution.values.is_empty());
        assert_eq!(solution.free, vec![LY]);
    }

    #[test]
    fn guard_equations_fix_unknowns_and_detect_conflicts() {
        let ls = a(LX);
        let ll = Poly::int(3);
        let ok = build_system(&ls, &ll, &[LX], &[(LX, Poly::int(3))], &default_atom_name).unwrap();
        assert_eq!(solve(&ok).unwrap().values[&LX], Poly::int(3));
        let bad = build_system(&ls, &ll, &[LX], &[(LX, Poly::int(0))], &default_atom_name).unwrap();
        assert_eq!(solve(&bad), Err(SolveError::Inconsistent));
    }

    #[test]
    fn nonlinear_store_index_is_refused() {
        let ls = a(LX).mul(&a(LY)).unwrap();
        let err = build_system(&ls, &Poly::int(0), &[LX, LY], &[], &default_atom_name);
        assert_eq!(err, Err(SolveError::NotLinear));
    }
}
