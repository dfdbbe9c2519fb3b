//! Index expressions as polynomials with exact rational coefficients.
//!
//! Seed 000 writes local and global data indexes as linear functions of the work-item ids.
//! Real kernels multiply ids by symbolic strides (`ly * get_local_size(0)`, `ty * pitch`), so
//! an index is kept as a polynomial over [`Atom`]s: it stays linear in the unknowns Grover
//! solves for, while its coefficients may be products of kernel parameters and sizes.
//! Arithmetic is exact (`i128` fractions, checked): an overflow is a refusal, never a wrong
//! answer.

use clmap_lang::ir::{Handle, LocalVariable};
use std::collections::BTreeMap;
use std::fmt;

/// An exact fraction `num / den` in lowest terms with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rational {
    num: i128,
    den: i128,
}

/// The greatest common divisor of `|a|` and `|b|`, unsigned: `|i128::MIN|` is 2¹²⁷, which
/// no `i128` holds, and a product of coefficients may be exactly `i128::MIN`.
fn gcd(a: i128, b: i128) -> u128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// `|c|`, or `c` itself where `|numerator|` does not fit (`i128::MIN`).
fn magnitude(c: Rational) -> Rational {
    c.numerator().checked_abs().and_then(|n| Rational::new(n, c.denominator())).unwrap_or(c)
}

impl Rational {
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    /// `num / den`, or `None` when `den` is zero or normalising overflows.
    pub fn new(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        if num == 0 {
            return Some(Rational::ZERO);
        }
        // A divisor of 2¹²⁷ means both are `i128::MIN`: refused as an overflow.
        let g = i128::try_from(gcd(num, den).max(1)).ok()?;
        let (mut num, mut den) = (num / g, den / g);
        if den < 0 {
            num = num.checked_neg()?;
            den = den.checked_neg()?;
        }
        Some(Rational { num, den })
    }

    pub fn int(value: i128) -> Rational {
        Rational { num: value, den: 1 }
    }

    pub fn numerator(self) -> i128 {
        self.num
    }

    pub fn denominator(self) -> i128 {
        self.den
    }

    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    pub fn checked_add(self, o: Rational) -> Option<Rational> {
        let num = self.num.checked_mul(o.den)?.checked_add(o.num.checked_mul(self.den)?)?;
        Rational::new(num, self.den.checked_mul(o.den)?)
    }

    pub fn checked_neg(self) -> Option<Rational> {
        Some(Rational { num: self.num.checked_neg()?, den: self.den })
    }

    pub fn checked_sub(self, o: Rational) -> Option<Rational> {
        self.checked_add(o.checked_neg()?)
    }

    pub fn checked_mul(self, o: Rational) -> Option<Rational> {
        Rational::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }

    pub fn checked_div(self, o: Rational) -> Option<Rational> {
        Rational::new(self.num.checked_mul(o.den)?, self.den.checked_mul(o.num)?)
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// A symbol an index depends on. Work-item and group ids are per dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    LocalId(u8),
    GroupId(u8),
    LocalSize(u8),
    GlobalSize(u8),
    NumGroups(u8),
    GlobalOffset(u8),
    /// A kernel parameter that is never assigned.
    Param(u32),
    /// The induction variable of a loop, at the current iteration.
    LoopVar(Handle<LocalVariable>),
    /// The same symbols seen from a second work-item (the other store of a halo check).
    ShadowLocalId(u8),
    ShadowLoopVar(Handle<LocalVariable>),
    /// `x >> k`: the high bits of a local id or loop counter, `floor(x / 2^k)`.
    High(Splittable, u8),
    /// `x & (2^k - 1)`: the low bits of a local id or loop counter, in `[0, 2^k)`.
    Low(Splittable, u8),
}

/// A symbol whose bits an index may use separately (`tid >> 4`, `tid & 15`): always
/// `x = 2^k · High(x, k) + Low(x, k)`, which keeps such indexes linear in the two parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Splittable {
    LocalId(u8),
    LoopVar(Handle<LocalVariable>),
    ShadowLocalId(u8),
    ShadowLoopVar(Handle<LocalVariable>),
}

