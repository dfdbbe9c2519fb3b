//! Symbolic integer values of one work-item: what an index or a guard computes, in terms of
//! the work-item's global id, the kernel's scalar arguments and the counters of enclosing
//! loops. Sums, products by constants, `min` and `max` are kept exactly; anything else
//! (division, data loaded from memory, a variable assigned twice) has no symbolic value, and
//! the analysis says why.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A leaf of a symbolic value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// `get_global_id(d)`.
    GlobalId(u8),
    /// The by-value kernel parameter with this index.
    Param(u32),
    /// The counter of an enclosing counted loop (index of the kernel's local variable).
    Loop(u32),
}

/// A symbolic integer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sym {
    Const(i64),
    Atom(Atom),
    Add(Box<Sym>, Box<Sym>),
    /// A product; affine only when one side is constant once parameters are known.
    Mul(Box<Sym>, Box<Sym>),
    Min(Box<Sym>, Box<Sym>),
    Max(Box<Sym>, Box<Sym>),
}

impl Sym {
    pub fn atom(atom: Atom) -> Sym {
        Sym::Atom(atom)
    }

    pub fn add(a: Sym, b: Sym) -> Sym {
        match (&a, &b) {
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(x.wrapping_add(*y)),
            (Sym::Const(0), _) => b,
            (_, Sym::Const(0)) => a,
            _ => Sym::Add(Box::new(a), Box::new(b)),
        }
    }

    pub fn sub(a: Sym, b: Sym) -> Sym {
        Sym::add(a, Sym::mul(Sym::Const(-1), b))
    }

    pub fn mul(a: Sym, b: Sym) -> Sym {
        match (&a, &b) {
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(x.wrapping_mul(*y)),
            (Sym::Const(1), _) => b,
            (_, Sym::Const(1)) => a,
            (Sym::Const(0), _) | (_, Sym::Const(0)) => Sym::Const(0),
            _ => Sym::Mul(Box::new(a), Box::new(b)),
        }
    }

    pub fn min(a: Sym, b: Sym) -> Sym {
        match (&a, &b) {
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(*x.min(y)),
            _ => Sym::Min(Box::new(a), Box::new(b)),
        }
    }

    pub fn max(a: Sym, b: Sym) -> Sym {
        match (&a, &b) {
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(*x.max(y)),
            _ => Sym::Max(Box::new(a), Box::new(b)),
        }
    }

    /// The value with every atom that `value` knows replaced by its constant.
    pub fn substitute(&self, value: &dyn Fn(Atom) -> Option<i64>) -> Sym {
        match self {
            Sym::Const(c) => Sym::Const(*c),
            Sym::Atom(a) => value(*a).map(Sym::Const).unwrap_or(Sym::Atom(*a)),
            Sym::Add(a, b) => Sym::add(a.substitute(value), b.substitute(value)),
            Sym::Mul(a, b) => Sym::mul(a.substitute(value), b.substitute(value)),
            Sym::Min(a, b) => Sym::min(a.substitute(value), b.substitute(value)),
            Sym::Max(a, b) => Sym::max(a.substitute(value), b.substitute(value)),
        }
    }

    /// Every atom mentioned.
    pub fn atoms(&self, out: &mut Vec<Atom>) {
        match self {
            Sym::Const(_) => {}
            Sym::Atom(a) => {
                if !out.contains(a) {
                    out.push(*a)
                }
            }
            Sym::Add(a, b) | Sym::Mul(a, b) | Sym::Min(a, b) | Sym::Max(a, b) => {
                a.atoms(out);
                b.atoms(out);
            }
        }
    }

    /// Parameters that a product multiplies with something that is not a constant: isl can
    /// keep a parameter symbolic only where it appears linearly.
    pub fn params_in_products(&self, out: &mut Vec<u32>) {
        match self {
            Sym::Const(_) | Sym::Atom(_) => {}
            Sym::Mul(a, b) => {
                if a.constant().is_none() && b.constant().is_none() {
                    for side in [a, b] {
                        let mut atoms = Vec::new();
                        side.atoms(&mut atoms);
                        for atom in atoms {
                            if let Atom::Param(p) = atom {
                                if !out.contains(&p) {
                                    out.push(p)
                                }
                            }
                        }
                    }
                }
                a.params_in_products(out);
                b.params_in_products(out);
            }
            Sym::Add(a, b) | Sym::Min(a, b) | Sym::Max(a, b) => {
                a.params_in_products(out);
                b.params_in_products(out);
            }
        }
    }

