//! Per-function checks of the expression arena: handles, tree shape, places and types.

use super::{builtins, ValidationError, ValidationErrorKind as Kind, MAX_EXPRESSION_DEPTH};
use crate::ir::{
    AddressSpace, BinaryOp, ConversionKind, Expression, Function, Handle, Module, Scalar, Type,
    TypeInner, UnaryOp, VariableRef, VectorSize,
};
use crate::print::print_type;
use crate::proc;
use crate::span::Span;

/// Validates one function; statements are in `statement.rs`.
pub(super) struct FunctionValidator<'a> {
    pub(super) module: &'a Module,
    pub(super) handle: Handle<Function>,
    pub(super) function: &'a Function,
    /// Whether the type arena is sound enough for size computations.
    types_ok: bool,
    pub(super) errors: &'a mut Vec<ValidationError>,
    /// Whether each expression designates an object (computed bottom-up, without recursion).
    is_place: Vec<bool>,
    /// How many parents (expressions or statements) use each expression.
    pub(super) uses: Vec<u32>,
    /// How many `Declare` statements declare each local.
    pub(super) declarations: Vec<u32>,
    /// Whether each local is declared in an enclosing scope at the statement being checked.
    pub(super) in_scope: Vec<bool>,
    /// Locals in scope, innermost last, so a block can end the scopes it opened.
    pub(super) scope_stack: Vec<Handle<crate::ir::LocalVariable>>,
    /// Expressions already checked for out-of-scope variables.
    pub(super) scope_checked: Vec<bool>,
}

impl<'a> FunctionValidator<'a> {
    pub(super) fn new(
        module: &'a Module,
        handle: Handle<Function>,
        function: &'a Function,
        types_ok: bool,
        errors: &'a mut Vec<ValidationError>,
    ) -> Self {
        let count = function.expressions.len();
        FunctionValidator {
            module,
            handle,
            function,
            types_ok,
            errors,
            is_place: vec![false; count],
            uses: vec![0; count],
            declarations: vec![0; function.locals.len()],
            in_scope: vec![false; function.locals.len()],
            scope_stack: Vec::new(),
            scope_checked: vec![false; count],
        }
    }

    pub(super) fn run(mut self) {
        let expressions = self.function.expressions.len();
        let types = self.function.expression_types.len();
        if expressions != types {
            self.error(self.function.span, Kind::ExpressionTypeTableLength { expressions, types });
        }
        for (e, &ty) in self.function.expression_types.iter().enumerate() {
            if !self.module.types.contains(ty) {
                let span = self.function.expressions.span(Handle::from_index(e));
                self.error(span, Kind::InvalidTypeHandle { index: ty.index() });
            } else if self.module.types[ty].is_incomplete() {
                // Sema refuses `*p`, `p->x` and `p[i]` on a pointer to an incomplete struct.
                let span = self.function.expressions.span(Handle::from_index(e));
                let what = format!("expression %{e}");
                self.error(span, Kind::IncompleteType { what, ty: ty.index() });
            }
        }
        let structure_ok = self.check_structure();
        if structure_ok {
            for e in self.function.expressions.handles() {
                self.check_expression(e);
            }
        }
        self.check_body();
        for (index, &uses) in self.uses.clone().iter().enumerate() {
            if uses > 1 {
                let span = self.function.expressions.span(Handle::from_index(index));
                self.error(span, Kind::ExpressionReused { expression: index, uses });
            }
        }
        for (handle, local) in self.function.locals.iter() {
            let count = self.declarations.get(handle.index()).copied().unwrap_or(0);
            if count != 1 {
                let span = self.function.locals.span(handle);
                self.error(span, Kind::DeclarationCount { name: local.name.clone(), count });
            }
        }
    }

    pub(super) fn error(&mut self, span: Span, kind: Kind) {
        self.errors.push(ValidationError {
            function: Some(self.function.name.clone()),
            span,
            kind,
        });
    }

    pub(super) fn expression_span(&self, e: Handle<Expression>) -> Span {
        self.function.expressions.span(e)
    }

