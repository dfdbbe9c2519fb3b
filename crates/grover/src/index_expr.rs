//! Index expression trees: the value of an IR expression with variables resolved to their
//! definitions, as seen at one point of the kernel.
//!
//! A [`Sym`] keeps the shape of what the user wrote (so the new global load can be printed
//! close to the original) and converts to a [`Poly`] for solving. Anything Grover cannot
//! follow (a variable assigned under a condition, a load of private memory, a call) becomes
//! [`Sym::Opaque`] with the reason, and a candidate whose index or value needs it is refused.

use crate::poly::{Atom, Overflow, Poly, Rational, Splittable};
use clmap_lang::ir::{
    BinaryOp, Builtin, ConversionKind, Handle, LocalVariable, Type, UnaryOp, WorkItemFunction,
};
use std::collections::BTreeMap;

/// A symbolic value.
#[derive(Clone, Debug, PartialEq)]
pub enum Sym {
    /// An integer constant of the given type.
    Int(i128, Handle<Type>),
    /// A non-integer literal, printed from the IR.
    Literal {
        text: String,
        ty: Handle<Type>,
    },
    Atom(Atom, Handle<Type>),
    /// `get_global_id(d)`: kept whole for printing, `wd·Ld + ld + od` for solving.
    GlobalId(u8, Handle<Type>),
    /// A private variable read whose definition is known at that point.
    Var {
        var: Handle<LocalVariable>,
        name: String,
        def: Box<Sym>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Sym>,
        ty: Handle<Type>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Sym>,
        rhs: Box<Sym>,
        ty: Handle<Type>,
    },
    Convert {
        value: Box<Sym>,
        kind: ConversionKind,
        ty: Handle<Type>,
    },
    /// `param[index]` of a `__global`/`__constant` pointer parameter the kernel never writes.
    GlobalLoad {
        param: u32,
        name: String,
        index: Box<Sym>,
        ty: Handle<Type>,
    },
    /// A pure built-in call (math, common, geometric…).
    Call {
        builtin: Builtin,
        args: Vec<Sym>,
        ty: Handle<Type>,
    },
    Swizzle {
        base: Box<Sym>,
        components: Vec<u8>,
        ty: Handle<Type>,
    },
    Compose {
        parts: Vec<Sym>,
        ty: Handle<Type>,
    },
    Splat {
        value: Box<Sym>,
        ty: Handle<Type>,
    },
    /// A solved unknown: a polynomial over the load's symbols.
    Solved(Poly),
    Opaque(String),
}

impl Sym {
    pub fn ty(&self) -> Option<Handle<Type>> {
        match self {
            Sym::Int(_, ty)
            | Sym::Literal { ty, .. }
            | Sym::Atom(_, ty)
            | Sym::GlobalId(_, ty)
            | Sym::Unary { ty, .. }
            | Sym::Binary { ty, .. }
            | Sym::Convert { ty, .. }
            | Sym::GlobalLoad { ty, .. }
            | Sym::Call { ty, .. }
            | Sym::Swizzle { ty, .. }
            | Sym::Compose { ty, .. }
            | Sym::Splat { ty, .. } => Some(*ty),
            Sym::Var { def, .. } => def.ty(),
            Sym::Opaque(_) | Sym::Solved(_) => None,
        }
    }

    /// Whether the tree has at most `limit` nodes (stops counting past the limit).
    pub fn size_at_most(&self, limit: usize) -> bool {
        let mut count = 0usize;
        let mut stack = vec![self];
        while let Some(s) = stack.pop() {
            count += 1;
            if count > limit {
                return false;
            }
            match s {
                Sym::Var { def, .. } => stack.push(def),
                Sym::Unary { operand, .. } => stack.push(operand),
                Sym::Binary { lhs, rhs, .. } => {
                    stack.push(lhs);
                    stack.push(rhs);
                }
                Sym::Convert { value, .. } | Sym::Splat { value, .. } => stack.push(value),
                Sym::GlobalLoad { index, .. } => stack.push(index),
                Sym::Swizzle { base, .. } => stack.push(base),
                Sym::Call { args: parts, .. } | Sym::Compose { parts, .. } => {
                    stack.extend(parts.iter())
                }
                _ => {}
            }
        }
        true
    }

    /// The first reason the value cannot be followed, if any part is opaque.
    pub fn opaque_reason(&self) -> Option<&str> {
        let mut found = None;
        self.visit(&mut |s| {
            if let (None, Sym::Opaque(r)) = (&found, s) {
                found = Some(r.as_str());
            }
        });
        found
    }

