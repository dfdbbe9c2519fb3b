//! The typed intermediate representation every later stage works on.
//!
//! Modelled on naga: nodes live in [`Arena`]s and refer to each other by typed [`Handle`]s,
//! every node has a [`Span`] into the user's source beside it, and analyses keep their results
//! in side tables indexed by handle instead of adding fields to nodes.
//!
//! # Invariants (checked by [`crate::valid`]; every pass may rely on them)
//!
//! - Every handle stored anywhere in a [`Module`] is in range of the arena it refers to.
//! - `Function::expression_types[e]` is the type of expression `e`; the table has exactly one
//!   entry per expression.
//! - Expressions are trees: each expression handle is used by at most one parent (an expression
//!   or a statement), so evaluating a statement evaluates each of its expressions once, in C's
//!   order. A transform that needs a value twice copies the subtree.
//! - All implicit conversions of C and OpenCL are explicit: the operands of a [`Binary`] have the
//!   types the operator computes in (except shifts, whose right operand has already been
//!   converted to the left operand's type, and comparisons and logical operators, whose result
//!   is `int` or a signed integer vector); the value of an [`Expression::Assign`] has the type of
//!   the place; arguments of calls have the parameter types.
//! - *Places* (lvalues) are [`Expression::Variable`], [`Expression::Deref`], [`Expression::Index`]
//!   on an array place or on a pointer value, [`Expression::Member`] on a place, and
//!   [`Expression::Swizzle`] on a place. Only places are operands of `Load`, `AddressOf`,
//!   `Assign`, `CompoundAssign` and `IncDec`; a place's type is the type of the object it
//!   designates. `Load(place)` turns a place into its value.
//! - Control flow is structured: `break` only inside a loop or switch, `continue` only inside a
//!   loop, barriers are statements.
//! - Functions do not recurse (OpenCL C forbids it), so calls can be inlined or interpreted
//!   without a depth limit beyond the call graph's; a callee comes before its callers in
//!   [`Module::functions`].
//! - Variables are used only inside the scope of their `Declare`; a pointer made by
//!   `AddressOf` or `Decay` points into the address space of its place.
//! - Scalar conditions (`if`, loops, scalar `?:`, operands of scalar `&&`, `||`, `!`) are
//!   `bool` values, made from other scalars by an implicit `Convert` (pointers through `ulong`).
//! - Images and samplers are never stored in memory: an image is always a parameter (an
//!   expression of image type is the `Load` of one), a sampler a parameter, a program-scope
//!   `__constant` whose initialiser is a `uint` literal of its [`SamplerBits`], or a private
//!   variable initialised by a sampler value or an implicit `Convert` of an integer constant.
//!
//! [`Binary`]: Expression::Binary

mod arena;
pub mod builder;
pub mod builtin;
mod types;

pub use arena::{Arena, Handle, UniqueArena};
pub use builtin::*;
pub use types::*;

use crate::span::Span;

/// One translation unit after semantic checking.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub types: UniqueArena<Type>,
    /// Program-scope variables: `__constant` and initialised, or, from OpenCL C 2.0 on,
    /// `__global` (initialised or zero) and shared by every launch of the program.
    pub global_variables: Arena<GlobalVariable>,
    /// Helper functions and kernels, in source order (a function is defined before its callers).
    pub functions: Arena<Function>,
    /// File-scope pragmas in source order, with the index of the item they preceded
    /// (`OPENCL EXTENSION …` must be printed before the code that needs it).
    pub pragmas: Vec<ModulePragma>,
    /// Typedef names in source order, kept so the printer can write them back.
    pub typedefs: Vec<Typedef>,
    /// `__OPENCL_C_VERSION__` the module was checked as (120 for OpenCL C 1.2, 200 for 2.0);
    /// 0 for a module built in code, which is taken as 1.2.
    pub language_version: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModulePragma {
    pub text: String,
    /// Number of functions defined before the pragma.
    pub before_function: usize,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Typedef {
    pub name: String,
    pub ty: Handle<Type>,
    pub span: Span,
}

impl Module {
    /// The kernels of the module, in source order.
    pub fn kernels(&self) -> impl Iterator<Item = (Handle<Function>, &Function)> {
        self.functions.iter().filter(|(_, f)| f.is_kernel())
    }

    pub fn kernel_by_name(&self, name: &str) -> Option<Handle<Function>> {
        self.kernels().find(|(_, f)| f.name == name).map(|(h, _)| h)
    }

    /// Whether launches may end in partial work-groups (OpenCL C 2.0 and later).
    pub fn allows_partial_groups(&self) -> bool {
        self.language_version >= 200
    }

    pub fn function_by_name(&self, name: &str) -> Option<Handle<Function>> {
        self.functions.iter().find(|(_, f)| f.name == name).map(|(h, _)| h)
    }

    pub fn size_of(&self, ty: Handle<Type>) -> u32 {
        types::size_of(&self.types, ty)
    }

    pub fn align_of(&self, ty: Handle<Type>) -> u32 {
        types::align_of(&self.types, ty)
    }

    /// Interns a type (no span: types are shared).
    pub fn ty(&mut self, inner: TypeInner) -> Handle<Type> {
        self.types.insert(inner, Span::UNDEFINED)
    }
}

/// A program-scope variable; a `sampler_t` one holds its [`SamplerBits`] as a `uint`
/// literal. A `__global` one without `init` starts as zeros.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVariable {
    pub name: String,
    pub ty: Handle<Type>,
    pub space: AddressSpace,
    pub init: Option<ConstValue>,
}

