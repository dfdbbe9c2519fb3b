//! Automatic MAP identification: for every `__global`/`__constant` buffer a kernel of a
//! workload reads, the Aristotle MAP its work-items follow (seed 001 left this to future work).
//!
//! Two sources, one classifier ([`footprint::classify`]):
//!
//! - buffers read directly: the index of every read is an affine form in the work-item's ids
//!   and loop counters ([`index_forms`]); evaluated for the work-items of a few work-groups it
//!   predicts the elements each reads, which the classifier turns into a MAP; the simulator's
//!   trace of the same work-groups must read exactly those elements ([`trace`]), or the
//!   detection is reported as failed with both sets;
//! - buffers staged in `__local` memory: the global reads stage a tile cooperatively, so they
//!   are not one work-item's pattern; what the work-items read *through* the tile is, and the
//!   trace follows each tile cell back to the global element stored there. The MAP is that of
//!   those reads (the pattern the staging serves), classified the same way.

pub mod footprint;
pub mod index_forms;
pub mod trace;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use clmap_lang::ir::{Function, Handle, LocalVariable, Module, TypeInner};
use clmap_lang::{SourceMap, Span};
use clmap_sim::SimOptions;
use clmap_workload::{StepArg, Workload};

use crate::map::Map;
use footprint::{classify, summarise, Footprints};
use index_forms::{global_reads, Affine, GlobalRead, IndexAtom, LaunchFacts};
use trace::ReadTrace;

/// Most index evaluations spent predicting one buffer's reads.
const MAX_EVALUATIONS: u64 = 1 << 24;

/// The MAP of one buffer of one kernel, or why it has none.
#[derive(Clone, Debug)]
pub struct Detection {
    pub kernel: String,
    pub buffer: String,
    /// The read the verdict is about (the first read, or the one refused).
    pub span: Span,
    pub outcome: Outcome,
    /// The buffer's size and the launch's shape, which advice sizes its measurements by.
    pub extent: BufferExtent,
    /// The counted loops whose counter the index of some read of the buffer follows, outermost
    /// first: the loops the buffer is swept along. Two buffers sharing one are read in the same
    /// loop, step by step ([`shared_sweep`]), which a MAP of either alone does not say.
    pub sweeps: Vec<SweepLoop>,
}

/// A counted loop of a kernel that a buffer's reads walk along.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepLoop {
    /// The loop's counter (a variable of the kernel: two detections of one kernel name the
    /// same loop when they name the same counter).
    pub counter: Handle<LocalVariable>,
    /// The counter's name in the source, for reports.
    pub name: String,
}

/// The loop two buffers of one kernel are both swept along (the innermost one when several),
/// or none: reads of `a` and `b` then interleave, one step of each per iteration, as a
/// multiply's row and column operands do.
pub fn shared_sweep<'d>(a: &'d Detection, b: &Detection) -> Option<&'d SweepLoop> {
    if a.kernel != b.kernel || a.buffer == b.buffer {
        return None;
    }
    a.sweeps.iter().rev().find(|s| b.sweeps.iter().any(|t| t.counter == s.counter))
}

/// How large a detected buffer is and how the launch that reads it is shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferExtent {
    /// Elements in the buffer (its bytes over the element size).
    pub elements: u64,
    /// Bytes of one element, from the kernel parameter's pointee type.
    pub element_bytes: u64,
    /// The launch's work-group size (x, y, z).
    pub work_group: [u64; 3],
}

#[derive(Clone, Debug)]
pub enum Outcome {
    /// The buffer follows this MAP.
    Map {
        map: Map,
        /// Read through a `__local` tile (the MAP is that of the reads through it).
        staged: bool,
        check: Check,
    },
    /// No MAP fits.
    Refused { reason: String },
    /// The kernel's index forms predicted a MAP but the simulator read other elements.
    Mismatch { map: Map, predicted: String, observed: String, item: [i64; 2] },
}

/// The simulator's verdict on a detected MAP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// This many work-groups read exactly the predicted elements.
    Agree { groups: usize },
    /// The trace could not be taken.
    NotRun(String),
}

/// Detects the MAP of every buffer every kernel of `workload` reads (each kernel once, at its
/// first launch's sizes and arguments).
pub fn detect(module: &Module, workload: &Workload, sources: &SourceMap) -> Vec<Detection> {
    let _ = sources;
    let mut seen = BTreeSet::new();
    let mut detections = Vec::new();
    for (index, launch) in workload.launches.iter().enumerate() {
        if !seen.insert(launch.kernel.clone()) {
            continue;
        }
        detections.extend(detect_launch(module, workload, index));
    }
    detections
}