    pub fn constant(&self) -> Option<i64> {
        match self {
            Sym::Const(c) => Some(*c),
            _ => None,
        }
    }

    /// The value as a sum of terms with integer coefficients; a term is an atom or a whole
    /// `min`/`max`. `None` when a product of two non-constants remains.
    pub fn linear(&self) -> Option<Linear> {
        let mut out = Linear::default();
        self.add_to(1, &mut out)?;
        out.terms.retain(|_, c| *c != 0);
        Some(out)
    }

    fn add_to(&self, scale: i64, out: &mut Linear) -> Option<()> {
        match self {
            Sym::Const(c) => out.constant = out.constant.checked_add(scale.checked_mul(*c)?)?,
            Sym::Atom(_) | Sym::Min(..) | Sym::Max(..) => {
                let entry = out.terms.entry(self.clone()).or_insert(0);
                *entry = entry.checked_add(scale)?;
            }
            Sym::Add(a, b) => {
                a.add_to(scale, out)?;
                b.add_to(scale, out)?;
            }
            Sym::Mul(a, b) => match (a.constant(), b.constant()) {
                (Some(c), _) => b.add_to(scale.checked_mul(c)?, out)?,
                (_, Some(c)) => a.add_to(scale.checked_mul(c)?, out)?,
                _ => return None,
            },
        }
        Some(())
    }

    /// isl's notation, with `name` spelling each atom (products of non-constants are
    /// written as products, which isl refuses: substitute parameters first).
    pub fn isl(&self, name: &dyn Fn(Atom) -> String) -> String {
        match self {
            // isl reads `-1 * p0` but not `(-1) * p0`.
            Sym::Const(c) => c.to_string(),
            Sym::Atom(a) => name(*a),
            Sym::Add(a, b) => format!("({} + {})", a.isl(name), b.isl(name)),
            Sym::Mul(a, b) => format!("({} * {})", a.isl(name), b.isl(name)),
            Sym::Min(a, b) => format!("min({}, {})", a.isl(name), b.isl(name)),
            Sym::Max(a, b) => format!("max({}, {})", a.isl(name), b.isl(name)),
        }
    }
}

/// `constant + Σ coefficient × term`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linear {
    pub terms: BTreeMap<Sym, i64>,
    pub constant: i64,
}

impl Linear {
    pub fn coefficient(&self, atom: Atom) -> i64 {
        self.terms.get(&Sym::Atom(atom)).copied().unwrap_or(0)
    }

    /// Back to a value.
    pub fn to_sym(&self) -> Sym {
        let mut out = Sym::Const(self.constant);
        for (term, c) in &self.terms {
            out = Sym::add(out, Sym::mul(Sym::Const(*c), term.clone()));
        }
        out
    }

    /// Splits a flat index into per-dimension components for row-major `strides`
    /// (`strides[0] == 1`, each stride a multiple of the one before): every term goes to
    /// the largest stride dividing its coefficient, and the constant is split so that each
    /// component's share is as small as possible. `None` when a coefficient is not a
    /// multiple of any stride.
    pub fn delinearise(&self, strides: &[i64]) -> Option<Vec<Linear>> {
        let mut parts = vec![Linear::default(); strides.len()];
        for (term, c) in &self.terms {
            let d = (0..strides.len()).rev().find(|d| c % strides[*d] == 0)?;
            parts[d].terms.insert(term.clone(), c / strides[d]);
        }
        let mut rest = self.constant;
        for d in (1..strides.len()).rev() {
            let s = strides[d];
            let q = (rest + s / 2).div_euclid(s);
            parts[d].constant = q;
            rest -= q * s;
        }
        parts[0].constant = rest;
        Some(parts)
    }
}

