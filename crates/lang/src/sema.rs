//! Semantic checking: the syntax tree of a translation unit → the typed [`ir::Module`].
//!
//! [`check`] resolves names through C's scopes, gives every expression its OpenCL C type,
//! makes C's and OpenCL's implicit conversions explicit, resolves built-in overloads, folds
//! the constant expressions C requires to be constant, and rejects what OpenCL C 1.2 rejects
//! with clang-like messages at the culprit's span. It keeps going after an error so one run
//! reports several, but only returns a module when there was none.
//!
//! # Representation choices the IR's users rely on
//!
//! - **Conditions** (`if`, loops, scalar `?:`) and the scalar operands of `&&`, `||` and `!`
//!   are expressions of type `bool`: an arithmetic scalar `x` becomes
//!   `Convert { value: x, kind: Implicit }` to `bool` (true when `x != 0`); a pointer is first
//!   converted to `ulong`. Scalar comparisons and logical operators yield `int` (0 or 1).
//! - Vector comparisons and logical operators work on operands of one vector type and yield
//!   the signed integer vector of the same element size (`-1` true, `0` false). A vector
//!   condition of `?:` is such an integer vector.
//! - A scalar mixed with a vector is converted to the element type and then `Splat`.
//! - `barrier(…)` and the fence functions become [`ir::Statement::Barrier`] /
//!   [`ir::Statement::MemFence`]; they are refused inside larger expressions.
//! - Calls refer to functions by their final index in [`ir::Module::functions`], which lists a
//!   callee before its callers (prototypes let the source order differ; sema reorders).
//! - `(void)e` as a statement evaluates `e`; `sizeof` and `vec_step` are literals.
//! - `true` and `false` are `bool` literals (clang makes them keywords in OpenCL C).
//! - A literal `0` passed as an `event_t` argument becomes `ZeroValue` of type `event_t`.
//! - `printf` arguments that are string literals (for `%s`) are `StringLiteral`s, like the
//!   format.
//! - `.hi`/`.odd` (and `.lo`/`.even`) of a 3-component vector repeat the last defined
//!   component in place of the undefined fourth one, so every component index is in range.
//! - Declarations without initialisers written before a switch's first label are declared
//!   in a block around the `Switch` statement.
//! - `return f();` in a void function (with `f` void) is `f();` followed by `return;`.
//! - `Member` on a struct value (a call's result) is a value, not a place.
//! - An image parameter written without an access qualifier is `read_only`; the qualifier is
//!   on [`ir::Parameter::access`]. A `sampler_t` initialised from an integer constant (the
//!   `CLK_*` flags) gets an implicit `Convert` of a `uint` literal holding the folded value,
//!   so every later stage sees the sampler's bits directly.

mod builtins;
mod calls;
mod constant;
mod conversions;
mod declarations;
mod expr;
mod functions;
mod images;
mod initializers;
mod names;
mod operators;
mod scope;
mod stmt;
mod swizzle;
mod types;

#[cfg(test)]
mod tests;

use std::collections::HashSet;

use crate::ast;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{self, Handle, Scalar, TypeInner};
use crate::span::Span;

use scope::Scopes;

/// Checks a translation unit as OpenCL C 1.2 and lowers it to IR. Never panics. Returns the
/// module when there are no errors (warnings may be present).
pub fn check(unit: &ast::TranslationUnit) -> (Option<ir::Module>, Diagnostics) {
    check_with(unit, 120)
}

/// [`check`] for the language version `language_version` (the value of
/// `__OPENCL_C_VERSION__`: 120 for OpenCL C 1.2, 200 for 2.0). The version decides only what
/// later versions added that the IR can represent (`read_write` images).
pub fn check_with(
    unit: &ast::TranslationUnit,
    language_version: u32,
) -> (Option<ir::Module>, Diagnostics) {
    let mut checker = Checker::new(language_version);
    checker.translation_unit(unit);
    checker.finish()
}

/// How deeply expressions and statements may nest before sema gives up on a construct (the
/// parser limits nesting too; this keeps sema safe on hand-built trees).
const MAX_DEPTH: u32 = 256;

