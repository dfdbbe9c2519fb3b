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
    let local_cells = crate::generate::local_cells(&spec_a) + crate::generate::local_cells(&spec_b);
    let composition = Some(Composition { second: *b, version });
    Ok(two_input_benchmark(name, &module, [spec_a, spec_b], local_cells, composition))
}

/// The microbenchmark of a generated kernel reading two structures: inputs `in1` and `in2`
/// (random, different seeds, shaped by their specs), output `out`, and the bytes both move.
fn two_input_benchmark(
    name: String,
    module: &clmap_lang::ir::Module,
    [spec_a, spec_b]: [BenchSpec; 2],
    local_cells: usize,
    composition: Option<Composition>,
) -> Microbenchmark {
    let (dataset, work_group) = (spec_a.dataset, spec_a.work_group);
    let source = clmap_lang::print::print_module(module);
    let inputs = [("in1", spec_a, INPUT_SEED), ("in2", spec_b, INPUT_SEED + 1)];
    let mut workload = crate::generate::workload_for(&source, &name, &inputs, dataset, work_group);
    let bytes_moved = crate::generate::bytes_moved(&spec_a) + crate::generate::bytes_moved(&spec_b);
    workload.bytes_moved = Some(bytes_moved);
    Microbenchmark {
        spec: spec_a,
        source,
        kernel_name: name,
        workload,
        bytes_moved,
        bytes_written: crate::generate::output_bytes(dataset),
        local_cells,
        composition,
    }
}

/// How the variant name of an interleaved pair's unit begins.
const INTERLEAVED_PREFIX: &str = "interleaved-";

/// One version of an interleaved pair (seed 001 §8.1's composer, with both structures read in
/// one loop): the kernel of [`generate_interleaved`] with the candidate structure first
/// (`in1`) and its partner second (`in2`), each read from global memory or staged by the
/// stager. Stored in the performance database as a unit of the candidate's MAP whose variant
/// names the partner and the version (`interleaved-302-sg`: the candidate staged, MAP-302
/// global), so that it collides neither with the candidate's single-MAP units (`nolocal`,
/// `stage`, `max`, …) nor with the sequential composer's pairs, which have their own table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InterleavedVersion {
    /// The partner's MAP number.
    pub partner: u16,
    /// Whether the candidate (`[0]`) and the partner (`[1]`) are staged.
    pub staged: [bool; 2],
}

impl InterleavedVersion {
    /// The database variant name: `interleaved-302-gs`.
    pub fn variant(&self) -> String {
        let letter = |staged: bool| if staged { 's' } else { 'g' };
        format!(
            "{INTERLEAVED_PREFIX}{}-{}{}",
            self.partner,
            letter(self.staged[0]),
            letter(self.staged[1])
        )
    }

    /// The version a variant name stands for, or none for any other variant.
    pub fn parse(variant: &str) -> Option<InterleavedVersion> {
        let rest = variant.strip_prefix(INTERLEAVED_PREFIX)?;
        let (partner, letters) = rest.split_once('-')?;
        let partner: u16 = partner.parse().ok()?;
        let staged = |c: char| match c {
            's' => Some(true),
            'g' => Some(false),
            _ => None,
        };
        let mut chars = letters.chars();
        let version = [staged(chars.next()?)?, staged(chars.next()?)?];
        chars.next().is_none().then_some(InterleavedVersion { partner, staged: version })
    }

    /// The same pair with neither structure staged: what this version is validated against.
    pub fn reference(&self) -> InterleavedVersion {
        InterleavedVersion { partner: self.partner, staged: [false, false] }
    }

    /// The inputs this version stages (`in1`, `in2`), in that order.
    pub fn staged_inputs(&self) -> Vec<&'static str> {
        ["in1", "in2"].into_iter().zip(self.staged).filter(|(_, s)| *s).map(|(n, _)| n).collect()
    }
}

/// The kernel's name: `interleaved302_205`.
pub fn interleaved_kernel_name(candidate: &Map, partner: &Map) -> String {
    format!("interleaved{}_{}", candidate.id().0, partner.id().0)
}

/// Generates the interleaved pair's kernel with neither structure staged: work-item
/// `(gx, gy)` walks `k = 0 … N−1` once, multiplying `candidate`'s `k`-th element (input
/// `in1`) by `partner`'s (`in2`) into one accumulator, as a matrix multiply does with its row
/// and column operands, and writes it to `out`. Both MAPs must sweep a loop: Row or Column
/// MAPs; any other is refused with the reason.
pub fn generate_interleaved(
    candidate: &Map,
    partner: &Map,
    dataset: usize,
    work_group: [usize; 2],
) -> Result<Microbenchmark, GenerateError> {
    let spec_a = BenchSpec { map: *candidate, variant: Variant::NoLocal, dataset, work_group };
    let spec_b = BenchSpec { map: *partner, variant: Variant::NoLocal, dataset, work_group };
    check_spec(&spec_a)?;
    check_spec(&spec_b)?;
    let name = interleaved_kernel_name(candidate, partner);
    let problem = Problem { dataset, work_group };
    let module =
        crate::generate::kernel::build_interleaved(&name, [*candidate, *partner], problem)?;
    Ok(two_input_benchmark(name, &module, [spec_a, spec_b], 0, None))
}

#[cfg(test)]
mod interleaved_tests {
    use super::*;
    use crate::map::{map_by_id, MapId};

    fn map(id: u16) -> Map {
        map_by_id(MapId(id)).expect("valid MAP")
    }

    #[test]
    fn interleaved_variant_names_round_trip_and_reject_others() {
        let version = InterleavedVersion { partner: 205, staged: [true, false] };
        assert_eq!(version.variant(), "interleaved-205-sg");
        assert_eq!(InterleavedVersion::parse("interleaved-205-sg"), Some(version));
        assert_eq!(version.reference().variant(), "interleaved-205-gg");
        assert_eq!(version.staged_inputs(), ["in1"]);
        for other in [
            "nolocal",
            "stage",
            "max",
            "interleaved-205",
            "interleaved-x-gg",
            "interleaved-205-gx",
            "interleaved-205-ggg",
        ] {
            assert_eq!(InterleavedVersion::parse(other), None, "{other}");
        }
    }

    #[test]
    fn a_version_is_checked_against_its_pair_with_nothing_staged() {
        use crate::campaign::{reference_of, REFERENCE_VARIANT};
        assert_eq!(reference_of("interleaved-205-ss"), "interleaved-205-gg");
        assert_eq!(reference_of("interleaved-205-gg"), "interleaved-205-gg");
        assert_eq!(reference_of("stage"), REFERENCE_VARIANT);
        assert_eq!(reference_of("max"), REFERENCE_VARIANT);
    }

    #[test]
    fn the_interleaved_kernel_multiplies_both_reads_in_one_loop() {
        let bench = generate_interleaved(&map(302), &map(205), 32, [16, 16]).expect("generates");
        assert_eq!(bench.kernel_name, "interleaved302_205");
        let loops = bench.source.matches("for (").count();
        assert_eq!(loops, 1, "{}", bench.source);
        assert!(
            bench.source.contains("in1[k * 32 + col1] * in2[row2 * 32 + k]"),
            "{}",
            bench.source
        );
        assert_eq!(bench.workload.buffers.len(), 3);
    }

    #[test]
    fn maps_that_sweep_no_loop_are_refused_with_the_reason() {
        let error = generate_interleaved(&map(302), &map(108), 32, [16, 16])
            .expect_err("a Single MAP sweeps nothing");
        assert!(error.to_string().contains("only Row and Column MAPs"), "{error}");
    }
}
