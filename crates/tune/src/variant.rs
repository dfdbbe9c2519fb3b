//! A variant: the workload with one decision changed (a buffer's staging, the work-group size),
//! and what it means for memory layout, which is what the advisor speaks about.

use std::collections::BTreeSet;

use clmap_exec::PreparedWorkload;
use serde::Serialize;

/// How a variant was built from the kernel as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Construction {
    /// The workload unchanged: the baseline every speedup is relative to.
    AsWritten,
    /// Grover removed the `__local` staging of these local buffers.
    Unlocal { local_buffers: Vec<String> },
    /// A `__global` buffer's work-group footprint staged in `__local` memory.
    Stage { buffer: String },
    /// Several `__global` buffers staged together, in this order.
    StageAll { buffers: Vec<String> },
    /// The kernel as written, launched with another work-group size.
    WorkGroup { size: Vec<u64> },
}

impl Construction {
    /// The short kind stored in the database and printed in tables.
    pub fn kind(&self) -> &'static str {
        match self {
            Construction::AsWritten => "as_written",
            Construction::Unlocal { .. } => "unlocal",
            Construction::Stage { .. } => "stage",
            Construction::StageAll { .. } => "stage_all",
            Construction::WorkGroup { .. } => "work_group",
        }
    }
}

/// Which `__global` buffers a variant reads differently from the kernel as written: those whose
/// `__local` staging it removed and those it stages. Two variants with the same layout differ
/// at most in their launch shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Layout {
    pub unstaged: BTreeSet<String>,
    pub staged: BTreeSet<String>,
}

impl Layout {
    pub fn is_as_written(&self) -> bool {
        self.unstaged.is_empty() && self.staged.is_empty()
    }

    /// `as written`, or the changes (`unstage A, stage B`).
    pub fn describe(&self) -> String {
        if self.is_as_written() {
            return "as written".to_string();
        }
        let mut parts = Vec::new();
        if !self.unstaged.is_empty() {
            parts.push(format!("unstage {}", join(&self.unstaged)));
        }
        if !self.staged.is_empty() {
            parts.push(format!("stage {}", join(&self.staged)));
        }
        parts.join(", ")
    }
}

fn join(names: &BTreeSet<String>) -> String {
    names.iter().cloned().collect::<Vec<_>>().join(" ")
}

/// A variant ready to validate and time.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Unique within a tuning run and stable across runs (`as-written`, `unlocal:As`,
    /// `stage:B`, `wg:32x8`): the database keys results by it.
    pub name: String,
    pub construction: Construction,
    /// One sentence on how it was built, for people.
    pub how: String,
    pub layout: Layout,
    /// The tuned kernel's work-group size as launched (`None`: the runtime chooses).
    pub work_group: Option<Vec<u64>>,
    /// The workload running the variant, compiled.
    pub prepared: PreparedWorkload,
    /// Set when the producer already ran the variant against the original on the simulator
    /// through the same differential runner tuning uses (the stager validates before it
    /// answers), so tuning does not repeat it.
    pub validated: Option<ProducerValidation>,
}

/// A validation a producer made: random input sets compared and the largest difference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProducerValidation {
    pub seeds: u64,
    pub max_abs: f64,
}

/// A variant a producer could not build, and why (Grover's or the stager's refusal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedVariant {
    pub name: String,
    pub construction: Construction,
    pub reason: String,
}

/// What a producer hands back for each variant it tried.
pub type Produced = Result<Variant, RefusedVariant>;

/// The tuned kernel's work-group size in `workload`: that of its first launch, in its
/// dimensions.
pub fn work_group_of(workload: &clmap_workload::Workload, kernel: &str) -> Option<Vec<u64>> {
    let launch = workload.launches.iter().find(|l| l.kernel == kernel)?;
    let local = launch.range.local?;
    Some(local[..launch.range.dims.clamp(1, 3) as usize].to_vec())
}

/// `32x8`.
pub fn shape_name(size: &[u64]) -> String {
    size.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
}
