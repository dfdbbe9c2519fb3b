//! Aristotle: the memory access patterns (MAPs) of a work-group, microbenchmarks generated for
//! each, campaigns that measure them on real devices into the performance database, and the
//! composing rules that turn those measurements into advice on `__local` memory.

pub mod compose_kernels;
pub mod detect;
pub mod generate;
pub mod map;
pub mod validate;

pub use compose_kernels::{
    generate_interleaved, generate_pair, ComposeVersion, InterleavedVersion,
};
pub use generate::{
    generate, parse_work_group, BenchSpec, GenerateError, Microbenchmark, Variant, WorkGroupError,
};
pub use map::{map_by_id, valid_maps, EMap, IMapKind, Map, MapId, MapIdError};
pub use validate::{validate_on_simulator, ValidationError};

// Campaigns, the performance database and the composing rules.
pub mod bandwidth;
pub mod campaign;
pub mod campaign_device;
pub mod campaign_progress;
pub mod compose_bench;
pub mod history;
pub mod plot;
pub mod query;
pub mod refine;
pub mod rules;
pub mod store;
pub mod workload_advice;