impl Splittable {
    pub fn atom(self) -> Atom {
        match self {
            Splittable::LocalId(d) => Atom::LocalId(d),
            Splittable::LoopVar(v) => Atom::LoopVar(v),
            Splittable::ShadowLocalId(d) => Atom::ShadowLocalId(d),
            Splittable::ShadowLoopVar(v) => Atom::ShadowLoopVar(v),
        }
    }

    pub fn of(atom: Atom) -> Option<Splittable> {
        Some(match atom {
            Atom::LocalId(d) => Splittable::LocalId(d),
            Atom::LoopVar(v) => Splittable::LoopVar(v),
            Atom::ShadowLocalId(d) => Splittable::ShadowLocalId(d),
            Atom::ShadowLoopVar(v) => Splittable::ShadowLoopVar(v),
            _ => return None,
        })
    }
}

impl Atom {
    /// Whether the atom orders before (is "bigger" than) work-item ids when choosing the
    /// outermost dimension: sizes and parameters are strides, ids are positions.
    fn is_size_like(self) -> bool {
        matches!(
            self,
            Atom::LocalSize(_)
                | Atom::GlobalSize(_)
                | Atom::NumGroups(_)
                | Atom::Param(_)
                | Atom::GlobalOffset(_)
        )
    }
}

/// A product of atoms with exponents, kept sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Monomial(Vec<(Atom, u32)>);

impl Monomial {
    pub fn one() -> Monomial {
        Monomial(Vec::new())
    }

    pub fn atom(a: Atom) -> Monomial {
        Monomial(vec![(a, 1)])
    }

    pub fn degree(&self) -> u32 {
        self.0.iter().map(|(_, e)| *e).sum()
    }

    pub fn factors(&self) -> &[(Atom, u32)] {
        &self.0
    }

    pub fn exponent(&self, atom: Atom) -> u32 {
        self.0.iter().find(|(a, _)| *a == atom).map_or(0, |(_, e)| *e)
    }

    fn mul(&self, other: &Monomial) -> Monomial {
        let mut map: BTreeMap<Atom, u32> = self.0.iter().copied().collect();
        for &(a, e) in &other.0 {
            *map.entry(a).or_insert(0) += e;
        }
        Monomial(map.into_iter().collect())
    }

    /// `self / other` when `other` divides it.
    fn div(&self, other: &Monomial) -> Option<Monomial> {
        let mut map: BTreeMap<Atom, u32> = self.0.iter().copied().collect();
        for &(a, e) in &other.0 {
            let have = map.get_mut(&a)?;
            if *have < e {
                return None;
            }
            *have -= e;
        }
        Some(Monomial(map.into_iter().filter(|(_, e)| *e > 0).collect()))
    }

    fn without(&self, atom: Atom) -> Monomial {
        Monomial(self.0.iter().copied().filter(|(a, _)| *a != atom).collect())
    }
}

/// A polynomial: a sum of rational multiples of monomials, zero terms removed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Poly {
    terms: BTreeMap<Monomial, Rational>,
}

/// Arithmetic left the range of exact `i128` fractions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("index arithmetic overflows exact 128-bit fractions")]
pub struct Overflow;

impl Poly {
    pub fn zero() -> Poly {
        Poly::default()
    }

    pub fn constant(c: Rational) -> Poly {
        let mut p = Poly::zero();
        if !c.is_zero() {
            p.terms.insert(Monomial::one(), c);
        }
        p
    }

    pub fn int(c: i128) -> Poly {
        Poly::constant(Rational::int(c))
    }

    pub fn atom(a: Atom) -> Poly {
        let mut p = Poly::zero();
        p.terms.insert(Monomial::atom(a), Rational::ONE);
        p
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, Rational)> {
        self.terms.iter().map(|(m, c)| (m, *c))
    }

    /// The value when the polynomial has no atoms.
    pub fn as_constant(&self) -> Option<Rational> {
        match self.terms.len() {
            0 => Some(Rational::ZERO),
            1 => self.terms.get(&Monomial::one()).copied(),
            _ => None,
        }
    }

