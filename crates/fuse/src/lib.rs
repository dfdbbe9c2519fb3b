//! Cross-kernel tiling and fusion with redundant computation (Zhou, Ghike et al.): the
//! launches of a pipeline workload — the repetitions of a ping-pong stencil, or a chain of
//! different kernels handing buffers on — become one kernel per group of stages, in which each
//! work-group computes its tile of the last stage and, redundantly, the halo every earlier
//! stage must supply, in `__local` memory, with no global synchronisation in between.
//!
//! The pipeline: [`pipeline::segments`] finds what may be fused; [`analysis`] derives every
//! buffer access of every kernel symbolically from the IR; [`plan`] decides, per stage, where
//! data comes from and goes to, refusing with reasons; [`tiling`] turns accesses into isl
//! relations and pulls a symbolic tile back through them; [`codegen`] writes the helpers and
//! the fused kernel; [`fuse`] assembles the new workload. Validation against the unfused
//! pipeline is the caller's (`clmap fuse` runs it before writing anything).

pub mod analysis;
pub mod codegen;
pub mod pipeline;
pub mod plan;
pub mod refusal;
pub mod store;
pub mod sym;
pub mod tiling;

use std::collections::HashMap;
use std::rc::Rc;

use clmap_isl::Context;
use clmap_lang::frontend::Compiled;
use clmap_workload::{Expr, Launch, LaunchArg, NdRange, Workload};

pub use codegen::Shape;
pub use pipeline::{Segment, SegmentKind};
pub use refusal::Refusal;

/// The seed's variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `o`: tiles with their halos recomputed, no global barriers (the default).
    Redundant,
    /// `s`: tiling with a launch boundary wherever a halo would be needed.
    Split,
    /// `nr`: fusion without redundant computation — wrong wherever a halo is read; kept so
    /// that validation can be seen to reject it.
    NoRedundancy,
}

impl Variant {
    pub fn parse(text: &str) -> Option<Variant> {
        match text {
            "o" => Some(Variant::Redundant),
            "s" => Some(Variant::Split),
            "nr" => Some(Variant::NoRedundancy),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Redundant => "o",
            Variant::Split => "s",
            Variant::NoRedundancy => "nr",
        }
    }
}

/// The device the tiles are chosen for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Local memory per work-group, bytes.
    pub local_bytes: u64,
    /// Compute units: the parallelism constraint wants at least this many tiles.
    pub compute_units: u64,
    /// Largest work-group.
    pub max_group: u64,
}

impl Default for Limits {
    /// A GPU of today: 48 KiB of local memory, 132 compute units, 1024 work-items.
    fn default() -> Limits {
        Limits { local_bytes: 48 << 10, compute_units: 132, max_group: 1024 }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Fused steps per launch for temporal fusion (at least 2); `None` searches.
    pub steps: Option<u32>,
    /// Tile size per dimension; `None` searches.
    pub tile: Option<Vec<u64>>,
    /// Work-group shape; `None` searches (it is clipped to the tile).
    pub group: Option<Vec<u64>>,
    pub variant: Variant,
    pub limits: Limits,
    /// Which candidate of the search to take, by estimated cost: 0 is the best estimate.
    /// Timing on a device ranks them for real; this is how its caller walks the list.
    pub rank: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            steps: None,
            tile: None,
            group: None,
            variant: Variant::Redundant,
            limits: Limits::default(),
            rank: 0,
        }
    }
}

