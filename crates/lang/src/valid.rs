//! The IR validator: enforces the invariants written in [`crate::ir`]'s module documentation.
//!
//! Its promise (as naga's validator makes for its IR) is that any module it accepts can be
//! printed, simulated and transformed without panics: every handle is in range, expressions
//! form trees with consistent types, places are where places belong, control flow is well
//! placed, and calls go only to functions defined earlier. It never panics itself, whatever the
//! module holds, and runs in time linear in the module's size.
//!
//! Run it after sema and after every transform (in debug builds and tests, through
//! [`verify_after_transform`]); its errors mean a bug in whatever produced the module, and say
//! where.

mod builtins;
mod expression;
mod module;
mod statement;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
mod transform;

use crate::diag::Diagnostic;
use crate::ir;
use crate::span::Span;
use thiserror::Error;

pub use transform::{
    verify_after_transform, verify_after_transform_with, TransformError, VerifyOptions, VERIFY_ENV,
};

/// Expression trees deeper than this are rejected: later passes recurse over them.
pub const MAX_EXPRESSION_DEPTH: usize = 1024;
/// Statement nesting deeper than this is rejected for the same reason.
pub const MAX_STATEMENT_NESTING: usize = 256;

/// One broken invariant, located in the source the IR came from.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}{kind}", function.as_ref().map(|f| format!("in function '{f}': ")).unwrap_or_default())]
pub struct ValidationError {
    /// The function the error is in, `None` for module-level items.
    pub function: Option<String>,
    pub span: Span,
    pub kind: ValidationErrorKind,
}

/// What is wrong. Expressions are named `%N` by their handle, as in the IR dump.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ValidationErrorKind {
    #[error("type handle [{index}] is out of range")]
    InvalidTypeHandle { index: usize },
    #[error("type [{ty}] refers to type [{referenced}], which is not defined before it")]
    TypeForwardReference { ty: usize, referenced: usize },
    #[error("type [{ty}] is malformed: {reason}")]
    InvalidType { ty: usize, reason: String },
    #[error("{what} has the incomplete struct type [{ty}], which may only be pointed to")]
    IncompleteType { what: String, ty: usize },
    #[error("struct type [{ty}] contains itself (not through a pointer)")]
    StructContainsItself { ty: usize },
    #[error("expression handle %{index} is out of range")]
    InvalidExpressionHandle { index: usize },
    #[error("local variable handle {index} is out of range")]
    InvalidLocalHandle { index: usize },
    #[error("global variable handle {index} is out of range")]
    InvalidGlobalHandle { index: usize },
    #[error("function handle {index} is out of range")]
    InvalidFunctionHandle { index: usize },
    #[error("parameter index {index} is out of range")]
    InvalidParameter { index: u32 },
    #[error("the expression type table has {types} entries for {expressions} expressions")]
    ExpressionTypeTableLength { expressions: usize, types: usize },
    #[error("expression %{expression} is used {uses} times, but expressions form trees")]
    ExpressionReused { expression: usize, uses: u32 },
    #[error("expression %{expression} is its own operand (a cycle)")]
    ExpressionCycle { expression: usize },
    #[error("expression %{expression} is nested more than {max} deep", max = MAX_EXPRESSION_DEPTH)]
    ExpressionTooDeep { expression: usize },
    #[error("operand %{operand} of expression %{expression} must be a place ({role})")]
    NotAPlace { expression: usize, operand: usize, role: &'static str },
    #[error("expression %{expression}: {reason}")]
    InvalidExpression { expression: usize, reason: String },
    #[error("expression %{expression} writes to a read-only place")]
    WriteToReadOnly { expression: usize },
    #[error(
        "call of '{callee}', which is not defined before the caller (recursion or a forward call)"
    )]
    CallNotDefinedBefore { callee: String },
    #[error("'{callee}' takes {expected} arguments but is called with {found}")]
    ArgumentCount { callee: String, expected: usize, found: usize },
    #[error("'{builtin}' cannot take {found} arguments")]
    BuiltinArgumentCount { builtin: String, found: usize },
    #[error("`break` outside a loop or switch")]
    BreakOutsideLoop,
    #[error("`continue` outside a loop")]
    ContinueOutsideLoop,
    #[error("{reason}")]
    InvalidReturn { reason: String },
    #[error("{reason}")]
    InvalidStatement { reason: String },
    #[error("`__local` variable '{name}' declared outside a kernel")]
    LocalMemoryOutsideKernel { name: String },
    #[error("variable '{name}' is used outside the scope of its declaration")]
    VariableOutOfScope { name: String },
    #[error("variable '{name}' is declared {count} times")]
    DeclarationCount { name: String, count: u32 },
    #[error("case value {value} appears more than once in a switch")]
    DuplicateCase { value: i64 },
    #[error("a switch has more than one `default`")]
    DuplicateDefault,
    #[error("statements are nested more than {max} deep", max = MAX_STATEMENT_NESTING)]
    NestingTooDeep,
    #[error("function '{name}' is defined more than once")]
    DuplicateFunction { name: String },
    #[error("invalid signature: {reason}")]
    InvalidSignature { reason: String },
    #[error("program-scope variable '{name}': {reason}")]
    InvalidGlobal { name: String, reason: String },
    #[error("pragma '{text}' is placed after function {before_function}, which does not exist")]
    InvalidPragma { text: String, before_function: usize },
}

impl ValidationError {
    /// The error as a diagnostic for the CLI. Validation errors are bugs of the producer of the
    /// IR (sema or a transform), which the help says.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.span, format!("invalid IR: {self}"))
            .with_help("this is a bug in clmap's front end or in a transform; please report it")
    }
}

/// Checks every invariant of [`ir::Module`]; all problems found are returned.
pub fn validate(module: &ir::Module) -> Result<(), Vec<ValidationError>> {
    let mut errors = Vec::new();
    let types_ok = module::check_module(module, &mut errors);
    for (handle, function) in module.functions.iter() {
        expression::FunctionValidator::new(module, handle, function, types_ok, &mut errors).run();
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}
