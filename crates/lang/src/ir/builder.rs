//! A public API for constructing IR programmatically (generators of microbenchmarks, tests,
//! transforms that add whole functions).
//!
//! The builder keeps the expression type table in step with the arena, inserts the implicit
//! conversions sema would insert (usual arithmetic conversions of scalar operands, assignment
//! to the place's type, scalar conditions to `bool`), and hands the finished module to the
//! validator, so whatever it returns can be printed and simulated. Misuse that the builder can
//! see at once (indexing a non-pointer, a condition of vector type) is reported as a
//! [`BuildError`] when the module is finished, never as a panic.
//!
//! Expressions form trees: every handle the builder returns may be used once. To use a value
//! twice, store it in a variable ([`FunctionBuilder::declare`]) and load it again.
//!
//! ```
//! use clmap_lang::ir::builder::ModuleBuilder;
//! use clmap_lang::ir::{AddressSpace, Scalar, WorkItemFunction, BinaryOp};
//!
//! let mut module = ModuleBuilder::new();
//! let float = module.scalar(Scalar::Float);
//! let buffer = module.pointer(float, AddressSpace::Global, false);
//! let mut kernel = module.kernel("double_it");
//! let data = kernel.param("data", buffer);
//! let gid = kernel.work_item_int(WorkItemFunction::GlobalId, 0);
//! let i = kernel.declare("i", gid);
//! let place = { let p = kernel.param_value(data); let i = kernel.var_value(i); kernel.index(p, i) };
//! let value = {
//!     let p = kernel.param_value(data);
//!     let i = kernel.var_value(i);
//!     let element = kernel.index(p, i);
//!     let loaded = kernel.load(element);
//!     let two = kernel.float(2.0);
//!     kernel.binary(BinaryOp::Mul, loaded, two)
//! };
//! kernel.assign(place, value);
//! kernel.finish();
//! let module = module.finish().unwrap();
//! assert!(clmap_lang::print::print_module(&module).contains("data[i] = data[i] * 2.0f;"));
//! ```

use std::fmt;

use super::*;
use crate::span::Span;
use crate::valid::{self, ValidationError};

/// Why a built module was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The builder saw a misuse while the function was built.
    Misuse { function: String, reason: String },
    /// The validator rejected the module (a bug in the code that drove the builder).
    Invalid(Vec<ValidationError>),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Misuse { function, reason } => {
                write!(f, "while building function '{function}': {reason}")
            }
            BuildError::Invalid(errors) => {
                write!(f, "the built module is invalid:")?;
                for e in errors {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// Builds a [`Module`] function by function.
#[derive(Debug, Default)]
pub struct ModuleBuilder {
    module: Module,
    misuse: Vec<(String, String)>,
}

impl ModuleBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns any type.
    pub fn ty(&mut self, inner: TypeInner) -> Handle<Type> {
        self.module.ty(inner)
    }

    pub fn scalar(&mut self, scalar: Scalar) -> Handle<Type> {
        self.ty(TypeInner::Scalar(scalar))
    }

    /// A pointer type; `is_const` qualifies the pointee (`const __global float *`).
    pub fn pointer(
        &mut self,
        pointee: Handle<Type>,
        space: AddressSpace,
        is_const: bool,
    ) -> Handle<Type> {
        self.ty(TypeInner::Pointer {
            pointee,
            space,
            is_const,
            is_volatile: false,
            is_restrict: false,
        })
    }

    pub fn array(&mut self, element: Handle<Type>, len: u32) -> Handle<Type> {
        self.ty(TypeInner::Array { element, len })
    }

    /// Starts a `__kernel void` function; call [`FunctionBuilder::finish`] to add it.
    pub fn kernel(&mut self, name: &str) -> FunctionBuilder<'_> {
        FunctionBuilder::new(self, name, FunctionKind::Kernel(KernelAttributes::default()), None)
    }

    /// Starts a helper function returning `return_type` (`None` for `void`).
    pub fn helper(&mut self, name: &str, return_type: Option<Handle<Type>>) -> FunctionBuilder<'_> {
        FunctionBuilder::new(self, name, FunctionKind::Helper, return_type)
    }

    /// Validates and returns the module.
    pub fn finish(self) -> Result<Module, BuildError> {
        if let Some((function, reason)) = self.misuse.into_iter().next() {
            return Err(BuildError::Misuse { function, reason });
        }
        valid::validate(&self.module).map_err(BuildError::Invalid)?;
        Ok(self.module)
    }
}