    /// Calls `f` on every node, parents first.
    pub fn visit<'s>(&'s self, f: &mut dyn FnMut(&'s Sym)) {
        f(self);
        match self {
            Sym::Var { def, .. } => def.visit(f),
            Sym::Unary { operand, .. } => operand.visit(f),
            Sym::Binary { lhs, rhs, .. } => {
                lhs.visit(f);
                rhs.visit(f);
            }
            Sym::Convert { value, .. } | Sym::Splat { value, .. } => value.visit(f),
            Sym::GlobalLoad { index, .. } => index.visit(f),
            Sym::Swizzle { base, .. } => base.visit(f),
            Sym::Call { args: parts, .. } | Sym::Compose { parts, .. } => {
                for p in parts {
                    p.visit(f);
                }
            }
            Sym::Int(..) | Sym::Literal { .. } | Sym::Atom(..) | Sym::GlobalId(..) => {}
            Sym::Opaque(_) | Sym::Solved(_) => {}
        }
    }

    /// The global loads in the value, outermost first.
    pub fn global_loads(&self) -> Vec<&Sym> {
        let mut loads = Vec::new();
        self.visit(&mut |s| {
            if matches!(s, Sym::GlobalLoad { .. }) {
                loads.push(s);
            }
        });
        loads
    }

    /// Whether the value mentions an atom accepted by `pred` (global ids count as their
    /// local id and group id).
    pub fn mentions(&self, pred: &dyn Fn(Atom) -> bool) -> bool {
        let mut hit = false;
        self.visit(&mut |s| match s {
            Sym::Atom(a, _) => hit |= pred(*a),
            Sym::Solved(p) => hit |= p.mentions(pred),
            Sym::GlobalId(d, _) => {
                hit |= pred(Atom::LocalId(*d))
                    || pred(Atom::GroupId(*d))
                    || pred(Atom::LocalSize(*d))
                    || pred(Atom::GlobalOffset(*d))
            }
            _ => {}
        });
        hit
    }

    /// Replaces atoms by other values, all at once.
    pub fn substitute(&self, map: &BTreeMap<Atom, Sym>) -> Sym {
        let go = |s: &Sym| Box::new(s.substitute(map));
        match self {
            Sym::Atom(a, _) => map.get(a).cloned().unwrap_or_else(|| self.clone()),
            Sym::GlobalId(d, ty) => match map.get(&Atom::LocalId(*d)) {
                // The first work-item of the group: `get_global_id(d) - lid`.
                Some(Sym::Solved(p)) if p.is_zero() => Sym::Binary {
                    op: BinaryOp::Sub,
                    lhs: Box::new(self.clone()),
                    rhs: Box::new(Sym::Atom(Atom::LocalId(*d), *ty)),
                    ty: *ty,
                },
                // The global id of the work-item whose local id is the replacement.
                Some(local) => Sym::Binary {
                    op: BinaryOp::Add,
                    lhs: Box::new(Sym::Binary {
                        op: BinaryOp::Sub,
                        lhs: Box::new(self.clone()),
                        rhs: Box::new(Sym::Atom(Atom::LocalId(*d), *ty)),
                        ty: *ty,
                    }),
                    rhs: Box::new(Sym::Convert {
                        value: Box::new(local.clone()),
                        kind: ConversionKind::Cast,
                        ty: *ty,
                    }),
                    ty: *ty,
                },
                None => self.clone(),
            },
            // A variable whose value the substitution changes is no longer that variable: its
            // (new) definition stands in its place.
            Sym::Var { def, .. } => {
                let new_def = def.substitute(map);
                if new_def == **def {
                    self.clone()
                } else {
                    new_def
                }
            }
            Sym::Unary { op, operand, ty } => Sym::Unary { op: *op, operand: go(operand), ty: *ty },
            Sym::Binary { op, lhs, rhs, ty } => {
                // `tid >> 4` and `tid & 15` take the solved parts of `tid` when the map has
                // them: the text stays as simple as the solution.
                if matches!(op, BinaryOp::Shr | BinaryOp::BitAnd | BinaryOp::Div | BinaryOp::Rem)
                    && map.keys().any(|a| matches!(a, Atom::High(..) | Atom::Low(..)))
                {
                    if let Some(part) = self.to_poly().ok().and_then(|p| p.as_atom()) {
                        if let Some(value) = map.get(&part) {
                            return value.clone();
                        }
                    }
                }
                Sym::Binary { op: *op, lhs: go(lhs), rhs: go(rhs), ty: *ty }
            }
            Sym::Convert { value, kind, ty } => {
                Sym::Convert { value: go(value), kind: *kind, ty: *ty }
            }
            Sym::GlobalLoad { param, name, index, ty } => {
                Sym::GlobalLoad { param: *param, name: name.clone(), index: go(index), ty: *ty }
            }
            Sym::Call { builtin, args, ty } => Sym::Call {
                builtin: *builtin,
                args: args.iter().map(|a| a.substitute(map)).collect(),
                ty: *ty,
            },
            Sym::Swizzle { base, components, ty } => {
                Sym::Swizzle { base: go(base), components: components.clone(), ty: *ty }
            }
            Sym::Compose { parts, ty } => {
                Sym::Compose { parts: parts.iter().map(|p| p.substitute(map)).collect(), ty: *ty }
            }
            Sym::Splat { value, ty } => Sym::Splat { value: go(value), ty: *ty },
            Sym::Int(..) | Sym::Literal { .. } | Sym::Opaque(_) | Sym::Solved(_) => self.clone(),
        }
    }