    /// Whether any term mentions an atom accepted by `pred`.
    pub fn mentions(&self, pred: impl Fn(Atom) -> bool) -> bool {
        self.terms.keys().any(|m| m.0.iter().any(|(a, _)| pred(*a)))
    }

    pub fn atoms(&self) -> Vec<Atom> {
        let mut atoms: Vec<Atom> =
            self.terms.keys().flat_map(|m| m.0.iter().map(|(a, _)| *a)).collect();
        atoms.sort();
        atoms.dedup();
        atoms
    }

    fn add_term(&mut self, m: Monomial, c: Rational) -> Result<(), Overflow> {
        let sum = match self.terms.get(&m) {
            Some(old) => old.checked_add(c).ok_or(Overflow)?,
            None => c,
        };
        if sum.is_zero() {
            self.terms.remove(&m);
        } else {
            self.terms.insert(m, sum);
        }
        Ok(())
    }

    pub fn add(&self, other: &Poly) -> Result<Poly, Overflow> {
        let mut out = self.clone();
        for (m, c) in &other.terms {
            out.add_term(m.clone(), *c)?;
        }
        Ok(out)
    }

    pub fn neg(&self) -> Result<Poly, Overflow> {
        self.scale(Rational::int(-1))
    }

    pub fn sub(&self, other: &Poly) -> Result<Poly, Overflow> {
        self.add(&other.neg()?)
    }

    pub fn scale(&self, k: Rational) -> Result<Poly, Overflow> {
        let mut out = Poly::zero();
        for (m, c) in &self.terms {
            out.add_term(m.clone(), c.checked_mul(k).ok_or(Overflow)?)?;
        }
        Ok(out)
    }