/// A comparison of symbolic values (`lhs op 0` after moving everything left).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    True,
    /// A condition the analysis cannot follow (it depends on data, say).
    Unknown(String),
    /// `value >= 0`.
    NonNegative(Sym),
    /// `value == 0`.
    Zero(Sym),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Not(Box<Cond>),
}

impl Cond {
    pub fn and(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::True, x) | (x, Cond::True) => x,
            (Cond::And(mut xs), Cond::And(ys)) => {
                xs.extend(ys);
                Cond::And(xs)
            }
            (Cond::And(mut xs), y) => {
                xs.push(y);
                Cond::And(xs)
            }
            (x, y) => Cond::And(vec![x, y]),
        }
    }

    pub fn not(a: Cond) -> Cond {
        match a {
            Cond::Not(inner) => *inner,
            Cond::Unknown(r) => Cond::Unknown(r),
            other => Cond::Not(Box::new(other)),
        }
    }

    /// Every atom the condition mentions.
    pub fn atoms(&self, out: &mut Vec<Atom>) {
        match self {
            Cond::True | Cond::Unknown(_) => {}
            Cond::NonNegative(s) | Cond::Zero(s) => s.atoms(out),
            Cond::And(xs) | Cond::Or(xs) => xs.iter().for_each(|x| x.atoms(out)),
            Cond::Not(x) => x.atoms(out),
        }
    }

    /// Whether some part cannot be followed.
    pub fn unknown(&self) -> Option<&str> {
        match self {
            Cond::Unknown(r) => Some(r),
            Cond::True | Cond::NonNegative(_) | Cond::Zero(_) => None,
            Cond::And(xs) | Cond::Or(xs) => xs.iter().find_map(|x| x.unknown()),
            Cond::Not(x) => x.unknown(),
        }
    }

    /// The condition without its unknown parts: a superset of the points where it holds
    /// (an unknown part under `not` is dropped with the `not`).
    pub fn relaxed(&self) -> Cond {
        match self {
            Cond::Unknown(_) => Cond::True,
            Cond::And(xs) => Cond::And(xs.iter().map(Cond::relaxed).collect()),
            Cond::Or(xs) => {
                if xs.iter().any(|x| x.unknown().is_some()) {
                    Cond::True
                } else {
                    self.clone()
                }
            }
            Cond::Not(x) if x.unknown().is_some() => Cond::True,
            other => other.clone(),
        }
    }

    /// isl's notation (`true` for an empty conjunction).
    pub fn isl(&self, name: &dyn Fn(Atom) -> String) -> String {
        match self {
            Cond::True | Cond::Unknown(_) => "true".into(),
            Cond::NonNegative(s) => format!("{} >= 0", s.isl(name)),
            Cond::Zero(s) => format!("{} = 0", s.isl(name)),
            Cond::And(xs) => join(xs, " and ", name),
            Cond::Or(xs) => join(xs, " or ", name),
            Cond::Not(x) => format!("not ({})", x.isl(name)),
        }
    }

    /// OpenCL C text over integer operands (`name` spells each atom).
    pub fn c(&self, name: &dyn Fn(Atom) -> String) -> String {
        match self {
            Cond::True | Cond::Unknown(_) => "1".into(),
            Cond::NonNegative(s) => format!("{} >= 0", sym_c(s, name)),
            Cond::Zero(s) => format!("{} == 0", sym_c(s, name)),
            Cond::And(xs) => {
                let parts: Vec<String> = xs.iter().map(|x| format!("({})", x.c(name))).collect();
                if parts.is_empty() {
                    "1".into()
                } else {
                    parts.join(" && ")
                }
            }
            Cond::Or(xs) => {
                let parts: Vec<String> = xs.iter().map(|x| format!("({})", x.c(name))).collect();
                if parts.is_empty() {
                    "0".into()
                } else {
                    parts.join(" || ")
                }
            }
            Cond::Not(x) => format!("!({})", x.c(name)),
        }
    }

    pub fn substitute(&self, value: &dyn Fn(Atom) -> Option<i64>) -> Cond {
        match self {
            Cond::True | Cond::Unknown(_) => self.clone(),
            Cond::NonNegative(s) => Cond::NonNegative(s.substitute(value)),
            Cond::Zero(s) => Cond::Zero(s.substitute(value)),
            Cond::And(xs) => Cond::And(xs.iter().map(|x| x.substitute(value)).collect()),
            Cond::Or(xs) => Cond::Or(xs.iter().map(|x| x.substitute(value)).collect()),
            Cond::Not(x) => Cond::Not(Box::new(x.substitute(value))),
        }
    }

    pub fn params_in_products(&self, out: &mut Vec<u32>) {
        match self {
            Cond::True | Cond::Unknown(_) => {}
            Cond::NonNegative(s) | Cond::Zero(s) => s.params_in_products(out),
            Cond::And(xs) | Cond::Or(xs) => xs.iter().for_each(|x| x.params_in_products(out)),
            Cond::Not(x) => x.params_in_products(out),
        }
    }
}

