//! The microbenchmark generator (seed 001 §5): for a MAP, a work-group size and a dataset, an
//! OpenCL C kernel in one of several variants (without local memory, or staging the
//! work-group's data in `__local` memory with the max- or min-approach allocation, FCTH
//! staging, optionally padded against bank conflicts) and the workload that runs it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::map::Map;

pub mod geometry;
pub mod kernel;

/// Smallest and largest dataset side the generator accepts.
pub const MIN_DATASET: usize = 16;
pub const MAX_DATASET: usize = 8192;
/// The campaign's datasets (§6.2).
pub const CAMPAIGN_DATASETS: [usize; 6] = [128, 256, 512, 1024, 2048, 4096];
/// The campaign's work-group (§6.2).
pub const DEFAULT_WORK_GROUP: [usize; 2] = [16, 16];

/// How a microbenchmark uses local memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Variant {
    /// Every read goes to global memory: the reference `b` of §6.1.
    NoLocal,
    /// Local tile sized from the work-group's shape (§5.1.1 max-approach).
    LocalMax,
    /// Local tile holding only the cells the work-group needs (§5.1.1 min-approach).
    LocalMin,
    /// The max-approach tile with each row padded by one cell against bank conflicts (§6.3.2).
    LocalPadded,
}

impl Variant {
    pub const ALL: [Variant; 4] =
        [Variant::NoLocal, Variant::LocalMax, Variant::LocalMin, Variant::LocalPadded];

    /// The short name used on the command line and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::NoLocal => "nolocal",
            Variant::LocalMax => "max",
            Variant::LocalMin => "min",
            Variant::LocalPadded => "padded",
        }
    }

    pub fn uses_local_memory(self) -> bool {
        self != Variant::NoLocal
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A variant name that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown variant `{0}`: expected nolocal, max, min or padded")]
pub struct VariantError(pub String);

impl FromStr for Variant {
    type Err = VariantError;

    fn from_str(text: &str) -> Result<Variant, VariantError> {
        let text = text.trim();
        Variant::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| VariantError(text.to_string()))
    }
}

/// What to generate: one MAP in one variant on an `dataset × dataset` problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BenchSpec {
    pub map: Map,
    pub variant: Variant,
    /// Side `N` of the `N × N` grid of work-items (and of the output).
    pub dataset: usize,
    /// Work-group size `[x, y]`.
    pub work_group: [usize; 2],
}

/// A generated kernel with everything needed to run and measure it.
#[derive(Clone, Debug)]
pub struct Microbenchmark {
    pub spec: BenchSpec,
    /// OpenCL C source, printed from the IR.
    pub source: String,
    pub kernel_name: String,
    /// The launch: input buffer with random data, output buffer, `N × N` range.
    pub workload: clmap_workload::Workload,
    /// The numerator of §6.1's bandwidth: work-items × elements read per item × element size.
    /// Reads only, as the paper counts them; see `bytes_written` for the output.
    pub bytes_moved: u64,
    /// Bytes of the output the kernel writes (`N² × 4`), for comparisons with copy bandwidth,
    /// which counts both directions.
    pub bytes_written: u64,
    /// `__local` cells per work-group (0 without local memory).
    pub local_cells: usize,
    /// For the composer's kernels: the second data structure and the version (`spec` then
    /// describes the first structure).
    pub composition: Option<Composition>,
}

/// The second half of a composer kernel (§8.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Composition {
    pub second: Map,
    pub version: crate::compose_kernels::ComposeVersion,
}

/// Why a microbenchmark cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GenerateError {
    #[error("dataset {dataset} is outside {MIN_DATASET}..={MAX_DATASET}")]
    DatasetOutOfRange { dataset: usize },
    #[error("work-group {x}x{y} is not allowed: each side must be 1 to 64 and x*y at most 1024")]
    BadWorkGroup { x: usize, y: usize },
    #[error(
        "work-group {x}x{y} does not divide the dataset {dataset} (OpenCL 1.2 needs whole groups)"
    )]
    WorkGroupDoesNotDivide { x: usize, y: usize, dataset: usize },
    #[error("{map} is not generated in the {variant} variant: {reason}")]
    Unsupported { map: String, variant: Variant, reason: String },
    #[error("internal error: the generated kernel is invalid: {0}")]
    InvalidKernel(String),
    /// The generated module failed verification before printing (a bug in the generator).
    #[error("internal error: {0}")]
    Transform(#[from] clmap_lang::valid::TransformError),
}

/// Why a work-group size given as text is not one.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WorkGroupError {
    #[error("`{text}` is not a work-group size: write it as XxY, e.g. 16x16")]
    NotXByY { text: String },
    #[error("`{side}` in `{text}` is not a positive whole number")]
    BadSide { text: String, side: String },
}

/// Parses a work-group size `XxY` (`16x16`, `8X4`, spaces around the sides allowed), each side
/// a positive whole number. Which sizes a device or the generator accepts is checked later.
pub fn parse_work_group(text: &str) -> Result<[usize; 2], WorkGroupError> {
    let (x, y) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| WorkGroupError::NotXByY { text: text.to_string() })?;
    let side = |s: &str| match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(WorkGroupError::BadSide { text: text.to_string(), side: s.trim().to_string() }),
    };
    Ok([side(x)?, side(y)?])
}

/// The generator's name in verification errors.
pub const PASS: &str = "aristotle.generate";

/// Seed of the random input every microbenchmark starts from, so that variants of one MAP
/// read the same data and their outputs can be compared.
pub const INPUT_SEED: u64 = 2014;

