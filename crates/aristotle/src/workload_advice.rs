//! Advice for a whole workload: the MAP detected for each buffer of each kernel, sized by the
//! workload's buffers and launch, run through the composing rules against one device's
//! performance database, with the measurements every decision rests on.
//!
//! The database is indexed by MAP and dataset side `N` (an `N × N` float matrix read by a
//! generated microbenchmark), so a buffer is asked about as the square dataset of its size:
//! `N = √elements`, rounded to a multiple of the launch's work-group because the generator
//! (and so a campaign) only builds datasets the work-group tiles exactly.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::compose_kernels::InterleavedVersion;
use crate::detect::{shared_sweep, Detection, Outcome};
use crate::generate::geometry::WarpReuse;
use crate::generate::{generate, geometry, BenchSpec, Variant};
use crate::map::{IMapKind, Map};
use crate::query::{Impact, MapRecord, MapTable, NO_LOCAL_VARIANT, STAGED_VARIANT};
use crate::refine;
use crate::rules::{self, Rule};
use crate::store::{StoredUnit, UnitKey};

/// A buffer whose MAP was detected, with the sizes the database is asked about.
#[derive(Clone, Debug, PartialEq)]
pub struct StagingQuestion {
    pub kernel: String,
    pub buffer: String,
    /// The detected MAP (Block MAPs with the radius the kernel reads).
    pub map: Map,
    /// Whether the kernel as written already stages it in `__local` memory.
    pub staged_now: bool,
    /// Dataset side N the measurements must have.
    pub dataset: usize,
    /// The launch's work-group `[x, y]`, the one a campaign measures with.
    pub work_group: [usize; 2],
    /// Local memory a work-group needs to stage it (the chosen local variant's tile of this
    /// buffer's elements), 0 when the generator cannot size it.
    pub local_bytes: u64,
    /// Why the stager would not tile it, when B is the stager's tile and it would not, or why
    /// a tile would save no global transaction (every reuse a broadcast within one warp):
    /// then there is nothing to measure and the buffer stays in global memory.
    pub not_staged: Option<String>,
    /// How the work-group's reuse of each element splits between and within warps, once the
    /// device's SIMD width is known ([`split_by_warps`]).
    pub reuse: Option<WarpReuse>,
    /// The other buffer read in the same loop, when both follow sweep MAPs (Row or Column):
    /// the interleaved pair's record decides this buffer instead of its single-MAP record.
    pub partner: Option<InterleavedPartner>,
    /// Why a buffer read in a loop shared with other buffers has no partner (said in the
    /// advice; its single-MAP record decides).
    pub unpaired: Option<String>,
}

/// The buffer a question's buffer is read beside, one element of each per iteration of a
/// shared loop ([`crate::detect::shared_sweep`]).
#[derive(Clone, Debug, PartialEq)]
pub struct InterleavedPartner {
    pub buffer: String,
    pub map: Map,
    /// Whether the kernel as written stages the partner: the pair's versions keep it so.
    pub staged_now: bool,
    /// The shared loop's counter, as the source names it.
    pub sweep: String,
    /// Dataset side N of the pair's kernel: the larger of the two buffers' sides, so that one
    /// size stands for the loop both are read in and neither operand is shrunk below its own
    /// (a 40 × 48 and a 48 × 64 operand of one multiply are both asked about at N = 64).
    pub dataset: usize,
}

impl StagingQuestion {
    /// The two versions of its interleaved pair whose ratio decides this buffer: the
    /// candidate in global memory and staged, the partner as the kernel has it.
    pub fn interleaved_versions(&self) -> Option<[InterleavedVersion; 2]> {
        let partner = self.partner.as_ref()?;
        let version = |staged: bool| InterleavedVersion {
            partner: partner.map.id().0,
            staged: [staged, partner.staged_now],
        };
        Some([version(false), version(true)])
    }

    /// The versions that say whether changing both buffers beats changing this one alone:
    /// this buffer changed with the partner as the kernel has it, then both changed (for an
    /// unstaged pair, `sg` and `ss`, the composer's third version).
    pub fn joint_versions(&self) -> Option<[InterleavedVersion; 2]> {
        let partner = self.partner.as_ref()?;
        let version = |partner_staged: bool| InterleavedVersion {
            partner: partner.map.id().0,
            staged: [!self.staged_now, partner_staged],
        };
        Some([version(partner.staged_now), version(!partner.staged_now)])
    }
}

/// A buffer the detector gave no MAP, with its reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Undetected {
    pub kernel: String,
    pub buffer: String,
    pub reason: String,
}

/// The buffers of a workload as the advisor sees them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Questions {
    /// In detection order (kernel by kernel).
    pub asked: Vec<StagingQuestion>,
    pub undetected: Vec<Undetected>,
}

/// The dataset side that stands for a buffer of `elements` elements: the side of the square of
/// that area, rounded to the nearest multiple of the work-group's sides (at least one).
pub fn dataset_side(elements: u64, work_group: [usize; 2]) -> usize {
    round_to_groups((elements as f64).sqrt(), work_group)
}

/// `side` rounded to the nearest multiple of the work-group's sides (at least one).
fn round_to_groups(side: f64, work_group: [usize; 2]) -> usize {
    let step = lcm(work_group[0].max(1), work_group[1].max(1));
    let multiples = (side / step as f64).round().max(1.0);
    multiples as usize * step
}

/// Whether a detection is a vector every work-item walks whole: the Row MAP whose row follows
/// `ty` (MAP-205) in a group one work-item high, where `ty` is 0 and the whole buffer is the
/// row (the detector's reading of `x[k]` in a 1-D kernel).
fn is_shared_vector(map: &Map, work_group: [usize; 2]) -> bool {
    work_group[1] == 1 && map.id().0 == 205
}

fn lcm(a: usize, b: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b) * b
}

/// How the local memory a staged buffer needs is sized: like the tile of the variant B comes
/// from, so that the capacity check of rule 5.3 judges the tile that would be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileSizing {
    /// A generated variant's tile (`max`: Row and Column MAPs staged a chunk at a time).
    Generated(Variant),
    /// The stager's tile (`clmap local`): the work-group's whole footprint at once, so whole
    /// rows (columns) for Row (Column) MAPs and the footprint's box, the `max` tile, otherwise.
    Stager,
}

