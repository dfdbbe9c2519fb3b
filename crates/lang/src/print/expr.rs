//! Expressions as OpenCL C, with the fewest parentheses that keep the tree's meaning and keep
//! clang's `-Wparentheses` family quiet.

use super::literal;
use super::types::{type_name, value_type_name};
use crate::ir::{
    BinaryOp, ConversionKind, Expression, Function, Handle, Literal, Module, Scalar, Type,
    TypeInner,
};
use crate::proc::usual_arithmetic_conversion;

pub(crate) use crate::proc::precedence as prec;

/// Expression trees deeper than this are not printed (the validator rejects them); it keeps a
/// hostile tree from exhausting the stack.
pub(crate) const MAX_DEPTH: usize = 1024;

/// Whether `child` may appear unparenthesised under `parent` when precedence allows it.
/// Mixing bitwise or shift operators with anything else, comparisons with comparisons, and
/// `&&` with `||` always gets parentheses: precedence is right but readers (and clang) stumble.
fn mixes_clearly(parent: BinaryOp, child: BinaryOp) -> bool {
    if parent == child {
        return !parent.is_comparison();
    }
    (parent.is_arithmetic() && child.is_arithmetic())
        || (parent.is_comparison() && child.is_arithmetic())
        || (parent.is_logical() && (child.is_arithmetic() || child.is_comparison()))
}

/// A printed subexpression: its text, its precedence level and, for binary operators, which
/// one (parenthesisation depends on the pair of operators, not only on levels).
struct Printed {
    text: String,
    prec: u8,
    op: Option<BinaryOp>,
}

impl Printed {
    fn new(text: String, prec: u8) -> Self {
        Printed { text, prec, op: None }
    }

    fn at_least(self, min: u8) -> String {
        if self.prec < min {
            format!("({})", self.text)
        } else {
            self.text
        }
    }
}

/// Prints expressions of one function.
pub(crate) struct ExpressionPrinter<'a> {
    pub module: &'a Module,
    pub function: &'a Function,
}

impl<'a> ExpressionPrinter<'a> {
    /// The expression, parenthesised if its precedence is below `min`.
    pub fn expression(&self, e: Handle<Expression>, min: u8) -> String {
        self.print(e, 0).at_least(min)
    }

    /// The expression as the initialiser of a declaration: aggregates as brace lists.
    pub fn initializer(&self, e: Handle<Expression>) -> String {
        self.initializer_at(e, 0)
    }

    #[inline(never)]
    fn initializer_at(&self, e: Handle<Expression>, depth: usize) -> String {
        let ty = self.type_of(e);
        let aggregate = matches!(
            ty.and_then(|t| self.module.types.get(t)),
            Some(TypeInner::Array { .. } | TypeInner::Struct { .. })
        );
        match self.function.expressions.get(e) {
            Some(Expression::Compose(parts)) if aggregate && depth < MAX_DEPTH => {
                self.brace_list(parts, depth)
            }
            Some(Expression::ZeroValue) if aggregate => "{0}".to_string(),
            _ => self.expression(e, prec::ASSIGN),
        }
    }

    fn type_of(&self, e: Handle<Expression>) -> Option<Handle<Type>> {
        self.function.expression_types.get(e.index()).copied()
    }