    /// The value as a polynomial, when it is integer arithmetic Grover can follow.
    pub fn to_poly(&self) -> Result<Poly, PolyError> {
        self.to_poly_in(&IdRanges::default())
    }

    /// [`Sym::to_poly`] knowing the ranges of the local ids (which decide whether a shifted
    /// or masked value fits in its bits).
    pub fn to_poly_in(&self, ranges: &IdRanges) -> Result<Poly, PolyError> {
        match self {
            Sym::Int(v, _) => Ok(Poly::int(*v)),
            Sym::Atom(a, _) => Ok(Poly::atom(*a)),
            Sym::Solved(p) => Ok(p.clone()),
            Sym::GlobalId(d, _) => {
                let group = Poly::atom(Atom::GroupId(*d)).mul(&Poly::atom(Atom::LocalSize(*d)))?;
                Ok(group
                    .add(&Poly::atom(Atom::LocalId(*d)))?
                    .add(&Poly::atom(Atom::GlobalOffset(*d)))?)
            }
            Sym::Var { def, .. } => def.to_poly_in(ranges),
            // Conversions between integer types keep the value when it is in range, which is
            // what index arithmetic relies on; validation checks the rest.
            Sym::Convert { value, .. } => value.to_poly_in(ranges),
            Sym::Unary { op: UnaryOp::Negate, operand, .. } => {
                Ok(operand.to_poly_in(ranges)?.neg()?)
            }
            Sym::Binary { op, lhs, rhs, .. } => {
                let (l, r) = (lhs.to_poly_in(ranges)?, rhs.to_poly_in(ranges)?);
                match op {
                    BinaryOp::Add => Ok(l.add(&r)?),
                    BinaryOp::Sub => Ok(l.sub(&r)?),
                    BinaryOp::Mul => Ok(l.mul(&r)?),
                    BinaryOp::Shl => match r.as_constant() {
                        Some(c) if c.is_integer() && (0..63).contains(&c.numerator()) => {
                            Ok(l.scale(Rational::int(1i128 << c.numerator()))?)
                        }
                        _ => Err(PolyError::NotPolynomial("a shift by a variable amount".into())),
                    },
                    BinaryOp::Shr | BinaryOp::BitAnd | BinaryOp::BitOr => bits::combine(*op, &l, &r, ranges),
                    BinaryOp::Div | BinaryOp::Rem => match (l.as_constant(), r.as_constant()) {
                        (Some(a), Some(b)) if a.is_integer() && b.is_integer() && !b.is_zero() => {
                            let (a, b) = (a.numerator(), b.numerator());
                            Ok(Poly::int(if *op == BinaryOp::Div { a / b } else { a % b }))
                        }
                        // By a power of two, division and remainder are the shift and the mask
                        // (for the non-negative values indexes hold; validation checks).
                        (_, Some(b)) if b.is_integer() && bits::log2(b.numerator()).is_some() => {
                            let k = bits::log2(b.numerator()).unwrap_or(0);
                            let what = format!("{} {}", op.as_str(), b.numerator());
                            if *op == BinaryOp::Div {
                                bits::shift_right(&l, k, ranges, &what)
                            } else {
                                bits::low_bits(&l, k, ranges, &what)
                            }
                        }
                        _ => Err(PolyError::NotPolynomial(format!(
                            "integer {} of variables by something other than a constant power of two",
                            if *op == BinaryOp::Div { "division" } else { "remainder" }
                        ))),
                    },
                    other => {
                        Err(PolyError::NotPolynomial(format!("operator `{}`", op_text(*other))))
                    }
                }
            }
            Sym::Opaque(reason) => Err(PolyError::NotPolynomial(reason.clone())),
            Sym::Literal { text, .. } => Err(PolyError::NotPolynomial(format!("literal {text}"))),
            Sym::GlobalLoad { name, .. } => {
                Err(PolyError::NotPolynomial(format!("a value loaded from `{name}`")))
            }
            _ => Err(PolyError::NotPolynomial("a non-integer value".into())),
        }
    }
}

