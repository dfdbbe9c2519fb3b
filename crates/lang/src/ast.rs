//! The syntax tree the parser builds: OpenCL C 1.2 as written, before any type checking.
//!
//! The tree stays close to C's grammar (declaration specifiers + declarators) so that the parser
//! does not need to know types; `sema` turns it into the typed [`crate::ir`]. Names are plain
//! strings: scoping is sema's business. Every node has the [`Span`] of what the user wrote (the
//! token *sites*, so a node that comes out of a macro covers the macro invocation).

use crate::ir::Scalar;
use crate::span::Span;
use crate::token::{FloatSuffix, IntSuffix, Radix};

/// An identifier with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct TranslationUnit {
    pub items: Vec<ExternalDecl>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExternalDecl {
    Function(FunctionDef),
    /// Program-scope variables, typedefs, struct/union/enum definitions, prototypes.
    Declaration(Declaration),
    /// `#pragma` at file scope (e.g. `OPENCL EXTENSION cl_khr_fp64 : enable`).
    Pragma(Pragma),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    /// The text after `#pragma`, trimmed.
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub specifiers: DeclSpecifiers,
    /// Its outermost derived part is [`DerivedDeclarator::Function`].
    pub declarator: Declarator,
    pub body: Block,
    pub span: Span,
}