/// The file, line and text of a span, for reports.
pub fn source_line(sources: &SourceMap, span: Span) -> Option<(String, u32, String)> {
    if !span.is_defined() {
        return None;
    }
    let file = sources.get(span.file)?;
    let line = file.line_col(span.start).line;
    Some((file.name.clone(), line, file.line_text(line).trim().to_string()))
}

fn detect_launch(module: &Module, workload: &Workload, launch_index: usize) -> Vec<Detection> {
    let launch = &workload.launches[launch_index];
    let Some(function) = module.kernel_by_name(&launch.kernel) else { return Vec::new() };
    let f = &module.functions[function];
    let step = workload.schedule().filter_map(Result::ok).find(|s| s.launch == launch_index);
    let Some(step) = step else { return Vec::new() };
    let range = &launch.range;
    let local = range.local.unwrap_or_else(|| clmap_sim::default_local_size(range));
    let facts = LaunchFacts {
        global: range.global,
        local,
        offset: range.offset,
        scalars: scalar_values(module, f, &step.args),
    };
    let reads = global_reads(module, function, &facts);
    let mut by_param: BTreeMap<u32, Vec<GlobalRead>> = BTreeMap::new();
    for read in reads {
        by_param.entry(read.param).or_default().push(read);
    }
    let groups = sample_groups(&facts);
    let param_of_buffer: Vec<u32> = step
        .args
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(a, StepArg::Buffer { .. }))
        .map(|(k, _)| k as u32)
        .collect();
    let trace = run_trace(module, workload, launch_index, &groups, &param_of_buffer);
    let extent = |param: u32| -> BufferExtent {
        let k = param as usize;
        let mut extent = BufferExtent { elements: 0, element_bytes: 1, work_group: local };
        let (StepArg::Buffer { slot }, Some(p)) =
            (step.args.get(k).unwrap_or(&StepArg::Null), f.params.get(k))
        else {
            return extent;
        };
        extent.element_bytes = element_size(module, p.ty).max(1);
        extent.elements =
            workload.buffers.get(*slot).map_or(0, |b| b.byte_len() / extent.element_bytes);
        extent
    };
    by_param
        .into_iter()
        .map(|(param, reads)| {
            let buffer = f.params[param as usize].name.clone();
            let extent = extent(param);
            let buffer_len = extent.elements as i64;
            let (span, outcome) =
                detect_buffer(&reads, &facts, &groups, trace.as_ref(), param, buffer_len);
            let sweeps = sweeps_of(f, &reads);
            Detection { kernel: f.name.clone(), buffer, span, outcome, extent, sweeps }
        })
        .collect()
}

/// The counted loops whose counter some read's index follows, outermost first (the order of
/// the loops around the reads, each once).
fn sweeps_of(f: &Function, reads: &[GlobalRead]) -> Vec<SweepLoop> {
    let mut sweeps: Vec<SweepLoop> = Vec::new();
    for read in reads {
        let Ok(index) = &read.index else { continue };
        for counted in &read.loops {
            let followed = index.terms.contains_key(&IndexAtom::Loop(counted.counter));
            if followed && !sweeps.iter().any(|s| s.counter == counted.counter) {
                let name =
                    f.locals.get(counted.counter).map_or_else(String::new, |v| v.name.clone());
                sweeps.push(SweepLoop { counter: counted.counter, name });
            }
        }
    }
    sweeps
}

