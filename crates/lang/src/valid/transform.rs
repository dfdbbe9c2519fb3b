//! Verification after every transform, as Cranelift's verifier runs after every pass: a
//! transform that builds IR hands its output module here before it is printed, so a rewrite
//! that would print invalid code fails at the transform, naming it, instead of at clang or
//! in the simulator much later.
//!
//! The check is a switch: on in debug builds (so in every test), off in release builds where
//! the validator's cost buys nothing a correct transform needs, and settable both ways by the
//! `CLMAP_VERIFY` environment variable (`1` on, `0` off) or by passing [`VerifyOptions`].

use super::{validate, ValidationError, ValidationErrorKind};
use crate::diag::Diagnostic;
use crate::ir::Module;
use crate::span::Span;
use thiserror::Error;

/// The environment variable that overrides the build's default: `1` verifies, `0` does not.
pub const VERIFY_ENV: &str = "CLMAP_VERIFY";

/// Whether transforms verify their output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    pub enabled: bool,
}

impl VerifyOptions {
    pub const ON: VerifyOptions = VerifyOptions { enabled: true };
    pub const OFF: VerifyOptions = VerifyOptions { enabled: false };

    /// The build's default (on with debug assertions), unless `CLMAP_VERIFY` says otherwise.
    pub fn from_env() -> VerifyOptions {
        let value = std::env::var(VERIFY_ENV).ok();
        VerifyOptions::from_setting(value.as_deref())
    }

    /// The switch for a value of `CLMAP_VERIFY` (`None` when it is unset); a value other than
    /// `0`/`1` (or `false`/`true`, `off`/`on`) leaves the build's default.
    pub fn from_setting(value: Option<&str>) -> VerifyOptions {
        let enabled = match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("1" | "true" | "on" | "yes") => true,
            Some("0" | "false" | "off" | "no") => false,
            _ => cfg!(debug_assertions),
        };
        VerifyOptions { enabled }
    }
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions::from_env()
    }
}

/// A transform's output failed verification: a bug in the transform, not in the user's code.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TransformError {
    /// The module the transform built breaks an invariant of the IR.
    #[error("transform `{pass}` produced invalid IR{}", describe_errors(errors))]
    InvalidIr {
        pass: String,
        /// Every error the validator found; the first is the one a reader should look at.
        errors: Vec<ValidationError>,
    },
    /// The transform edits source text, and the edited text does not go through the front end.
    #[error("transform `{pass}` produced code that does not compile:\n{message}")]
    DoesNotCompile { pass: String, message: String },
}

/// ` at %7: <first error> (and N more errors)`.
fn describe_errors(errors: &[ValidationError]) -> String {
    let Some(first) = errors.first() else { return String::new() };
    let at = first.invalid_handle().map(|h| format!(" at {h}")).unwrap_or_default();
    let more = match errors.len() {
        1 => String::new(),
        2 => " (and 1 more error)".to_string(),
        n => format!(" (and {} more errors)", n - 1),
    };
    format!("{at}: {first}{more}")
}

impl TransformError {
    /// The transform that failed.
    pub fn pass(&self) -> &str {
        match self {
            TransformError::InvalidIr { pass, .. }
            | TransformError::DoesNotCompile { pass, .. } => pass,
        }
    }

    /// The first validation error, for an output that was compiled but is invalid.
    pub fn first_error(&self) -> Option<&ValidationError> {
        match self {
            TransformError::InvalidIr { errors, .. } => errors.first(),
            TransformError::DoesNotCompile { .. } => None,
        }
    }

    /// The error as a diagnostic for the CLI, at the source position of the first invalid node.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let span = self.first_error().map_or(Span::UNDEFINED, |e| e.span);
        Diagnostic::error(span, self.to_string()).with_help(format!(
            "this is a bug in clmap's `{}` transform; please report it with the input kernel",
            self.pass()
        ))
    }
}

impl ValidationError {
    /// The handle the error is about, written as the IR dump writes it (`%7` for an
    /// expression, `[3]` for a type), when the error names one.
    pub fn invalid_handle(&self) -> Option<String> {
        use ValidationErrorKind as K;
        Some(match &self.kind {
            K::InvalidTypeHandle { index } => format!("type [{index}]"),
            K::TypeForwardReference { ty, .. }
            | K::InvalidType { ty, .. }
            | K::IncompleteType { ty, .. }
            | K::StructContainsItself { ty } => {
                format!("type [{ty}]")
            }
            K::InvalidExpressionHandle { index } => format!("%{index}"),
            K::InvalidLocalHandle { index } => format!("local variable {index}"),
            K::InvalidGlobalHandle { index } => format!("global variable {index}"),
            K::InvalidFunctionHandle { index } => format!("function {index}"),
            K::InvalidParameter { index } => format!("parameter {index}"),
            K::ExpressionReused { expression, .. }
            | K::ExpressionCycle { expression }
            | K::ExpressionTooDeep { expression }
            | K::InvalidExpression { expression, .. }
            | K::WriteToReadOnly { expression } => format!("%{expression}"),
            K::NotAPlace { operand, .. } => format!("%{operand}"),
            _ => return None,
        })
    }
}

