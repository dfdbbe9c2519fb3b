//! IR built by hand for the tests of the validator, the printer and the dump: a small builder
//! that keeps the expression type table in step with the arena.

use crate::ir::*;
use crate::span::Span;

/// Builds one function of a module.
pub(crate) struct FunctionBuilder<'m> {
    pub module: &'m mut Module,
    pub function: Function,
}

impl<'m> FunctionBuilder<'m> {
    pub fn kernel(module: &'m mut Module, name: &str) -> Self {
        Self::new(module, name, FunctionKind::Kernel(KernelAttributes::default()), None)
    }

    pub fn helper(module: &'m mut Module, name: &str, return_type: Option<Handle<Type>>) -> Self {
        Self::new(module, name, FunctionKind::Helper, return_type)
    }

    fn new(
        module: &'m mut Module,
        name: &str,
        kind: FunctionKind,
        return_type: Option<Handle<Type>>,
    ) -> Self {
        // Start from the same empty function sema starts from, so a new field has one home.
        let mut function = crate::sema::empty_function(name, Span::UNDEFINED);
        function.kind = kind;
        function.return_type = return_type;
        FunctionBuilder { module, function }
    }

    pub fn ty(&mut self, inner: TypeInner) -> Handle<Type> {
        self.module.ty(inner)
    }

    pub fn scalar(&mut self, scalar: Scalar) -> Handle<Type> {
        self.ty(TypeInner::Scalar(scalar))
    }

    pub fn vector(&mut self, scalar: Scalar, width: u32) -> Handle<Type> {
        let size = VectorSize::from_width(width).expect("test vector width");
        self.ty(TypeInner::Vector { scalar, size })
    }

    pub fn pointer(&mut self, pointee: Handle<Type>, space: AddressSpace) -> Handle<Type> {
        self.ty(TypeInner::Pointer {
            pointee,
            space,
            is_const: false,
            is_volatile: false,
            is_restrict: false,
        })
    }

    pub fn param(&mut self, name: &str, ty: Handle<Type>) -> u32 {
        self.function.params.push(Parameter {
            name: name.to_string(),
            ty,
            is_const: false,
            access: None,
            span: Span::UNDEFINED,
        });
        self.function.params.len() as u32 - 1
    }

    pub fn local(
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

    pub fn expr(&mut self, expr: Expression, ty: Handle<Type>) -> Handle<Expression> {
        self.function.add_expression(expr, ty, Span::UNDEFINED)
    }

    pub fn type_of(&self, e: Handle<Expression>) -> Handle<Type> {
        self.function.type_of(e)
    }

    pub fn int(&mut self, value: i128) -> Handle<Expression> {
        let ty = self.scalar(Scalar::Int);
        self.expr(Expression::Literal(Literal::int(Scalar::Int, value)), ty)
    }

    pub fn float(&mut self, value: f64) -> Handle<Expression> {
        let ty = self.scalar(Scalar::Float);
        self.expr(Expression::Literal(Literal::Float { scalar: Scalar::Float, value }), ty)
    }

    /// The place of a parameter.
    pub fn param_place(&mut self, index: u32) -> Handle<Expression> {
        let ty = self.function.params[index as usize].ty;
        self.expr(Expression::Variable(VariableRef::Param(index)), ty)
    }

    pub fn local_place(&mut self, local: Handle<LocalVariable>) -> Handle<Expression> {
        let ty = self.function.locals[local].ty;
        self.expr(Expression::Variable(VariableRef::Local(local)), ty)
    }

    pub fn load(&mut self, place: Handle<Expression>) -> Handle<Expression> {
        let ty = self.type_of(place);
        self.expr(Expression::Load(place), ty)
    }

    /// The value of a parameter.
    pub fn param_value(&mut self, index: u32) -> Handle<Expression> {
        let place = self.param_place(index);
        self.load(place)
    }

    pub fn local_value(&mut self, local: Handle<LocalVariable>) -> Handle<Expression> {
        let place = self.local_place(local);
        self.load(place)
    }

    pub fn binary(
        &mut self,
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    ) -> Handle<Expression> {
        let ty = if op.yields_truth_value() { self.scalar(Scalar::Int) } else { self.type_of(lhs) };
        self.expr(Expression::Binary { op, lhs, rhs }, ty)
    }

    /// `pointer[index]` as a place, for a pointer value.
    pub fn index(
        &mut self,
        base: Handle<Expression>,
        index: Handle<Expression>,
    ) -> Handle<Expression> {
        let element = match self.module.types.get(self.type_of(base)) {
            Some(TypeInner::Pointer { pointee, .. }) => *pointee,
            Some(TypeInner::Array { element, .. }) => *element,
            _ => panic!("test indexes a non-pointer"),
        };
        self.expr(Expression::Index { base, index }, element)
    }

    pub fn global_id(&mut self, dim: i128) -> Handle<Expression> {
        let uint = self.scalar(Scalar::UInt);
        let ulong = self.scalar(Scalar::ULong);
        let dim = self.int(dim);
        let dim =
            self.expr(Expression::Convert { value: dim, kind: ConversionKind::Implicit }, uint);
        self.expr(
            Expression::Builtin {
                function: Builtin::WorkItem(WorkItemFunction::GlobalId),
                args: vec![dim],
            },
            ulong,
        )
    }

    pub fn assign(
        &mut self,
        place: Handle<Expression>,
        value: Handle<Expression>,
    ) -> Handle<Expression> {
        let ty = self.type_of(place);
        self.expr(Expression::Assign { place, value }, ty)
    }

    pub fn push(&mut self, statement: Statement) {
        self.function.body.push(statement, Span::UNDEFINED);
    }

    pub fn finish(self) -> Handle<Function> {
        self.module.functions.append(self.function, Span::UNDEFINED)
    }
}

/// A block from statements, with undefined spans.
pub(crate) fn block(statements: Vec<Statement>) -> Block {
    let mut block = Block::new();
    for statement in statements {
        block.push(statement, Span::UNDEFINED);
    }
    block
}

/// `__kernel void scale(__global float *data, float factor) { size_t i = get_global_id(0);
/// data[i] = data[i] * factor; }`, the smallest interesting kernel.
pub(crate) fn scale_kernel() -> Module {
    let mut module = Module::default();
    let mut b = FunctionBuilder::kernel(&mut module, "scale");
    let float = b.scalar(Scalar::Float);
    let ulong = b.scalar(Scalar::ULong);
    let ptr = b.pointer(float, AddressSpace::Global);
    let data = b.param("data", ptr);
    let factor = b.param("factor", float);
    let i = b.local("i", ulong, AddressSpace::Private);
    let gid = b.global_id(0);
    b.push(Statement::Declare { variable: i, init: Some(gid) });
    let base = b.param_value(data);
    let index = b.local_value(i);
    let target = b.index(base, index);
    let base = b.param_value(data);
    let index = b.local_value(i);
    let source = b.index(base, index);
    let value = b.load(source);
    let f = b.param_value(factor);
    let product = b.binary(BinaryOp::Mul, value, f);
    let store = b.assign(target, product);
    b.push(Statement::Expression(store));
    b.finish();
    module
}