/// Builds one function: parameters, variables, expressions and structured statements.
///
/// Statements go into the innermost open block; `if_then`, `if_else` and the loops open a
/// block for the closure that fills them.
pub struct FunctionBuilder<'m> {
    owner: &'m mut ModuleBuilder,
    function: Function,
    /// Open blocks, innermost last; the first is the function's body.
    blocks: Vec<Block>,
}

impl<'m> FunctionBuilder<'m> {
    fn new(
        owner: &'m mut ModuleBuilder,
        name: &str,
        kind: FunctionKind,
        return_type: Option<Handle<Type>>,
    ) -> Self {
        // Start from the same empty function sema starts from, so a new field has one home.
        let mut function = crate::sema::empty_function(name, Span::UNDEFINED);
        function.kind = kind;
        function.return_type = return_type;
        FunctionBuilder { owner, function, blocks: vec![Block::new()] }
    }

    fn misuse(&mut self, reason: String) {
        self.owner.misuse.push((self.function.name.clone(), reason));
    }

    /// Interns a type.
    pub fn ty(&mut self, inner: TypeInner) -> Handle<Type> {
        self.owner.ty(inner)
    }

    pub fn scalar_type(&mut self, scalar: Scalar) -> Handle<Type> {
        self.owner.scalar(scalar)
    }

    fn inner(&self, ty: Handle<Type>) -> Option<&TypeInner> {
        self.owner.module.types.get(ty)
    }

    /// The type of an expression built so far.
    pub fn type_of(&self, e: Handle<Expression>) -> Handle<Type> {
        self.function.type_of(e)
    }

    fn scalar_of(&self, e: Handle<Expression>) -> Option<Scalar> {
        match self.inner(self.type_of(e)) {
            Some(TypeInner::Scalar(s)) => Some(*s),
            _ => None,
        }
    }

    /// Adds a parameter (an image one `read_only`); returns its index for
    /// [`Self::param_value`].
    pub fn param(&mut self, name: &str, ty: Handle<Type>) -> u32 {
        let access = matches!(self.inner(ty), Some(TypeInner::Image(_)))
            .then_some(AccessQualifier::ReadOnly);
        self.function.params.push(Parameter {
            name: name.to_string(),
            ty,
            is_const: false,
            access,
            span: Span::UNDEFINED,
        });
        u32::try_from(self.function.params.len() - 1).unwrap_or(u32::MAX)
    }

    /// Adds an image parameter with an access qualifier.
    pub fn image_param(&mut self, name: &str, ty: Handle<Type>, access: AccessQualifier) -> u32 {
        let index = self.param(name, ty);
        if let Some(p) = self.function.params.last_mut() {
            p.access = Some(access);
        }
        index
    }

    /// Adds a by-value parameter that the body may not assign (`const int n`).
    pub fn const_param(&mut self, name: &str, ty: Handle<Type>) -> u32 {
        let index = self.param(name, ty);
        if let Some(p) = self.function.params.last_mut() {
            p.is_const = true;
        }
        index
    }

    /// Sets `reqd_work_group_size` on a kernel.
    pub fn required_work_group_size(&mut self, size: [u32; 3]) {
        if let FunctionKind::Kernel(attributes) = &mut self.function.kind {
            attributes.reqd_work_group_size = Some(size);
        }
    }

    /// Appends a raw expression of a known type (for what the helpers below do not cover).
    pub fn expr(&mut self, expr: Expression, ty: Handle<Type>) -> Handle<Expression> {
        self.function.add_expression(expr, ty, Span::UNDEFINED)
    }

    /// An `int` literal.
    pub fn int(&mut self, value: i64) -> Handle<Expression> {
        self.literal(Literal::int(Scalar::Int, i128::from(value)))
    }

    /// A `uint` literal.
    pub fn uint(&mut self, value: u32) -> Handle<Expression> {
        self.literal(Literal::int(Scalar::UInt, i128::from(value)))
    }