/// Verifies a transform's output module when the switch is on ([`VerifyOptions::from_env`]).
///
/// `pass` names the transform in the error (`"grover.unlocal"`, `"aristotle.generate"`).
/// Call it on the module a transform built, before printing it.
pub fn verify_after_transform(module: &Module, pass: &str) -> Result<(), TransformError> {
    verify_after_transform_with(module, pass, VerifyOptions::from_env())
}

/// [`verify_after_transform`] with the switch given.
pub fn verify_after_transform_with(
    module: &Module,
    pass: &str,
    options: VerifyOptions,
) -> Result<(), TransformError> {
    if !options.enabled {
        return Ok(());
    }
    validate(module).map_err(|errors| TransformError::InvalidIr { pass: pass.to_string(), errors })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::builder::ModuleBuilder;
    use crate::ir::{
        AddressSpace, BinaryOp, Expression, Handle, Scalar, Statement, WorkItemFunction,
    };

    /// A transform's output as the builder makes it: `out[gid] = out[gid] * 2`.
    fn doubled() -> Module {
        let mut module = ModuleBuilder::new();
        let float = module.scalar(Scalar::Float);
        let buffer = module.pointer(float, AddressSpace::Global, false);
        let mut kernel = module.kernel("doubled");
        let out = kernel.param("out", buffer);
        let gid = kernel.work_item_int(WorkItemFunction::GlobalId, 0);
        let i = kernel.declare("i", gid);
        let place = {
            let p = kernel.param_value(out);
            let i = kernel.var_value(i);
            kernel.index(p, i)
        };
        let value = {
            let p = kernel.param_value(out);
            let i = kernel.var_value(i);
            let element = kernel.index(p, i);
            let loaded = kernel.load(element);
            let two = kernel.float(2.0);
            kernel.binary(BinaryOp::Mul, loaded, two)
        };
        kernel.assign(place, value);
        kernel.finish();
        module.finish().expect("the builder's module is valid")
    }

    #[test]
    fn a_valid_transform_output_passes() {
        assert_eq!(
            verify_after_transform_with(&doubled(), "test.double", VerifyOptions::ON),
            Ok(())
        );
    }

    #[test]
    fn a_dangling_handle_is_rejected_naming_the_pass_and_the_handle() {
        let mut module = doubled();
        let (kernel, _) = module.kernels().next().unwrap();
        // A rewrite that returns a value it never built.
        let f = module.functions.get_mut(kernel);
        f.body.push(Statement::Expression(Handle::from_index(4096)), Span::UNDEFINED);
        let error = verify_after_transform_with(&module, "test.dangling", VerifyOptions::ON)
            .expect_err("a dangling handle must not pass");
        assert_eq!(error.pass(), "test.dangling");
        let first = error.first_error().expect("a validation error");
        assert_eq!(first.invalid_handle().as_deref(), Some("%4096"));
        let text = error.to_string();
        assert!(text.contains("`test.dangling`") && text.contains("%4096"), "{text}");
    }

    #[test]
    fn a_type_mismatch_is_rejected() {
        let mut module = doubled();
        let (kernel, _) = module.kernels().next().unwrap();
        let int = module.ty(crate::ir::TypeInner::Scalar(Scalar::Int));
        let f = module.functions.get_mut(kernel);
        // The multiplication now claims to give an `int` from two floats.
        let (product, _) = f
            .expressions
            .iter()
            .find(|(_, e)| matches!(e, Expression::Binary { op: BinaryOp::Mul, .. }))
            .unwrap();
        f.expression_types[product.index()] = int;
        let error = verify_after_transform_with(&module, "test.retype", VerifyOptions::ON)
            .expect_err("a mistyped operator must not pass");
        let first = error.first_error().expect("a validation error");
        assert_eq!(first.invalid_handle(), Some(format!("%{}", product.index())));
        assert!(error.to_diagnostic().message.contains("test.retype"));
    }

    #[test]
    fn the_switch_turns_verification_off() {
        let mut module = doubled();
        let (kernel, _) = module.kernels().next().unwrap();
        module
            .functions
            .get_mut(kernel)
            .body
            .push(Statement::Expression(Handle::from_index(4096)), Span::UNDEFINED);
        assert_eq!(verify_after_transform_with(&module, "test", VerifyOptions::OFF), Ok(()));
    }

    #[test]
    fn the_environment_setting_overrides_the_build_default() {
        assert!(VerifyOptions::from_setting(Some("1")).enabled);
        assert!(VerifyOptions::from_setting(Some(" on ")).enabled);
        assert!(!VerifyOptions::from_setting(Some("0")).enabled);
        assert!(!VerifyOptions::from_setting(Some("false")).enabled);
        assert_eq!(VerifyOptions::from_setting(None).enabled, cfg!(debug_assertions));
        assert_eq!(VerifyOptions::from_setting(Some("maybe")).enabled, cfg!(debug_assertions));
    }
}