/// An error has been reported; the caller recovers (the error-type placeholder of sema).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reported;

pub(crate) type SResult<T> = Result<T, Reported>;

/// A function as declared (prototype or definition), in declaration order.
#[derive(Clone, Debug)]
struct FunctionEntry {
    name: String,
    params: Vec<Handle<ir::Type>>,
    /// Access qualifiers of the parameters (`None` except for images).
    param_access: Vec<Option<ir::AccessQualifier>>,
    return_type: Option<Handle<ir::Type>>,
    is_kernel: bool,
    declared_at: Span,
    /// The lowered definition, once its body has been checked.
    definition: Option<ir::Function>,
    /// How many definitions preceded this one in the source (spans of different files
    /// cannot be compared, so source order is counted).
    definition_order: usize,
    /// Indices (in `functions`) of the user functions this one calls, with the call's span.
    calls: Vec<(usize, Span)>,
}

/// The whole-unit state of the checker.
pub(crate) struct Checker {
    module: ir::Module,
    diags: Diagnostics,
    scopes: Scopes,
    functions: Vec<FunctionEntry>,
    /// Struct names already used in the module (tags, typedef names and invented names).
    struct_names: HashSet<String>,
    /// The function being lowered (a scratch function outside bodies, where constant
    /// expressions are lowered before folding).
    func: ir::Function,
    /// State of the body being checked; `None` at file scope.
    body: Option<BodyState>,
    depth: u32,
    /// What the constant expression being checked is for ("array size"), so a variable in it
    /// can be reported in those terms.
    constant_context: Option<String>,
    /// Values of `const` scalar locals with constant initialisers: clang folds them in
    /// constant expressions (`const int n = 4; float a[n];`), so sema does too.
    constant_locals: std::collections::HashMap<Handle<ir::LocalVariable>, ir::Literal>,
    /// Pragmas collected at file scope, with the number of function definitions before them.
    definitions_so_far: usize,
    /// `__OPENCL_C_VERSION__` of the program (120 unless built with `-cl-std=CL2.0` or later).
    language_version: u32,
    /// The `__constant` array each string literal's text became (one per distinct text).
    string_literals: std::collections::HashMap<String, Handle<ir::GlobalVariable>>,
    /// Inside an operand whose type only is wanted (`sizeof`): nothing is added to the module.
    unevaluated: bool,
}

/// What statement checking needs to know about the enclosing function and constructs.
#[derive(Clone, Debug)]
struct BodyState {
    function_index: usize,
    return_type: Option<Handle<ir::Type>>,
    is_kernel: bool,
    loop_depth: u32,
    switch_depth: u32,
    /// Nesting of blocks inside the function (0 = the function's outermost block).
    block_depth: u32,
}

pub(crate) fn empty_function(name: &str, span: Span) -> ir::Function {
    ir::Function {
        name: name.to_string(),
        kind: ir::FunctionKind::Helper,
        params: Vec::new(),
        return_type: None,
        is_inline: false,
        locals: ir::Arena::new(),
        expressions: ir::Arena::new(),
        expression_types: Vec::new(),
        body: ir::Block::new(),
        span,
    }
}

/// How an error about a name nothing declares starts; the front end merges the errors about
/// one name into one (see [`crate::frontend`]).
pub(crate) const UNDECLARED_IDENTIFIER: &str = "use of undeclared identifier ";

impl Checker {
    fn new(language_version: u32) -> Self {
        let mut checker = Checker {
            module: ir::Module::default(),
            diags: Diagnostics::default(),
            scopes: Scopes::new(),
            functions: Vec::new(),
            struct_names: HashSet::new(),
            func: empty_function("", Span::UNDEFINED),
            body: None,
            depth: 0,
            constant_context: None,
            constant_locals: std::collections::HashMap::new(),
            definitions_so_far: 0,
            language_version,
            string_literals: std::collections::HashMap::new(),
            unevaluated: false,
        };
        checker.module.language_version = language_version;
        names::define_predefined(&mut checker);
        checker
    }