    fn type_inner(&self, e: Handle<Expression>) -> Option<&'a TypeInner> {
        self.type_of(e).and_then(|t| self.module.types.get(t))
    }

    fn type_text(&self, e: Handle<Expression>) -> String {
        match self.type_of(e) {
            Some(t) => type_name(self.module, t),
            None => "/* untyped */ int".to_string(),
        }
    }

    #[inline(never)]
    fn operand(&self, e: Handle<Expression>, min: u8, depth: usize) -> String {
        self.print(e, depth + 1).at_least(min)
    }

    /// Comma-separated operands. A plain loop: iterator adaptors add several frames per level
    /// of recursion in unoptimised builds.
    #[inline(never)]
    fn arguments(&self, args: &[Handle<Expression>], depth: usize) -> String {
        let mut text = String::new();
        for (i, &arg) in args.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(&self.operand(arg, prec::ASSIGN, depth));
        }
        text
    }

    /// `{a, b}` with each part as an initialiser.
    #[inline(never)]
    fn brace_list(&self, parts: &[Handle<Expression>], depth: usize) -> String {
        let mut text = String::from("{");
        for (i, &part) in parts.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(&self.initializer_at(part, depth + 1));
        }
        text.push('}');
        text
    }

    /// An operand of a binary operator; `is_rhs` because C's binary operators group to the left.
    #[inline(never)]
    fn binary_operand(
        &self,
        parent: BinaryOp,
        e: Handle<Expression>,
        is_rhs: bool,
        spell_out: bool,
        depth: usize,
    ) -> String {
        let printed = match self.function.expressions.get(e) {
            Some(Expression::Convert { value, kind: ConversionKind::Implicit }) if spell_out => {
                self.conversion(e, *value, ConversionKind::Cast, depth)
            }
            _ => self.print(e, depth + 1),
        };
        let level = parent.precedence();
        let needs = printed.prec < level
            || (printed.prec == level && is_rhs)
            || printed.op.is_some_and(|child| !mixes_clearly(parent, child));
        if needs {
            format!("({})", printed.text)
        } else {
            printed.text
        }
    }

    /// A scalar broadcast for a vector operator, when the other operand is a vector that is
    /// not broadcast itself: C widens the scalar anyway (`v * 2.0f`), so it is left implicit.
    fn implicit_splat(
        &self,
        operand: Handle<Expression>,
        other: Handle<Expression>,
    ) -> Option<Handle<Expression>> {
        let Some(Expression::Splat(scalar)) = self.function.expressions.get(operand) else {
            return None;
        };
        // The printed scalar must widen without narrowing, or clang refuses it: an implicit
        // conversion the printer omits must come from a type of lower or equal rank.
        if let Some(Expression::Convert { value, kind: ConversionKind::Implicit }) =
            self.function.expressions.get(*scalar)
        {
            let from = self.type_inner(*value).and_then(TypeInner::scalar)?;
            let to = self.type_inner(*scalar).and_then(TypeInner::scalar)?;
            if from.rank() > to.rank() {
                return None;
            }
        }
        let other_is_splat =
            matches!(self.function.expressions.get(other), Some(Expression::Splat(_)));
        let other_is_vector = matches!(self.type_inner(other), Some(TypeInner::Vector { .. }));
        (other_is_vector && !other_is_splat).then_some(*scalar)
    }

    #[inline(never)]
    fn binary(
        &self,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
        depth: usize,
    ) -> Printed {
        let shown_lhs = self.implicit_splat(lhs, rhs).unwrap_or(lhs);
        let shown_rhs = self.implicit_splat(rhs, lhs).unwrap_or(rhs);
        let spell_out = !self.conversions_are_natural(op, lhs, rhs);
        let text = format!(
            "{} {} {}",
            self.binary_operand(op, shown_lhs, false, spell_out, depth),
            op.as_str(),
            self.binary_operand(op, shown_rhs, true, spell_out, depth)
        );
        Printed { text, prec: op.precedence(), op: Some(op) }
    }

    /// Whether C's usual arithmetic conversions give the operands of `op` the types the IR
    /// converts them to, so the IR's implicit conversions can be left out. Sema only makes such
    /// conversions implicit, but a transform may mark any conversion so; one C would not
    /// perform is printed as a cast.
    fn conversions_are_natural(
        &self,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    ) -> bool {
        if op.is_logical() || op.is_shift() {
            return true;
        }
        let implicit_source = |e: Handle<Expression>| match self.function.expressions.get(e) {
            Some(Expression::Convert { value, kind: ConversionKind::Implicit }) => Some(*value),
            _ => None,
        };
        let (from_lhs, from_rhs) = (implicit_source(lhs), implicit_source(rhs));
        if from_lhs.is_none() && from_rhs.is_none() {
            return true;
        }
        let scalar = |e: Handle<Expression>| match self.type_inner(e) {
            Some(TypeInner::Scalar(s)) => Some(*s),
            _ => None,
        };
        // OpenCL converts no vector implicitly; pointers are not converted by these operators.
        let (Some(target), Some(a), Some(b)) =
            (scalar(lhs), scalar(from_lhs.unwrap_or(lhs)), scalar(from_rhs.unwrap_or(rhs)))
        else {
            return !matches!(self.type_inner(lhs), Some(TypeInner::Vector { .. }));
        };
        usual_arithmetic_conversion(a, b) == target
    }

    /// A prefix operator: a `-` before an operand that starts with `-` would read as `--`.
    #[inline(never)]
    fn prefix(&self, op: &str, operand: Handle<Expression>, depth: usize) -> Printed {
        let inner = self.operand(operand, prec::UNARY, depth);
        let clash = matches!(op, "-" | "--" | "+" | "++" | "&")
            && inner.starts_with(op.chars().next().unwrap_or(' '));
        let inner = if clash { format!("({inner})") } else { inner };
        Printed::new(format!("{op}{inner}"), prec::UNARY)
    }

    /// Dispatches on the expression; each form is printed by its own function so that the
    /// frames on the recursion path stay small (deep trees are printed on ordinary stacks).
    fn print(&self, e: Handle<Expression>, depth: usize) -> Printed {
        if depth > MAX_DEPTH {
            return Printed::new("/* expression too deep */ 0".to_string(), prec::PRIMARY);
        }
        let Some(expr) = self.function.expressions.get(e) else {
            return Printed::new(
                format!("/* invalid expression {} */ 0", e.index()),
                prec::PRIMARY,
            );
        };
        match expr {
            Expression::Literal(_)
            | Expression::StringLiteral(_)
            | Expression::ZeroValue
            | Expression::Variable(_) => self.leaf(e, expr),
            Expression::Deref(pointer) => self.prefix("*", *pointer, depth),
            Expression::Index { base, index } => self.index(*base, *index, depth),
            Expression::Member { base, member } => self.member(*base, *member, depth),
            Expression::Swizzle { base, components } => self.swizzle(*base, components, depth),
            // Loads and array decay are implicit in C.
            Expression::Load(place) | Expression::Decay(place) => self.print(*place, depth + 1),
            Expression::AddressOf(place) => self.prefix("&", *place, depth),
            Expression::Unary { op, operand } => self.prefix(op.as_str(), *operand, depth),
            Expression::Binary { op, lhs, rhs } => self.binary(*op, *lhs, *rhs, depth),
            Expression::PointerOffset { pointer, offset, subtract } => {
                let op = if *subtract { BinaryOp::Sub } else { BinaryOp::Add };
                self.binary(op, *pointer, *offset, depth)
            }
            Expression::PointerDifference { lhs, rhs } => {
                self.binary(BinaryOp::Sub, *lhs, *rhs, depth)
            }
            Expression::PointerCompare { op, lhs, rhs } => self.binary(*op, *lhs, *rhs, depth),
            Expression::Conditional { condition, accept, reject } => {
                self.conditional(*condition, *accept, *reject, depth)
            }
            Expression::Convert { value, kind } => self.conversion(e, *value, *kind, depth),
            Expression::Bitcast(value) => self.wrapped(e, *value, depth, true),
            Expression::Splat(value) => self.wrapped(e, *value, depth, false),
            Expression::Compose(parts) => self.compose(e, parts, depth),
            Expression::Assign { place, value } => self.assignment("=", *place, *value, depth),
            Expression::CompoundAssign { op, place, value, .. } => {
                self.assignment(&format!("{}=", op.as_str()), *place, *value, depth)
            }
            Expression::IncDec { place, increment, prefix } => {
                self.increment(*place, *increment, *prefix, depth)
            }
            Expression::Comma { lhs, rhs } => self.comma(*lhs, *rhs, depth),
            Expression::Call { function, args } => self.call(*function, args, depth),
            Expression::Builtin { function, args } => {
                self.call_named(&function.name(), args, depth)
            }
        }
    }

    #[inline(never)]
    fn leaf(&self, e: Handle<Expression>, expr: &Expression) -> Printed {
        match expr {
            Expression::Literal(lit) => {
                let printed = literal::literal(*lit);
                let level = if printed.is_unary { prec::UNARY } else { prec::PRIMARY };
                Printed::new(printed.text, level)
            }
            Expression::StringLiteral(text) => Printed::new(literal::string(text), prec::PRIMARY),
            Expression::Variable(var) => Printed::new(self.variable_name(*var), prec::PRIMARY),
            _ => self.zero_value(e),
        }
    }

    #[inline(never)]
    fn index(&self, base: Handle<Expression>, index: Handle<Expression>, depth: usize) -> Printed {
        let base = self.operand(base, prec::POSTFIX, depth);
        let index = self.operand(index, prec::NONE, depth);
        Printed::new(format!("{base}[{index}]"), prec::POSTFIX)
    }

    #[inline(never)]
    fn swizzle(&self, base: Handle<Expression>, components: &[u8], depth: usize) -> Printed {
        let text = self.operand(base, prec::POSTFIX, depth);
        Printed::new(format!("{text}.{}", self.swizzle_suffix(base, components)), prec::POSTFIX)
    }

    #[inline(never)]
    fn conditional(
        &self,
        condition: Handle<Expression>,
        accept: Handle<Expression>,
        reject: Handle<Expression>,
        depth: usize,
    ) -> Printed {
        let condition = self.operand(condition, prec::LOGICAL_OR, depth);
        let accept = self.operand(accept, prec::ASSIGN, depth);
        let reject = self.operand(reject, prec::CONDITIONAL, depth);
        Printed::new(format!("{condition} ? {accept} : {reject}"), prec::CONDITIONAL)
    }

    /// `as_T(x)` for a reinterpretation, `(T)(x)` for a broadcast.
    #[inline(never)]
    fn wrapped(
        &self,
        e: Handle<Expression>,
        value: Handle<Expression>,
        depth: usize,
        bitcast: bool,
    ) -> Printed {
        let value = self.operand(value, prec::ASSIGN, depth);
        if bitcast {
            Printed::new(format!("as_{}({value})", self.value_type(e)), prec::POSTFIX)
        } else {
            Printed::new(format!("({})({value})", self.type_text(e)), prec::UNARY)
        }
    }

    #[inline(never)]
    fn assignment(
        &self,
        op: &str,
        place: Handle<Expression>,
        value: Handle<Expression>,
        depth: usize,
    ) -> Printed {
        let place = self.operand(place, prec::UNARY, depth);
        let value = self.operand(value, prec::ASSIGN, depth);
        Printed::new(format!("{place} {op} {value}"), prec::ASSIGN)
    }

    #[inline(never)]
    fn increment(
        &self,
        place: Handle<Expression>,
        increment: bool,
        prefix: bool,
        depth: usize,
    ) -> Printed {
        let op = if increment { "++" } else { "--" };
        if prefix {
            self.prefix(op, place, depth)
        } else {
            let place = self.operand(place, prec::POSTFIX, depth);
            Printed::new(format!("{place}{op}"), prec::POSTFIX)
        }
    }

    #[inline(never)]
    fn comma(&self, lhs: Handle<Expression>, rhs: Handle<Expression>, depth: usize) -> Printed {
        let lhs = self.operand(lhs, prec::COMMA, depth);
        let rhs = self.operand(rhs, prec::ASSIGN, depth);
        Printed::new(format!("{lhs}, {rhs}"), prec::COMMA)
    }

    #[inline(never)]
    fn call(
        &self,
        function: Handle<Function>,
        args: &[Handle<Expression>],
        depth: usize,
    ) -> Printed {
        match self.module.functions.get(function) {
            Some(f) => self.call_named(&f.name, args, depth),
            None => self.call_named(
                &format!("/* invalid function {} */", function.index()),
                args,
                depth,
            ),
        }
    }

    #[inline(never)]
    fn call_named(&self, name: &str, args: &[Handle<Expression>], depth: usize) -> Printed {
        Printed::new(format!("{name}({})", self.arguments(args, depth)), prec::POSTFIX)
    }

    fn variable_name(&self, var: crate::ir::VariableRef) -> String {
        use crate::ir::VariableRef;
        let name = match var {
            VariableRef::Local(h) => self.function.locals.get(h).map(|l| l.name.clone()),
            VariableRef::Param(i) => self.function.params.get(i as usize).map(|p| p.name.clone()),
            VariableRef::Global(h) => self.module.global_variables.get(h).map(|g| {
                g.string_literal().map_or_else(|| g.name.clone(), |text| literal::string(&text))
            }),
        };
        name.unwrap_or_else(|| format!("/* invalid variable {var:?} */ 0"))
    }

    fn value_type(&self, e: Handle<Expression>) -> String {
        match self.type_of(e) {
            Some(t) => value_type_name(self.module, t),
            None => "int".to_string(),
        }
    }

    /// `s.f`, or `p->f` for a member of a dereferenced pointer.
    #[inline(never)]
    fn member(&self, base: Handle<Expression>, member: u32, depth: usize) -> Printed {
        let name = match self.type_inner(base) {
            Some(TypeInner::Struct { members, .. }) => {
                members.get(member as usize).map(|m| &m.name)
            }
            _ => None,
        };
        let name = name.cloned().unwrap_or_else(|| format!("/* invalid member {member} */"));
        // Anonymous struct and union members are printed inline in their records, without a
        // name, so the access names the member directly: `c.re`, not `c.<anonymous>.re`.
        let mut base = base;
        while let Some(Expression::Member { base: outer, member: m }) =
            self.function.expressions.get(base)
        {
            let anonymous = match self.type_inner(*outer) {
                Some(TypeInner::Struct { members, .. }) => {
                    members.get(*m as usize).is_some_and(|m| m.is_anonymous())
                }
                _ => false,
            };
            if !anonymous {
                break;
            }
            base = *outer;
        }
        let text = match self.function.expressions.get(base) {
            Some(Expression::Deref(pointer)) => {
                format!("{}->{name}", self.operand(*pointer, prec::POSTFIX, depth + 1))
            }
            _ => format!("{}.{name}", self.operand(base, prec::POSTFIX, depth)),
        };
        Printed::new(text, prec::POSTFIX)
    }

    /// `.xyzw` letters for up to four of the first four components of a vector of at most
    /// four, else the numeric `.s0123…` form that works for every width.
    fn swizzle_suffix(&self, base: Handle<Expression>, components: &[u8]) -> String {
        let width = self.type_inner(base).and_then(TypeInner::vector_size).map_or(0, |s| s.width());
        if width <= 4 && components.len() <= 4 && components.iter().all(|&c| c < 4) {
            components.iter().map(|&c| ['x', 'y', 'z', 'w'][c as usize & 3]).collect()
        } else {
            let digits: String = components
                .iter()
                .map(|&c| char::from_digit(u32::from(c) & 0xf, 16).unwrap_or('0'))
                .collect();
            format!("s{digits}")
        }
    }

    #[inline(never)]
    fn conversion(
        &self,
        e: Handle<Expression>,
        value: Handle<Expression>,
        kind: ConversionKind,
        depth: usize,
    ) -> Printed {
        if let (Some(TypeInner::Sampler), Some(Expression::Literal(lit))) =
            (self.type_inner(e), self.function.expressions.get(value))
        {
            // A sampler made from the `CLK_*` flags reads best as those flags.
            return Printed {
                text: super::sampler_text(*lit),
                prec: BinaryOp::BitOr.precedence(),
                op: Some(BinaryOp::BitOr),
            };
        }
        match kind {
            // Sema inserts it again when it reads the printed text.
            ConversionKind::Implicit if self.c_converts_implicitly(e, value) => {
                self.print(value, depth + 1)
            }
            ConversionKind::Implicit => self.conversion(e, value, ConversionKind::Cast, depth),
            ConversionKind::Cast => Printed::new(
                format!("({}){}", self.type_text(e), self.operand(value, prec::UNARY, depth)),
                prec::UNARY,
            ),
            ConversionKind::Explicit { saturate, rounding } => Printed::new(
                format!(
                    "convert_{}{}{}({})",
                    self.value_type(e),
                    if saturate { "_sat" } else { "" },
                    rounding.map_or("", |r| r.suffix()),
                    self.operand(value, prec::ASSIGN, depth)
                ),
                prec::POSTFIX,
            ),
        }
    }

    /// Whether C performs the conversion of `value` to the type of `e` without being asked
    /// (arithmetic types among themselves, a null pointer constant to a pointer, a pointer
    /// to one of the same address space and pointee or to or from `void *`, a pointer to
    /// bool). Other
    /// "implicit" conversions a transform may have made are written as casts.
    fn c_converts_implicitly(&self, e: Handle<Expression>, value: Handle<Expression>) -> bool {
        let (Some(from), Some(to)) = (self.type_inner(value), self.type_inner(e)) else {
            return true;
        };
        match (from, to) {
            (TypeInner::Scalar(_), TypeInner::Scalar(_)) => true,
            (TypeInner::Vector { .. }, TypeInner::Vector { .. }) => from == to,
            (TypeInner::Pointer { .. }, TypeInner::Scalar(Scalar::Bool)) => true,
            // Qualifiers may change (sema drops the implicit `const` of `__constant` objects).
            (
                TypeInner::Pointer { pointee: p, space: s, .. },
                TypeInner::Pointer { pointee: q, space: t, .. },
            ) => {
                let is_void =
                    |h: &Handle<Type>| matches!(self.module.types.get(*h), Some(TypeInner::Void));
                s == t && (p == q || is_void(p) || is_void(q))
            }
            (TypeInner::Scalar(_), TypeInner::Pointer { .. }) => matches!(
                self.function.expressions.get(value),
                Some(Expression::Literal(lit)) if lit.as_i128() == Some(0)
            ),
            _ => false,
        }
    }

    /// Vector literals `(float4)(a, b)`; arrays and structs as compound literals `(T){a, b}`.
    #[inline(never)]
    fn compose(
        &self,
        e: Handle<Expression>,
        parts: &[Handle<Expression>],
        depth: usize,
    ) -> Printed {
        let ty = self.type_text(e);
        if matches!(self.type_inner(e), Some(TypeInner::Vector { .. })) {
            return Printed::new(format!("({ty})({})", self.arguments(parts, depth)), prec::UNARY);
        }
        Printed::new(format!("({ty}){}", self.brace_list(parts, depth)), prec::POSTFIX)
    }

    #[inline(never)]
    fn zero_value(&self, e: Handle<Expression>) -> Printed {
        match self.type_inner(e) {
            Some(TypeInner::Scalar(s)) => {
                let printed = literal::literal(zero_literal(*s));
                let level = if printed.is_unary { prec::UNARY } else { prec::PRIMARY };
                Printed::new(printed.text, level)
            }
            Some(TypeInner::Vector { scalar, .. }) => {
                let zero = literal::literal(zero_literal(*scalar)).text;
                Printed::new(format!("({})({zero})", self.type_text(e)), prec::UNARY)
            }
            Some(TypeInner::Pointer { .. }) => {
                Printed::new(format!("({})0", self.type_text(e)), prec::UNARY)
            }
            Some(TypeInner::Array { .. } | TypeInner::Struct { .. }) => {
                Printed::new(format!("({}){{0}}", self.type_text(e)), prec::POSTFIX)
            }
            _ => Printed::new("0".to_string(), prec::PRIMARY),
        }
    }
}

/// The zero of a scalar type as a literal.
pub(crate) fn zero_literal(scalar: Scalar) -> Literal {
    match scalar {
        Scalar::Bool => Literal::Bool(false),
        s if s.is_float() => Literal::Float { scalar: s, value: 0.0 },
        s => Literal::int(s, 0),
    }
}