    pub fn mul(&self, other: &Poly) -> Result<Poly, Overflow> {
        let mut out = Poly::zero();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                out.add_term(m1.mul(m2), c1.checked_mul(*c2).ok_or(Overflow)?)?;
            }
        }
        Ok(out)
    }

    /// Replaces every listed atom by its polynomial, all at once.
    pub fn substitute(&self, map: &BTreeMap<Atom, Poly>) -> Result<Poly, Overflow> {
        let mut out = Poly::zero();
        for (m, c) in &self.terms {
            let mut term = Poly::constant(*c);
            for &(a, e) in &m.0 {
                let factor = map.get(&a).cloned().unwrap_or_else(|| Poly::atom(a));
                for _ in 0..e {
                    term = term.mul(&factor)?;
                }
            }
            out = out.add(&term)?;
        }
        Ok(out)
    }

    /// Splits `self = Σ coefficient(u) · u + rest` for the atoms `u` in `unknowns`. `None`
    /// when some term is not linear in the unknowns (`u²`, `u·v`).
    pub fn linear_in(&self, unknowns: &[Atom]) -> Option<(BTreeMap<Atom, Poly>, Poly)> {
        let mut coefficients: BTreeMap<Atom, Poly> = BTreeMap::new();
        let mut rest = Poly::zero();
        for (m, c) in &self.terms {
            let present: Vec<(Atom, u32)> =
                m.0.iter().copied().filter(|(a, _)| unknowns.contains(a)).collect();
            match present.as_slice() {
                [] => rest.add_term(m.clone(), *c).ok()?,
                [(a, 1)] => {
                    coefficients.entry(*a).or_default().add_term(m.without(*a), *c).ok()?;
                }
                _ => return None,
            }
        }
        coefficients.retain(|_, p| !p.is_zero());
        Some((coefficients, rest))
    }

    /// Ordering key for strides: higher total degree in sizes first, then larger constants.
    pub fn stride_key(&self) -> (u32, u32, Rational) {
        let degree = self.terms.keys().map(Monomial::degree).max().unwrap_or(0);
        let size_like = self
            .terms
            .keys()
            .map(|m| m.0.iter().filter(|(a, _)| a.is_size_like()).count() as u32)
            .max()
            .unwrap_or(0);
        let lead =
            self.terms.iter().next_back().map(|(_, c)| magnitude(*c)).unwrap_or(Rational::ZERO);
        (degree, size_like, lead)
    }

    /// Takes out of `self` the part that is a multiple of `divisor`: returns `(q, r)` with
    /// `self = q · divisor + r`, where no term of `r` is a multiple of the divisor's leading
    /// term (constants: no term of `r` has an integral ratio to a constant divisor). `None`
    /// when the division does not settle within a bounded number of steps or overflows.
    pub fn divide(&self, divisor: &Poly) -> Option<(Poly, Poly)> {
        let (lead_m, lead_c) = divisor.terms.iter().next_back().map(|(m, c)| (m.clone(), *c))?;
        let mut quotient = Poly::zero();
        let mut remainder = Poly::zero();
        let mut rest = self.clone();
        for _ in 0..256 {
            let Some((m, c)) = rest.terms.iter().next_back().map(|(m, c)| (m.clone(), *c)) else {
                return Some((quotient, remainder));
            };
            let factor_c = c.checked_div(lead_c)?;
            // Only whole multiples of the stride belong to the outer dimension.
            let divisible = match m.div(&lead_m) {
                Some(fm) => factor_c.is_integer().then_some(fm),
                None => None,
            };
            match divisible {
                Some(fm) => {
                    let mut factor = Poly::zero();
                    factor.add_term(fm, factor_c).ok()?;
                    quotient = quotient.add(&factor).ok()?;
                    rest = rest.sub(&factor.mul(divisor).ok()?).ok()?;
                }
                None => {
                    rest.terms.remove(&m);
                    remainder.add_term(m, c).ok()?;
                }
            }
        }
        None
    }

    /// The single atom the polynomial is, with coefficient one.
    pub fn as_atom(&self) -> Option<Atom> {
        let mut terms = self.terms.iter();
        match (terms.next(), terms.next()) {
            (Some((m, c)), None) if *c == Rational::ONE => match m.0.as_slice() {
                [(a, 1)] => Some(*a),
                _ => None,
            },
            _ => None,
        }
    }

    /// Splits `self = multiple + rest`, where every term of `multiple` has an integer
    /// coefficient divisible by `2^k` (so its value is, whatever its atoms' values).
    pub fn split_multiple_of_pow2(&self, k: u32) -> (Poly, Poly) {
        let modulus = 1i128 << k.min(120);
        let mut multiple = Poly::zero();
        let mut rest = Poly::zero();
        for (m, c) in &self.terms {
            let whole = c.is_integer() && c.numerator() % modulus == 0;
            let target = if whole { &mut multiple } else { &mut rest };
            target.terms.insert(m.clone(), *c);
        }
        (multiple, rest)
    }

    /// The smallest and largest value, when every term is a constant or a multiple of an atom
    /// `atom_bounds` bounds (`lx & 15` lies in `[0, 15]`); `None` when a term is unbounded.
    pub fn bounds(
        &self,
        atom_bounds: &dyn Fn(Atom) -> Option<(i128, i128)>,
    ) -> Option<(i128, i128)> {
        let (mut low, mut high) = (0i128, 0i128);
        for (m, c) in &self.terms {
            if !c.is_integer() {
                return None;
            }
            let c = c.numerator();
            let (a, b) = match m.0.as_slice() {
                [] => (c, c),
                [(atom, 1)] => {
                    let (lo, hi) = atom_bounds(*atom)?;
                    let (x, y) = (c.checked_mul(lo)?, c.checked_mul(hi)?);
                    (x.min(y), x.max(y))
                }
                _ => return None,
            };
            low = low.checked_add(a)?;
            high = high.checked_add(b)?;
        }
        Some((low, high))
    }

    /// Replaces `2^k · High(x, k) + Low(x, k)` by `x` wherever both parts appear with
    /// matching coefficients, so solutions read as the user's ids.
    pub fn join_bits(&self) -> Poly {
        let mut out = self.clone();
        let highs: Vec<(Monomial, Rational, Splittable, u8)> = self
            .terms
            .iter()
            .filter_map(|(m, c)| match m.0.as_slice() {
                [(Atom::High(x, k), 1)] => Some((m.clone(), *c, *x, *k)),
                _ => None,
            })
            .collect();
        for (high, c, x, k) in highs {
            let low = Monomial::atom(Atom::Low(x, k));
            let Some(per_unit) = c.checked_div(Rational::int(1i128 << u32::from(k).min(120)))
            else {
                continue;
            };
            if out.terms.get(&low) == Some(&per_unit) {
                out.terms.remove(&high);
                out.terms.remove(&low);
                if out.add_term(Monomial::atom(x.atom()), per_unit).is_err() {
                    return self.clone();
                }
            }
        }
        out
    }

    /// Human-readable form with atom names supplied by `name`.
    pub fn display_with(&self, name: &dyn Fn(Atom) -> String) -> String {
        if self.terms.is_empty() {
            return "0".to_string();
        }
        let mut out = String::new();
        // Highest-degree terms first reads like the source (`ly * S + lx + 1`).
        let mut terms: Vec<(&Monomial, &Rational)> = self.terms.iter().collect();
        terms.sort_by(|a, b| b.0.degree().cmp(&a.0.degree()).then(a.0.cmp(b.0)));
        for (i, (m, c)) in terms.into_iter().enumerate() {
            let negative = c.numerator() < 0;
            let magnitude = magnitude(*c);
            if i == 0 {
                if negative {
                    out.push('-');
                }
            } else {
                out.push_str(if negative { " - " } else { " + " });
            }
            let factors: Vec<String> =
                m.0.iter().flat_map(|(a, e)| std::iter::repeat_n(name(*a), *e as usize)).collect();
            if factors.is_empty() {
                out.push_str(&magnitude.to_string());
            } else {
                if magnitude != Rational::ONE {
                    out.push_str(&format!("{magnitude}*"));
                }
                out.push_str(&factors.join("*"));
            }
        }
        out
    }
}