    /// A `float` literal (rounded to single precision).
    pub fn float(&mut self, value: f32) -> Handle<Expression> {
        self.literal(Literal::Float { scalar: Scalar::Float, value: f64::from(value) })
    }

    pub fn literal(&mut self, literal: Literal) -> Handle<Expression> {
        let ty = self.scalar_type(literal.scalar());
        self.expr(Expression::Literal(literal), ty)
    }

    /// The place of a parameter.
    pub fn param_place(&mut self, index: u32) -> Handle<Expression> {
        match self.function.params.get(index as usize).map(|p| p.ty) {
            Some(ty) => self.expr(Expression::Variable(VariableRef::Param(index)), ty),
            None => {
                self.misuse(format!("parameter {index} does not exist"));
                self.int(0)
            }
        }
    }

    /// The value of a parameter.
    pub fn param_value(&mut self, index: u32) -> Handle<Expression> {
        let place = self.param_place(index);
        self.load(place)
    }

    /// The place of a variable.
    pub fn var(&mut self, variable: Handle<LocalVariable>) -> Handle<Expression> {
        match self.function.locals.get(variable).map(|v| v.ty) {
            Some(ty) => self.expr(Expression::Variable(VariableRef::Local(variable)), ty),
            None => {
                self.misuse(format!("variable {} does not exist", variable.index()));
                self.int(0)
            }
        }
    }

    /// The value of a (scalar or pointer) variable.
    pub fn var_value(&mut self, variable: Handle<LocalVariable>) -> Handle<Expression> {
        let place = self.var(variable);
        self.load(place)
    }

    /// The value stored in a place.
    pub fn load(&mut self, place: Handle<Expression>) -> Handle<Expression> {
        let ty = self.type_of(place);
        self.expr(Expression::Load(place), ty)
    }

    /// `base[index]` as a place: `base` is a pointer value or an array place.
    pub fn index(
        &mut self,
        base: Handle<Expression>,
        index: Handle<Expression>,
    ) -> Handle<Expression> {
        let element = match self.inner(self.type_of(base)) {
            Some(TypeInner::Pointer { pointee, .. }) => Some(*pointee),
            Some(TypeInner::Array { element, .. }) => Some(*element),
            _ => None,
        };
        match element {
            Some(element) => self.expr(Expression::Index { base, index }, element),
            None => {
                self.misuse("indexed a value that is neither a pointer nor an array".into());
                base
            }
        }
    }

    /// Converts a scalar value to `to`, implicitly (printed as nothing) or as a C cast.
    pub fn convert(
        &mut self,
        value: Handle<Expression>,
        to: Scalar,
        kind: ConversionKind,
    ) -> Handle<Expression> {
        if self.scalar_of(value) == Some(to) {
            return value;
        }
        let ty = self.scalar_type(to);
        self.expr(Expression::Convert { value, kind }, ty)
    }

    /// `(to)value`.
    pub fn cast(&mut self, value: Handle<Expression>, to: Scalar) -> Handle<Expression> {
        self.convert(value, to, ConversionKind::Cast)
    }

    /// A work-item function of dimension `dim` (`get_local_id(1)`), of type `size_t`.
    pub fn work_item(&mut self, function: WorkItemFunction, dim: u32) -> Handle<Expression> {
        let ulong = self.scalar_type(Scalar::ULong);
        let dim = self.uint(dim);
        self.expr(
            Expression::Builtin { function: Builtin::WorkItem(function), args: vec![dim] },
            ulong,
        )
    }

    /// `(int)get_…(dim)`: the usual way kernels take work-item indices.
    pub fn work_item_int(&mut self, function: WorkItemFunction, dim: u32) -> Handle<Expression> {
        let value = self.work_item(function, dim);
        self.cast(value, Scalar::Int)
    }

    /// The usual arithmetic conversions of two scalar operands, as sema makes them
    /// ([`crate::proc::usual_arithmetic_conversion`]).
    fn balance(
        &mut self,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    ) -> (Handle<Expression>, Handle<Expression>) {
        let (Some(l), Some(r)) = (self.scalar_of(lhs), self.scalar_of(rhs)) else {
            return (lhs, rhs);
        };
        if l == r {
            return (lhs, rhs);
        }
        let common = crate::proc::usual_arithmetic_conversion(l, r);
        let lhs = self.convert(lhs, common, ConversionKind::Implicit);
        let rhs = self.convert(rhs, common, ConversionKind::Implicit);
        (lhs, rhs)
    }