/// Cells of the stager's tile for a buffer of `map` read by `work_group` on rows of `dataset`.
fn stager_cells(map: &Map, work_group: [usize; 2], dataset: usize) -> usize {
    match map.imap {
        IMapKind::Row | IMapKind::Column => {
            geometry::strip_tile(map, Variant::LocalMax, work_group).lines * dataset
        }
        _ => geometry::block_tile(map, Variant::LocalMax, work_group).cells(),
    }
}

/// Turns detections into questions for the database; `sizing` sizes each buffer's
/// local-memory need. With `interleaved`, a buffer read in one loop with another gets that
/// partner ([`pair_sweeps`]), so that their interleaved pair can decide it (`clmap advise
/// --interleaved`); without, every buffer is decided by its single-MAP record, the advisor's
/// default (the pairs did not predict the measured winner more often, docs/advise.md).
pub fn questions(detections: &[Detection], sizing: TileSizing, interleaved: bool) -> Questions {
    let mut out = Questions::default();
    let mut asked_from: Vec<&Detection> = Vec::new();
    for d in detections {
        let (map, staged) = match &d.outcome {
            Outcome::Map { map, staged, .. } => (*map, *staged),
            Outcome::Refused { reason } => {
                out.undetected.push(Undetected {
                    kernel: d.kernel.clone(),
                    buffer: d.buffer.clone(),
                    reason: reason.clone(),
                });
                continue;
            }
            Outcome::Mismatch { map, predicted, observed, item } => {
                out.undetected.push(Undetected {
                    kernel: d.kernel.clone(),
                    buffer: d.buffer.clone(),
                    reason: format!(
                        "the index forms give {} but the simulator disagrees at work-item \
                         (ty, tx) = ({}, {}): predicted {predicted}, read {observed}",
                        map.name(),
                        item[0],
                        item[1]
                    ),
                });
                continue;
            }
        };
        let [x, y, _] = d.extent.work_group;
        let work_group = [x.max(1) as usize, y.max(1) as usize];
        let dataset = if is_shared_vector(&map, work_group) {
            // One row that every work-item of the group reads whole: its length is the row
            // the microbenchmark's groups share.
            round_to_groups(d.extent.elements as f64, work_group)
        } else {
            dataset_side(d.extent.elements, work_group)
        };
        let cells = match sizing {
            TileSizing::Generated(variant) => {
                generate(&BenchSpec { map, variant, dataset, work_group })
                    .map_or(0, |bench| bench.local_cells)
            }
            TileSizing::Stager => stager_cells(&map, work_group, dataset),
        };
        let local_bytes = (cells as u64).saturating_mul(d.extent.element_bytes);
        let reuse = geometry::group_reuse(&map, work_group);
        let not_staged = (sizing == TileSizing::Stager && !staged && reuse <= 1.0).then(|| {
            format!(
                "{NOT_STAGED}: a {}x{} work-group reads each element of its footprint once, \
                 so a tile would add a copy and save no global read",
                work_group[0], work_group[1]
            )
        });
        out.asked.push(StagingQuestion {
            kernel: d.kernel.clone(),
            buffer: d.buffer.clone(),
            map,
            staged_now: staged,
            dataset,
            work_group,
            local_bytes,
            not_staged,
            reuse: None,
            partner: None,
            unpaired: None,
        });
        asked_from.push(d);
    }
    if interleaved {
        pair_sweeps(&mut out.asked, &asked_from, sizing);
    }
    out
}

fn is_sweep(map: &Map) -> bool {
    matches!(map.imap, IMapKind::Row | IMapKind::Column) && map.radius == 0
}

/// Gives each question whose buffer is read in a loop with exactly one other detected buffer,
/// both following sweep MAPs, that buffer as its partner; says why the others have none.
/// Kernels with one detected buffer, and buffers that share no loop, are left as they are.
fn pair_sweeps(asked: &mut [StagingQuestion], from: &[&Detection], sizing: TileSizing) {
    let mut partners = Vec::with_capacity(asked.len());
    for (k, q) in asked.iter().enumerate() {
        let sharing: Vec<(usize, String)> = (0..asked.len())
            .filter(|&j| j != k)
            .filter_map(|j| shared_sweep(from[k], from[j]).map(|s| (j, s.name.clone())))
            .collect();
        let names = |list: &[(usize, String)]| {
            list.iter().map(|(j, _)| format!("`{}`", asked[*j].buffer)).collect::<Vec<_>>()
        };
        let verdict = match sharing.as_slice() {
            [] => None,
            // Whether a tile the kernel has pays is the single-MAP record's question (Grover's
            // removal against the kernel as written); the pair judges staging a global buffer.
            _ if q.staged_now => None,
            _ if !is_sweep(&q.map) => Some(Err(format!(
                "it is read in a loop with {}, but {} sweeps no loop (only Row and Column MAPs \
                 make an interleaved pair)",
                names(&sharing).join(", "),
                q.map.name()
            ))),
            [(j, sweep)] if is_sweep(&asked[*j].map) => match sizing {
                TileSizing::Stager => Some(Ok(InterleavedPartner {
                    buffer: asked[*j].buffer.clone(),
                    map: asked[*j].map,
                    staged_now: asked[*j].staged_now,
                    sweep: sweep.clone(),
                    dataset: q.dataset.max(asked[*j].dataset),
                })),
                TileSizing::Generated(variant) => Some(Err(format!(
                    "it is read in the loop over `{sweep}` with `{}`, but interleaved pairs \
                     are staged by the stager only, not in the `{variant}` variant",
                    asked[*j].buffer
                ))),
            },
            [(j, _)] => Some(Err(format!(
                "it is read in a loop with `{}`, whose {} sweeps no loop",
                asked[*j].buffer,
                asked[*j].map.name()
            ))),
            several => Some(Err(format!(
                "it is read in a loop with {}: no pair of two stands for that loop",
                names(several).join(" and ")
            ))),
        };
        partners.push(verdict);
    }
    for (q, verdict) in asked.iter_mut().zip(partners) {
        match verdict {
            Some(Ok(partner)) => q.partner = Some(partner),
            Some(Err(why)) => q.unpaired = Some(why),
            None => {}
        }
    }
}