/// One fused segment, for reports.
#[derive(Clone, Debug)]
pub struct SegmentReport {
    pub kind: SegmentKind,
    pub kernel: String,
    pub stages: Vec<String>,
    pub steps: u32,
    pub shape: Shape,
    pub local_bytes: u64,
    /// Redundant computation, as a fraction of the useful work.
    pub redundancy: f64,
    /// Each stage's reach from the tile origin, per dimension (inclusive).
    pub reach: Vec<Vec<(i64, i64)>>,
    /// `(kernel, buffer, "consuming" | "producing", isl text)`.
    pub relations: Vec<(String, String, &'static str, String)>,
    /// Candidates that met the constraints (the search ranks them by estimated cost).
    pub candidates: usize,
    /// Repetitions left unfused after the fused launches (temporal and repeated segments).
    pub rest: u32,
}

/// A fused pipeline.
#[derive(Clone, Debug)]
pub struct Fused {
    pub workload: Workload,
    pub segments: Vec<SegmentReport>,
    /// Why other launches were left alone.
    pub refusals: Vec<Refusal>,
    pub launches_before: u64,
    pub launches_after: u64,
}

/// Why nothing was fused.
#[derive(Clone, Debug)]
pub struct NothingFused {
    pub refusals: Vec<Refusal>,
}

/// Fuses what can be fused in `workload` (compiled as `compiled`).
pub fn fuse(
    compiled: &Compiled,
    workload: &Workload,
    options: &Options,
) -> Result<Fused, NothingFused> {
    let ctx = Context::new();
    let module = &compiled.module;
    let (segments, mut refusals) = pipeline::segments(workload);
    let mut new_module = module.clone();
    let mut drivers = String::new();
    let mut reports = Vec::new();
    let mut replaced: Vec<(usize, usize, Vec<Launch>)> = Vec::new();
    let mut analyses = HashMap::new();
    let mut scratches: Vec<(String, String)> = Vec::new();
    let mut index = 0;
    for segment in &segments {
        if let (Variant::Split, SegmentKind::Spatial { first, last }) =
            (options.variant, &segment.kind)
        {
            // Variant s: a launch boundary wherever a halo would be needed. The chain is cut
            // greedily into the longest runs that fuse without one.
            let mut start = *first;
            while start < *last {
                let mut accepted = None;
                let mut why = None;
                let mut end = start + 1;
                while end <= *last {
                    let run = Segment { kind: SegmentKind::Spatial { first: start, last: end } };
                    let mut trial = new_module.clone();
                    match fuse_segment(
                        &ctx,
                        module,
                        &mut trial,
                        workload,
                        &run,
                        index,
                        options,
                        &mut analyses,
                    ) {
                        Ok(result) => accepted = Some((trial, result)),
                        Err(r) => {
                            why = Some(r);
                            break;
                        }
                    }
                    end += 1;
                }
                match accepted {
                    Some((trial, result)) => {
                        new_module = trial;
                        start = result.range.1 + 1;
                        drivers.push_str(&result.text);
                        reports.push(result.report);
                        replaced.push((result.range.0, result.range.1, result.launches));
                        index += 1;
                    }
                    None => {
                        refusals.extend(why);
                        start += 1;
                    }
                }
            }
            continue;
        }
        match fuse_segment(
            &ctx,
            module,
            &mut new_module,
            workload,
            segment,
            index,
            options,
            &mut analyses,
        ) {
            Ok(result) => {
                drivers.push_str(&result.text);
                reports.push(result.report);
                replaced.push((result.range.0, result.range.1, result.launches));
                scratches.extend(result.scratch);
                index += 1;
            }
            Err(r) => {
                // A host loop whose repetitions do not fuse into each other may still have
                // a body that fuses within each repetition.
                let SegmentKind::Repeated { first, last, .. } = segment.kind else {
                    refusals.push(r);
                    continue;
                };
                refusals.push(Refusal::unlocated(format!(
                    "the repetitions of the host loop over launches {}..{} do not fuse into \
                     each other: {}",
                    first + 1,
                    last + 1,
                    r.reason
                )));
                if last == first {
                    continue;
                }
                let body = Segment { kind: SegmentKind::Spatial { first, last } };
                match fuse_segment(
                    &ctx,
                    module,
                    &mut new_module,
                    workload,
                    &body,
                    index,
                    options,
                    &mut analyses,
                ) {
                    Ok(result) => {
                        drivers.push_str(&result.text);
                        reports.push(result.report);
                        replaced.push((result.range.0, result.range.1, result.launches));
                        index += 1;
                    }
                    Err(r) => refusals.push(r),
                }
            }
        }
    }
    if reports.is_empty() {
        return Err(NothingFused { refusals });
    }
    let mut fused = workload.clone();
    let mut launches = Vec::new();
    // Where each original launch went: the range of new launches that replace it (shared by
    // all launches of a fused segment), so host loops can be re-pointed.
    let mut moved: Vec<std::ops::Range<usize>> = vec![0..0; workload.launches.len()];
    let mut l = 0;
    while l < workload.launches.len() {
        let start = launches.len();
        if let Some((_, last, new)) = replaced.iter().find(|(first, _, _)| *first == l) {
            launches.extend(new.iter().cloned());
            for m in &mut moved[l..=*last] {
                *m = start..launches.len();
            }
            l = last + 1;
        } else {
            launches.push(workload.launches[l].clone());
            moved[l] = start..launches.len();
            l += 1;
        }
    }
    fused.launches = launches;
    for (like, name) in scratches {
        // Every element is written before it is read: its initial value does not matter.
        let mut buffer = workload.buffer(&like).expect("the pair's buffer exists").clone();
        buffer.name = name;
        buffer.init = clmap_workload::Init::Zero;
        buffer.output = false;
        buffer.access = clmap_workload::Access::ReadWrite;
        fused.buffers.push(buffer);
    }
    for (g, group) in fused.groups.iter_mut().enumerate() {
        let (first, last) = (group.launches.start, group.launches.end - 1);
        group.launches = moved[first].start..moved[last].end;
        // A loop whose repetitions were fused: the fused launch runs first, then the loop
        // runs its body for the repetitions left.
        if let Some(SegmentReport { kind: SegmentKind::Repeated { .. }, rest, .. }) = reports
            .iter()
            .find(|r| matches!(r.kind, SegmentKind::Repeated { group, .. } if group == g))
        {
            group.launches.start += 1;
            group.repeat = *rest;
        }
    }
    let mut source = clmap_lang::print::print_module(&new_module);
    source.push('\n');
    source.push_str(&drivers);
    fused.source = source;
    fused.options = compiled_options_without_defines(&workload.options);
    Ok(Fused {
        launches_before: workload.launch_count(),
        launches_after: fused.launch_count(),
        workload: fused,
        segments: reports,
        refusals,
    })
}

/// The printed program has its macros expanded; defines are dropped, other options kept.
fn compiled_options_without_defines(options: &str) -> String {
    let Ok(words) = clmap_lang::preprocess::split_words(options) else {
        return options.to_string();
    };
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if w == "-D" || w == "-I" {
            skip = true;
            continue;
        }
        if w.starts_with("-D") || w.starts_with("-I") {
            continue;
        }
        out.push(w);
    }
    out.join(" ")
}