/// What is known of the local ids' ranges: with `reqd_work_group_size(X, Y, Z)` on the
/// kernel, `0 ≤ get_local_id(d) < size[d]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdRanges {
    pub local_size: Option<[u32; 3]>,
}

impl IdRanges {
    pub fn of(f: &clmap_lang::ir::Function) -> IdRanges {
        let local_size = match &f.kind {
            clmap_lang::ir::FunctionKind::Kernel(attributes) => attributes.reqd_work_group_size,
            _ => None,
        };
        IdRanges { local_size }
    }

    /// The smallest and largest value of an atom, when known.
    pub fn atom_bounds(&self, a: Atom) -> Option<(i128, i128)> {
        let size = |d: u8| -> Option<i128> {
            let s = *self.local_size?.get(usize::from(d))?;
            (s > 0).then_some(i128::from(s))
        };
        match a {
            Atom::Low(_, k) => Some((0, (1i128 << u32::from(k).min(120)) - 1)),
            Atom::LocalId(d) | Atom::ShadowLocalId(d) => Some((0, size(d)? - 1)),
            Atom::High(Splittable::LocalId(d) | Splittable::ShadowLocalId(d), k) => {
                Some((0, (size(d)? - 1) >> u32::from(k).min(120)))
            }
            _ => None,
        }
    }
}

/// Why a value is not a polynomial of the ids.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolyError {
    #[error("the index uses {0}, which is not linear index arithmetic")]
    NotPolynomial(String),
    /// A shift, mask or `|` Grover cannot write as a linear form (see [`bits`]).
    #[error("the index uses {0}")]
    Bits(String),
    #[error(transparent)]
    Overflow(#[from] Overflow),
}

/// The C spelling of a binary operator.
pub fn op_text(op: BinaryOp) -> &'static str {
    op.as_str()
}

/// The atom of a work-item query with a constant dimension, if it is one.
pub fn work_item_atom(f: WorkItemFunction, dim: u8) -> Option<Atom> {
    Some(match f {
        WorkItemFunction::LocalId => Atom::LocalId(dim),
        WorkItemFunction::GroupId => Atom::GroupId(dim),
        WorkItemFunction::LocalSize | WorkItemFunction::EnqueuedLocalSize => Atom::LocalSize(dim),
        WorkItemFunction::GlobalSize => Atom::GlobalSize(dim),
        WorkItemFunction::NumGroups => Atom::NumGroups(dim),
        WorkItemFunction::GlobalOffset => Atom::GlobalOffset(dim),
        WorkItemFunction::GlobalId | WorkItemFunction::WorkDim => return None,
    })
}