/// How the name of the `__constant char` array a string literal stands for starts (the
/// literal is an unnamed object, C99 §6.4.5p5; the printer writes the literal back).
pub const STRING_LITERAL_PREFIX: &str = "__string_literal_";

impl GlobalVariable {
    /// The text of the string literal this array stands for (its bytes before the final NUL),
    /// or `None` for a declared variable.
    pub fn string_literal(&self) -> Option<String> {
        if !self.name.starts_with(STRING_LITERAL_PREFIX) {
            return None;
        }
        let Some(ConstValue::Composite(items)) = &self.init else { return None };
        let mut bytes: Vec<u8> = items
            .iter()
            .map(|item| match item {
                ConstValue::Literal(Literal::Int { bits, .. }) => Some(*bits as u8),
                _ => None,
            })
            .collect::<Option<_>>()?;
        bytes.pop();
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// A compile-time value: initialisers of program-scope constants.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Literal(Literal),
    /// Elements of an array or vector, or members of a struct, in order; missing trailing
    /// elements are zero.
    Composite(Vec<ConstValue>),
    Zero,
    /// The address of byte `offset` of program-scope variable `global` (OpenCL C 2.0: `global
    /// int *p = &table[1];`), for a pointer-typed initialiser. The simulator places each
    /// variable at launch, so the address is resolved then.
    Address {
        global: Handle<GlobalVariable>,
        offset: u64,
    },
}

/// A scalar constant of a given type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    /// Integer of scalar type `scalar`; `bits` holds the value truncated to the type's size
    /// (sign is recovered from the type).
    Int {
        scalar: Scalar,
        bits: u64,
    },
    /// Float of scalar type `scalar` (`Half`, `Float` or `Double`); the value is exactly
    /// representable in that type.
    Float {
        scalar: Scalar,
        value: f64,
    },
}

impl Literal {
    pub fn scalar(self) -> Scalar {
        match self {
            Literal::Bool(_) => Scalar::Bool,
            Literal::Int { scalar, .. } | Literal::Float { scalar, .. } => scalar,
        }
    }

    pub fn int(scalar: Scalar, value: i128) -> Literal {
        let bits = value as u64;
        let size = scalar.size();
        let bits = if size >= 8 { bits } else { bits & ((1u64 << (size * 8)) - 1) };
        Literal::Int { scalar, bits }
    }

    /// The integer value, sign-extended by the type.
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Literal::Bool(b) => Some(b as i128),
            Literal::Int { scalar, bits } => {
                let size = scalar.size() * 8;
                Some(if scalar.is_signed() {
                    ((bits << (64 - size)) as i64 >> (64 - size)) as i128
                } else {
                    bits as i128
                })
            }
            Literal::Float { .. } => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub params: Vec<Parameter>,
    /// `None` for `void`.
    pub return_type: Option<Handle<Type>>,
    pub is_inline: bool,
    /// Every variable declared in the body (private and `__local`), each declared once by a
    /// [`Statement::Declare`] at its place in the body.
    pub locals: Arena<LocalVariable>,
    pub expressions: Arena<Expression>,
    /// Type of each expression; see the module invariants.
    pub expression_types: Vec<Handle<Type>>,
    pub body: Block,
    pub span: Span,
}

impl Function {
    pub fn is_kernel(&self) -> bool {
        matches!(self.kind, FunctionKind::Kernel(_))
    }

    /// Appends an expression together with its type.
    pub fn add_expression(
        &mut self,
        expr: Expression,
        ty: Handle<Type>,
        span: Span,
    ) -> Handle<Expression> {
        self.expression_types.push(ty);
        self.expressions.append(expr, span)
    }