    /// An arithmetic, bitwise or comparison operator on scalars (operands converted as C
    /// does). Comparisons give `int`. For `&&` and `||` use [`Self::logical`].
    pub fn binary(
        &mut self,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    ) -> Handle<Expression> {
        if op.is_logical() {
            return self.logical(op, lhs, rhs);
        }
        let (lhs, rhs) = self.balance(lhs, rhs);
        let ty = if op.is_comparison() { self.scalar_type(Scalar::Int) } else { self.type_of(lhs) };
        self.expr(Expression::Binary { op, lhs, rhs }, ty)
    }

    /// `lhs && rhs` or `lhs || rhs` of scalars, `int`-valued.
    pub fn logical(
        &mut self,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    ) -> Handle<Expression> {
        let lhs = self.convert(lhs, Scalar::Bool, ConversionKind::Implicit);
        let rhs = self.convert(rhs, Scalar::Bool, ConversionKind::Implicit);
        let int = self.scalar_type(Scalar::Int);
        self.expr(Expression::Binary { op, lhs, rhs }, int)
    }

    /// `lhs + rhs`.
    pub fn add(&mut self, lhs: Handle<Expression>, rhs: Handle<Expression>) -> Handle<Expression> {
        self.binary(BinaryOp::Add, lhs, rhs)
    }

    /// `lhs * rhs`.
    pub fn mul(&mut self, lhs: Handle<Expression>, rhs: Handle<Expression>) -> Handle<Expression> {
        self.binary(BinaryOp::Mul, lhs, rhs)
    }

    /// `place = value` (value converted to the place's type) as an expression.
    pub fn assign_expr(
        &mut self,
        place: Handle<Expression>,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        let ty = self.type_of(place);
        let value = match self.inner(ty) {
            Some(TypeInner::Scalar(s)) => {
                let s = *s;
                self.convert(value, s, ConversionKind::Implicit)
            }
            _ => value,
        };
        self.expr(Expression::Assign { place, value }, ty)
    }

    /// `place op= value` as an expression, for scalar places.
    pub fn compound_assign_expr(
        &mut self,
        op: BinaryOp,
        place: Handle<Expression>,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        let ty = self.type_of(place);
        let Some(place_scalar) = self.scalar_of(place) else {
            self.misuse("compound assignment to a non-scalar place".into());
            return place;
        };
        let Some(value_scalar) = self.scalar_of(value) else {
            self.misuse("compound assignment of a non-scalar value".into());
            return place;
        };
        // The operation happens in the common type of both sides (C11 §6.5.16.2).
        let promote = |s: Scalar| if s.rank() < Scalar::Int.rank() { Scalar::Int } else { s };
        let (a, b) = (promote(place_scalar), promote(value_scalar));
        let common = if a.rank() != b.rank() {
            if a.rank() > b.rank() {
                a
            } else {
                b
            }
        } else if !a.is_signed() {
            a
        } else {
            b
        };
        let value = self.convert(value, common, ConversionKind::Implicit);
        let compute_type = self.scalar_type(common);
        self.expr(Expression::CompoundAssign { op, place, value, compute_type }, ty)
    }

    /// Appends a statement to the innermost open block.
    pub fn push(&mut self, statement: Statement) {
        if let Some(block) = self.blocks.last_mut() {
            block.push(statement, Span::UNDEFINED);
        }
    }

    /// `place = value;`
    pub fn assign(&mut self, place: Handle<Expression>, value: Handle<Expression>) {
        let e = self.assign_expr(place, value);
        self.push(Statement::Expression(e));
    }

    /// `place op= value;`
    pub fn compound_assign(
        &mut self,
        op: BinaryOp,
        place: Handle<Expression>,
        value: Handle<Expression>,
    ) {
        let e = self.compound_assign_expr(op, place, value);
        self.push(Statement::Expression(e));
    }

    fn new_variable(
        &mut self,
        name: &str,
        ty: Handle<Type>,
        space: AddressSpace,
    ) -> Handle<LocalVariable> {
        self.function.locals.append(
            LocalVariable {
                name: name.to_string(),
                ty,
                space,
                is_const: false,
                is_volatile: false,
                align: None,
            },
            Span::UNDEFINED,
        )
    }