/// Splits every question's reuse between and within the warps of `simd` work-items (the
/// device's warp or SIMD width) and keeps in global memory, unmeasured, each buffer not staged
/// now whose reuse is all within one warp: a warp's work-items reading one element in the
/// same step are served by one transaction, so a tile would add a copy and a barrier and save
/// no global transaction. (A microbenchmark of such a MAP alone can still gain from staging,
/// through wider loads, where its one buffer is the kernel's only traffic; in the matrix
/// multiplies of the corpus that gain did not carry over, while the reuse across warps did.)
pub fn split_by_warps(questions: &mut Questions, simd: usize) {
    for q in &mut questions.asked {
        let reuse = geometry::warp_reuse(&q.map, q.work_group, simd);
        q.reuse = Some(reuse);
        if reuse.broadcast_only() && !q.staged_now && q.not_staged.is_none() {
            let [x, y] = q.work_group;
            q.not_staged = Some(format!(
                "{BROADCAST}: on {x}x{y} work-groups, {}; the warp reads each element in one \
                 transaction already, so a tile would add a copy and a barrier and save no \
                 global read",
                reuse.describe()
            ));
        }
    }
}

/// A measurement campaign unit the advice needs, with the work-group to measure it with.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NeededUnit {
    pub key: UnitKey,
    pub work_group: [usize; 2],
}

/// The units the rules need, each once: b and B of each question's MAP at its dataset, and for
/// a buffer with an interleaved partner the two versions of the pair that decide it and the
/// version with both buffers changed ([`StagingQuestion::joint_versions`]).
pub fn needed_units(questions: &[StagingQuestion], local_variant: &str) -> Vec<NeededUnit> {
    let mut units = BTreeSet::new();
    for q in questions.iter().filter(|q| q.not_staged.is_none()) {
        let pair = q.interleaved_versions().filter(|_| local_variant == STAGED_VARIANT);
        let dataset = q.partner.as_ref().map_or(q.dataset, |p| p.dataset);
        let joint = q.joint_versions().filter(|_| local_variant == STAGED_VARIANT);
        for version in pair.into_iter().flatten().chain(joint.into_iter().flatten()) {
            units.insert(NeededUnit {
                key: UnitKey { map: q.map.id().0, variant: version.variant(), dataset },
                work_group: q.work_group,
            });
        }
        for variant in [NO_LOCAL_VARIANT, local_variant] {
            units.insert(NeededUnit {
                key: UnitKey {
                    map: q.map.id().0,
                    variant: variant.to_string(),
                    dataset: q.dataset,
                },
                work_group: q.work_group,
            });
        }
    }
    units.into_iter().collect()
}

/// The `clmap bench maps` commands that take `units` on `device` into `db_path`: one per
/// work-group and set of datasets, for MAPs × variants as the campaign plans them.
pub fn bench_commands(units: &[NeededUnit], device: &str, db_path: &str) -> Vec<String> {
    /// The units one campaign takes: those of one work-group shape.
    struct Campaign {
        work_group: [usize; 2],
        maps: BTreeSet<u16>,
        sizes: BTreeSet<usize>,
        variants: Vec<String>,
    }
    let mut campaigns: Vec<Campaign> = Vec::new();
    for unit in units {
        let at = match campaigns.iter().position(|c| c.work_group == unit.work_group) {
            Some(at) => at,
            None => {
                campaigns.push(Campaign {
                    work_group: unit.work_group,
                    maps: BTreeSet::new(),
                    sizes: BTreeSet::new(),
                    variants: Vec::new(),
                });
                campaigns.len() - 1
            }
        };
        if let Some(c) = campaigns.get_mut(at) {
            c.maps.insert(unit.key.map);
            c.sizes.insert(unit.key.dataset);
            if !c.variants.contains(&unit.key.variant) {
                c.variants.push(unit.key.variant.clone());
            }
        }
    }
    let join = |items: Vec<String>| items.join(",");
    campaigns
        .into_iter()
        .map(|mut c| {
            // The reference variant first, as `bench maps` lists it.
            c.variants.sort_by_key(|v| v != NO_LOCAL_VARIANT);
            let [x, y] = c.work_group;
            format!(
                "clmap bench maps --device {} --maps {} --sizes {} --variants {} \
                 --work-group {x}x{y} --db {}",
                shell_word(device),
                join(c.maps.iter().map(u16::to_string).collect()),
                join(c.sizes.iter().map(usize::to_string).collect()),
                c.variants.join(","),
                shell_word(db_path)
            )
        })
        .collect()
}

/// A word as a POSIX shell reads it back unchanged.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:#+=,@".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Where the database's measurements of the device come from.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    /// The device is one of the 2014 history's: its records are the published means.
    pub historical: bool,
    /// The device's stored units (for sample counts and why a unit has no record).
    pub units: Vec<StoredUnit>,
    /// Units this command measured before advising, with their work-groups.
    pub measured_now: BTreeSet<NeededUnit>,
    /// Launches' worth of time a record's kernel as written must take to decide; a smaller
    /// one is replaced by the stored record of a scaled dataset
    /// ([`crate::refine::deciding_dataset`]). 0 keeps every question's own dataset.
    pub launch_multiple: f64,
}

impl Provenance {
    /// The stored unit of `key` on `work_group` (on any work-group when none is given).
    fn unit(&self, key: &UnitKey, work_group: Option<[usize; 2]>) -> Option<&StoredUnit> {
        self.units.iter().find(|u| &u.key == key && work_group.is_none_or(|wg| u.work_group == wg))
    }

    fn source(&self, key: &UnitKey, work_group: Option<[usize; 2]>) -> &'static str {
        let now = |wg: [usize; 2]| {
            self.measured_now.contains(&NeededUnit { key: key.clone(), work_group: wg })
        };
        if self.historical {
            "2014 Aristotle database (imported history)"
        } else if work_group.is_some_and(now) {
            "measured now by this command"
        } else {
            "performance database"
        }
    }
}

/// Stage in `__local` memory or read from `__global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    Local,
    Global,
}

/// One bandwidth the decision used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    pub map: u16,
    /// `nolocal` is b; the local variant is B.
    pub variant: String,
    pub dataset: usize,
    /// The work-group it was timed with (none for the 2014 history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_group: Option<[usize; 2]>,
    /// Mean and standard deviation over the samples (GB/s).
    pub bandwidth_gbs: f64,
    pub std_gbs: f64,
    /// Samples behind the mean (unknown for the 2014 history, which kept only means).
    pub samples: Option<usize>,
    pub source: String,
}