/// One fused segment: the driver's text, its report, the launches that replace launches
/// `range.0..=range.1`, and a scratch buffer it needs (named after the buffer it copies).
struct SegmentResult {
    text: String,
    report: SegmentReport,
    launches: Vec<Launch>,
    range: (usize, usize),
    scratch: Option<(String, String)>,
}

#[allow(clippy::too_many_arguments)]
fn fuse_segment(
    ctx: &Context,
    module: &clmap_lang::ir::Module,
    new_module: &mut clmap_lang::ir::Module,
    workload: &Workload,
    segment: &Segment,
    index: usize,
    options: &Options,
    analyses: &mut HashMap<usize, Rc<analysis::KernelAccesses>>,
) -> Result<SegmentResult, Refusal> {
    let (first, last, repeat) = match &segment.kind {
        SegmentKind::Temporal { launch, .. } => {
            (*launch, *launch, workload.launches[*launch].repeat)
        }
        SegmentKind::Spatial { first, last } => (*first, *last, 1),
        SegmentKind::Repeated { group, first, last } => {
            (*first, *last, workload.groups[*group].repeat)
        }
    };
    // Who reads a buffer after the segment: the host (outputs) and later launches; inside a
    // host loop, every other launch of the pipeline, since the next repetition comes back
    // round (and swaps may rename buffers between repetitions).
    let in_loop = workload.groups.iter().any(|g| g.launches.contains(&first));
    let later_reads = |storage: &str| {
        let reads = |l: &Launch| {
            l.args.iter().any(|a| matches!(a, LaunchArg::Buffer { buffer } if buffer == storage))
        };
        workload.outputs.iter().any(|o| o == storage)
            || workload.launches[last + 1..].iter().any(reads)
            || (in_loop
                && (workload.launches[..first].iter().any(reads)
                    || workload
                        .groups
                        .iter()
                        .any(|g| g.swap.iter().any(|(a, b)| a == storage || b == storage))))
    };
    // Fused in time: the repetitions of a launch, or of a host loop's body.
    let temporal =
        matches!(segment.kind, SegmentKind::Temporal { .. } | SegmentKind::Repeated { .. });
    // Temporal: the last repetition stays unfused, so both buffers end as the host expects.
    // An odd number of fused steps writes the other buffer of the pair; an even number would
    // write the one its first step reads, so its last step writes a scratch buffer instead,
    // which then takes that buffer's name.
    let steps_choices: Vec<u32> = if temporal {
        let max = repeat - 1;
        match options.steps {
            Some(k) if k < 2 => {
                return Err(Refusal::unlocated(format!(
                    "--steps {k}: temporal fusion takes at least 2 steps"
                )))
            }
            Some(k) if k > max => {
                return Err(Refusal::unlocated(format!(
                    "--steps {k} is more than the {max} repetitions that can be fused"
                )))
            }
            Some(k) => vec![k],
            None => {
                // Small counts, and the divisors of what can be fused (no unfused
                // remainder), as long as the tiles can still fit.
                let mut ks: Vec<u32> = (2..=16).collect();
                ks.extend((17..=64).filter(|k| max % k == 0));
                ks.into_iter().filter(|k| *k <= max).collect()
            }
        }
    } else {
        vec![1]
    };
    let scratch = {
        let mut n = format!("fuse_scratch{index}");
        while workload.buffer(&n).is_some() {
            n.push('_');
        }
        n
    };
    if steps_choices.is_empty() {
        return Err(Refusal::unlocated("too few repetitions to fuse"));
    }
    let dims = workload.launches[first].range.dims as usize;
    let global: Vec<u64> = workload.launches[first].range.global[..dims].to_vec();
    // Search: every step count and tile candidate that meets the bound and locality
    // constraints, ranked by estimated cost (tiles that miss the parallelism constraint pay
    // for it there); `options.rank` picks from that list.
    let mut plans = Vec::new();
    let mut last_reason = None;
    let mut ranked: Vec<(f64, usize, u32, Shape, tiling::Boxes, u64)> = Vec::new();
    for &steps in &steps_choices {
        let stages = segment.stages(workload, if temporal { steps } else { 1 });
        // In time, the unfused last repetition rewrites whatever the host reads afterwards;
        // a fused launch must leave up to date only what the next repetition reads before
        // writing it. For a host loop's body that is found from a first plan: the storages
        // its first repetition reads from global memory, under the names they have after
        // the fused repetitions.
        let exposed: Vec<String> = match &segment.kind {
            SegmentKind::Repeated { .. } => {
                let probe = plan::plan(module, workload, &stages, &|_| false, None, analyses);
                let body = last - first + 1;
                let (names, _) = pipeline::Names::after(workload, segment, steps);
                match &probe {
                    Ok(p) => p.stages[..body]
                        .iter()
                        .flat_map(|s| {
                            s.sources
                                .iter()
                                .filter(|(_, src)| **src == plan::Source::Global)
                                .filter_map(|(q, _)| s.storage[*q as usize].clone())
                        })
                        .map(|n| names.resolve(&n))
                        .collect(),
                    Err(_) => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        let live = |s: &str| {
            if temporal {
                exposed.iter().any(|e| e == s)
            } else {
                later_reads(s)
            }
        };
        // With an even number of steps the last one writes the buffer the first one reads.
        let redirect = match &segment.kind {
            SegmentKind::Temporal { pair, .. } if steps % 2 == 0 => {
                Some(plan::Redirect { pair: pair.clone(), scratch: scratch.clone() })
            }
            _ => None,
        };
        let planned = plan::plan(module, workload, &stages, &live, redirect.as_ref(), analyses);
        let planned = match planned {
            Ok(p) => p,
            // One step count that cannot be planned leaves the others.
            Err(r) if options.steps.is_none() && steps_choices.len() > 1 => {
                last_reason = Some(r.reason);
                continue;
            }
            Err(r) => return Err(r),
        };
        plans.push(planned);
        let the_plan = plans.last().expect("just pushed");
        let symbolic = tiling::SymbolicTiling::new(ctx, module, the_plan)
            .map_err(|e| Refusal::unlocated(format!("isl: {e}")))?;
        for tile in candidate_tiles(&global, options) {
            let boxes =
                symbolic.boxes(&tile).map_err(|e| Refusal::unlocated(format!("isl: {e}")))?;
            if options.variant == Variant::Split {
                let core: Vec<(i64, i64)> = tile.iter().map(|t| (0, *t as i64 - 1)).collect();
                if let Some(k) = boxes.reach.iter().position(|r| *r != core) {
                    let what = match &segment.kind {
                        SegmentKind::Temporal { .. } | SegmentKind::Repeated { .. } => {
                            "every step reads a halo of the step before".to_string()
                        }
                        SegmentKind::Spatial { .. } => format!(
                            "launch {} (`{}`) must compute a halo for the launch after it",
                            the_plan.stages[k].launch + 1,
                            the_plan.stages[k].kernel
                        ),
                    };
                    return Err(Refusal::unlocated(format!(
                        "variant s keeps a launch boundary wherever a halo is needed: {what}"
                    )));
                }
            }
            let local: u64 = codegen::LocalSlots::assign(the_plan, &boxes).bytes();
            if local > options.limits.local_bytes {
                last_reason = Some(format!(
                    "tile {} needs {local} bytes of local memory, more than {}",
                    tile.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("x"),
                    options.limits.local_bytes
                ));
                continue;
            }
            let groups = match &options.group {
                Some(g) => vec![g.iter().zip(&tile).map(|(g, t)| (*g).min(*t).max(1)).collect()],
                None => candidate_groups(&tile, options.limits.max_group),
            };
            for group in groups {
                let shape = Shape { tile: tile.clone(), group };
                let cost =
                    estimated_cost(&boxes, steps, repeat, &global, &shape, local, &options.limits);
                ranked.push((cost, plans.len() - 1, steps, shape, boxes.clone(), local));
            }
        }
    }
    if ranked.is_empty() {
        return Err(Refusal::unlocated(last_reason.unwrap_or_else(|| "no tile fits".into())));
    }
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The estimate only orders candidates roughly; a caller that times the first few on a
    // device learns more from different step counts than from near-identical tiles, so the
    // best candidate of each step count comes first, then the rest, each part by cost.
    let mut seen_steps = Vec::new();
    let (mut heads, mut rest) = (Vec::new(), Vec::new());
    for c in ranked {
        if seen_steps.contains(&c.2) {
            rest.push(c);
        } else {
            seen_steps.push(c.2);
            heads.push(c);
        }
    }
    heads.extend(rest);
    let mut ranked = heads;
    let available = ranked.len();
    if options.rank >= available {
        return Err(Refusal::unlocated(format!(
            "candidate {} asked for, but only {available} meet the constraints",
            options.rank + 1
        )));
    }
    let (_, plan_index, steps, shape, mut boxes, local_bytes) = ranked.swap_remove(options.rank);
    let the_plan = plans.swap_remove(plan_index);
    if options.variant == Variant::NoRedundancy {
        // Only the core of every tile: the halo reads see stale data.
        let core: Vec<(i64, i64)> = shape.tile.iter().map(|t| (0, *t as i64 - 1)).collect();
        for r in boxes.reach.iter_mut() {
            *r = core.clone();
        }
        // Slots outside the core would be out of bounds; keep the boxes but compute the core
        // only (code generation fills the rest with old values).
    }
    let name = format!("fused{index}_{}", workload.launches[first].kernel);
    let (text, kernel) = codegen::generate(new_module, workload, &the_plan, &boxes, &shape, &name);
    let mut args: Vec<LaunchArg> =
        kernel.buffers.iter().map(|b| LaunchArg::Buffer { buffer: b.clone() }).collect();
    for (n, arg) in &kernel.scalars {
        match arg {
            LaunchArg::Scalar { ty, value, .. } => {
                args.push(LaunchArg::Scalar { name: n.clone(), ty: *ty, value: value.clone() })
            }
            LaunchArg::LoopScalar { ty, value, .. } => {
                args.push(LaunchArg::LoopScalar { name: n.clone(), ty: *ty, value: value.clone() })
            }
            _ => {}
        }
    }
    let mut range =
        NdRange { global: [1; 3], local: Some([1; 3]), offset: [0; 3], dims: dims as u8 };
    let mut local3 = [1u64; 3];
    for d in 0..dims {
        range.global[d] = kernel.global[d];
        local3[d] = kernel.local[d];
    }
    range.local = Some(local3);
    let mut launches = Vec::new();
    let mut scratch_buffer = None;
    match &segment.kind {
        SegmentKind::Temporal { launch, pair } => {
            let original = &workload.launches[*launch];
            let fusable = repeat - 1;
            let chunks = fusable / steps;
            let rest = fusable % steps;
            let mut fused = Launch::new(name.clone(), range, args.clone());
            fused.repeat = chunks;
            fused.swap = vec![pair.clone()];
            // An even number of steps left the newest values in the scratch buffer, which
            // takes the name of the buffer it stands in for.
            for s in &the_plan.stages[the_plan.stages.len() - 1].outputs {
                if let Some(from) = &s.fill_from {
                    fused.swap = vec![(from.clone(), s.storage.clone())];
                    scratch_buffer = Some((from.clone(), s.storage.clone()));
                }
            }
            launches.push(fused);
            // The rest runs unfused, as does the last repetition; values that change with the
            // repetition continue where the fused launches stopped.
            let mut tail = original.clone();
            tail.repeat = rest + 1;
            let done = i128::from(chunks) * i128::from(steps);
            let own = |n: &str| n == "i" || original.index.as_deref() == Some(n);
            for arg in tail.args.iter_mut() {
                if let LaunchArg::LoopScalar { value, .. } = arg {
                    *value = value.replace_names(&|n| own(n).then(|| Expr::affine(1, "i", done)));
                }
            }
            tail.index = None;
            launches.push(tail);
        }
        SegmentKind::Spatial { first, last } => {
            let mut fused = Launch::new(name.clone(), range, args);
            for l in *first..=*last {
                fused.swap.extend(workload.launches[l].swap.iter().cloned());
            }
            launches.push(fused);
        }
        SegmentKind::Repeated { first, last, .. } => {
            // The fused launch, repeated, with the swaps its steps make; then the body as
            // it was, for the repetitions left (the loop is re-pointed at it).
            let fusable = repeat - 1;
            let mut fused = Launch::new(name.clone(), range, args);
            fused.repeat = fusable / steps;
            fused.swap = pipeline::Names::after(workload, segment, steps).1;
            launches.push(fused);
            launches.extend(workload.launches[*first..=*last].iter().cloned());
        }
    }
    let mut relations = Vec::new();
    let mut seen = Vec::new();
    for s in &the_plan.stages {
        if seen.contains(&s.launch) {
            continue;
        }
        seen.push(s.launch);
        let f = &module.functions[s.function];
        for (p, storage) in s.storage.iter().enumerate() {
            if storage.is_none() {
                continue;
            }
            let values = |q: u32| s.values.get(&q).copied();
            for (consuming, label) in [(true, "consuming"), (false, "producing")] {
                if let Some(text) = tiling::relation_text(
                    module,
                    &s.accesses,
                    p as u32,
                    &values,
                    &global,
                    consuming,
                    true,
                    true,
                ) {
                    relations.push((
                        s.kernel.clone(),
                        f.params[p].name.clone(),
                        label,
                        normalised(ctx, text),
                    ));
                }
            }
        }
    }
    let report = SegmentReport {
        kind: segment.kind.clone(),
        kernel: name,
        stages: the_plan.stages.iter().map(|s| s.kernel.clone()).collect(),
        steps,
        shape,
        local_bytes,
        redundancy: boxes.redundancy(),
        reach: boxes.reach.clone(),
        relations,
        candidates: available,
        rest: if temporal { (repeat - 1) % steps + 1 } else { 0 },
    };
    Ok(SegmentResult { text, report, launches, range: (first, last), scratch: scratch_buffer })
}

/// A relation as isl prints it after coalescing: the disjuncts of a stencil merge and the
/// guards read as bounds, which is what a user comparing against the kernel wants to see. The
/// text we built is kept where isl cannot read it back.
fn normalised(ctx: &Context, text: String) -> String {
    ctx.map(&text).and_then(|m| m.coalesce()).map(|m| m.to_string()).unwrap_or(text)
}

/// Estimated time of the whole segment, in nanoseconds of an imagined GPU: what ranks the
/// candidates before any is timed.
fn estimated_cost(
    boxes: &tiling::Boxes,
    steps: u32,
    repeat: u32,
    global: &[u64],
    shape: &Shape,
    local_bytes: u64,
    limits: &Limits,
) -> f64 {
    // A fused launch costs one launch; the lanes its work-groups keep busy while they sweep
    // every stage's box (halo included); and the global traffic of the first stage's reads
    // and the last stage's writes, paid once for all its steps. Lanes are counted as the
    // hardware schedules them: a work-group at least a warp wide sweeps a row of a box in
    // whole warps, and warps past the end of the box skip the iteration, so only the last
    // warp of a row idles; narrower groups idle at the group's granularity. Work runs at
    // full speed only with enough work-items resident per compute unit to hide the latency
    // of memory and barriers: few tiles, or tiles whose local memory leaves room for few
    // work-groups, slow it down. The repetitions left over (the last one, and a remainder
    // when the steps do not divide the rest) run unfused, a launch and a global pass each.
    // Calibrated on an H100: a launch of a small kernel spans about 12 µs of a pipeline, a
    // global pass about 4 ps per point (read and write), one iteration of a work-group's
    // sweep about 150 ns of latency (local and global loads, the call, the barrier share).
    const LAUNCH_NS: f64 = 12000.0;
    const NS_PER_LANE: f64 = 0.0012;
    const NS_PER_GLOBAL_POINT: f64 = 0.004;
    const NS_PER_ITERATION: f64 = 150.0;
    const WARP: u64 = 32;
    // The local memory a compute unit holds, in work-groups' worth of the per-group limit
    // (GPUs hold several groups' `__local` at once), and the work-items it can keep.
    const LOCAL_PER_CU_FACTOR: u64 = 4;
    const MAX_ITEMS_PER_CU: u64 = 2048;
    let points: f64 = global.iter().product::<u64>() as f64;
    let tiles: u64 =
        global.iter().zip(&shape.tile).map(|(g, t)| g.div_ceil(*t)).product::<u64>().max(1);
    let warp_wide = shape.group[0].is_multiple_of(WARP);
    let group_items: u64 = shape.group.iter().product::<u64>().max(1);
    let stage_lanes: Vec<u64> = (0..boxes.reach.len())
        .map(|k| {
            boxes
                .extent(k)
                .iter()
                .zip(&shape.group)
                .enumerate()
                .map(|(d, (e, g))| match (warp_wide, d) {
                    (true, 0) => e.div_ceil(WARP) * WARP,
                    (true, _) => *e,
                    (false, _) => e.div_ceil(*g) * g,
                })
                .product::<u64>()
        })
        .collect();
    let lanes: u64 = stage_lanes.iter().sum();
    // Iterations each work-item runs one after the other, over all stages.
    let iterations: u64 = stage_lanes.iter().map(|l| l.div_ceil(group_items)).sum();
    let cus = limits.compute_units.max(1);
    let busy = (tiles as f64 / cus as f64).min(1.0);
    let by_local = (limits.local_bytes * LOCAL_PER_CU_FACTOR)
        .checked_div(local_bytes)
        .map_or(u64::MAX, |n| n.max(1));
    let resident = by_local.min(MAX_ITEMS_PER_CU / group_items).max(1);
    let waves = tiles.div_ceil(cus * resident);
    let throughput = tiles as f64 * lanes as f64 * NS_PER_LANE / busy;
    let latency = waves as f64 * iterations as f64 * NS_PER_ITERATION;
    let fused_launch = LAUNCH_NS + throughput.max(latency) + points * NS_PER_GLOBAL_POINT;
    let unfused_launch = LAUNCH_NS + points * NS_PER_GLOBAL_POINT;
    let fusable = repeat.saturating_sub(1).max(1);
    let (chunks, rest) = if repeat > 1 { (fusable / steps, fusable % steps + 1) } else { (1, 0) };
    f64::from(chunks) * fused_launch + f64::from(rest) * unfused_launch
}

/// Tiles to try (or the user's tile), clipped to the index space.
fn candidate_tiles(global: &[u64], options: &Options) -> Vec<Vec<u64>> {
    let dims = global.len();
    if let Some(t) = &options.tile {
        return vec![(0..dims)
            .map(|d| t.get(d).copied().unwrap_or(1).min(global[d]).max(1))
            .collect()];
    }
    let per_dim: Vec<Vec<u64>> = match dims {
        1 => vec![vec![128, 256, 512, 1024, 2048, 4096]],
        2 => vec![vec![32, 64, 128, 256], vec![8, 16, 24, 28, 32, 48, 64]],
        _ => vec![vec![8, 16, 32], vec![8, 16], vec![4, 8]],
    };
    let mut tiles = vec![Vec::new()];
    for d in 0..dims {
        let mut next = Vec::new();
        for s in &tiles {
            for t in &per_dim[d] {
                let mut s2: Vec<u64> = s.clone();
                s2.push((*t).min(global[d]));
                next.push(s2);
            }
        }
        tiles = next;
    }
    tiles.sort();
    tiles.dedup();
    tiles
}

/// The largest work-group the search proposes. A fused kernel inlines every stage, and
/// its registers limit the work-group size below the device's: on the H100, NVIDIA's
/// compiler reports 256 (`CL_KERNEL_WORK_GROUP_SIZE`) for the 2-D stencils and the image
/// chain, and rejects launches of 512 or 1024 work-items.
const LARGEST_FUSED_GROUP: u64 = 256;

/// Work-group shapes for a tile: wide in the first dimension (contiguous addresses), each
/// clipped to the tile and within the device's largest work-group and
/// [`LARGEST_FUSED_GROUP`].
fn candidate_groups(tile: &[u64], max_group: u64) -> Vec<Vec<u64>> {
    let wanted: &[&[u64]] = match tile.len() {
        1 => &[&[64], &[128], &[256]],
        2 => &[&[32, 4], &[32, 8], &[64, 2], &[64, 4], &[128, 2], &[256, 1]],
        _ => &[&[32, 4, 2], &[16, 4, 4], &[8, 8, 4]],
    };
    let mut groups: Vec<Vec<u64>> = wanted
        .iter()
        .map(|g| g.iter().zip(tile).map(|(g, t)| (*g).min(*t)).collect::<Vec<u64>>())
        .filter(|g| g.iter().product::<u64>() <= max_group.clamp(1, LARGEST_FUSED_GROUP))
        .collect();
    groups.sort();
    groups.dedup();
    if groups.is_empty() {
        groups.push(vec![1; tile.len()]);
    }
    groups
}

/// Why a fused pipeline was not accepted.
#[derive(Clone, Debug)]
pub enum Rejected {
    /// The fused program does not compile or load: a bug of the generator, reported whole.
    Broken(String),
    /// The fused pipeline's outputs differ from the original's (`detail` names the buffer
    /// and index), or it reports errors the original does not.
    Differs { detail: String },
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::Broken(m) => write!(f, "the fused program is not valid: {m}"),
            Rejected::Differs { detail } => {
                write!(f, "the fused pipeline differs from the original: {detail}")
            }
        }
    }
}

/// The original pipeline's runs on the inputs of seed shifts `0..seeds`, kept to validate
/// many candidates against (a large pipeline's reference run costs as much as a candidate's).
pub struct Reference {
    runs: Vec<clmap_exec::TargetRun>,
}

impl Reference {
    pub fn run(
        original: &clmap_exec::PreparedWorkload,
        seeds: u64,
        target: &clmap_exec::Target,
    ) -> Result<Reference, Rejected> {
        let runner = clmap_exec::Runner::new(original, target);
        let runs = (0..seeds.max(1))
            .map(|seed| runner.run(seed))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Rejected::Broken(format!("the original pipeline: {e}")))?;
        Ok(Reference { runs })
    }
}

