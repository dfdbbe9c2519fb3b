//! The composer's kernels (seed 001 §8.1): one kernel reading two data structures, each with
//! its own MAP, in three versions: (v0) neither staged in local memory, (v1) the first staged,
//! (v2) both staged. Measuring v0 → v1 → v2 tells whether the composing rules predicted each
//! step's gain or loss.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::generate::kernel::{build_parts, Part, Problem};
use crate::generate::{
    check_spec, BenchSpec, Composition, GenerateError, Microbenchmark, Variant, INPUT_SEED,
};
use crate::map::Map;

/// Which data structures of a pair use local memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ComposeVersion {
    /// Both read from global memory: `(g, g)`.
    V0,
    /// The first staged in local memory: `(l, g)`.
    V1,
    /// Both staged: `(l, l)`.
    V2,
}

impl ComposeVersion {
    pub const ALL: [ComposeVersion; 3] =
        [ComposeVersion::V0, ComposeVersion::V1, ComposeVersion::V2];

    pub fn as_str(self) -> &'static str {
        match self {
            ComposeVersion::V0 => "v0",
            ComposeVersion::V1 => "v1",
            ComposeVersion::V2 => "v2",
        }
    }

    /// How each structure reads its data in this version (local tiles use the max-approach,
    /// the generator's primary allocation, as the paper's composer does).
    pub fn variants(self) -> [Variant; 2] {
        match self {
            ComposeVersion::V0 => [Variant::NoLocal, Variant::NoLocal],
            ComposeVersion::V1 => [Variant::LocalMax, Variant::NoLocal],
            ComposeVersion::V2 => [Variant::LocalMax, Variant::LocalMax],
        }
    }
}

impl fmt::Display for ComposeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version name that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown composer version `{0}`: expected v0, v1 or v2")]
pub struct ComposeVersionError(pub String);

impl FromStr for ComposeVersion {
    type Err = ComposeVersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        ComposeVersion::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| ComposeVersionError(text.to_string()))
    }
}

/// The kernel's name: `pair407_205_v1`.
pub fn pair_kernel_name(a: &Map, b: &Map, version: ComposeVersion) -> String {
    format!("pair{}_{}_{version}", a.id().0, b.id().0)
}

/// Generates the kernel of MAP pair `(a, b)` in `version`, with its workload: inputs `in1`
/// and `in2` (random, different seeds) and output `out`, the sum of both structures' reads.
pub fn generate_pair(
    a: &Map,
    b: &Map,
    version: ComposeVersion,
    dataset: usize,
    work_group: [usize; 2],
) -> Result<Microbenchmark, GenerateError> {
    let [variant_a, variant_b] = version.variants();
    let spec_a = BenchSpec { map: *a, variant: variant_a, dataset, work_group };
    let spec_b = BenchSpec { map: *b, variant: variant_b, dataset, work_group };
    check_spec(&spec_a)?;
    check_spec(&spec_b)?;
    let problem = Problem { dataset, work_group };
    let parts = [
        Part { map: *a, variant: variant_a, param: 0, suffix: "1".into() },
        Part { map: *b, variant: variant_b, param: 1, suffix: "2".into() },
    ];
    let name = pair_kernel_name(a, b, version);
    let module = build_parts(&name, &parts, problem)?;
    let source = clmap_lang::print::print_module(&module);
    let inputs = [("in1", spec_a, INPUT_SEED), ("in2", spec_b, INPUT_SEED + 1)];
    let workload = crate::generate::workload_for(&source, &name, &inputs, dataset, work_group);
    let bytes_moved = crate::generate::bytes_moved(&spec_a) + crate::generate::bytes_moved(&spec_b);
    let local_cells = crate::generate::local_cells(&spec_a) + crate::generate::local_cells(&spec_b);
    let mut workload = workload;
    workload.bytes_moved = Some(bytes_moved);
    Ok(Microbenchmark {
        spec: spec_a,
        source,
        kernel_name: name,
        workload,
        bytes_moved,
        bytes_written: crate::generate::output_bytes(dataset),
        local_cells,
        composition: Some(Composition { second: *b, version }),
    })
}