/// The advice for one buffer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BufferAdvice {
    pub kernel: String,
    pub buffer: String,
    /// `MAP-204`; null when the detector found none.
    pub map: Option<String>,
    /// Block radius of a Block MAP as the kernel reads it.
    pub radius: Option<u32>,
    /// Whether the kernel as written stages the buffer in `__local`.
    pub staged_now: Option<bool>,
    /// The dataset side the buffer was asked about.
    pub dataset: Option<usize>,
    /// The launch's work-group `[x, y]` the buffer was asked about with (its measurements'
    /// `work_group` says which one the record was timed with).
    pub work_group: Option<[usize; 2]>,
    /// Null when the detector found no MAP.
    pub advice: Option<Placement>,
    /// Read bandwidth after following the advice over the bandwidth as written: B/b when the
    /// advice stages a buffer now read from global, b/B when it unstages one, 1 when the
    /// kernel already does what is advised; null without a record.
    pub expected_gain: Option<f64>,
    /// The ratio mbr = B/b the rules used.
    pub mbr: Option<f64>,
    /// The rule's number in seed 001 (`5.1` … `5.3`, `-` without a record); null when the
    /// detector found no MAP.
    pub rule: Option<String>,
    /// Why, in a sentence (the detector's reason for undetected buffers).
    pub reasoning: String,
    /// Local memory a work-group needs to stage it, in bytes.
    pub local_bytes: Option<u64>,
    pub measurements: Vec<Measurement>,
    /// Set when the deciding record is of a larger dataset than the buffer's, because the
    /// buffer's own was launch-bound: the times that showed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled: Option<refine::Scaled>,
    /// The work-group's reuse of each element, within and across warps, when the device's
    /// SIMD width is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reuse: Option<WarpReuse>,
    /// Set when the interleaved pair's record decided (rule `interleaved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interleaved: Option<InterleavedDecision>,
}

/// The advice for a workload: every kernel's buffers, then the undetected ones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadAdvice {
    pub buffers: Vec<BufferAdvice>,
    /// Per kernel, local memory the advised buffers use.
    pub local_bytes_used: Vec<(String, u64)>,
    pub local_capacity: Option<u64>,
    pub delta: f64,
}

/// Applies the composing rules kernel by kernel (each launch has its own local memory).
pub fn advise(
    table: &MapTable,
    questions: &Questions,
    local_capacity: Option<u64>,
    delta: f64,
    provenance: &Provenance,
) -> WorkloadAdvice {
    let mut kernels: Vec<&str> = Vec::new();
    for q in &questions.asked {
        if !kernels.contains(&q.kernel.as_str()) {
            kernels.push(&q.kernel);
        }
    }
    let mut buffers = Vec::new();
    let mut local_bytes_used = Vec::new();
    for kernel in kernels {
        let asked: Vec<&StagingQuestion> = questions
            .asked
            .iter()
            .filter(|q| q.kernel == kernel && q.not_staged.is_none())
            .collect();
        // The record that decides each question: its own, or a scaled dataset's where its own
        // is launch-bound (never for the 2014 history, which kept no times).
        let deciders: Vec<Option<refine::Decider>> = asked
            .iter()
            .map(|q| {
                (!provenance.historical && provenance.launch_multiple > 0.0).then(|| {
                    refine::deciding_dataset(
                        &provenance.units,
                        refine::Question {
                            map: q.map.id().0,
                            dataset: q.dataset,
                            work_group: q.work_group,
                        },
                        &table.local_variant,
                        provenance.launch_multiple,
                    )
                })
            })
            .collect();
        let structures: Vec<rules::DataStructure> = asked
            .iter()
            .zip(&deciders)
            .map(|(q, decider)| rules::DataStructure {
                work_group: Some(q.work_group),
                ..rules::DataStructure::new(
                    q.buffer.clone(),
                    q.map.id().0,
                    decider.as_ref().map_or(q.dataset, |d| d.dataset),
                    q.local_bytes,
                )
            })
            .collect();
        let composed = rules::compose_with(
            table,
            &structures,
            local_capacity,
            delta,
            rules::Similarity::DeltaOrNoise,
        );
        let mut used = composed.local_bytes_used;
        let mut singles = Vec::with_capacity(asked.len());
        for ((q, choice), decider) in asked.iter().zip(&composed.choices).zip(&deciders) {
            let scaled = decider.as_ref().and_then(|d| d.scaled.clone());
            let mut advice = buffer_advice(table, q, choice, provenance, scaled);
            let before = advice.advice;
            singles.push(advice.clone());
            interleave(&mut advice, q, provenance, delta);
            let bytes = q.local_bytes;
            match (before, advice.advice) {
                (Some(Placement::Global), Some(Placement::Local)) => used += bytes,
                (Some(Placement::Local), Some(Placement::Global)) => {
                    used = used.saturating_sub(bytes)
                }
                _ => {}
            }
            buffers.push(advice);
        }
        let first = buffers.len() - asked.len();
        let resolved = resolve_pairs(&mut buffers[first..], &singles, &asked, provenance, delta);
        for (bytes, change) in resolved {
            match change {
                Placement::Local => used += bytes,
                Placement::Global => used = used.saturating_sub(bytes),
            }
        }
        local_bytes_used.push((kernel.to_string(), used));
        for q in questions.asked.iter().filter(|q| q.kernel == kernel) {
            let Some(why) = &q.not_staged else { continue };
            buffers.push(BufferAdvice {
                kernel: q.kernel.clone(),
                buffer: q.buffer.clone(),
                map: Some(q.map.name()),
                radius: (q.map.imap == IMapKind::Block).then_some(q.map.radius),
                staged_now: Some(q.staged_now),
                dataset: Some(q.dataset),
                work_group: Some(q.work_group),
                advice: Some(Placement::Global),
                expected_gain: Some(1.0),
                mbr: None,
                rule: Some(if why.starts_with(BROADCAST) {
                    BROADCAST_RULE.to_string()
                } else {
                    Rule::NoRecord.number().to_string()
                }),
                reasoning: format!("{why}: keep it in global"),
                local_bytes: Some(q.local_bytes),
                measurements: Vec::new(),
                scaled: None,
                reuse: q.reuse,
                interleaved: None,
            });
        }
    }
    for u in &questions.undetected {
        buffers.push(BufferAdvice {
            kernel: u.kernel.clone(),
            buffer: u.buffer.clone(),
            map: None,
            radius: None,
            staged_now: None,
            dataset: None,
            work_group: None,
            advice: None,
            expected_gain: None,
            mbr: None,
            rule: None,
            reasoning: format!("no MAP detected: {}", u.reason),
            local_bytes: None,
            measurements: Vec::new(),
            scaled: None,
            reuse: None,
            interleaved: None,
        });
    }
    WorkloadAdvice { buffers, local_bytes_used, local_capacity, delta }
}

