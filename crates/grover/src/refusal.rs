//! Why a local buffer is left alone: the exact reason and where in the source it comes from
//! (the type every transform refuses with; the kernel keeps its local memory).

pub use clmap_lang::Refusal;