    /// Operand handles in range, no cycles, bounded depth; fills `is_place` and counts the
    /// uses by expressions. Returns whether type checks can rely on the structure.
    fn check_structure(&mut self) -> bool {
        let count = self.function.expressions.len();
        let mut ok = true;
        for (e, expr) in self.function.expressions.iter() {
            for child in proc::operands(expr) {
                match self.uses.get_mut(child.index()) {
                    Some(uses) => *uses += 1,
                    None => {
                        ok = false;
                        let span = self.expression_span(e);
                        self.error(span, Kind::InvalidExpressionHandle { index: child.index() });
                    }
                }
            }
        }
        if !ok {
            return false;
        }
        // Iterative depth-first search: 0 = unseen, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; count];
        let mut depth = vec![0usize; count];
        let mut stack: Vec<(Handle<Expression>, usize)> = Vec::new();
        for root in self.function.expressions.handles() {
            if state[root.index()] != 0 {
                continue;
            }
            state[root.index()] = 1;
            stack.push((root, 0));
            while let Some(&mut (e, ref mut next)) = stack.last_mut() {
                let Some(expr) = self.function.expressions.get(e) else {
                    stack.pop();
                    continue;
                };
                if let Some(child) = proc::operands(expr).nth(*next) {
                    *next += 1;
                    match state[child.index()] {
                        0 => {
                            state[child.index()] = 1;
                            stack.push((child, 0));
                        }
                        1 => {
                            ok = false;
                            let span = self.expression_span(child);
                            self.error(span, Kind::ExpressionCycle { expression: child.index() });
                        }
                        _ => {}
                    }
                    continue;
                }
                stack.pop();
                state[e.index()] = 2;
                let own_depth =
                    1 + proc::operands(expr).map(|c| depth[c.index()]).max().unwrap_or(0);
                depth[e.index()] = own_depth;
                if own_depth > MAX_EXPRESSION_DEPTH
                    && proc::operands(expr).all(|c| depth[c.index()] <= MAX_EXPRESSION_DEPTH)
                {
                    ok = false;
                    self.error(
                        self.expression_span(e),
                        Kind::ExpressionTooDeep { expression: e.index() },
                    );
                }
                self.is_place[e.index()] = match expr {
                    Expression::Variable(_) | Expression::Deref(_) | Expression::Index { .. } => {
                        true
                    }
                    Expression::Member { base, .. } | Expression::Swizzle { base, .. } => {
                        state[base.index()] == 2 && self.is_place[base.index()]
                    }
                    _ => false,
                };
            }
        }
        ok
    }

    pub(super) fn type_handle(&self, e: Handle<Expression>) -> Option<Handle<Type>> {
        self.function.expression_types.get(e.index()).copied()
    }