fn buffer_advice(
    table: &MapTable,
    q: &StagingQuestion,
    choice: &rules::Choice,
    provenance: &Provenance,
    scaled: Option<refine::Scaled>,
) -> BufferAdvice {
    let map = q.map.id().0;
    // A tie keeps the buffer as the kernel has it, staged or not: no measurement shows that
    // either change pays, so the advice neither adds staging nor removes it.
    let tie = choice.impact == Some(crate::query::Impact::Similar);
    let use_local = choice.use_local || (tie && q.staged_now);
    let expected_gain = choice.mbr.map(|mbr| match (use_local, q.staged_now) {
        (true, false) => mbr,
        (false, true) => 1.0 / mbr,
        _ => 1.0,
    });
    let mut reasoning = choice.reasoning.clone();
    let mut rule = choice.rule.number().to_string();
    if tie && q.staged_now {
        rule = TIE_RULE.to_string();
        reasoning.push_str("; it is staged now, and a tie keeps the kernel as written");
    }
    let mut measurements = Vec::new();
    let record = choice.record_dataset.and_then(|n| match choice.record_work_group {
        Some(wg) => table.get_on(map, n, wg),
        None => table.records.iter().find(|r| r.map == map && r.dataset == n),
    });
    if let (Some(scaled), Some(record)) = (&scaled, record) {
        reasoning.push_str(&format!(
            "; {}",
            scaled.describe(map, record.dataset, record.work_group.unwrap_or(q.work_group))
        ));
    }
    if let Some([nb, nbb]) = record.and_then(|r| r.samples) {
        if nb.min(nbb) >= rules::POOLED_SAMPLES {
            reasoning.push_str(&format!(
                "; decided on {nb} and {nbb} pooled samples, a tie only within {} standard \
                 errors of the means (±{:.1} %)",
                rules::POOLED_Z,
                100.0 * record.map_or(0.0, rules::relative_noise)
            ));
        }
    }
    match record {
        Some(record) => measurements = record_measurements(record, table, provenance),
        None => {
            for variant in [NO_LOCAL_VARIANT, table.local_variant.as_str()] {
                let key = UnitKey { map, variant: variant.to_string(), dataset: q.dataset };
                if let Some(unit) =
                    provenance.unit(&key, Some(q.work_group)).filter(|u| u.status != "measured")
                {
                    reasoning.push_str(&format!(
                        "; MAP-{map} {variant} at N = {} was {} on this device: {}",
                        q.dataset, unit.status, unit.reason
                    ));
                }
            }
        }
    }
    if let Some(reuse) = &q.reuse {
        reasoning.push_str(&format!(
            "; on {}x{} work-groups, {}",
            q.work_group[0],
            q.work_group[1],
            reuse.describe()
        ));
        // A record timed on another work-group splits the reuse its own way: say so when the
        // split differs, as the record then measured another warp layout.
        let other = record.and_then(|r| r.work_group).filter(|wg| *wg != q.work_group);
        if let Some(wg) = other {
            let theirs = geometry::warp_reuse(&q.map, wg, reuse.simd_width);
            if theirs != *reuse {
                reasoning.push_str(&format!(
                    " (the record's {}x{} work-groups: {})",
                    wg[0],
                    wg[1],
                    theirs.describe()
                ));
            }
        }
    }
    if q.map.radius != crate::map::map_by_id(q.map.id()).map_or(q.map.radius, |m| m.radius) {
        reasoning.push_str(&format!(
            " (the kernel reads radius {}; the database measures the MAP at its default radius)",
            q.map.radius
        ));
    }
    BufferAdvice {
        kernel: q.kernel.clone(),
        buffer: q.buffer.clone(),
        map: Some(q.map.name()),
        radius: (q.map.imap == crate::map::IMapKind::Block).then_some(q.map.radius),
        staged_now: Some(q.staged_now),
        dataset: Some(q.dataset),
        work_group: Some(q.work_group),
        advice: Some(if use_local { Placement::Local } else { Placement::Global }),
        expected_gain,
        mbr: choice.mbr,
        rule: Some(rule),
        reasoning,
        local_bytes: Some(q.local_bytes),
        measurements,
        scaled,
        reuse: q.reuse,
        interleaved: None,
    }
}