fn detect_buffer(
    reads: &[GlobalRead],
    facts: &LaunchFacts,
    groups: &[[u64; 3]],
    trace: Result<&ReadTrace, &String>,
    param: u32,
    buffer_len: i64,
) -> (Span, Outcome) {
    let first_span = reads.first().map_or(Span::UNDEFINED, |r| r.span);
    let widths = candidate_widths(reads);
    if reads.iter().any(|r| r.stages_local) {
        let trace = match trace {
            Ok(t) => t,
            Err(e) => {
                return (
                    first_span,
                    Outcome::Refused {
                        reason: format!(
                            "staged in local memory, and the simulator's trace failed: {e}"
                        ),
                    },
                )
            }
        };
        let mut footprints = Footprints::new();
        for source in [&trace.direct, &trace.through_local] {
            for ((p, item), set) in source.range((param, [i64::MIN; 2])..=(param, [i64::MAX; 2])) {
                debug_assert_eq!(*p, param);
                footprints.entry(*item).or_default().extend(set);
            }
        }
        return match classify(&footprints, &widths, buffer_len) {
            Ok(c) => (
                first_span,
                Outcome::Map {
                    map: c.map,
                    staged: true,
                    check: Check::Agree { groups: trace.groups_seen.len() },
                },
            ),
            Err(reason) => (
                first_span,
                Outcome::Refused { reason: format!("read through a local tile: {reason}") },
            ),
        };
    }
    if let Some(r) = reads.iter().find(|r| r.index.is_err()) {
        let reason = r.index.clone().err().unwrap_or_default();
        return (r.span, Outcome::Refused { reason: format!("the index is not affine: {reason}") });
    }
    if let Some(r) = reads.iter().find(|r| r.in_uncounted_loop) {
        return (r.span, Outcome::Refused { reason: "the read is inside a loop whose iterations are not counted (`for (v = lo; v < hi; v += step)`)".into() });
    }
    let predicted = match predict(reads, facts, groups) {
        Ok(p) => p,
        Err(reason) => return (first_span, Outcome::Refused { reason }),
    };
    let classified = match classify(&predicted, &widths, buffer_len) {
        Ok(c) => c,
        Err(reason) => return (first_span, Outcome::Refused { reason }),
    };
    let check = match trace {
        Err(e) => Check::NotRun(e.clone()),
        Ok(trace) => {
            let mut agreeing = BTreeSet::new();
            for group in &trace.groups_seen {
                for item in group_items(*group, facts) {
                    let observed = trace.direct.get(&(param, item)).cloned().unwrap_or_default();
                    let expected = predicted.get(&item).cloned().unwrap_or_default();
                    // A guard may keep a work-item from reading at all (outside the domain).
                    if observed.is_empty() {
                        continue;
                    }
                    if observed != expected {
                        let width = classified.width;
                        return (
                            first_span,
                            Outcome::Mismatch {
                                map: classified.map,
                                predicted: summarise(&expected, width),
                                observed: summarise(&observed, width),
                                item,
                            },
                        );
                    }
                }
                agreeing.insert(*group);
            }
            Check::Agree { groups: agreeing.len() }
        }
    };
    (first_span, Outcome::Map { map: classified.map, staged: false, check })
}

/// Row lengths the index forms suggest: the coefficients of work-item ids and loop counters
/// (a row step is `W`, a diagonal step `W + 1`), and the distance between reads that differ in
/// their constant only, when the nearest two are at least two elements apart: an unrolled walk
/// down a column (`B[(k + 0) * n + x]`, `B[(k + 1) * n + x]`, … with `k` stepping by 4) moves
/// by a row from one read to the next, while no loop counter's coefficient is the row itself.
/// (Reads one element apart, as in a stencil, say nothing of the row.)
fn candidate_widths(reads: &[GlobalRead]) -> Vec<i64> {
    let mut widths = Vec::new();
    let forms: Vec<_> = reads.iter().filter_map(|r| r.index.as_ref().ok()).collect();
    for index in &forms {
        for (atom, c) in &index.terms {
            if matches!(atom, IndexAtom::LocalId(_) | IndexAtom::Loop(_)) {
                widths.extend([c.saturating_abs(), c.saturating_abs() - 1]);
            }
        }
    }
    let nearest =
        forms
            .iter()
            .enumerate()
            .flat_map(|(k, a)| {
                forms.iter().skip(k + 1).filter(|b| b.terms == a.terms).map(|b| {
                    a.constant.checked_sub(b.constant).map_or(i64::MAX, i64::saturating_abs)
                })
            })
            .filter(|gap| *gap > 0)
            .min();
    if let Some(gap) = nearest {
        widths.extend([gap, gap - 1]);
    }
    widths.retain(|w| *w >= 2);
    widths
}

/// The elements each work-item of `groups` reads, from the index forms.
fn predict(
    reads: &[GlobalRead],
    facts: &LaunchFacts,
    groups: &[[u64; 3]],
) -> Result<Footprints, String> {
    let mut out = Footprints::new();
    let mut budget = MAX_EVALUATIONS;
    for group in groups {
        for item in group_items(*group, facts) {
            let set = out.entry(item).or_default();
            for read in reads {
                let Ok(index) = &read.index else { continue };
                let mut values: HashMap<IndexAtom, i64> = HashMap::new();
                let local = [
                    item[1] - (group[0] * facts.local[0]) as i64,
                    item[0] - (group[1] * facts.local[1]) as i64,
                ];
                for d in 0..2u8 {
                    values.insert(IndexAtom::LocalId(d), local[d as usize]);
                    values.insert(IndexAtom::GroupId(d), group[d as usize] as i64);
                }
                enumerate(index, &read.loops, &mut values, set, &mut budget)?;
            }
        }
    }
    Ok(out)
}