/// `specifiers declarator [= init], declarator ...;`
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub specifiers: DeclSpecifiers,
    pub declarators: Vec<InitDeclarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct InitDeclarator {
    pub declarator: Declarator,
    pub init: Option<Initializer>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageClass {
    Typedef,
    Extern,
    Static,
}

/// Address-space qualifiers; `__global` and `global` both map here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    Private,
    Global,
    Local,
    Constant,
    /// `__generic` (OpenCL 2.0); parsed so sema can refuse it with a clear message.
    Generic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TypeQualifiers {
    pub is_const: bool,
    pub is_volatile: bool,
    pub is_restrict: bool,
}

/// Access qualifiers of image parameters (`read_only` …): the IR's own.
pub use crate::ir::AccessQualifier;

#[derive(Clone, Debug, PartialEq)]
pub struct DeclSpecifiers {
    pub storage: Option<(StorageClass, Span)>,
    pub qualifiers: TypeQualifiers,
    pub address_space: Option<(AddressSpace, Span)>,
    pub access: Option<(AccessQualifier, Span)>,
    /// `__kernel` / `kernel`.
    pub kernel: Option<Span>,
    pub inline: bool,
    pub ty: TypeSpec,
    /// `__attribute__((...))` written among the specifiers (kernel attributes live here).
    pub attributes: Vec<Attribute>,
    pub span: Span,
}

/// The type named by the specifiers, with C's multi-word forms already combined
/// (`unsigned int` → `UInt`, `long int` → `Long`).
#[derive(Clone, Debug, PartialEq)]
pub enum TypeSpec {
    Primitive(PrimitiveType),
    /// `float4`, `uchar16` …: `scalar` is never `Void` or an opaque type.
    Vector {
        scalar: PrimitiveType,
        width: u8,
    },
    /// A typedef name (including user typedefs of builtin types).
    Named(Ident),
    Struct(StructSpec),
    Enum(EnumSpec),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveType {
    Void,
    /// `bool`, `char` … `double`, `unsigned int` …: the IR's scalar types, named as it names
    /// them (the parser has combined multi-word forms already).
    Scalar(Scalar),
    /// The pointer-sized integers keep their spelling (a kernel parameter may not use them,
    /// and the diagnostic names the word written); sema maps them to `ulong`/`long`.
    SizeT,
    PtrdiffT,
    IntptrT,
    UintptrT,
    /// `event_t`, used by `async_work_group_copy`.
    Event,
    /// `image2d_t` & co. and `sampler_t`.
    Image(ImageKind),
    Sampler,
}

/// The image types: the IR's own.
pub use crate::ir::ImageKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKind {
    Struct,
    Union,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructSpec {
    pub kind: StructKind,
    pub name: Option<Ident>,
    /// `None` for a reference (`struct S x;`), `Some` for a definition (possibly empty).
    pub fields: Option<Vec<FieldDecl>>,
    pub attributes: Vec<Attribute>,
    pub span: Span,
}

/// One member declaration line: `float x, y;`
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    pub specifiers: DeclSpecifiers,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumSpec {
    pub name: Option<Ident>,
    /// `None` for a reference, `Some` for a definition.
    pub variants: Option<Vec<EnumVariant>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumVariant {
    pub name: Ident,
    pub value: Option<Expr>,
}

/// A declarator: the name and the pointer/array/function parts wrapped around the base type.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// `None` in abstract declarators (type names, unnamed parameters).
    pub name: Option<Ident>,
    /// Ordered from the name outwards: `int *a[3]` is `[Array(3), Pointer]` (array of 3
    /// pointers); `int (*p)[3]` is `[Pointer, Array(3)]`. The type is built by applying the
    /// parts from the last to the first onto the base type.
    pub derived: Vec<DerivedDeclarator>,
    /// Attributes written after the declarator (`__attribute__((aligned(16)))`).
    pub attributes: Vec<Attribute>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DerivedDeclarator {
    /// `*` with the qualifiers written after it (they qualify the pointer object itself).
    Pointer { qualifiers: TypeQualifiers, address_space: Option<AddressSpace>, span: Span },
    /// `[size]`; `None` for `[]`.
    Array { size: Option<Box<Expr>>, span: Span },
    /// `(params)`; `(void)` gives an empty list with `void_params: true`.
    Function { params: Vec<ParamDecl>, variadic: bool, void_params: bool, span: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub specifiers: DeclSpecifiers,
    pub declarator: Declarator,
    pub span: Span,
}

/// `specifiers abstract-declarator`, as in casts, `sizeof(T)` and `vec_type_hint(T)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub specifiers: DeclSpecifiers,
    pub declarator: Declarator,
    pub span: Span,
}

/// `__attribute__((name(args)))`; one `Attribute` per name when several share the parentheses.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub args: Vec<AttributeArg>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AttributeArg {
    Expr(Expr),
    /// `vec_type_hint(float4)`
    Type(TypeName),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    /// `{ [designators =] init, ... }`
    List {
        items: Vec<(Vec<Designator>, Initializer)>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    Index(Expr),
    Field(Ident),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Compound(Block),
    Decl(Declaration),
    /// `expr;`, or `;` alone when `None`.
    Expr(Option<Expr>),
    If {
        cond: Expr,
        then: Box<Stmt>,
        otherwise: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        init: Option<ForInit>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    Case {
        value: Expr,
        body: Box<Stmt>,
    },
    Default {
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Goto(Ident),
    Labeled {
        label: Ident,
        body: Box<Stmt>,
    },
    /// A `#pragma` among statements (e.g. `unroll` before a loop).
    Pragma(Pragma),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    Decl(Declaration),
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(String),
    Int {
        value: u64,
        suffix: IntSuffix,
        radix: Radix,
    },
    Float {
        value: f64,
        suffix: FloatSuffix,
    },
    Char(i64),
    /// Adjacent string literals are concatenated by the parser.
    Str(String),
    /// `( expr )`: kept so printed code and spans follow the source.
    Paren(Box<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs = rhs` when `op` is `None`, else `lhs op= rhs`.
    Assign {
        op: Option<BinaryOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Conditional {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `base.field` or `base->field`; swizzles (`v.xy`, `v.s01`, `v.lo`) are members too and
    /// sema tells them apart by the base's type.
    Member {
        base: Box<Expr>,
        field: Ident,
        arrow: bool,
    },
    Cast {
        ty: Box<TypeName>,
        operand: Box<Expr>,
    },
    /// `(T)(e1, e2, …)` where `T` names a vector type (a builtin vector or a typedef of one):
    /// OpenCL's vector literal. The parser produces it for every parenthesised list after a
    /// vector type, including a single element (`(float4)(x)` broadcasts).
    VectorLiteral {
        ty: Box<TypeName>,
        elems: Vec<Expr>,
    },
    /// `(T){ items }` (C99 §6.5.2.5): an unnamed object of type `T` with that initialiser.
    CompoundLiteral {
        ty: Box<TypeName>,
        init: Box<Initializer>,
    },
    SizeofExpr(Box<Expr>),
    SizeofType(Box<TypeName>),
    /// `vec_step(expr)` / `vec_step(type)`.
    VecStepExpr(Box<Expr>),
    VecStepType(Box<TypeName>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `+x`
    Plus,
    /// `-x`
    Neg,
    /// `!x`
    LogicalNot,
    /// `~x`
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

/// Binary operators are the IR's own: C has none that the IR computes differently from how
/// the parser reads it, so the parser produces them directly. (Unary and assignment operators
/// do differ, `+x`, `*p`, `x++` and `a += b` being other IR forms, and sema lowers those.)
pub use crate::proc::BinaryOp;