/// [`validate`] against the kept runs of the original.
pub fn validate_against(
    original: &clmap_exec::PreparedWorkload,
    reference: &Reference,
    fused: &Workload,
    target: &clmap_exec::Target,
) -> Result<clmap_exec::PreparedWorkload, Rejected> {
    let prepared = clmap_exec::PreparedWorkload::new(fused.clone())
        .map_err(|e| Rejected::Broken(e.to_string()))?;
    let runner = clmap_exec::Runner::new(&prepared, target);
    for (seed, expected) in reference.runs.iter().enumerate() {
        let run = runner.run(seed as u64).map_err(|e| Rejected::Broken(e.to_string()))?;
        let answer = clmap_exec::Differential {
            expected_target: target.name(),
            actual_target: target.name(),
            seeds: vec![clmap_exec::differential::compare_runs(
                original,
                seed as u64,
                expected,
                run,
            )],
        };
        if let Some(d) = answer.first_disagreement() {
            return Err(Rejected::Differs { detail: d.to_string() });
        }
    }
    Ok(prepared)
}

/// Runs the original and the fused pipeline on `seeds` sets of random inputs on `target`
/// and accepts the fusion only if every output agrees and the fused run reports nothing.
pub fn validate(
    original: &clmap_exec::PreparedWorkload,
    fused: &Workload,
    seeds: u64,
    target: &clmap_exec::Target,
) -> Result<clmap_exec::PreparedWorkload, Rejected> {
    let prepared = clmap_exec::PreparedWorkload::new(fused.clone())
        .map_err(|e| Rejected::Broken(e.to_string()))?;
    let answer = clmap_exec::differential_on(original, &prepared, seeds, target)
        .map_err(|e| Rejected::Broken(e.to_string()))?;
    if answer.agree() {
        Ok(prepared)
    } else {
        let detail = answer
            .first_disagreement()
            .map(|d| d.to_string())
            .unwrap_or_else(|| answer.render("fused"));
        Err(Rejected::Differs { detail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposed_work_groups_stay_within_what_fused_kernels_launch_with() {
        for tile in [vec![4096], vec![256, 64], vec![32, 16, 8]] {
            let groups = candidate_groups(&tile, 1024);
            assert!(!groups.is_empty());
            for g in groups {
                assert!(g.iter().product::<u64>() <= LARGEST_FUSED_GROUP, "{g:?} for {tile:?}");
                assert!(g.iter().zip(&tile).all(|(g, t)| g <= t), "{g:?} for {tile:?}");
            }
        }
        // A device that allows less still bounds them.
        assert!(candidate_groups(&[256, 64], 64).iter().all(|g| g.iter().product::<u64>() <= 64));
    }

    #[test]
    fn the_estimate_prefers_fewer_launches_where_launches_dominate() {
        // A 512-point line, 64 steps: one launch of 63 fused steps beats 21 of 3.
        let boxes = |k: usize| tiling::Boxes {
            tile: vec![128],
            reach: (0..k)
                .map(|s| vec![(-(k as i64 - 1 - s as i64), 127 + (k - 1 - s) as i64)])
                .collect(),
        };
        let shape = Shape { tile: vec![128], group: vec![128] };
        let limits = Limits::default();
        let deep = estimated_cost(&boxes(63), 63, 64, &[512], &shape, 4096, &limits);
        let shallow = estimated_cost(&boxes(3), 3, 64, &[512], &shape, 1024, &limits);
        assert!(deep < shallow, "{deep} vs {shallow}");
    }
}