    /// The type of an expression (see the module invariants).
    pub fn type_of(&self, expr: Handle<Expression>) -> Handle<Type> {
        self.expression_types[expr.index()]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunctionKind {
    Kernel(KernelAttributes),
    Helper,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct KernelAttributes {
    pub reqd_work_group_size: Option<[u32; 3]>,
    pub work_group_size_hint: Option<[u32; 3]>,
    pub vec_type_hint: Option<Handle<Type>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub ty: Handle<Type>,
    /// `const int n`: the parameter itself may not be assigned.
    pub is_const: bool,
    /// `read_only`, `write_only` or `read_write` for an image parameter (`read_only` when the
    /// source wrote none); `None` for every other parameter.
    pub access: Option<AccessQualifier>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LocalVariable {
    pub name: String,
    pub ty: Handle<Type>,
    /// `Private` or `Local` (a `__local` variable declared in a kernel's body).
    pub space: AddressSpace,
    pub is_const: bool,
    pub is_volatile: bool,
    /// Extra alignment from `__attribute__((aligned(N)))`, if any.
    pub align: Option<u32>,
}

/// A variable named by an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VariableRef {
    Local(Handle<LocalVariable>),
    /// Index into [`Function::params`].
    Param(u32),
    Global(Handle<GlobalVariable>),
}

/// The IR's operators; their classes, spelling and precedence are in [`crate::proc`].
pub use crate::proc::{BinaryOp, UnaryOp};

/// How a conversion came about; all kinds convert values the same way except where noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConversionKind {
    /// Inserted by sema (usual arithmetic conversions, assignment, argument passing, scalar to
    /// bool in conditions). The printer omits it.
    Implicit,
    /// A C cast `(T)x`.
    Cast,
    /// `convert_T[_sat][_rounding](x)`.
    Explicit { saturate: bool, rounding: Option<Rounding> },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expression {
    Literal(Literal),
    /// A string literal: the format of `printf`, or a `%s` argument of it. Its type is
    /// `__constant char *`.
    StringLiteral(String),
    /// The all-zero value of the expression's type (empty initialiser parts; also the `0`
    /// event passed to `async_work_group_copy`, of type `event_t`).
    ZeroValue,
    /// Place: a variable.
    Variable(VariableRef),
    /// Place: the object a pointer value points to (`*p`, `p->f` is `Member(Deref(p))`).
    Deref(Handle<Expression>),
    /// Place: `base[index]`, where `base` is a place of array type or a value of pointer type.
    /// `index` is a signed or unsigned integer scalar.
    Index {
        base: Handle<Expression>,
        index: Handle<Expression>,
    },
    /// Place: member `member` of a struct or union place.
    Member {
        base: Handle<Expression>,
        member: u32,
    },
    /// Components of a vector, in order (`v.zyx`, `v.s3`, `v.hi`, `v.even`). A place when
    /// `base` is a place (lvalue swizzle, no repeated component), else a value. A single
    /// component yields a scalar.
    Swizzle {
        base: Handle<Expression>,
        components: Vec<u8>,
    },
    /// The value stored in a place.
    Load(Handle<Expression>),
    /// `&place`: a pointer into the place's address space.
    AddressOf(Handle<Expression>),
    /// An array place used as a value: pointer to its first element.
    Decay(Handle<Expression>),
    Unary {
        op: UnaryOp,
        operand: Handle<Expression>,
    },
    /// Arithmetic, bitwise, comparison or logical operator. `&&` and `||` on scalars evaluate
    /// `rhs` only when needed; on vectors both sides are evaluated (OpenCL §6.3.h).
    Binary {
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    },
    /// `pointer ± offset` in elements of the pointee; `offset` is a signed or unsigned integer.
    PointerOffset {
        pointer: Handle<Expression>,
        offset: Handle<Expression>,
        subtract: bool,
    },
    /// `lhs - rhs` of two pointers to the same type, in elements (`ptrdiff_t`).
    PointerDifference {
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    },
    /// Pointer comparison (`==`, `!=`, `<`, …), result `int`.
    PointerCompare {
        op: BinaryOp,
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    },
    /// `cond ? accept : reject`. For a scalar condition only the chosen side is evaluated; for
    /// a vector condition (OpenCL's component-wise `?:`) both are, then selected per component.
    Conditional {
        condition: Handle<Expression>,
        accept: Handle<Expression>,
        reject: Handle<Expression>,
    },
    /// Value conversion to the expression's type (scalar↔scalar, vector↔vector of the same
    /// width, pointer↔pointer, integer↔pointer casts).
    Convert {
        value: Handle<Expression>,
        kind: ConversionKind,
    },
    /// Reinterpretation of the bits (`as_T`), same size.
    Bitcast(Handle<Expression>),
    /// A scalar broadcast to every component of the expression's vector type.
    Splat(Handle<Expression>),
    /// A vector, array or struct built from components in order. For vectors, components are
    /// scalars or vectors of the element type whose widths add up to the vector's width
    /// (OpenCL vector literals); for arrays and structs, one per element or member.
    Compose(Vec<Handle<Expression>>),
    /// `place = value`; the result is the stored value.
    Assign {
        place: Handle<Expression>,
        value: Handle<Expression>,
    },
    /// `place op= value`: load the place, convert it to `compute_type` (the type of the
    /// operation after the usual arithmetic conversions; `value` already has it), apply `op`,
    /// convert back, store. The result is the stored value. Pointer places use `+=`/`-=` with
    /// an integer `value` and `compute_type` equal to the pointer type.
    CompoundAssign {
        op: BinaryOp,
        place: Handle<Expression>,
        value: Handle<Expression>,
        compute_type: Handle<Type>,
    },
    /// `++x`, `x--` …: the result is the new value when `prefix`, else the old one.
    IncDec {
        place: Handle<Expression>,
        increment: bool,
        prefix: bool,
    },
    /// `lhs, rhs`: evaluates both, yields `rhs`.
    Comma {
        lhs: Handle<Expression>,
        rhs: Handle<Expression>,
    },
    /// A call of a user function.
    Call {
        function: Handle<Function>,
        args: Vec<Handle<Expression>>,
    },
    /// A call of a built-in function (overload resolved, arguments converted).
    Builtin {
        function: Builtin,
        args: Vec<Handle<Expression>>,
    },
}

impl Expression {
    /// Whether the expression designates an object (see the module invariants).
    pub fn is_place(&self, expressions: &Arena<Expression>) -> bool {
        match *self {
            Expression::Variable(_) | Expression::Deref(_) | Expression::Index { .. } => true,
            Expression::Member { base, .. } | Expression::Swizzle { base, .. } => {
                expressions.get(base).is_some_and(|b| b.is_place(expressions))
            }
            _ => false,
        }
    }
}

/// Memory-fence flags of `barrier` and `mem_fence` (`CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FenceFlags {
    pub local: bool,
    pub global: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceKind {
    ReadWrite,
    Read,
    Write,
}

/// A sequence of statements with a span each.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub spans: Vec<Span>,
}

impl Block {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, statement: Statement, span: Span) {
        self.statements.push(statement);
        self.spans.push(span);
    }

    pub fn len(&self) -> usize {
        self.statements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Statement, Span)> {
        self.statements.iter().zip(self.spans.iter().copied())
    }
}

/// The source form of a loop, kept so the printer writes back the loop the user wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopForm {
    For,
    While,
    DoWhile,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// `None` for `default:`.
    pub value: Option<i64>,
    /// The statements of the case, including a closing `break` when the source has one.
    pub body: Block,
    /// Whether control falls through to the next case at the end of `body` (the body does not
    /// end in `break`, `continue` or `return`).
    pub fall_through: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// Declares a variable at this point; a private variable gets `init` (or stays
    /// uninitialised); a `__local` variable has no initialiser (OpenCL forbids it).
    Declare {
        variable: Handle<LocalVariable>,
        init: Option<Handle<Expression>>,
    },
    /// An expression evaluated for its effects.
    Expression(Handle<Expression>),
    /// A nested `{ … }` (a scope for the printer; no run-time meaning).
    Block(Block),
    If {
        condition: Handle<Expression>,
        accept: Block,
        reject: Block,
    },
    /// `for (init; condition; update) body`, `while (condition) body`,
    /// `do body while (condition)`. `init` holds the for-loop's declaration or expression
    /// statement and is empty for the other forms; a missing condition is `None` (true).
    /// `continue` goes to `update` (for) or to the condition.
    Loop {
        form: LoopForm,
        init: Block,
        condition: Option<Handle<Expression>>,
        update: Option<Handle<Expression>>,
        body: Block,
        /// `#pragma unroll [N]` written before the loop: the text after `pragma` (`"unroll 4"`).
        pragma: Option<String>,
    },
    Switch {
        selector: Handle<Expression>,
        cases: Vec<SwitchCase>,
    },
    Break,
    Continue,
    Return(Option<Handle<Expression>>),
    /// `barrier(flags)`: every work-item of the group must reach it (checked at run time).
    Barrier(FenceFlags),
    /// `mem_fence`, `read_mem_fence`, `write_mem_fence`.
    MemFence {
        flags: FenceFlags,
        kind: FenceKind,
    },
}