/// Structural equality of two values with their integer parts compared as polynomials, so
/// `A0[(k + 1 - 1) * n]` equals `A0[k * n]`.
pub fn same_value(a: &Sym, b: &Sym) -> bool {
    if let (Ok(pa), Ok(pb)) = (a.to_poly(), b.to_poly()) {
        return pa == pb;
    }
    match (strip(a), strip(b)) {
        (
            Sym::GlobalLoad { param: p1, index: i1, .. },
            Sym::GlobalLoad { param: p2, index: i2, .. },
        ) => p1 == p2 && same_value(i1, i2),
        (Sym::Unary { op: o1, operand: x1, .. }, Sym::Unary { op: o2, operand: x2, .. }) => {
            o1 == o2 && same_value(x1, x2)
        }
        (
            Sym::Binary { op: o1, lhs: l1, rhs: r1, .. },
            Sym::Binary { op: o2, lhs: l2, rhs: r2, .. },
        ) => o1 == o2 && same_value(l1, l2) && same_value(r1, r2),
        (Sym::Convert { value: v1, ty: t1, .. }, Sym::Convert { value: v2, ty: t2, .. }) => {
            t1 == t2 && same_value(v1, v2)
        }
        (Sym::Call { builtin: f1, args: a1, .. }, Sym::Call { builtin: f2, args: a2, .. }) => {
            f1 == f2 && a1.len() == a2.len() && a1.iter().zip(a2).all(|(x, y)| same_value(x, y))
        }
        (
            Sym::Swizzle { base: b1, components: c1, .. },
            Sym::Swizzle { base: b2, components: c2, .. },
        ) => c1 == c2 && same_value(b1, b2),
        (Sym::Compose { parts: p1, .. }, Sym::Compose { parts: p2, .. }) => {
            p1.len() == p2.len() && p1.iter().zip(p2).all(|(x, y)| same_value(x, y))
        }
        (Sym::Splat { value: v1, .. }, Sym::Splat { value: v2, .. }) => same_value(v1, v2),
        (Sym::Literal { text: t1, .. }, Sym::Literal { text: t2, .. }) => t1 == t2,
        _ => false,
    }
}

/// A variable read is its definition, as far as values go.
fn strip(s: &Sym) -> &Sym {
    match s {
        Sym::Var { def, .. } => strip(def),
        other => other,
    }
}

/// Shifts, masks and `|` by constants as exact linear forms.
///
/// A local id or loop counter `x` is written `x = 2^k · High(x, k) + Low(x, k)` with
/// `0 ≤ Low < 2^k`, so `x >> k` (or `x / 2^k`) is `High` and `x & (2^k - 1)` (or
/// `x % 2^k`) is `Low`. What is accepted, for a value `v = m + r` where every term of `m` is
/// a multiple of `2^k`:
///
/// - `v >> k`, `v / 2^k`: `m / 2^k + High(x, k)` when `r` is `x`; `m / 2^k` when `r` is known
///   to lie in `[0, 2^k)` (constants and low bits of ids); `High(x, j + k)` for
///   `(x >> j) >> k`;
/// - `v & (2^k - 1)`, `v % 2^k`: `Low(x, k)` when `r` is `x`; `r` when it lies in `[0, 2^k)`;
///   `Low(x, min(j, k))` for `(x & (2^j - 1)) & (2^k - 1)`;
/// - `a | b`: `a + b` when one side is a multiple of `2^k` and the other lies in `[0, 2^k)`
///   (disjoint bits: `(row << 4) | col` with `col = tid & 15`);
/// - `<<` by a constant is a multiplication (above), and constants fold.
///
/// Everything else is refused with the reason: masks that are not `2^k - 1`, shifts of values
/// whose low part is not a single id (a global id, `lx + ly`, whose carry into the high bits
/// is unknown), `|` of values whose bits may overlap.
pub mod bits {
    use super::{IdRanges, PolyError};
    use crate::poly::{default_atom_name, Atom, Poly, Rational, Splittable};
    use clmap_lang::ir::BinaryOp;

    /// `k` when `v = 2^k`, `k < 64`.
    pub fn log2(v: i128) -> Option<u32> {
        (v > 0 && v & (v - 1) == 0 && v < (1i128 << 64)).then(|| v.trailing_zeros())
    }

    fn constant(p: &Poly) -> Option<i128> {
        p.as_constant().filter(|c| c.is_integer()).map(Rational::numerator)
    }

    fn show(p: &Poly) -> String {
        p.display_with(&default_atom_name)
    }

    /// `l op r` for `>>`, `&` and `|`.
    pub fn combine(op: BinaryOp, l: &Poly, r: &Poly, ranges: &IdRanges) -> Result<Poly, PolyError> {
        if let (Some(a), Some(b)) = (constant(l), constant(r)) {
            let folded = match op {
                BinaryOp::Shr if (0..127).contains(&b) => Some(a >> b),
                BinaryOp::BitAnd => Some(a & b),
                BinaryOp::BitOr => Some(a | b),
                _ => None,
            };
            if let Some(v) = folded {
                return Ok(Poly::int(v));
            }
        }
        match op {
            BinaryOp::Shr => match constant(r).and_then(|k| u32::try_from(k).ok()) {
                Some(k) if k < 64 => shift_right(l, k, ranges, &format!(">> {k}")),
                _ => Err(PolyError::Bits("a shift by a variable amount".into())),
            },
            BinaryOp::BitAnd => {
                let (value, mask) = match (constant(l), constant(r)) {
                    (_, Some(m)) => (l, m),
                    (Some(m), None) => (r, m),
                    (None, None) => {
                        return Err(PolyError::Bits("`&` of two variable values".into()))
                    }
                };
                match mask.checked_add(1).and_then(log2) {
                    Some(k) => low_bits(value, k, ranges, &format!("& {mask}")),
                    None => Err(PolyError::Bits(format!(
                        "`& {mask}`: only masks of low bits (2^k - 1, as 15 or 0xff) are followed"
                    ))),
                }
            }
            BinaryOp::BitOr => disjoint_or(l, r, ranges),
            _ => Err(PolyError::Bits(format!("operator `{}`", op.as_str()))),
        }
    }