/// Checks the parts of a spec a user can get wrong.
pub(crate) fn check_spec(spec: &BenchSpec) -> Result<(), GenerateError> {
    let n = spec.dataset;
    if !(MIN_DATASET..=MAX_DATASET).contains(&n) {
        return Err(GenerateError::DatasetOutOfRange { dataset: n });
    }
    let [x, y] = spec.work_group;
    if !(1..=64).contains(&x) || !(1..=64).contains(&y) || x * y > 1024 {
        return Err(GenerateError::BadWorkGroup { x, y });
    }
    if n % x != 0 || n % y != 0 {
        return Err(GenerateError::WorkGroupDoesNotDivide { x, y, dataset: n });
    }
    if spec.map.radius > crate::map::MAX_BLOCK_RADIUS {
        return Err(GenerateError::Unsupported {
            map: spec.map.name(),
            variant: spec.variant,
            reason: format!("radius {} is above {}", spec.map.radius, crate::map::MAX_BLOCK_RADIUS),
        });
    }
    Ok(())
}

/// `__local` cells per work-group of a spec (0 without local memory).
pub fn local_cells(spec: &BenchSpec) -> usize {
    let part =
        kernel::Part { map: spec.map, variant: spec.variant, param: 0, suffix: String::new() };
    part.local_cells(kernel::Problem { dataset: spec.dataset, work_group: spec.work_group })
}

/// §6.1's numerator: `W × H × N × size(float)`, work-items times elements read per item.
pub fn bytes_moved(spec: &BenchSpec) -> u64 {
    let items = (spec.dataset as u64).pow(2);
    items * spec.map.elements_per_item(spec.dataset) * 4
}

/// Bytes of the `N × N` float output.
pub fn output_bytes(dataset: usize) -> u64 {
    (dataset as u64).pow(2) * 4
}

/// Generates the microbenchmark `spec` describes.
pub fn generate(spec: &BenchSpec) -> Result<Microbenchmark, GenerateError> {
    check_spec(spec)?;
    let module = kernel::build(spec)?;
    let source = clmap_lang::print::print_module(&module);
    let kernel_name = kernel::kernel_name(spec);
    let bytes_moved = bytes_moved(spec);
    let mut workload = workload_for(
        &source,
        &kernel_name,
        &[("in", *spec, INPUT_SEED)],
        spec.dataset,
        spec.work_group,
    );
    workload.bytes_moved = Some(bytes_moved);
    Ok(Microbenchmark {
        spec: *spec,
        source,
        kernel_name,
        workload,
        bytes_moved,
        bytes_written: output_bytes(spec.dataset),
        local_cells: local_cells(spec),
        composition: None,
    })
}

/// The launch of a generated kernel: one random input per `(name, spec, seed)`, sized for
/// that spec's MAP, then `out`, over an `N × N` range in the given work-groups.
pub(crate) fn workload_for(
    source: &str,
    kernel_name: &str,
    inputs: &[(&str, BenchSpec, u64)],
    dataset: usize,
    work_group: [usize; 2],
) -> clmap_workload::Workload {
    use clmap_workload::{Access, ArgSpec, ElemType, Init, NdRange, Number, ScalarType, Workload};
    let n = dataset as u64;
    let float = ElemType::scalar(ScalarType::Float);
    let range = NdRange {
        global: [n, n, 1],
        local: Some([work_group[0] as u64, work_group[1] as u64, 1]),
        offset: [0; 3],
        dims: 2,
    };
    let mut args: Vec<ArgSpec> = inputs
        .iter()
        .map(|(name, spec, seed)| {
            let (rows, cols) = geometry::input_shape(&spec.map, dataset);
            ArgSpec::Buffer {
                name: name.to_string(),
                elem: float,
                len: (rows * cols) as u64,
                init: Init::Random {
                    seed: *seed,
                    lo: Some(Number::Float(0.0)),
                    hi: Some(Number::Float(1.0)),
                },
                output: false,
                access: Access::ReadOnly,
                tolerance: None,
            }
        })
        .collect();
    args.push(ArgSpec::Buffer {
        name: "out".to_string(),
        elem: float,
        len: n * n,
        init: Init::Zero,
        output: true,
        access: Access::WriteOnly,
        tolerance: None,
    });
    let mut workload = Workload::single(source.to_string(), kernel_name.to_string(), range, args);
    workload.source_path = format!("{kernel_name}.cl").into();
    workload
}

#[cfg(test)]
mod work_group_tests {
    use super::*;

    #[test]
    fn work_group_sizes_parse_or_say_what_is_wrong() {
        assert_eq!(parse_work_group("16x16"), Ok([16, 16]));
        assert_eq!(parse_work_group("8X4"), Ok([8, 4]));
        assert_eq!(parse_work_group(" 32 x 2 "), Ok([32, 2]));
        assert_eq!(parse_work_group("16"), Err(WorkGroupError::NotXByY { text: "16".into() }));
        let bad_side = |text: &str, side: &str| {
            Err(WorkGroupError::BadSide { text: text.into(), side: side.into() })
        };
        assert_eq!(parse_work_group("ax16"), bad_side("ax16", "a"));
        assert_eq!(parse_work_group("0x16"), bad_side("0x16", "0"));
        assert_eq!(parse_work_group("16x-1"), bad_side("16x-1", "-1"));
        assert_eq!(parse_work_group("16x4x2"), bad_side("16x4x2", "4x2"));
        assert_eq!(
            parse_work_group("4xb").map_err(|e| e.to_string()),
            Err("`b` in `4xb` is not a positive whole number".to_string())
        );
    }
}