    pub(super) fn type_of(&self, e: Handle<Expression>) -> Option<&'a TypeInner> {
        let function: &'a Function = self.function;
        let module: &'a Module = self.module;
        function.expression_types.get(e.index()).and_then(|&t| module.types.get(t))
    }

    pub(super) fn type_text(&self, ty: Option<Handle<Type>>) -> String {
        match ty {
            Some(t) if self.module.types.contains(t) => print_type(self.module, t),
            _ => "<invalid type>".to_string(),
        }
    }

    fn invalid(&mut self, e: Handle<Expression>, reason: String) {
        let span = self.expression_span(e);
        self.error(span, Kind::InvalidExpression { expression: e.index(), reason });
    }

    /// Reports unless `operand` has exactly type `expected`.
    fn expect_type(
        &mut self,
        e: Handle<Expression>,
        operand: Handle<Expression>,
        expected: Option<Handle<Type>>,
        what: &str,
    ) {
        let found = self.type_handle(operand);
        if found != expected || expected.is_none() {
            let reason = format!(
                "{what} %{} has type {}, expected {}",
                operand.index(),
                self.type_text(found),
                self.type_text(expected)
            );
            self.invalid(e, reason);
        }
    }

    fn expect_place(
        &mut self,
        e: Handle<Expression>,
        operand: Handle<Expression>,
        role: &'static str,
    ) -> bool {
        let is_place = self.is_place.get(operand.index()).copied().unwrap_or(false);
        if !is_place {
            let span = self.expression_span(e);
            self.error(
                span,
                Kind::NotAPlace { expression: e.index(), operand: operand.index(), role },
            );
        }
        is_place
    }

    /// A place that is stored to: it must be writable, and a swizzle may not repeat a component.
    fn expect_writable(&mut self, e: Handle<Expression>, place: Handle<Expression>) {
        if !self.expect_place(e, place, "the target of a store") {
            return;
        }
        if let Some(Expression::Swizzle { components, .. }) = self.function.expressions.get(place) {
            let mut seen = 0u32;
            for &c in components {
                if seen & (1u32 << (c & 31)) != 0 {
                    self.invalid(e, "a swizzle that is stored to repeats a component".to_string());
                    break;
                }
                seen |= 1u32 << (c & 31);
            }
        }
        if self.is_read_only(place) {
            let span = self.expression_span(e);
            self.error(span, Kind::WriteToReadOnly { expression: e.index() });
        }
    }

    /// Whether the object a place designates is const or in `__constant` memory, following
    /// member, swizzle and array-index chains to the variable or pointer they start from.
    fn is_read_only(&self, place: Handle<Expression>) -> bool {
        let mut current = place;
        for _ in 0..=MAX_EXPRESSION_DEPTH {
            match self.function.expressions.get(current) {
                Some(Expression::Variable(VariableRef::Local(h))) => {
                    return self.function.locals.get(*h).is_some_and(|l| l.is_const);
                }
                Some(Expression::Variable(VariableRef::Param(i))) => {
                    return self.function.params.get(*i as usize).is_some_and(|p| p.is_const);
                }
                Some(Expression::Variable(VariableRef::Global(h))) => {
                    return self
                        .module
                        .global_variables
                        .get(*h)
                        .is_none_or(|g| g.space == AddressSpace::Constant);
                }
                Some(Expression::Deref(pointer)) => return self.points_to_read_only(*pointer),
                Some(Expression::Index { base, .. }) => {
                    if matches!(self.type_of(*base), Some(TypeInner::Pointer { .. })) {
                        return self.points_to_read_only(*base);
                    }
                    current = *base;
                }
                Some(Expression::Member { base, .. } | Expression::Swizzle { base, .. }) => {
                    current = *base;
                }
                _ => return false,
            }
        }
        false
    }

    /// A pointer to a place points into the place's address space.
    fn expect_space(
        &mut self,
        e: Handle<Expression>,
        place: Handle<Expression>,
        space: AddressSpace,
    ) {
        if let Some(actual) = proc::place_space(self.module, self.function, place) {
            if actual != space {
                let reason = format!(
                    "a pointer into {} memory points at a {} object",
                    space.qualifier(),
                    actual.qualifier()
                );
                self.invalid(e, reason);
            }
        }
    }

    fn points_to_read_only(&self, pointer: Handle<Expression>) -> bool {
        matches!(
            self.type_of(pointer),
            Some(TypeInner::Pointer { is_const: true, .. })
                | Some(TypeInner::Pointer { space: AddressSpace::Constant, .. })
        )
    }

    fn check_expression(&mut self, e: Handle<Expression>) {
        let Some(expr) = self.function.expressions.get(e) else { return };
        let ty = self.type_handle(e);
        let Some(inner) = self.type_of(e) else {
            // Already reported as an out-of-range type handle or a short table.
            return;
        };
        match expr {
            Expression::Literal(lit) => {
                if inner != &TypeInner::Scalar(lit.scalar()) {
                    self.invalid(
                        e,
                        format!(
                            "a {} literal has type {}",
                            lit.scalar().name(),
                            self.type_text(ty)
                        ),
                    );
                }
            }
            Expression::StringLiteral(_) => {
                if !matches!(inner, TypeInner::Pointer { .. }) {
                    self.invalid(e, "a string literal is a pointer to __constant char".into());
                }
            }
            Expression::ZeroValue => {
                if matches!(inner, TypeInner::Void) {
                    self.invalid(e, "there is no zero of type void".into());
                }
            }
            Expression::Variable(var) => self.check_variable(e, *var, ty),
            Expression::Deref(pointer) => match self.type_of(*pointer) {
                Some(TypeInner::Pointer { pointee, .. }) => {
                    if Some(*pointee) != ty {
                        self.invalid(e, "a dereference has the pointee's type".into());
                    }
                }
                _ => self.invalid(e, format!("dereferenced %{} is not a pointer", pointer.index())),
            },
            Expression::Index { base, index } => {
                if !self.type_of(*index).and_then(TypeInner::scalar).is_some_and(Scalar::is_integer)
                    || !matches!(self.type_of(*index), Some(TypeInner::Scalar(_)))
                {
                    self.invalid(e, format!("index %{} is not an integer scalar", index.index()));
                }
                let element = match self.type_of(*base) {
                    Some(TypeInner::Array { element, .. }) => {
                        self.expect_place(e, *base, "an indexed array");
                        Some(*element)
                    }
                    Some(TypeInner::Pointer { pointee, .. }) => Some(*pointee),
                    _ => {
                        self.invalid(
                            e,
                            format!("indexed %{} is neither an array nor a pointer", base.index()),
                        );
                        return;
                    }
                };
                if element != ty {
                    self.invalid(e, "an index expression has the element type".into());
                }
            }
            Expression::Member { base, member } => match self.type_of(*base) {
                Some(TypeInner::Struct { members, .. }) => match members.get(*member as usize) {
                    Some(m) if Some(m.ty) == ty => {}
                    Some(_) => self.invalid(e, "a member expression has the member's type".into()),
                    None => self.invalid(e, format!("member {member} does not exist")),
                },
                _ => self.invalid(e, format!("%{} is not a struct or union", base.index())),
            },
            Expression::Swizzle { base, components } => {
                self.check_swizzle(e, *base, components, inner)
            }
            Expression::Load(place) => {
                if self.expect_place(e, *place, "a load") {
                    self.expect_type(e, *place, ty, "loaded place");
                }
            }
            Expression::AddressOf(place) => {
                self.expect_place(e, *place, "an address-of");
                if let Some(Expression::Swizzle { components, .. }) =
                    self.function.expressions.get(*place)
                {
                    if components.len() > 1 {
                        self.invalid(
                            e,
                            "the address of a multi-component swizzle cannot be taken".into(),
                        );
                    }
                }
                match inner {
                    TypeInner::Pointer { pointee, space, .. }
                        if Some(*pointee) == self.type_handle(*place) =>
                    {
                        self.expect_space(e, *place, *space)
                    }
                    _ => {
                        self.invalid(e, "an address-of has type pointer to the place's type".into())
                    }
                }
            }
            Expression::Decay(place) => {
                self.expect_place(e, *place, "an array decay");
                match (self.type_of(*place), inner) {
                    (
                        Some(TypeInner::Array { element, .. }),
                        TypeInner::Pointer { pointee, space, .. },
                    ) if element == pointee => self.expect_space(e, *place, *space),
                    _ => self.invalid(
                        e,
                        "a decay turns an array place into a pointer to its element".into(),
                    ),
                }
            }
            Expression::Unary { op, operand } => self.check_unary(e, *op, *operand, inner, ty),
            Expression::Binary { op, lhs, rhs } => self.check_binary(e, *op, *lhs, *rhs, inner, ty),
            Expression::PointerOffset { pointer, offset, .. } => {
                if !matches!(self.type_of(*pointer), Some(TypeInner::Pointer { .. })) {
                    self.invalid(e, format!("%{} is not a pointer", pointer.index()));
                }
                if !is_integer_scalar(self.type_of(*offset)) {
                    self.invalid(e, format!("offset %{} is not an integer scalar", offset.index()));
                }
                self.expect_type(e, *pointer, ty, "the pointer");
            }
            Expression::PointerDifference { lhs, rhs } => {
                let pointee = |t: Option<&TypeInner>| match t {
                    Some(TypeInner::Pointer { pointee, .. }) => Some(*pointee),
                    _ => None,
                };
                let (l, r) = (pointee(self.type_of(*lhs)), pointee(self.type_of(*rhs)));
                if l.is_none() || l != r {
                    self.invalid(
                        e,
                        "a pointer difference needs two pointers to the same type".into(),
                    );
                }
                if !matches!(inner, TypeInner::Scalar(Scalar::Long)) {
                    self.invalid(e, "a pointer difference has type ptrdiff_t (long)".into());
                }
            }
            Expression::PointerCompare { op, lhs, rhs } => {
                let both_pointers = [*lhs, *rhs]
                    .iter()
                    .all(|&h| matches!(self.type_of(h), Some(TypeInner::Pointer { .. })));
                if !both_pointers || !op.is_comparison() {
                    self.invalid(e, "a pointer comparison compares two pointers".into());
                }
                if inner != &TypeInner::Scalar(Scalar::Int) {
                    self.invalid(e, "a pointer comparison has type int".into());
                }
            }
            Expression::Conditional { condition, accept, reject } => {
                match self.type_of(*condition) {
                    Some(TypeInner::Scalar(_) | TypeInner::Pointer { .. }) => {}
                    Some(TypeInner::Vector { scalar, size }) => {
                        let matches_width = inner.vector_size() == Some(*size);
                        if !scalar.is_integer() || !matches_width {
                            self.invalid(
                                e,
                                "a vector condition is an integer vector of the result's width"
                                    .into(),
                            );
                        }
                    }
                    _ => self.invalid(e, "the condition is not a scalar, pointer or vector".into()),
                }
                self.expect_type(e, *accept, ty, "the second operand");
                self.expect_type(e, *reject, ty, "the third operand");
            }
            Expression::Convert { value, kind } => self.check_conversion(e, *value, *kind, inner),
            Expression::Bitcast(value) => {
                let from = self.type_of(*value);
                let numeric = |t: Option<&TypeInner>| t.is_some_and(is_numeric);
                if !numeric(from) || !numeric(Some(inner)) {
                    self.invalid(e, "as_T reinterprets scalars and vectors".into());
                } else if self.types_ok {
                    let from_ty = self.type_handle(*value);
                    let sizes = (
                        from_ty.map(|t| self.module.size_of(t)),
                        ty.map(|t| self.module.size_of(t)),
                    );
                    if sizes.0 != sizes.1 {
                        self.invalid(e, "as_T needs a type of the same size".into());
                    }
                }
            }
            Expression::Splat(value) => match (inner, self.type_of(*value)) {
                (TypeInner::Vector { scalar, .. }, Some(TypeInner::Scalar(s))) if scalar == s => {}
                _ => self
                    .invalid(e, "a splat broadcasts a scalar of the vector's element type".into()),
            },
            Expression::Compose(parts) => self.check_compose(e, parts, inner),
            Expression::Assign { place, value } => {
                self.expect_writable(e, *place);
                self.expect_type(e, *place, ty, "the assigned place");
                self.expect_type(e, *value, ty, "the assigned value");
            }
            Expression::CompoundAssign { op, place, value, compute_type } => {
                self.expect_writable(e, *place);
                self.expect_type(e, *place, ty, "the assigned place");
                if !self.module.types.contains(*compute_type) {
                    self.error(
                        self.expression_span(e),
                        Kind::InvalidTypeHandle { index: compute_type.index() },
                    );
                    return;
                }
                let pointer_place = matches!(inner, TypeInner::Pointer { .. });
                if pointer_place {
                    let additive = matches!(op, BinaryOp::Add | BinaryOp::Sub);
                    if !additive
                        || Some(*compute_type) != ty
                        || !is_integer_scalar(self.type_of(*value))
                    {
                        self.invalid(e, "a pointer place takes `+=` or `-=` of an integer".into());
                    }
                } else {
                    self.expect_type(e, *value, Some(*compute_type), "the operand");
                }
            }
            Expression::IncDec { place, .. } => {
                self.expect_writable(e, *place);
                self.expect_type(e, *place, ty, "the incremented place");
                let ok = matches!(inner, TypeInner::Pointer { .. })
                    || (is_numeric(inner)
                        && matches!(inner, TypeInner::Scalar(_) | TypeInner::Vector { .. }));
                if !ok {
                    self.invalid(e, "++ and -- apply to numbers and pointers".into());
                }
            }
            Expression::Comma { rhs, .. } => self.expect_type(e, *rhs, ty, "the right operand"),
            Expression::Call { function, args } => self.check_call(e, *function, args, ty, inner),
            Expression::Builtin { function, args } => {
                let (min, max) = builtins::arity(*function);
                if args.len() < min || args.len() > max {
                    let span = self.expression_span(e);
                    self.error(
                        span,
                        Kind::BuiltinArgumentCount { builtin: function.name(), found: args.len() },
                    );
                }
                if *function == crate::ir::Builtin::Printf {
                    let format = args.first().and_then(|&a| self.function.expressions.get(a));
                    if !matches!(format, Some(Expression::StringLiteral(_))) {
                        self.invalid(e, "the format of printf is a string literal".into());
                    }
                }
                self.check_image_builtin(e, *function, args);
            }
        }
    }

    fn check_variable(
        &mut self,
        e: Handle<Expression>,
        var: VariableRef,
        ty: Option<Handle<Type>>,
    ) {
        let span = self.expression_span(e);
        let declared = match var {
            VariableRef::Local(h) => match self.function.locals.get(h) {
                Some(local) => local.ty,
                None => return self.error(span, Kind::InvalidLocalHandle { index: h.index() }),
            },
            VariableRef::Param(i) => match self.function.params.get(i as usize) {
                Some(param) => param.ty,
                None => return self.error(span, Kind::InvalidParameter { index: i }),
            },
            VariableRef::Global(h) => match self.module.global_variables.get(h) {
                Some(global) => global.ty,
                None => return self.error(span, Kind::InvalidGlobalHandle { index: h.index() }),
            },
        };
        if Some(declared) != ty {
            self.invalid(e, "a variable expression has the variable's type".into());
        }
    }

    fn check_swizzle(
        &mut self,
        e: Handle<Expression>,
        base: Handle<Expression>,
        components: &[u8],
        inner: &TypeInner,
    ) {
        let Some(TypeInner::Vector { scalar, size }) = self.type_of(base) else {
            return self.invalid(e, format!("swizzled %{} is not a vector", base.index()));
        };
        if components.is_empty() || components.iter().any(|&c| u32::from(c) >= size.width()) {
            return self.invalid(
                e,
                format!("a component is out of range for a vector of {}", size.width()),
            );
        }
        let expected = match components.len() {
            1 => Some(TypeInner::Scalar(*scalar)),
            n => VectorSize::from_width(n as u32)
                .map(|size| TypeInner::Vector { scalar: *scalar, size }),
        };
        if expected.as_ref() != Some(inner) {
            self.invalid(
                e,
                format!("a swizzle of {} components has the wrong type", components.len()),
            );
        }
    }

    fn check_unary(
        &mut self,
        e: Handle<Expression>,
        op: UnaryOp,
        operand: Handle<Expression>,
        inner: &TypeInner,
        ty: Option<Handle<Type>>,
    ) {
        let operand_type = self.type_of(operand);
        match op {
            UnaryOp::Negate => {
                if !operand_type.is_some_and(is_numeric) {
                    self.invalid(e, "negation applies to numbers".into());
                }
                self.expect_type(e, operand, ty, "the operand");
            }
            UnaryOp::BitNot => {
                if !operand_type.is_some_and(is_integer) {
                    self.invalid(e, "~ applies to integers".into());
                }
                self.expect_type(e, operand, ty, "the operand");
            }
            UnaryOp::LogicalNot => {
                let ok = match operand_type {
                    Some(TypeInner::Scalar(_) | TypeInner::Pointer { .. }) => {
                        inner == &TypeInner::Scalar(Scalar::Int)
                    }
                    Some(t @ TypeInner::Vector { .. }) => {
                        Some(inner) == comparison_result(t).as_ref()
                    }
                    _ => false,
                };
                if !ok {
                    self.invalid(
                        e,
                        "! gives int for scalars and a signed integer vector for vectors".into(),
                    );
                }
            }
        }
    }

    fn check_binary(
        &mut self,
        e: Handle<Expression>,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
        inner: &TypeInner,
        ty: Option<Handle<Type>>,
    ) {
        let (l, r) = (self.type_of(lhs), self.type_of(rhs));
        let (Some(l), Some(r)) = (l, r) else { return };
        if op.is_logical() {
            let ok = match (l, r) {
                (TypeInner::Vector { .. }, _) | (_, TypeInner::Vector { .. }) => {
                    l == r && is_integer(l) && comparison_result(l).as_ref() == Some(inner)
                }
                _ => {
                    let scalar_like = |t: &TypeInner| {
                        matches!(t, TypeInner::Scalar(_) | TypeInner::Pointer { .. })
                    };
                    scalar_like(l) && scalar_like(r) && inner == &TypeInner::Scalar(Scalar::Int)
                }
            };
            if !ok {
                self.invalid(e, format!("invalid operands or result for `{}`", op.as_str()));
            }
            return;
        }
        if self.type_handle(lhs) != self.type_handle(rhs) {
            let reason = format!(
                "operands of `{}` have different types ({} and {})",
                op.as_str(),
                self.type_text(self.type_handle(lhs)),
                self.type_text(self.type_handle(rhs))
            );
            return self.invalid(e, reason);
        }
        if op.is_integer_only() && !is_integer(l) {
            return self.invalid(e, format!("`{}` applies to integers", op.as_str()));
        }
        if !is_numeric(l) {
            return self.invalid(e, format!("`{}` applies to numbers", op.as_str()));
        }
        if op.is_comparison() {
            if comparison_result(l).as_ref() != Some(inner) {
                self.invalid(
                    e,
                    "a comparison gives int, or a signed integer vector for vectors".into(),
                );
            }
        } else if self.type_handle(lhs) != ty {
            self.invalid(e, format!("`{}` has the type of its operands", op.as_str()));
        }
    }

    /// Image built-ins take an image first and, for a sampled read, a sampler second: the
    /// simulator finds the image's descriptor and the sampler's bits through them.
    fn check_image_builtin(
        &mut self,
        e: Handle<Expression>,
        function: crate::ir::Builtin,
        args: &[Handle<Expression>],
    ) {
        use crate::ir::Builtin;
        if !matches!(
            function,
            Builtin::ReadImage(_) | Builtin::WriteImage(_) | Builtin::ImageQuery(_)
        ) {
            return;
        }
        if !matches!(args.first().and_then(|&a| self.type_of(a)), Some(TypeInner::Image(_))) {
            self.invalid(e, format!("the first argument of {} is an image", function.name()));
        }
        if matches!(function, Builtin::ReadImage(_))
            && args.len() == 3
            && !matches!(self.type_of(args[1]), Some(TypeInner::Sampler))
        {
            self.invalid(e, format!("the second argument of {} is a sampler", function.name()));
        }
    }

    fn check_conversion(
        &mut self,
        e: Handle<Expression>,
        value: Handle<Expression>,
        kind: ConversionKind,
        to: &TypeInner,
    ) {
        let Some(from) = self.type_of(value) else { return };
        let pointer = |t: &TypeInner| matches!(t, TypeInner::Pointer { .. });
        let allowed = match (from, to) {
            (_, TypeInner::Void) => kind == ConversionKind::Cast,
            (TypeInner::Scalar(_), TypeInner::Scalar(_)) => true,
            (TypeInner::Vector { size: a, .. }, TypeInner::Vector { size: b, .. }) => a == b,
            (f, t) if pointer(f) && pointer(t) => true,
            (TypeInner::Scalar(s), t) | (t, TypeInner::Scalar(s)) if pointer(t) => s.is_integer(),
            // A sampler from the `CLK_*` flags.
            (TypeInner::Scalar(s), TypeInner::Sampler) => {
                s.is_integer() && kind == ConversionKind::Implicit
            }
            _ => false,
        };
        if !allowed {
            let reason = format!(
                "cannot convert {} to {}",
                self.type_text(self.type_handle(value)),
                self.type_text(self.type_handle(e))
            );
            return self.invalid(e, reason);
        }
        if let ConversionKind::Explicit { saturate, .. } = kind {
            let numeric = |t: &TypeInner| is_numeric(t) && !pointer(t);
            if !numeric(from) || !numeric(to) {
                return self.invalid(e, "convert_T converts numbers".into());
            }
            if saturate && !is_integer(to) {
                self.invalid(e, "saturation applies to integer destinations".into());
            }
        }
    }

    fn check_compose(
        &mut self,
        e: Handle<Expression>,
        parts: &[Handle<Expression>],
        inner: &TypeInner,
    ) {
        match inner {
            TypeInner::Vector { scalar, size } => {
                let mut width = 0u32;
                for &part in parts {
                    match self.type_of(part) {
                        Some(TypeInner::Scalar(s)) if s == scalar => width += 1,
                        Some(TypeInner::Vector { scalar: s, size: n }) if s == scalar => {
                            width += n.width()
                        }
                        _ => {
                            return self.invalid(
                                e,
                                format!(
                                    "part %{} is not of the vector's element type",
                                    part.index()
                                ),
                            )
                        }
                    }
                }
                if width != size.width() {
                    self.invalid(
                        e,
                        format!("parts of width {width} build a vector of {}", size.width()),
                    );
                }
            }
            TypeInner::Array { element, len } => {
                if parts.len() != *len as usize {
                    self.invalid(e, format!("{} parts build an array of {len}", parts.len()));
                }
                for &part in parts {
                    self.expect_type(e, part, Some(*element), "element");
                }
            }
            TypeInner::Struct { members, is_union, .. } => {
                let expected = if *is_union { 1 } else { members.len() };
                if parts.len() != expected {
                    return self
                        .invalid(e, format!("{} parts for {expected} members", parts.len()));
                }
                for (&part, member) in parts.iter().zip(members) {
                    self.expect_type(e, part, Some(member.ty), "member");
                }
            }
            _ => self.invalid(e, "only vectors, arrays and structs are composed".into()),
        }
    }

    fn check_call(
        &mut self,
        e: Handle<Expression>,
        callee: Handle<Function>,
        args: &[Handle<Expression>],
        ty: Option<Handle<Type>>,
        inner: &TypeInner,
    ) {
        let span = self.expression_span(e);
        let Some(function) = self.module.functions.get(callee) else {
            return self.error(span, Kind::InvalidFunctionHandle { index: callee.index() });
        };
        if callee >= self.handle {
            self.error(span, Kind::CallNotDefinedBefore { callee: function.name.clone() });
        }
        if args.len() != function.params.len() {
            self.error(
                span,
                Kind::ArgumentCount {
                    callee: function.name.clone(),
                    expected: function.params.len(),
                    found: args.len(),
                },
            );
        }
        for (&arg, param) in args.iter().zip(&function.params) {
            self.expect_type(e, arg, Some(param.ty), "argument");
        }
        let returns_right = match function.return_type {
            Some(r) => Some(r) == ty,
            None => matches!(inner, TypeInner::Void),
        };
        if !returns_right {
            self.invalid(e, format!("a call of '{}' has its return type", function.name));
        }
    }
}

pub(super) fn is_numeric(t: &TypeInner) -> bool {
    match t {
        TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => *s != Scalar::Bool,
        _ => false,
    }
}

fn is_integer(t: &TypeInner) -> bool {
    t.scalar().is_some_and(Scalar::is_integer)
}

pub(super) fn is_integer_scalar(t: Option<&TypeInner>) -> bool {
    matches!(t, Some(TypeInner::Scalar(s)) if s.is_integer())
}

/// The type of a comparison of operands of type `t`: `int`, or the signed integer vector of
/// the element size.
fn comparison_result(t: &TypeInner) -> Option<TypeInner> {
    match t {
        TypeInner::Scalar(_) => Some(TypeInner::Scalar(Scalar::Int)),
        TypeInner::Vector { scalar, size } => {
            Some(TypeInner::Vector { scalar: Scalar::signed_of_size(scalar.size()), size: *size })
        }
        _ => None,
    }
}