    /// `T name = init;` with `T` the type of `init`.
    pub fn declare(&mut self, name: &str, init: Handle<Expression>) -> Handle<LocalVariable> {
        let ty = self.type_of(init);
        let variable = self.new_variable(name, ty, AddressSpace::Private);
        self.push(Statement::Declare { variable, init: Some(init) });
        variable
    }

    /// `T name = init;` with an explicit type (init converted to it).
    pub fn declare_typed(
        &mut self,
        name: &str,
        ty: Handle<Type>,
        init: Handle<Expression>,
    ) -> Handle<LocalVariable> {
        let init = match self.inner(ty) {
            Some(TypeInner::Scalar(s)) => {
                let s = *s;
                self.convert(init, s, ConversionKind::Implicit)
            }
            _ => init,
        };
        let variable = self.new_variable(name, ty, AddressSpace::Private);
        self.push(Statement::Declare { variable, init: Some(init) });
        variable
    }

    /// `__local T name[len];` in the current block (OpenCL allows it only in a kernel's
    /// outermost scope: declare it before opening blocks).
    pub fn declare_local_array(
        &mut self,
        name: &str,
        element: Handle<Type>,
        len: u32,
    ) -> Handle<LocalVariable> {
        let ty = self.owner.array(element, len);
        let variable = self.new_variable(name, ty, AddressSpace::Local);
        self.push(Statement::Declare { variable, init: None });
        variable
    }

    fn condition(&mut self, condition: Handle<Expression>) -> Handle<Expression> {
        match self.inner(self.type_of(condition)) {
            Some(TypeInner::Scalar(_)) => {
                self.convert(condition, Scalar::Bool, ConversionKind::Implicit)
            }
            _ => {
                self.misuse("a condition must be a scalar".into());
                condition
            }
        }
    }

    fn build_block<R>(&mut self, fill: impl FnOnce(&mut Self) -> R) -> (Block, R) {
        self.blocks.push(Block::new());
        let result = fill(self);
        let block = self.blocks.pop().unwrap_or_default();
        (block, result)
    }

    /// `if (condition) { accept }`.
    pub fn if_then<R>(
        &mut self,
        condition: Handle<Expression>,
        accept: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let condition = self.condition(condition);
        let (accept, result) = self.build_block(accept);
        self.push(Statement::If { condition, accept, reject: Block::new() });
        result
    }

    /// `if (condition) { accept } else { reject }`.
    pub fn if_else(
        &mut self,
        condition: Handle<Expression>,
        accept: impl FnOnce(&mut Self),
        reject: impl FnOnce(&mut Self),
    ) {
        let condition = self.condition(condition);
        let (accept, ()) = self.build_block(accept);
        let (reject, ()) = self.build_block(reject);
        self.push(Statement::If { condition, accept, reject });
    }

    /// `for (int name = start; name < end; name += step) { body }`; `end` is built by a
    /// closure because it is evaluated on every iteration, `body` receives the counter.
    pub fn for_range<R>(
        &mut self,
        name: &str,
        start: Handle<Expression>,
        end: impl FnOnce(&mut Self) -> Handle<Expression>,
        step: Handle<Expression>,
        body: impl FnOnce(&mut Self, Handle<LocalVariable>) -> R,
    ) -> R {
        let int = self.scalar_type(Scalar::Int);
        let start = self.convert(start, Scalar::Int, ConversionKind::Implicit);
        let counter = self.new_variable(name, int, AddressSpace::Private);
        let mut init = Block::new();
        init.push(Statement::Declare { variable: counter, init: Some(start) }, Span::UNDEFINED);
        let current = self.var_value(counter);
        let end = end(self);
        let compare = self.binary(BinaryOp::Lt, current, end);
        let condition = self.condition(compare);
        let place = self.var(counter);
        let update = self.compound_assign_expr(BinaryOp::Add, place, step);
        let (body, result) = self.build_block(|b| body(b, counter));
        self.push(Statement::Loop {
            form: LoopForm::For,
            init,
            condition: Some(condition),
            update: Some(update),
            body,
            pragma: None,
        });
        result
    }