    fn error(&mut self, span: Span, message: impl Into<String>) -> Reported {
        self.diags.push(Diagnostic::error(span, message));
        Reported
    }

    fn error_with_help(
        &mut self,
        span: Span,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Reported {
        self.diags.push(Diagnostic::error(span, message).with_help(help));
        Reported
    }

    fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, message));
    }

    fn scalar_type(&mut self, scalar: Scalar) -> Handle<ir::Type> {
        self.module.ty(TypeInner::Scalar(scalar))
    }

    fn vector_type(&mut self, scalar: Scalar, size: ir::VectorSize) -> Handle<ir::Type> {
        self.module.ty(TypeInner::Vector { scalar, size })
    }

    fn void_type(&mut self) -> Handle<ir::Type> {
        self.module.ty(TypeInner::Void)
    }

    fn inner(&self, ty: Handle<ir::Type>) -> &TypeInner {
        // Every handle sema holds came from this arena; `Void` is a harmless fallback.
        self.module.types.get(ty).unwrap_or(&TypeInner::Void)
    }

    /// The OpenCL C spelling of a type, for messages.
    fn type_name(&self, ty: Handle<ir::Type>) -> String {
        types::display(&self.module.types, ty)
    }

    /// `#pragma OPENCL EXTENSION NAME : enable|disable` naming an extension no OpenCL
    /// specification or vendor defines is ignored with a warning, as clang does (so that
    /// `-Werror` fails such a build, as it does with clang).
    fn check_extension_pragma(&mut self, pragma: &ast::Pragma) {
        let mut words = pragma.text.split_whitespace();
        if words.next() != Some("OPENCL") || words.next() != Some("EXTENSION") {
            return;
        }
        let Some(name) = words.next().map(|w| w.trim_end_matches(':')) else { return };
        let known = KNOWN_EXTENSIONS.contains(&name)
            || VENDOR_PREFIXES.iter().any(|prefix| name.starts_with(prefix));
        if !known {
            self.warning(pragma.span, format!("unknown OpenCL extension '{name}' - ignoring"));
        }
    }

    fn translation_unit(&mut self, unit: &ast::TranslationUnit) {
        for item in &unit.items {
            match item {
                ast::ExternalDecl::Function(def) => self.function_definition(def),
                ast::ExternalDecl::Declaration(decl) => self.file_scope_declaration(decl),
                ast::ExternalDecl::Pragma(pragma) => {
                    self.check_extension_pragma(pragma);
                    self.module.pragmas.push(ir::ModulePragma {
                        text: pragma.text.clone(),
                        before_function: self.definitions_so_far,
                        span: pragma.span,
                    })
                }
            }
        }
    }

    /// Orders the functions callee-first, reports recursion and calls of functions that are
    /// never defined, and hands out the module when no error was reported.
    fn finish(mut self) -> (Option<ir::Module>, Diagnostics) {
        let order = self.order_functions();
        if self.diags.has_errors() {
            return (None, self.diags);
        }
        let Some(order) = order else {
            return (None, self.diags);
        };
        // Old declaration index → final position among the definitions.
        let mut final_index = vec![usize::MAX; self.functions.len()];
        for (position, &old) in order.iter().enumerate() {
            if let Some(slot) = final_index.get_mut(old) {
                *slot = position;
            }
        }
        // A pragma counted the definitions before it in the source; after reordering it must
        // still come before every function the source wrote after it.
        for pragma in &mut self.module.pragmas {
            let written_before = pragma.before_function;
            pragma.before_function = order
                .iter()
                .position(|&old| {
                    self.functions.get(old).is_some_and(|f| f.definition_order >= written_before)
                })
                .unwrap_or(order.len());
        }
        let mut functions = std::mem::take(&mut self.functions);
        for &old in &order {
            let Some(mut function) = functions.get_mut(old).and_then(|f| f.definition.take())
            else {
                continue;
            };
            for handle in function.expressions.handles() {
                if let ir::Expression::Call { function: callee, .. } =
                    function.expressions.get_mut(handle)
                {
                    let new = final_index.get(callee.index()).copied().unwrap_or(usize::MAX);
                    *callee = Handle::from_index(new);
                }
            }
            let span = function.span;
            self.module.functions.append(function, span);
        }
        (Some(self.module), self.diags)
    }

    /// A topological order of the defined functions (callees first, otherwise source order),
    /// or `None` after reporting recursion.
    fn order_functions(&mut self) -> Option<Vec<usize>> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        let count = self.functions.len();
        let mut marks = vec![Mark::New; count];
        let mut order = Vec::new();
        let mut ok = true;
        // Definition order is the source order of the bodies.
        let mut roots: Vec<usize> =
            (0..count).filter(|&i| self.functions[i].definition.is_some()).collect();
        roots.sort_by_key(|&i| self.functions[i].definition_order);
        for root in roots {
            if marks[root] != Mark::New {
                continue;
            }
            // Iterative depth-first search: (function, next call to visit).
            let mut stack = vec![(root, 0usize)];
            marks[root] = Mark::Active;
            while let Some(&mut (current, ref mut next)) = stack.last_mut() {
                let calls = &self.functions[current].calls;
                if let Some(&(callee, span)) = calls.get(*next) {
                    *next += 1;
                    match marks.get(callee).copied() {
                        Some(Mark::New) if self.functions[callee].definition.is_none() => {
                            marks[callee] = Mark::Done;
                            let name = self.functions[callee].name.clone();
                            let declared = self.functions[callee].declared_at;
                            self.diags.push(
                                Diagnostic::error(
                                    span,
                                    format!("function '{name}' is called but never defined"),
                                )
                                .with_note(declared, "declared here"),
                            );
                            ok = false;
                        }
                        Some(Mark::New) => {
                            marks[callee] = Mark::Active;
                            stack.push((callee, 0));
                        }
                        Some(Mark::Active) => {
                            let name = self.functions[callee].name.clone();
                            self.diags.push(
                                Diagnostic::error(
                                    span,
                                    format!(
                                        "recursive call of '{name}' is not allowed in OpenCL C"
                                    ),
                                )
                                .with_help("rewrite the recursion as a loop"),
                            );
                            ok = false;
                        }
                        _ => {}
                    }
                } else {
                    marks[current] = Mark::Done;
                    order.push(current);
                    stack.pop();
                }
            }
        }
        ok.then_some(order)
    }
}

