//! The OpenCL C front end of clmap.
//!
//! Text flows one way through these modules:
//!
//! ```text
//! source text ─► lex ─► preprocess ─► parse (ast) ─► sema ─► ir ─► valid
//!                                                               └─► print ─► OpenCL C text
//! ```
//!
//! `lang` knows nothing of execution: the simulator, the transforms and the device runner build
//! on the [`ir::Module`] this crate produces (or, for devices, on the source text alone).
//!
//! Facts about the IR that more than one stage needs (operator classes and precedence, C's
//! arithmetic conversions, the operands of an expression, walkers over statements and
//! expressions) live in [`proc`], so sema, the validator, the printer and the transforms
//! cannot disagree about them.
//!
//! # Writing a transform
//!
//! New rewrites (fusion, local staging, …) build IR, through [`ir::builder`] or by editing a
//! copy of the module, and call [`valid::verify_after_transform`] on the module they produced,
//! naming themselves, before they print it:
//!
//! ```text
//! let module = build_fused(&a, &b)?;                        // IR in, IR out
//! valid::verify_after_transform(&module, "fuse.tile")?;     // on in debug builds and tests
//! let text = print::print_module(&module);
//! ```
//!
//! A rewrite that would print invalid code then fails at the transform, with the pass and the
//! first invalid handle in the error, instead of at clang. The switch is on in debug builds
//! (and so in every test) and set by `CLMAP_VERIFY=1`/`0` or [`valid::VerifyOptions`]. A
//! transform that edits source text instead (Grover's minimal diff) verifies the text it
//! produced by compiling it again.

pub mod diag;
pub mod span;
pub mod token;

pub mod lex;
pub mod preprocess;

pub mod ast;
pub mod parse;

pub mod ir;
pub mod proc;
pub mod sema;

pub mod valid;

pub mod frontend;

pub mod dump;
pub mod edit;
pub mod print;
pub mod refusal;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use refusal::Refusal;
pub use span::{decode_source, read_source, FileId, SourceFile, SourceMap, Span};