/// Decides a buffer with an interleaved partner by the pair's record, where the database has
/// it: the pair's kernel with the buffer staged against the same kernel with it in global
/// memory, the partner as the kernel has it both times. The ratio is judged as a single MAP's
/// is (δ or the runs' spread, pooled samples by their means), and a tie keeps the buffer as
/// the kernel has it. Without the record the single-MAP decision stands, and says why.
fn interleave(advice: &mut BufferAdvice, q: &StagingQuestion, provenance: &Provenance, delta: f64) {
    if let Some(why) = &q.unpaired {
        advice.reasoning.push_str(&format!("; {why}"));
    }
    let (Some(partner), Some([reference, staged])) = (&q.partner, q.interleaved_versions()) else {
        return;
    };
    let map = q.map.id().0;
    let (reference, staged) = (reference.variant(), staged.variant());
    let units = &provenance.units;
    let partner_place = if partner.staged_now { "staged" } else { "in global memory" };
    let what = format!(
        "read in the loop over `{}` with `{}` ({}, {partner_place} as the kernel has it)",
        partner.sweep,
        partner.buffer,
        partner.map.name()
    );
    let Some(record) =
        refine::record_between(units, map, partner.dataset, q.work_group, &reference, &staged)
    else {
        let status: Vec<String> = [&reference, &staged]
            .into_iter()
            .filter_map(|v| {
                let key = UnitKey { map, variant: v.clone(), dataset: partner.dataset };
                provenance
                    .unit(&key, Some(q.work_group))
                    .filter(|u| u.status != "measured")
                    .map(|u| format!("{v} was {}: {}", u.status, u.reason))
            })
            .collect();
        let why = if status.is_empty() { "not measured".to_string() } else { status.join("; ") };
        advice.reasoning.push_str(&format!(
            "; {what}, but the interleaved pair has no record ({why}), so the single-MAP \
             record decided"
        ));
        return;
    };
    let margin = rules::similarity_margin(&record, delta, rules::Similarity::DeltaOrNoise);
    let impact = Impact::of(record.mbr, margin);
    let measured = format!(
        "the interleaved pair {} × {} at N = {} on {}x{} (one loop multiplying both) measured \
         B/b = {:.3} staging it (±{:.1} % counts as a tie)",
        q.map.name(),
        partner.map.name(),
        partner.dataset,
        q.work_group[0],
        q.work_group[1],
        record.mbr,
        100.0 * margin
    );
    let use_local = match impact {
        Impact::Gain => true,
        Impact::Loss => false,
        // A tie is no evidence either way: the single-MAP record, which may have some, decides.
        Impact::Similar => {
            advice.reasoning.push_str(&format!(
                "; {what}: {measured}, no evidence either way, so the single-MAP record decided"
            ));
            return;
        }
    };
    let single = format!(
        "the single-MAP record alone gave rule {} ({})",
        advice.rule.as_deref().unwrap_or("-"),
        match advice.advice {
            Some(Placement::Local) => "local",
            _ => "global",
        }
    );
    let verdict = if use_local { "staging it gains" } else { "staging it loses" };
    advice.reasoning = format!("{what}: {measured}: {verdict}; {single}");
    advice.advice = Some(if use_local { Placement::Local } else { Placement::Global });
    advice.mbr = Some(record.mbr);
    advice.expected_gain = Some(match (use_local, q.staged_now) {
        (true, false) => record.mbr,
        (false, true) => 1.0 / record.mbr,
        _ => 1.0,
    });
    advice.rule = Some(INTERLEAVED_RULE.to_string());
    advice.scaled = None;
    advice.measurements =
        [(&reference, record.b_mean, record.b_std), (&staged, record.big_b_mean, record.big_b_std)]
            .into_iter()
            .map(|(variant, mean, std)| {
                let key = UnitKey { map, variant: variant.clone(), dataset: partner.dataset };
                Measurement {
                    map,
                    variant: variant.clone(),
                    dataset: partner.dataset,
                    work_group: Some(q.work_group),
                    bandwidth_gbs: mean,
                    std_gbs: std,
                    samples: provenance.unit(&key, Some(q.work_group)).map(|u| u.samples),
                    source: provenance.source(&key, Some(q.work_group)).to_string(),
                }
            })
            .collect();
    advice.interleaved = Some(InterleavedDecision {
        with: partner.buffer.clone(),
        maps: [q.map.name(), partner.map.name()],
        sweep: partner.sweep.clone(),
        compared: [reference, staged],
    });
}

/// Each buffer's pair measured it changing with its partner as the kernel has it. Where both
/// buffers of a pair are advised to change, that assumption fails for one of them: both
/// changes are followed only where the pair's kernel with both changed beats it with the
/// larger expected gain's change alone (by the tie rule); otherwise only that change is, and
/// the other buffer is kept as written. Returns the local bytes of each placement reverted
/// and the placement it went back to.
fn resolve_pairs(
    advised: &mut [BufferAdvice],
    singles: &[BufferAdvice],
    asked: &[&StagingQuestion],
    provenance: &Provenance,
    delta: f64,
) -> Vec<(u64, Placement)> {
    let moves = |a: &BufferAdvice, q: &StagingQuestion| {
        (a.advice == Some(Placement::Local)) != q.staged_now
    };
    let changes = |a: &BufferAdvice, q: &StagingQuestion| a.interleaved.is_some() && moves(a, q);
    let mut reverted = Vec::new();
    // A pair measured with the partner as the kernel has it says nothing once the partner's
    // own record moves it (a tile removed): the buffer's single-MAP record decides then.
    for i in 0..asked.len() {
        let Some(partner) = &asked[i].partner else { continue };
        let Some(j) = asked.iter().position(|q| q.buffer == partner.buffer) else { continue };
        if advised[i].interleaved.is_none() || advised[j].interleaved.is_some() {
            continue;
        }
        if !moves(&advised[j], asked[j]) {
            continue;
        }
        let mut single = singles[i].clone();
        single.reasoning.push_str(&format!(
            "; its interleaved pair was measured with `{}` as the kernel has it, which its own \
             record changes, so the single-MAP record decided",
            partner.buffer
        ));
        if let (Some(from), Some(to)) = (advised[i].advice, single.advice) {
            if from != to {
                reverted.push((asked[i].local_bytes, to));
            }
        }
        advised[i] = single;
    }
    for i in 0..asked.len() {
        let Some(partner) = &asked[i].partner else { continue };
        let Some(j) = asked.iter().position(|q| q.buffer == partner.buffer) else { continue };
        if j <= i || !changes(&advised[i], asked[i]) || !changes(&advised[j], asked[j]) {
            continue;
        }
        let gain = |a: &BufferAdvice| a.expected_gain.unwrap_or(1.0);
        let (lead, other) = if gain(&advised[j]) > gain(&advised[i]) { (j, i) } else { (i, j) };
        let q = asked[lead];
        let joint = q.partner.as_ref().zip(q.joint_versions()).and_then(|(p, [alone, both])| {
            let record = refine::record_between(
                &provenance.units,
                q.map.id().0,
                p.dataset,
                q.work_group,
                &alone.variant(),
                &both.variant(),
            )?;
            let margin = rules::similarity_margin(&record, delta, rules::Similarity::DeltaOrNoise);
            Some((record.mbr, Impact::of(record.mbr, margin)))
        });
        let (lead_name, other_name) = (asked[lead].buffer.clone(), asked[other].buffer.clone());
        if let Some((mbr, Impact::Gain)) = joint {
            for (k, name) in [(lead, &other_name), (other, &lead_name)] {
                advised[k].reasoning.push_str(&format!(
                    "; `{name}` is advised to change too, and the pair with both changed \
                     measured B/b = {mbr:.3} against `{lead_name}`'s change alone: both are \
                     followed"
                ));
            }
            continue;
        }
        let measured = match joint {
            Some((mbr, _)) => format!("did not beat it (B/b = {mbr:.3})"),
            None => "was not measured".to_string(),
        };
        let kept = if asked[other].staged_now { Placement::Local } else { Placement::Global };
        let changed_to = advised[other].advice;
        advised[other].advice = Some(kept);
        advised[other].expected_gain = Some(1.0);
        advised[other].reasoning.push_str(&format!(
            "; but `{lead_name}` is advised to change too (expected ×{:.2}, the larger gain), \
             and the pair with both changed {measured} against `{lead_name}`'s change alone: \
             only that change is followed, and this buffer is kept as the kernel has it",
            gain(&advised[lead])
        ));
        if changed_to != Some(kept) {
            reverted.push((asked[other].local_bytes, kept));
        }
    }
    reverted
}

