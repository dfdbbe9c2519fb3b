//! Printing the new global load (nGL) as OpenCL C at the place of a local load.
//!
//! The stored value is printed as the user wrote it, with the solved unknowns put in place
//! of the storing work-item's ids (seed 000 §IV-E/F, done on source text instead of LLVM
//! instructions). A variable is printed by name when it has one definition that is in scope
//! at the load and does not involve the substituted ids; otherwise its definition is
//! inlined, so the text computes the same value at the new place.

use crate::index_expr::{op_text, Sym};
use crate::poly::{Atom, Poly, Rational};
use crate::walk::{Events, LoadEvent};
use clmap_lang::ir::{BinaryOp, Builtin, ConversionKind, Function, Module, TypeInner};
use clmap_lang::print::print_type;
use clmap_lang::proc::precedence;

/// What the printer needs to know about the place of the load.
pub struct RenderContext<'a> {
    pub module: &'a Module,
    pub function: &'a Function,
    pub events: &'a Events,
    pub load: &'a LoadEvent,
}

/// Why a value cannot be printed at the load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the new global load cannot be written as OpenCL C: {0}")]
pub struct RenderError(pub String);

impl RenderContext<'_> {
    /// The value as an expression (without outer parentheses when it is a single name or
    /// call).
    pub fn render(&self, s: &Sym) -> Result<String, RenderError> {
        self.r(s, 0)
    }

    fn r(&self, s: &Sym, depth: usize) -> Result<String, RenderError> {
        if depth > 256 {
            return Err(RenderError("the value is nested too deeply".into()));
        }
        let d = depth + 1;
        Ok(match s {
            Sym::Int(v, _) => {
                if *v < 0 {
                    format!("({v})")
                } else if *v > i128::from(i32::MAX) {
                    format!("{v}L")
                } else {
                    v.to_string()
                }
            }
            Sym::Literal { text, .. } => text.clone(),
            Sym::Atom(a, _) => self.atom(*a)?,
            Sym::GlobalId(dim, _) => format!("get_global_id({dim})"),
            Sym::Var { var, name, def } => {
                if self.printable_by_name(*var, def) {
                    name.clone()
                } else {
                    // Composite values print their own parentheses.
                    self.r(def, d)?
                }
            }
            Sym::Unary { op, operand, .. } => {
                format!("({}{})", op.as_str(), self.r(operand, d)?)
            }
            Sym::Binary { op, lhs, rhs, .. } => {
                let mine = op.precedence();
                let mut l = self.r(lhs, d)?;
                if self.operand_precedence(lhs) >= mine {
                    l = strip_parens(&l).to_string();
                }
                let mut r = self.r(rhs, d)?;
                if self.operand_precedence(rhs) > mine {
                    r = strip_parens(&r).to_string();
                }
                format!("({l} {} {r})", op_text(*op))
            }
            Sym::Convert { value, kind, ty } => {
                let inner = self.r(value, d)?;
                let tname = print_type(self.module, *ty);
                match kind {
                    ConversionKind::Implicit => inner,
                    ConversionKind::Cast => format!("(({tname}){inner})"),
                    ConversionKind::Explicit { saturate, rounding } => format!(
                        "convert_{tname}{}{}({inner})",
                        if *saturate { "_sat" } else { "" },
                        rounding.map(|r| r.suffix()).unwrap_or("")
                    ),
                }
            }
            Sym::GlobalLoad { name, index, .. } => {
                format!("{name}[{}]", strip_parens(&self.r(index, d)?))
            }
            Sym::Call { builtin, args, .. } => {
                let args: Vec<String> = args
                    .iter()
                    .map(|a| self.r(a, d).map(|t| strip_parens(&t).to_string()))
                    .collect::<Result<_, _>>()?;
                format!("{}({})", builtin_name(*builtin), args.join(", "))
            }
            Sym::Swizzle { base, components, .. } => {
                let width = base
                    .ty()
                    .and_then(|t| self.module.types.get(t))
                    .and_then(TypeInner::vector_size)
                    .map(|w| w.width())
                    .unwrap_or(16);
                format!("{}.{}", self.r(base, d)?, swizzle_text(components, width))
            }
            Sym::Compose { parts, ty } => {
                let parts: Vec<String> = parts
                    .iter()
                    .map(|p| self.r(p, d).map(|t| strip_parens(&t).to_string()))
                    .collect::<Result<_, _>>()?;
                format!("(({})({}))", print_type(self.module, *ty), parts.join(", "))
            }
            Sym::Splat { value, ty } => {
                format!(
                    "(({})({}))",
                    print_type(self.module, *ty),
                    strip_parens(&self.r(value, d)?)
                )
            }
            Sym::Solved(p) => self.poly(p)?,
            Sym::Opaque(reason) => return Err(RenderError(reason.clone())),
        })
    }

    /// How tightly the printed form of an operand binds (its own parentheses may go when it
    /// binds at least as tightly as the operator around it).
    fn operand_precedence(&self, s: &Sym) -> u8 {
        match s {
            Sym::Var { var, def, .. } if !self.printable_by_name(*var, def) => {
                self.operand_precedence(def)
            }
            Sym::Convert { value, kind: ConversionKind::Implicit, .. } => {
                self.operand_precedence(value)
            }
            Sym::Binary { op, .. } => op.precedence(),
            Sym::Solved(p) if p.terms().count() > 1 => BinaryOp::Add.precedence(),
            Sym::Solved(p) => match p.terms().next() {
                Some((m, c)) if c.numerator() > 0 => match m.factors() {
                    [(Atom::High(..), 1)] if c == Rational::ONE => BinaryOp::Shr.precedence(),
                    [(Atom::Low(..), 1)] if c == Rational::ONE => BinaryOp::BitAnd.precedence(),
                    [(_, 1)] if c == Rational::ONE => precedence::UNARY,
                    [] => precedence::UNARY,
                    _ => BinaryOp::Mul.precedence(),
                },
                _ => precedence::UNARY,
            },
            _ => precedence::UNARY,
        }
    }

    /// One definition, in scope at the load, not changed by the substitution.
    fn printable_by_name(
        &self,
        var: clmap_lang::ir::Handle<clmap_lang::ir::LocalVariable>,
        def: &Sym,
    ) -> bool {
        if self.events.definitions.get(&var) != Some(&1) {
            return false;
        }
        let Some((scope, order)) = self.events.declared_at.get(&var) else { return false };
        let in_scope = self.load.ctx.scope.starts_with(scope) && *order < self.load.ctx.order;
        let mut substituted = false;
        def.visit(&mut |s| substituted |= matches!(s, Sym::Solved(_)));
        in_scope && !substituted
    }

    fn atom(&self, a: Atom) -> Result<String, RenderError> {
        if let Some((_, name)) = self.load.names.iter().find(|(x, _)| *x == a) {
            return Ok(name.clone());
        }
        Ok(match a {
            Atom::LocalId(d) => format!("get_local_id({d})"),
            Atom::GroupId(d) => format!("get_group_id({d})"),
            Atom::LocalSize(d) => format!("get_local_size({d})"),
            Atom::GlobalSize(d) => format!("get_global_size({d})"),
            Atom::NumGroups(d) => format!("get_num_groups({d})"),
            Atom::GlobalOffset(d) => format!("get_global_offset({d})"),
            Atom::Param(i) => self
                .function
                .params
                .get(i as usize)
                .map(|p| p.name.clone())
                .ok_or_else(|| RenderError("a missing parameter".into()))?,
            Atom::LoopVar(v) => self
                .function
                .locals
                .get(v)
                .map(|l| l.name.clone())
                .ok_or_else(|| RenderError("a missing loop counter".into()))?,
            Atom::High(x, k) => format!("({} >> {k})", self.atom(x.atom())?),
            Atom::Low(x, k) => {
                format!("({} & {})", self.atom(x.atom())?, (1u64 << k).saturating_sub(1))
            }
            Atom::ShadowLocalId(_) | Atom::ShadowLoopVar(_) => {
                return Err(RenderError("an id of another work-item".into()))
            }
        })
    }

    /// A solved unknown. Negative terms are computed in `long` so that unsigned ids do not
    /// wrap before the value reaches the original arithmetic.
    fn poly(&self, p: &Poly) -> Result<String, RenderError> {
        // Positive terms first (`63 - lx`, `size - lid - 1`), constants after the ids.
        let mut terms: Vec<_> = p.terms().collect();
        terms.sort_by_key(|(m, c)| (c.numerator() < 0, m.degree() == 0));
        if terms.is_empty() {
            return Ok("0".into());
        }
        let signed = terms.iter().any(|(_, c)| c.numerator() < 0);
        let mut out = String::new();
        for (i, (m, c)) in terms.iter().enumerate() {
            if !c.is_integer() {
                return Err(RenderError("a fractional coefficient".into()));
            }
            let v = c.numerator();
            let mut factors = Vec::new();
            for (a, e) in m.factors() {
                let name = self.atom(*a)?;
                let name = if signed { format!("(long){name}") } else { name };
                for _ in 0..*e {
                    factors.push(name.clone());
                }
            }
            let magnitude = v.unsigned_abs();
            let body = if factors.is_empty() {
                magnitude.to_string()
            } else if magnitude == 1 {
                factors.join(" * ")
            } else {
                format!("{magnitude} * {}", factors.join(" * "))
            };
            if i == 0 {
                if v < 0 {
                    out.push('-');
                }
            } else {
                out.push_str(if v < 0 { " - " } else { " + " });
            }
            out.push_str(&body);
        }
        Ok(if terms.len() == 1 && terms[0].1.numerator() > 0 { out } else { format!("({out})") })
    }
}

/// C operator precedence, higher binds tighter (casts and unary operators are 11).
fn builtin_name(b: Builtin) -> String {
    b.name()
}

fn swizzle_text(components: &[u8], width: u32) -> String {
    if width <= 4 && components.iter().all(|c| *c < 4) {
        components.iter().map(|c| ['x', 'y', 'z', 'w'][usize::from(*c)]).collect()
    } else {
        let digits: String = components.iter().map(|c| format!("{c:x}")).collect();
        format!("s{digits}")
    }
}

/// Drops one pair of parentheses that encloses the whole text.
pub fn strip_parens(text: &str) -> &str {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return text;
    };
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return text;
                }
            }
            _ => {}
        }
    }
    if depth == 0 {
        inner
    } else {
        text
    }
}