    /// Whether `r` lies in `[0, 2^k)`.
    fn fits(r: &Poly, k: u32, ranges: &IdRanges) -> bool {
        r.bounds(&|x| ranges.atom_bounds(x)).is_some_and(|(lo, hi)| lo >= 0 && hi < (1i128 << k))
    }

    fn refuse_split(what: &str, v: &Poly, k: u32) -> PolyError {
        PolyError::Bits(format!(
            "`{what}` of `{}`: a shift or mask is followed only on a local id or loop counter \
             plus a multiple of {}, or on a value known to lie in [0, {}) (local ids are bounded \
             by a `reqd_work_group_size` attribute)",
            show(v),
            1i128 << k,
            1i128 << k
        ))
    }

    /// `v >> k`; `what` is the operation as written, for the refusal.
    pub fn shift_right(v: &Poly, k: u32, ranges: &IdRanges, what: &str) -> Result<Poly, PolyError> {
        if k == 0 {
            return Ok(v.clone());
        }
        let (multiple, rest) = v.split_multiple_of_pow2(k);
        let high = multiple.scale(Rational::new(1, 1i128 << k).ok_or(crate::poly::Overflow)?)?;
        if fits(&rest, k, ranges) {
            return Ok(high);
        }
        let part = match rest.as_atom() {
            Some(Atom::High(x, j)) if u32::from(j) + k < 64 => {
                Atom::High(x, (u32::from(j) + k) as u8)
            }
            Some(a) => match Splittable::of(a) {
                Some(x) => Atom::High(x, k as u8),
                None => return Err(refuse_split(what, v, k)),
            },
            None => return Err(refuse_split(what, v, k)),
        };
        Ok(high.add(&Poly::atom(part))?)
    }

    /// `v & (2^k - 1)`; `what` is the operation as written, for the refusal.
    pub fn low_bits(v: &Poly, k: u32, ranges: &IdRanges, what: &str) -> Result<Poly, PolyError> {
        if k == 0 {
            return Ok(Poly::zero());
        }
        let (_, rest) = v.split_multiple_of_pow2(k);
        if fits(&rest, k, ranges) {
            return Ok(rest);
        }
        let part = match rest.as_atom() {
            Some(Atom::Low(x, j)) => Atom::Low(x, j.min(k as u8)),
            Some(a) => match Splittable::of(a) {
                Some(x) => Atom::Low(x, k as u8),
                None => return Err(refuse_split(what, v, k)),
            },
            None => return Err(refuse_split(what, v, k)),
        };
        Ok(Poly::atom(part))
    }

    /// `a | b` as `a + b` when their bits cannot overlap.
    fn disjoint_or(a: &Poly, b: &Poly, ranges: &IdRanges) -> Result<Poly, PolyError> {
        for (wide, narrow) in [(a, b), (b, a)] {
            let Some((lo, hi)) = narrow.bounds(&|x| ranges.atom_bounds(x)) else { continue };
            if lo < 0 {
                continue;
            }
            // The fewest low bits the narrow side needs.
            let k = (0..64u32).find(|k| hi < (1i128 << k)).unwrap_or(64);
            let (_, rest) = wide.split_multiple_of_pow2(k);
            if rest.is_zero() {
                return Ok(wide.add(narrow)?);
            }
        }
        Err(PolyError::Bits(format!(
            "`{} | {}`: `|` is followed only when one side is a multiple of 2^k and the other \
             lies in [0, 2^k), so that their bits do not overlap (local ids and their high \
             bits are bounded by a `reqd_work_group_size` attribute)",
            show(a),
            show(b)
        )))
    }
}