/// What decided a buffer by its interleaved pair, for the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InterleavedDecision {
    /// The partner buffer.
    pub with: String,
    /// The buffer's MAP and the partner's.
    pub maps: [String; 2],
    /// The shared loop's counter.
    pub sweep: String,
    /// The pair's versions compared: b (the buffer in global memory), then B (staged).
    pub compared: [String; 2],
}

fn record_measurements(
    record: &MapRecord,
    table: &MapTable,
    provenance: &Provenance,
) -> Vec<Measurement> {
    let sides = [
        (NO_LOCAL_VARIANT, record.b_mean, record.b_std),
        (table.local_variant.as_str(), record.big_b_mean, record.big_b_std),
    ];
    sides
        .into_iter()
        .map(|(variant, mean, std)| {
            let key =
                UnitKey { map: record.map, variant: variant.to_string(), dataset: record.dataset };
            Measurement {
                map: record.map,
                variant: variant.to_string(),
                dataset: record.dataset,
                work_group: record.work_group,
                bandwidth_gbs: mean,
                std_gbs: std,
                samples: provenance.unit(&key, record.work_group).map(|u| u.samples),
                source: provenance.source(&key, record.work_group).to_string(),
            }
        })
        .collect()
}

/// The rule of a buffer the kernel stages now whose ratio is a tie: kept as written.
pub const TIE_RULE: &str = "tie";

/// How the reasoning of a buffer the stager would not tile begins.
const NOT_STAGED: &str = "the stager does not tile it";

/// How the reasoning of a buffer whose reuse is all within one warp begins.
const BROADCAST: &str = "every reuse is a broadcast within one warp";

/// The rule of a buffer decided by its interleaved pair's record.
pub const INTERLEAVED_RULE: &str = "interleaved";

/// The rule of a buffer kept global because its reuse is all within one warp.
pub const BROADCAST_RULE: &str = "warp";