    /// `barrier(CLK_LOCAL_MEM_FENCE);`
    pub fn barrier_local(&mut self) {
        self.push(Statement::Barrier(FenceFlags { local: true, global: false }));
    }

    /// `return;` or `return value;`.
    pub fn ret(&mut self, value: Option<Handle<Expression>>) {
        self.push(Statement::Return(value));
    }

    /// Adds the function to the module (after the functions already there).
    pub fn finish(mut self) -> Handle<Function> {
        if self.blocks.len() != 1 {
            self.misuse("finished with a block still open".into());
        }
        self.function.body = self.blocks.drain(..).next().unwrap_or_default();
        let function = std::mem::replace(
            &mut self.function,
            Function {
                name: String::new(),
                kind: FunctionKind::Helper,
                params: Vec::new(),
                return_type: None,
                is_inline: false,
                locals: Arena::new(),
                expressions: Arena::new(),
                expression_types: Vec::new(),
                body: Block::new(),
                span: Span::UNDEFINED,
            },
        );
        self.owner.module.functions.append(function, Span::UNDEFINED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::print_module;

    #[test]
    fn loops_locals_and_conditions_print_and_validate() {
        let mut module = ModuleBuilder::new();
        let float = module.scalar(Scalar::Float);
        let input = module.pointer(float, AddressSpace::Global, true);
        let output = module.pointer(float, AddressSpace::Global, false);
        let mut k = module.kernel("sum_tile");
        let src = k.param("src", input);
        let dst = k.param("dst", output);
        let tile = k.declare_local_array("tile", float, 16);
        let lid = k.work_item_int(WorkItemFunction::LocalId, 0);
        let lx = k.declare("lx", lid);
        let place = {
            let t = k.var(tile);
            let i = k.var_value(lx);
            k.index(t, i)
        };
        let value = {
            let s = k.param_value(src);
            let i = k.var_value(lx);
            let element = k.index(s, i);
            k.load(element)
        };
        k.assign(place, value);
        k.barrier_local();
        let zero = k.float(0.0);
        let acc = k.declare("acc", zero);
        let start = k.int(0);
        let step = k.int(1);
        k.for_range(
            "i",
            start,
            |k| k.int(16),
            step,
            |k, i| {
                let t = k.var(tile);
                let i = k.var_value(i);
                let element = k.index(t, i);
                let v = k.load(element);
                let a = k.var(acc);
                k.compound_assign(BinaryOp::Add, a, v);
            },
        );
        let first = {
            let i = k.var_value(lx);
            let zero = k.int(0);
            k.binary(BinaryOp::Eq, i, zero)
        };
        k.if_then(first, |k| {
            let d = k.param_value(dst);
            let zero = k.uint(0);
            let place = k.index(d, zero);
            let a = k.var_value(acc);
            k.assign(place, a);
        });
        k.finish();
        let module = module.finish().expect("valid");
        let text = print_module(&module);
        assert!(text.contains("__local float tile[16];"), "{text}");
        assert!(text.contains("for (int i = 0; i < 16; i += 1)"), "{text}");
        assert!(text.contains("barrier(CLK_LOCAL_MEM_FENCE);"), "{text}");
        assert!(text.contains("if (lx == 0)"), "{text}");
        let reparsed = crate::frontend::compile_isolated(&text, "").expect("re-parses");
        assert!(reparsed.module.kernel_by_name("sum_tile").is_some());
    }

    #[test]
    fn misuse_is_an_error_not_a_panic() {
        let mut module = ModuleBuilder::new();
        let mut k = module.kernel("broken");
        let a = k.int(1);
        let b = k.int(2);
        let _ = k.index(a, b);
        k.finish();
        assert!(matches!(module.finish(), Err(BuildError::Misuse { .. })));
    }

    #[test]
    fn reusing_an_expression_is_caught_by_the_validator() {
        let mut module = ModuleBuilder::new();
        let mut k = module.kernel("reuse");
        let one = k.int(1);
        let x = k.declare("x", one);
        let v = k.var_value(x);
        let sum = k.add(v, v);
        let _ = k.declare("y", sum);
        k.finish();
        assert!(matches!(module.finish(), Err(BuildError::Invalid(_))));
    }
}