/// Extension names `#pragma OPENCL EXTENSION` takes without a warning: `all` and the Khronos
/// extensions of OpenCL C 1.x and 2.x. Vendor extensions (`cl_amd_…`, `cl_intel_…`, …) are
/// accepted by prefix.
const KNOWN_EXTENSIONS: &[&str] = &[
    "all",
    "cl_khr_fp64",
    "cl_khr_fp16",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store",
    "cl_khr_3d_image_writes",
    "cl_khr_depth_images",
    "cl_khr_gl_depth_images",
    "cl_khr_gl_msaa_sharing",
    "cl_khr_gl_sharing",
    "cl_khr_gl_event",
    "cl_khr_icd",
    "cl_khr_d3d10_sharing",
    "cl_khr_d3d11_sharing",
    "cl_khr_dx9_media_sharing",
    "cl_khr_egl_event",
    "cl_khr_egl_image",
    "cl_khr_image2d_from_buffer",
    "cl_khr_initialize_memory",
    "cl_khr_mipmap_image",
    "cl_khr_mipmap_image_writes",
    "cl_khr_select_fprounding_mode",
    "cl_khr_spir",
    "cl_khr_srgb_image_writes",
    "cl_khr_subgroups",
    "cl_khr_terminate_context",
    "cl_khr_priority_hints",
    "cl_khr_throttle_hints",
    "cl_khr_create_command_queue",
    "cl_khr_context_abort",
];

/// Prefixes of vendors' extension names.
const VENDOR_PREFIXES: &[&str] = &[
    "cl_amd_",
    "cl_intel_",
    "cl_nv_",
    "cl_arm_",
    "cl_ext_",
    "cl_qcom_",
    "cl_img_",
    "cl_altera_",
    "cl_clang_",
    "cl_apple_",
    "cl_pocl_",
];
