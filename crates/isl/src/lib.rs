//! Safe ownership over isl, the integer set library, for the sets and relations clmap
//! reasons with (the index sets kernels read and write, tiles and their halos).
//!
//! isl's C interface passes ownership by convention (`__isl_take`, `__isl_keep`,
//! `__isl_give`). Here every isl object is an owning Rust value: operations borrow their
//! operands and copy what isl takes, results are new values, and drop frees. Failures —
//! syntax errors, spaces that do not match — come back as [`IslError`] with isl's message;
//! nothing is printed and nothing aborts.
//!
//! ```
//! use clmap_isl::Context;
//! let ctx = Context::new();
//! // A 3-point stencil reads i - 1, i and i + 1: which elements does a tile need?
//! let reads = ctx.map("{ [i] -> [j] : i - 1 <= j <= i + 1 }")?;
//! let tile = ctx.set("[s, l] -> { [i] : s <= i < s + l }")?;
//! let needed = tile.apply(&reads)?;
//! // (an empty tile, l <= 0, needs nothing)
//! assert!(needed.is_equal(&ctx.set("[s, l] -> { [j] : s - 1 <= j <= s + l and l > 0 }")?)?);
//! # Ok::<(), clmap_isl::IslError>(())
//! ```

mod context;
mod error;
mod ffi;
mod map;
mod object;
mod set;
mod val;

pub use context::Context;
pub use error::IslError;
pub use map::Map;
pub use set::Set;
