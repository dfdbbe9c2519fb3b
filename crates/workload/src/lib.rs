//! Workloads: everything needed to run an OpenCL kernel, or a pipeline of kernels,
//! reproducibly. See `docs/workloads.md` for the file formats.

pub mod number;
pub mod types;

pub use number::{Number, NumberError};
pub use types::{ElemType, ScalarType};
pub mod error;
pub mod rng;
pub use error::{Location, WorkloadError};
pub mod init;
pub use init::Init;
pub mod model;
pub use model::{
    Access, ArgSpec, Buffer, BufferData, BufferSet, Launch, LaunchArg, LoadOptions, NdRange,
    Tolerance, Workload,
};