fn join(xs: &[Cond], sep: &str, name: &dyn Fn(Atom) -> String) -> String {
    if xs.is_empty() {
        return "true".into();
    }
    let parts: Vec<String> = xs.iter().map(|x| format!("({})", x.isl(name))).collect();
    parts.join(sep)
}

/// OpenCL C text of an integer value (`min`/`max` are the built-ins).
pub fn sym_c(s: &Sym, name: &dyn Fn(Atom) -> String) -> String {
    match s {
        Sym::Const(c) => {
            if *c < 0 {
                format!("({c})")
            } else {
                c.to_string()
            }
        }
        Sym::Atom(a) => name(*a),
        Sym::Add(a, b) => format!("({} + {})", sym_c(a, name), sym_c(b, name)),
        Sym::Mul(a, b) => format!("({} * {})", sym_c(a, name), sym_c(b, name)),
        Sym::Min(a, b) => format!("min({}, {})", sym_c(a, name), sym_c(b, name)),
        Sym::Max(a, b) => format!("max({}, {})", sym_c(a, name), sym_c(b, name)),
    }
}

/// `lhs op rhs` as a condition on integers.
pub fn compare(op: clmap_lang::ir::BinaryOp, lhs: Sym, rhs: Sym) -> Option<Cond> {
    use clmap_lang::ir::BinaryOp as B;
    let d = |a: Sym, b: Sym| Sym::sub(a, b);
    Some(match op {
        B::Ge => Cond::NonNegative(d(lhs, rhs)),
        B::Le => Cond::NonNegative(d(rhs, lhs)),
        B::Gt => Cond::NonNegative(Sym::add(d(lhs, rhs), Sym::Const(-1))),
        B::Lt => Cond::NonNegative(Sym::add(d(rhs, lhs), Sym::Const(-1))),
        B::Eq => Cond::Zero(d(lhs, rhs)),
        B::Ne => Cond::not(Cond::Zero(d(lhs, rhs))),
        _ => return None,
    })
}

/// `a, b, c` for isl tuples.
pub fn tuple(names: &[String]) -> String {
    let mut out = String::from("[");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{n}");
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_indices_split_into_row_major_components() {
        let y = Sym::atom(Atom::GlobalId(1));
        let x = Sym::atom(Atom::GlobalId(0));
        // (y - 1) * 100 + max(x - 1, 0) + 2
        let index = Sym::add(
            Sym::add(
                Sym::mul(Sym::sub(y.clone(), Sym::Const(1)), Sym::Const(100)),
                Sym::max(Sym::sub(x.clone(), Sym::Const(1)), Sym::Const(0)),
            ),
            Sym::Const(2),
        );
        let parts = index.linear().unwrap().delinearise(&[1, 100]).unwrap();
        assert_eq!(parts[1].coefficient(Atom::GlobalId(1)), 1);
        assert_eq!(parts[1].constant, -1);
        assert_eq!(parts[0].constant, 2);
        assert_eq!(parts[0].terms.len(), 1);
        // A product of two unknowns is not linear until a parameter is known.
        let p = Sym::mul(y, Sym::atom(Atom::Param(2)));
        assert!(p.linear().is_none());
        let known = p.substitute(&|a| (a == Atom::Param(2)).then_some(64));
        assert_eq!(known.linear().unwrap().coefficient(Atom::GlobalId(1)), 64);
    }
}
