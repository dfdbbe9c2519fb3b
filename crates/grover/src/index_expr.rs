//! Index expression trees: the value of an IR expression with variables resolved to their
//! definitions, as seen at one point of the kernel.
//!
//! A [`Sym`] keeps the shape of what the user wrote (so the new global load can be printed
//! close to the original) and converts to a [`Poly`] for solving. Anything Grover cannot
//! follow (a variable assigned under a condition, a load of private memory, a call) becomes
//! [`Sym::Opaque`] with the reason, and a candidate whose index or value needs it is refused.

use crate::poly::{Atom, Overflow, Poly, Rational};
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
            Sym::Var { def, .. } => def.to_poly(),
            // Conversions between integer types keep the value when it is in range, which is
            // what index arithmetic relies on; validation checks the rest.
            Sym::Convert { value, .. } => value.to_poly(),
            Sym::Unary { op: UnaryOp::Negate, operand, .. } => Ok(operand.to_poly()?.neg()?),
            Sym::Binary { op, lhs, rhs, .. } => {
                let (l, r) = (lhs.to_poly()?, rhs.to_poly()?);
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
                    BinaryOp::Div | BinaryOp::Rem => match (l.as_constant(), r.as_constant()) {
                        (Some(a), Some(b)) if a.is_integer() && b.is_integer() && !b.is_zero() => {
                            let (a, b) = (a.numerator(), b.numerator());
                            Ok(Poly::int(if *op == BinaryOp::Div { a / b } else { a % b }))
                        }
                        _ => Err(PolyError::NotPolynomial(format!(
                            "integer {} of variables",
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

/// Why a value is not a polynomial of the ids.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolyError {
    #[error("the index uses {0}, which is not linear index arithmetic")]
    NotPolynomial(String),
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
        WorkItemFunction::LocalSize => Atom::LocalSize(dim),
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