/// Whether a choice was decided without a record (the device lacks the measurement), rather
/// than without need of one (the stager would not tile the buffer).
pub fn lacks_record(advice: &BufferAdvice) -> bool {
    advice.rule.as_deref() == Some(Rule::NoRecord.number())
        && !advice.reasoning.starts_with(NOT_STAGED)
        && !advice.reasoning.starts_with(BROADCAST)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{map_by_id, MapId};

    #[test]
    fn dataset_sides_are_whole_work_groups() {
        assert_eq!(dataset_side(256 * 256, [16, 16]), 256);
        assert_eq!(dataset_side(96 * 96, [16, 16]), 96);
        // A 100 × 100 buffer is asked about as the nearest tiled square.
        assert_eq!(dataset_side(100 * 100, [16, 16]), 96);
        assert_eq!(dataset_side(10, [16, 16]), 16);
        assert_eq!(dataset_side(64 * 64, [8, 4]), 64);
        assert_eq!(dataset_side(4096, [256, 1]), 256);
    }

    fn question(map: u16, dataset: usize) -> StagingQuestion {
        StagingQuestion {
            kernel: "k".into(),
            buffer: format!("in{map}"),
            map: map_by_id(MapId(map)).expect("valid MAP"),
            staged_now: false,
            dataset,
            work_group: [16, 16],
            local_bytes: 100,
            not_staged: None,
            reuse: None,
            partner: None,
            unpaired: None,
        }
    }

    fn detection(buffer: &str, map: u16, elements: u64, counters: &[usize]) -> Detection {
        use crate::detect::{BufferExtent, Check, SweepLoop};
        use clmap_lang::ir::Handle;
        Detection {
            kernel: "gemm".into(),
            buffer: buffer.into(),
            span: clmap_lang::Span::UNDEFINED,
            outcome: Outcome::Map {
                map: map_by_id(MapId(map)).expect("valid MAP"),
                staged: false,
                check: Check::Agree { groups: 1 },
            },
            extent: BufferExtent { elements, element_bytes: 4, work_group: [32, 8, 1] },
            sweeps: counters
                .iter()
                .map(|&k| SweepLoop { counter: Handle::from_index(k), name: format!("k{k}") })
                .collect(),
        }
    }

    #[test]
    fn operands_of_one_loop_are_partners_at_the_larger_side() {
        // gemm's a (40 × 48) and b (48 × 64) share loop k; c shares none.
        let found = [
            detection("a", 205, 40 * 48, &[0]),
            detection("b", 302, 48 * 64, &[0]),
            detection("c", 108, 40 * 64, &[]),
        ];
        let q = questions(&found, TileSizing::Stager, true).asked;
        assert_eq!((q[0].dataset, q[1].dataset), (32, 64));
        let a = q[0].partner.as_ref().expect("a has a partner");
        assert_eq!((a.buffer.as_str(), a.map.id().0, a.dataset), ("b", 302, 64));
        assert_eq!(q[1].partner.as_ref().map(|p| p.buffer.as_str()), Some("a"));
        assert_eq!(q[2].partner, None);
        assert_eq!(q[2].unpaired, None);
        let units = needed_units(&q[..1], STAGED_VARIANT);
        let keys: Vec<String> = units
            .iter()
            .map(|u| format!("{} {} {}", u.key.map, u.key.variant, u.key.dataset))
            .collect();
        assert_eq!(
            keys,
            [
                "205 interleaved-302-gg 64",
                "205 interleaved-302-sg 64",
                "205 interleaved-302-ss 64",
                "205 nolocal 32",
                "205 stage 32"
            ]
        );
        // With a generated variant as B the pair is not used, and the advice says why.
        let q = questions(&found, TileSizing::Generated(Variant::LocalMax), true).asked;
        assert_eq!(q[0].partner, None);
        assert!(q[0].unpaired.as_deref().is_some_and(|w| w.contains("stager only")), "{q:?}");
    }

    fn unit(map: u16, variant: &str, gbs: f64) -> StoredUnit {
        StoredUnit {
            key: UnitKey { map, variant: variant.into(), dataset: 64 },
            work_group: [32, 8],
            status: "measured".into(),
            reason: String::new(),
            samples: 20,
            bandwidth_mean: gbs,
            bandwidth_std: 0.0,
            median_ns: 1e6 / gbs,
        }
    }

    fn record(map: u16, big_b: f64) -> MapRecord {
        MapRecord {
            work_group: Some([32, 8]),
            samples: Some([20, 20]),
            ..MapRecord::with_ratio(map, 64, big_b)
        }
    }

    #[test]
    fn a_staged_operand_is_judged_alone_and_its_partner_s_pair_only_while_it_stays() {
        // A tiled multiply: `a` staged now, `b` read from global memory in the same loop.
        let mut found = [detection("a", 205, 64 * 64, &[0]), detection("b", 302, 64 * 64, &[0])];
        if let Outcome::Map { staged, .. } = &mut found[0].outcome {
            *staged = true;
        }
        let asked = questions(&found, TileSizing::Stager, true);
        assert_eq!(asked.asked[0].partner, None, "a staged buffer keeps its single record");
        let partner = asked.asked[1].partner.as_ref().expect("b is paired with a");
        assert!(partner.staged_now);
        let versions = asked.asked[1].interleaved_versions().map(|v| v.map(|v| v.variant()));
        assert_eq!(versions, Some(["interleaved-205-gs".into(), "interleaved-205-ss".into()]));
        // b's pair beside the staged `a` gains ×2; b alone loses.
        let units =
            vec![unit(302, "interleaved-205-gs", 10.0), unit(302, "interleaved-205-ss", 20.0)];
        let provenance = Provenance { units, ..Provenance::default() };
        let table = |a_staged: f64| MapTable {
            device: "d".into(),
            local_variant: STAGED_VARIANT.into(),
            records: vec![record(205, a_staged), record(302, 0.5)],
        };
        let placed = |advice: &WorkloadAdvice| -> Vec<(Option<Placement>, Option<String>)> {
            advice.buffers.iter().map(|b| (b.advice, b.rule.clone())).collect()
        };
        // `a`'s tile pays (×2), so it stays, and b's pair decides: stage b.
        let kept = advise(&table(2.0), &asked, None, 0.05, &provenance);
        assert_eq!(
            placed(&kept),
            [
                (Some(Placement::Local), Some("5.2".into())),
                (Some(Placement::Local), Some(INTERLEAVED_RULE.into()))
            ]
        );
        // `a`'s tile loses (×0.5) and is removed: b's pair assumed it, so b's own record
        // decides, and keeps it global.
        let removed = advise(&table(0.5), &asked, None, 0.05, &provenance);
        assert_eq!(
            placed(&removed),
            [
                (Some(Placement::Global), Some("5.1".into())),
                (Some(Placement::Global), Some("5.1".into()))
            ]
        );
        assert!(removed.buffers[1].reasoning.contains("which its own record changes"));
        assert_eq!(removed.local_bytes_used[0].1, 0);
    }

    #[test]
    fn a_loop_shared_by_three_operands_pairs_none_of_them() {
        let found = [
            detection("a", 205, 64 * 64, &[0]),
            detection("b", 302, 64 * 64, &[0]),
            detection("d", 302, 64 * 64, &[1, 0]),
        ];
        let q = questions(&found, TileSizing::Stager, true).asked;
        for question in &q {
            assert_eq!(question.partner, None, "{question:?}");
            let why = question.unpaired.as_deref().expect("a reason");
            assert!(why.contains("no pair of two stands for that loop"), "{why}");
        }
    }

    #[test]
    fn needed_units_are_b_and_big_b_once_each() {
        let asked = [question(204, 256), question(204, 256), question(303, 256)];
        let units = needed_units(&asked, "max");
        let keys: Vec<String> = units
            .iter()
            .map(|u| format!("{} {} {}", u.key.map, u.key.variant, u.key.dataset))
            .collect();
        assert_eq!(keys, ["204 max 256", "204 nolocal 256", "303 max 256", "303 nolocal 256"]);
        let commands = bench_commands(&units, "my gpu", "x.db");
        assert_eq!(
            commands,
            ["clmap bench maps --device 'my gpu' --maps 204,303 --sizes 256 \
              --variants nolocal,max --work-group 16x16 --db x.db"]
        );
    }

    #[test]
    fn expected_gain_is_relative_to_the_kernel_as_written() {
        let table = MapTable {
            device: "d".into(),
            local_variant: "max".into(),
            records: vec![MapRecord {
                map: 204,
                dataset: 256,
                b_mean: 10.0,
                b_std: 0.5,
                big_b_mean: 20.0,
                big_b_std: 1.0,
                mbr: 2.0,
                work_group: None,
                samples: None,
            }],
        };
        let mut staged = question(204, 256);
        staged.staged_now = true;
        let plain = question(204, 256);
        let asked = Questions { asked: vec![plain], undetected: Vec::new() };
        let a = advise(&table, &asked, None, 0.05, &Provenance::default());
        assert_eq!(a.buffers[0].advice, Some(Placement::Local));
        assert_eq!(a.buffers[0].expected_gain, Some(2.0));
        assert_eq!(a.buffers[0].measurements.len(), 2);
        assert_eq!(a.buffers[0].measurements[1].bandwidth_gbs, 20.0);
        let asked = Questions { asked: vec![staged], undetected: Vec::new() };
        let a = advise(&table, &asked, None, 0.05, &Provenance::default());
        assert_eq!(a.buffers[0].expected_gain, Some(1.0));
    }
}