/// Short names for atoms in explanations (`lx`, `wy`, `Lx`).
pub fn default_atom_name(a: Atom) -> String {
    const D: [&str; 3] = ["x", "y", "z"];
    let d = |i: u8| D.get(usize::from(i)).copied().unwrap_or("?");
    match a {
        Atom::LocalId(i) => format!("l{}", d(i)),
        Atom::GroupId(i) => format!("w{}", d(i)),
        Atom::LocalSize(i) => format!("L{}", d(i)),
        Atom::GlobalSize(i) => format!("G{}", d(i)),
        Atom::NumGroups(i) => format!("W{}", d(i)),
        Atom::GlobalOffset(i) => format!("o{}", d(i)),
        Atom::Param(i) => format!("p{i}"),
        Atom::LoopVar(v) => format!("v{}", v.index()),
        Atom::ShadowLocalId(i) => format!("l{}'", d(i)),
        Atom::ShadowLoopVar(v) => format!("v{}'", v.index()),
        Atom::High(x, k) => format!("({}>>{k})", default_atom_name(x.atom())),
        Atom::Low(x, k) => {
            format!("({}&{})", default_atom_name(x.atom()), (1u64 << k).saturating_sub(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lx() -> Poly {
        Poly::atom(Atom::LocalId(0))
    }
    fn ly() -> Poly {
        Poly::atom(Atom::LocalId(1))
    }
    fn size() -> Poly {
        Poly::atom(Atom::LocalSize(0))
    }

    #[test]
    fn rationals_normalise() {
        assert_eq!(Rational::new(2, -4), Rational::new(-1, 2));
        assert_eq!(Rational::new(1, 0), None);
        assert!(Rational::new(6, 3).unwrap().is_integer());
    }

    #[test]
    fn rationals_at_the_edge_of_i128_normalise_or_refuse_without_overflowing() {
        // A product of coefficients can be exactly i128::MIN, whose magnitude no i128 holds.
        let min = i128::MIN;
        assert_eq!(Rational::new(min, 2), Some(Rational::int(min / 2)));
        assert_eq!(Rational::new(min, 1), Some(Rational::int(min)));
        assert_eq!(Rational::new(min, -1), None, "-i128::MIN overflows");
        assert_eq!(Rational::new(min, min), None, "their divisor is 2^127");
        assert_eq!(Rational::new(0, min), Some(Rational::ZERO));
        assert_eq!(Rational::new(3, min), None, "the denominator cannot be made positive");
        assert_eq!(Rational::int(min).checked_mul(Rational::int(1)), Some(Rational::int(min)));
    }

    #[test]
    fn linear_split_finds_coefficients() {
        // ly * S + lx + 1
        let p = ly().mul(&size()).unwrap().add(&lx()).unwrap().add(&Poly::int(1)).unwrap();
        let (coefficients, rest) =
            p.linear_in(&[Atom::LocalId(0), Atom::LocalId(1)]).expect("linear");
        assert_eq!(coefficients[&Atom::LocalId(1)], size());
        assert_eq!(coefficients[&Atom::LocalId(0)], Poly::int(1));
        assert_eq!(rest, Poly::int(1));
        let square = lx().mul(&lx()).unwrap();
        assert!(square.linear_in(&[Atom::LocalId(0)]).is_none());
    }

    #[test]
    fn division_by_numeric_stride_is_mixed_radix() {
        // 17 * lx + ly + 34 = (lx + 2) * 17 + ly
        let p = lx().scale(Rational::int(17)).unwrap().add(&ly()).unwrap().add(&Poly::int(34));
        let (q, r) = p.unwrap().divide(&Poly::int(17)).unwrap();
        assert_eq!(q, lx().add(&Poly::int(2)).unwrap());
        assert_eq!(r, ly());
    }

    #[test]
    fn division_by_symbolic_stride() {
        // (B + 1) * lx + ly, divided by B + 1
        let b = Poly::atom(Atom::Param(3));
        let stride = b.add(&Poly::int(1)).unwrap();
        let p = stride.mul(&lx()).unwrap().add(&ly()).unwrap();
        let (q, r) = p.divide(&stride).unwrap();
        assert_eq!(q, lx());
        assert_eq!(r, ly());
    }

    fn small_poly() -> impl Strategy<Value = Poly> {
        let atom = prop_oneof![
            (0u8..3).prop_map(Atom::LocalId),
            (0u8..2).prop_map(Atom::GroupId),
            (0u32..2).prop_map(Atom::Param),
        ];
        proptest::collection::vec((proptest::collection::vec(atom, 0..3), -20i128..20), 0..5)
            .prop_map(|terms| {
                let mut p = Poly::zero();
                for (atoms, c) in terms {
                    let mut t = Poly::int(c);
                    for a in atoms {
                        t = t.mul(&Poly::atom(a)).unwrap();
                    }
                    p = p.add(&t).unwrap();
                }
                p
            })
    }

    proptest! {
        #[test]
        fn ring_laws(a in small_poly(), b in small_poly(), c in small_poly()) {
            prop_assert_eq!(a.add(&b).unwrap(), b.add(&a).unwrap());
            prop_assert_eq!(a.mul(&b).unwrap(), b.mul(&a).unwrap());
            let left = a.mul(&b.add(&c).unwrap()).unwrap();
            let right = a.mul(&b).unwrap().add(&a.mul(&c).unwrap()).unwrap();
            prop_assert_eq!(left, right);
            prop_assert!(a.sub(&a).unwrap().is_zero());
        }

        #[test]
        fn division_reconstructs(a in small_poly(), d in small_poly()) {
            prop_assume!(!d.is_zero());
            if let Some((q, r)) = a.divide(&d) {
                prop_assert_eq!(q.mul(&d).unwrap().add(&r).unwrap(), a);
            }
        }

        #[test]
        fn substitution_is_evaluation(a in small_poly(), x in -5i128..5, y in -5i128..5) {
            let map: BTreeMap<Atom, Poly> =
                [(Atom::LocalId(0), Poly::int(x)), (Atom::LocalId(1), Poly::int(y))]
                    .into_iter()
                    .collect();
            let once = a.substitute(&map).unwrap();
            prop_assert!(!once.mentions(|t| matches!(t, Atom::LocalId(0) | Atom::LocalId(1))));
        }
    }
}