fn enumerate(
    index: &Affine,
    loops: &[index_forms::CountedLoop],
    values: &mut HashMap<IndexAtom, i64>,
    out: &mut BTreeSet<i64>,
    budget: &mut u64,
) -> Result<(), String> {
    let overflow = || "the index overflows while enumerating its loops".to_string();
    let Some((outer, inner)) = loops.split_first() else {
        *budget = budget.checked_sub(1).ok_or("too many elements to enumerate")?;
        let v = index.evaluate(&|a| values.get(&a).copied().unwrap_or(0)).ok_or_else(overflow)?;
        out.insert(v);
        return Ok(());
    };
    let get = |a: IndexAtom, values: &HashMap<IndexAtom, i64>| values.get(&a).copied().unwrap_or(0);
    let lo = outer.lo.evaluate(&|a| get(a, values)).ok_or_else(overflow)?;
    let hi = outer.hi.evaluate(&|a| get(a, values)).ok_or_else(overflow)?;
    let mut k = lo;
    while k < hi {
        values.insert(IndexAtom::Loop(outer.counter), k);
        enumerate(index, inner, values, out, budget)?;
        k = k.checked_add(outer.step).ok_or_else(overflow)?;
    }
    values.remove(&IndexAtom::Loop(outer.counter));
    Ok(())
}

/// The global ids `(ty, tx)` of a work-group's work-items.
fn group_items(group: [u64; 3], facts: &LaunchFacts) -> Vec<[i64; 2]> {
    let [lx, ly, _] = facts.local;
    let mut items = Vec::new();
    for y in 0..ly.max(1) {
        for x in 0..lx.max(1) {
            items.push([
                (group[1] * ly + y + facts.offset[1]) as i64,
                (group[0] * lx + x + facts.offset[0]) as i64,
            ]);
        }
    }
    items
}

/// The work-groups looked at: one in the middle of the range and the second along the
/// diagonal, so that interior work-items (away from the guards at the borders) are seen.
fn sample_groups(facts: &LaunchFacts) -> Vec<[u64; 3]> {
    let groups: Vec<u64> =
        (0..3).map(|d| (facts.global[d] / facts.local[d].max(1)).max(1)).collect();
    let middle = [groups[0] / 2, groups[1] / 2, 0];
    let second = [1.min(groups[0] - 1), 1.min(groups[1] - 1), 0];
    let mut sample = vec![middle];
    if second != middle {
        sample.push(second);
    }
    sample
}

/// Runs the workload up to launch `launch_index` (each launch once) and traces its reads.
fn run_trace(
    module: &Module,
    workload: &Workload,
    launch_index: usize,
    groups: &[[u64; 3]],
    param_of_buffer: &[u32],
) -> Result<ReadTrace, String> {
    let mut shortened = workload.clone();
    shortened.launches.truncate(launch_index + 1);
    for launch in &mut shortened.launches {
        launch.repeat = 1;
    }
    let options = SimOptions::default();
    let factory = || ReadTrace::new(groups.to_vec(), param_of_buffer.to_vec());
    let (_, mut observers) =
        clmap_sim::run_workload_observed(module, &shortened, &options, &factory)
            .map_err(|e| e.to_string())?;
    observers.pop().ok_or_else(|| "the workload ran no launch".to_string())
}

/// The values of the by-value integer arguments of a launch, by parameter index (what an index
/// form may fold in as a constant).
pub fn scalar_values(module: &Module, f: &Function, args: &[StepArg]) -> HashMap<u32, i64> {
    let mut values = HashMap::new();
    for (k, (param, arg)) in f.params.iter().zip(args).enumerate() {
        let (TypeInner::Scalar(s), StepArg::Scalar { bytes }) = (&module.types[param.ty], arg)
        else {
            continue;
        };
        let size = s.size() as usize;
        if !s.is_integer() || bytes.len() < size || size > 8 {
            continue;
        }
        let mut raw = [0u8; 8];
        raw[..size].copy_from_slice(&bytes[..size]);
        let unsigned = u64::from_le_bytes(raw);
        let value = if s.is_signed() && size < 8 {
            let shift = 64 - 8 * size as u32;
            ((unsigned << shift) as i64) >> shift
        } else {
            unsigned as i64
        };
        values.insert(k as u32, value);
    }
    values
}

/// Bytes of the element a pointer type points to (1 when unknown).
fn element_size(module: &Module, ty: Handle<clmap_lang::ir::Type>) -> u64 {
    match &module.types[ty] {
        TypeInner::Pointer { pointee, .. } => u64::from(module.size_of(*pointee)).max(1),
        _ => 1,
    }
}
