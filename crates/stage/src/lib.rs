//! Local-memory staging, the inverse of Grover: a `__global` buffer a kernel only reads is
//! copied, per work-group, into a `__local` tile holding the work-group's whole footprint,
//! and every read of the buffer is redirected to the tile.
//!
//! ```text
//! index forms (aristotle) ─► uses (read-only, indexed, unaliased) ─► tile (box per group)
//!                                                                      │
//!        validation (simulator, several seeds, races) ◄─ emit (source edits, re-parsed)
//! ```
//!
//! The footprint is found from the affine index of every read ([`clmap_aristotle::detect`]'s
//! index forms): the group-id terms of the index move the tile's origin, the local ids and
//! loop counters span its extent. The tile is a box of `rows × columns` over a row length
//! chosen to make it smallest, so a Row MAP stages whole rows, a Column MAP columns the width
//! of the work-group, and Block and Neighbor MAPs the work-group's cells with their halo. The
//! kernel gets a cooperative load at the top of its body (every work-item copies a strided
//! share, guarded by the buffer's bounds, so tiles at the edges read nothing outside it), one
//! barrier, and each read of the buffer becomes a read of the tile at the same element.
//!
//! Nothing is reported done before the staged kernel has run against the original on the
//! simulator with several random inputs, with the race and bounds checkers on; a kernel
//! whose reads cannot be staged is refused with the reason and the source line.

mod emit;
mod tile;
mod uses;
mod validate;

use clmap_aristotle::detect::index_forms::{global_reads, LaunchFacts};
use clmap_aristotle::detect::{detect, scalar_values, Outcome as DetectOutcome};
use clmap_exec::PreparedWorkload;
use clmap_lang::edit::unified_diff;
use clmap_lang::ir::{AddressSpace, Function, Handle, Module, TypeInner};
pub use clmap_lang::Refusal;
use clmap_workload::{StepArg, Workload};

pub use tile::{TileBox, TileCell};
pub use validate::{validate_on, Validation};

/// What a staging may use and how it is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageLimits {
    /// Bytes of `__local` memory a work-group may use in all (the tile plus what the kernel
    /// already declares); a device's `CL_DEVICE_LOCAL_MEM_SIZE`.
    pub max_local_bytes: u64,
    /// Random input sets the simulator validation runs (seed shifts `0..seeds`).
    pub seeds: u64,
}

impl Default for StageLimits {
    /// 48 KiB, what NVIDIA GPUs give a work-group without opting in to more (PoCL gives more),
    /// and three input sets.
    fn default() -> StageLimits {
        StageLimits { max_local_bytes: 48 * 1024, seeds: 3 }
    }
}

/// The work-group footprint a staging copies, as a box of a matrix view of the buffer.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Footprint {
    /// The MAP `clmap maps detect` gives the buffer (`MAP-205`), if it finds one.
    pub map: Option<String>,
    /// Its iMAP (`Row`, `Column`, `Block`, `Neighbor`, `Single`).
    pub imap: Option<String>,
    /// The Block or Neighbor radius.
    pub radius: Option<u32>,
    /// Why no MAP was found, when none was.
    pub map_note: Option<String>,
    /// The row length the buffer is viewed with (0: a 1-D view, one row).
    pub row_length: i64,
    /// The tile: rows by columns of that view.
    pub rows: u64,
    pub columns: u64,
    /// Elements and bytes of the tile.
    pub elements: u64,
    pub bytes: u64,
    /// Where the tile starts, in the work-group's ids (`row 16*g0, column 0`).
    pub origin: String,
    /// Element reads a work-group makes of the buffer (guards ignored) per element staged.
    pub reuse: f64,
}

/// A kernel with one buffer staged in local memory, validated against the original.
#[derive(Debug)]
pub struct StagedVariant {
    pub kernel: String,
    pub buffer: String,
    /// The name of the `__local` tile in the new source.
    pub tile: String,
    /// The new kernel source (the whole file).
    pub source: String,
    /// The workload running the new source; its launches get a work-group size when the
    /// original left it to the runtime ([`StagedVariant::chosen_local_size`]).
    pub workload: Workload,
    /// The same, compiled, ready for device checks and timing.
    pub prepared: PreparedWorkload,
    /// `diff -u` of the source, named after the workload's source file.
    pub diff: String,
    pub footprint: Footprint,
    /// The work-group size clmap chose because the workload gives none.
    pub chosen_local_size: Option<[u64; 3]>,
    /// Bytes of `__local` memory a work-group uses after staging (tile included).
    pub local_bytes: u64,
    pub validation: Validation,
}

/// Stages `buffer` of `kernel` in local memory and validates the result on the simulator.
///
/// A refusal says why, pointing at the read or statement in question: a read whose index is
/// not affine in the work-item's ids and counted loops (data-dependent, say), a kernel that
/// writes the buffer or passes its pointer on, a footprint larger than
/// [`StageLimits::max_local_bytes`], a footprint with no reuse, or a staged kernel that does
/// not give the original's outputs.
pub fn stage_buffer(
    original: &PreparedWorkload,
    kernel: &str,
    buffer: &str,
    limits: &StageLimits,
) -> Result<StagedVariant, Refusal> {
    let plan = plan(original, kernel, buffer, limits)?;
    let source_name = original
        .workload()
        .source_path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("kernel.cl")
        .to_string();
    let diff = unified_diff(
        &plan.original_text,
        &plan.text,
        &format!("a/{source_name}"),
        &format!("b/{source_name}"),
        3,
    );
    let mut workload = original.workload().clone();
    workload.source = plan.text.clone();
    if let Some(local) = plan.chosen_local_size {
        for launch in workload.launches.iter_mut().filter(|l| l.kernel == kernel) {
            launch.range.local.get_or_insert(local);
        }
    }
    let (prepared, validation) = validate::validate(original, workload.clone(), limits.seeds)?;
    Ok(StagedVariant {
        kernel: kernel.to_string(),
        buffer: buffer.to_string(),
        tile: plan.tile_name,
        source: plan.text,
        workload,
        prepared,
        diff,
        footprint: plan.footprint,
        chosen_local_size: plan.chosen_local_size,
        local_bytes: plan.local_bytes,
        validation,
    })
}

/// The rewrite before validation.
struct Plan {
    original_text: String,
    text: String,
    tile_name: String,
    footprint: Footprint,
    chosen_local_size: Option<[u64; 3]>,
    local_bytes: u64,
    tile: TileBox,
    element_bytes: u64,
}

/// What the launches of the kernel fix: sizes, scalar values, the buffer's length.
struct LaunchView {
    facts: LaunchFacts,
    dims: u8,
    buffer_len: u64,
    chosen_local_size: Option<[u64; 3]>,
    local_arg_bytes: u64,
}

fn plan(
    original: &PreparedWorkload,
    kernel: &str,
    buffer: &str,
    limits: &StageLimits,
) -> Result<Plan, Refusal> {
    let module = original.module();
    let Some(function) = module.kernel_by_name(kernel) else {
        let known: Vec<&str> = module.kernels().map(|(_, f)| f.name.as_str()).collect();
        return Err(Refusal::unlocated(format!(
            "the program has no kernel `{kernel}` (it has: {})",
            known.join(", ")
        )));
    };
    let f = &module.functions[function];
    let param = buffer_param(module, f, buffer)?;
    let views = launch_views(module, original.workload(), f, param)?;
    uses::check(module, f, param)?;
    // One text serves every launch of the kernel: launches whose arguments differ (a host
    // loop's time step, say) must give the same staging of this buffer.
    let mut first: Option<(Plan, usize)> = None;
    for (view, launch) in &views {
        let plan = plan_for_launch(original, function, param, view, limits)?;
        match &first {
            None => first = Some((plan, *launch)),
            Some((p, at)) if p.text != plan.text => {
                return Err(Refusal::unlocated(format!(
                    "kernel `{kernel}` reads another footprint of `{buffer}` at launch {} than at \
                     launch {} (its sizes or arguments differ): one staged text cannot serve both",
                    launch + 1,
                    at + 1
                )))
            }
            Some(_) => {}
        }
    }
    let (mut plan, _) = first.ok_or_else(|| {
        Refusal::unlocated(format!("the workload never launches kernel `{kernel}`"))
    })?;
    plan.footprint = footprint(original, kernel, buffer, &plan.tile, plan.element_bytes);
    Ok(plan)
}

/// The staging of the buffer for one launch's sizes and arguments.
fn plan_for_launch(
    original: &PreparedWorkload,
    function: Handle<Function>,
    param: u32,
    view: &LaunchView,
    limits: &StageLimits,
) -> Result<Plan, Refusal> {
    let module = original.module();
    let compiled = original.compiled();
    let f = &module.functions[function];
    let buffer = f.params[param as usize].name.as_str();
    let reads: Vec<_> = global_reads(module, function, &view.facts)
        .into_iter()
        .filter(|r| r.param == param)
        .collect();
    if reads.is_empty() {
        return Err(Refusal::new(
            format!("kernel `{}` never reads `{buffer}`: there is nothing to stage", f.name),
            f.params[param as usize].span,
        ));
    }
    if let Some(r) = reads.iter().find(|r| r.stages_local) {
        return Err(Refusal::new(
            format!("`{buffer}` is already staged in local memory by the kernel here"),
            r.span,
        ));
    }
    let tile = tile::TileBox::of(&reads, &view.facts)?;

    let element = pointee(module, f, param);
    let element_bytes = u64::from(module.size_of(element)).max(1);
    let tile_bytes = tile.elements().saturating_mul(element_bytes);
    let declared = declared_local_bytes(module, f).saturating_add(view.local_arg_bytes);
    let local_bytes = tile_bytes.saturating_add(declared);
    if local_bytes > limits.max_local_bytes {
        return Err(Refusal::new(
            format!(
                "the work-group footprint of `{buffer}` is {} x {} elements ({tile_bytes} bytes){}, \
                 above the {} bytes of local memory a work-group may use",
                tile.rows,
                tile.columns,
                if declared > 0 {
                    format!(" and the kernel already uses {declared} bytes")
                } else {
                    String::new()
                },
                limits.max_local_bytes
            ),
            reads[0].span,
        ));
    }
    let accesses = tile.accesses_per_group;
    if accesses <= tile.elements() {
        return Err(Refusal::new(
            format!(
                "a work-group reads each element of `{buffer}` at most once ({accesses} reads of a \
                 {}-element footprint): a tile would add a copy and save no global read",
                tile.elements()
            ),
            reads[0].span,
        ));
    }

    let original_text =
        compiled.sources.get(compiled.main).map(|s| s.text.clone()).unwrap_or_default();
    let element_type = clmap_lang::print::print_type(module, element);
    let emitted = emit::emit(&emit::EmitInput {
        function: f,
        main: compiled.main,
        text: &original_text,
        buffer,
        element_type: &element_type,
        buffer_len: view.buffer_len,
        local: view.facts.local,
        dims: view.dims,
        tile: &tile,
        reads: &reads,
    })?;
    Ok(Plan {
        original_text,
        text: emitted.text,
        tile_name: emitted.tile_name,
        footprint: Footprint::default(),
        chosen_local_size: view.chosen_local_size,
        local_bytes,
        tile,
        element_bytes,
    })
}

/// The index of the buffer parameter, which must point to `__global` or `__constant` memory.
fn buffer_param(module: &Module, f: &Function, buffer: &str) -> Result<u32, Refusal> {
    let Some(k) = f.params.iter().position(|p| p.name == buffer) else {
        let buffers: Vec<&str> = f
            .params
            .iter()
            .filter(|p| {
                matches!(
                    module.types[p.ty],
                    TypeInner::Pointer { space: AddressSpace::Global | AddressSpace::Constant, .. }
                )
            })
            .map(|p| p.name.as_str())
            .collect();
        return Err(Refusal::new(
            format!(
                "kernel `{}` has no parameter `{buffer}` (its buffers: {})",
                f.name,
                if buffers.is_empty() { "none".into() } else { buffers.join(", ") }
            ),
            f.span,
        ));
    };
    let p = &f.params[k];
    match module.types[p.ty] {
        TypeInner::Pointer { space: AddressSpace::Global | AddressSpace::Constant, .. } => {
            Ok(k as u32)
        }
        _ => Err(Refusal::new(
            format!(
                "`{buffer}` is not a `__global` or `__constant` pointer: only buffers are staged"
            ),
            p.span,
        )),
    }
}

fn pointee(module: &Module, f: &Function, param: u32) -> Handle<clmap_lang::ir::Type> {
    let ty = f.params[param as usize].ty;
    match module.types[ty] {
        TypeInner::Pointer { pointee, .. } => pointee,
        _ => ty,
    }
}

/// Bytes of the `__local` variables the kernel declares.
fn declared_local_bytes(module: &Module, f: &Function) -> u64 {
    f.locals
        .iter()
        .filter(|(_, v)| v.space == AddressSpace::Local)
        .map(|(_, v)| u64::from(module.size_of(v.ty)))
        .sum()
}

/// The distinct sizes and arguments the kernel is launched with, each with its first launch.
fn launch_views(
    module: &Module,
    workload: &Workload,
    f: &Function,
    param: u32,
) -> Result<Vec<(LaunchView, usize)>, Refusal> {
    let mut views: Vec<(LaunchView, usize)> = Vec::new();
    for step in workload.schedule() {
        let step = step.map_err(|e| Refusal::unlocated(format!("the workload's schedule: {e}")))?;
        let launch = &workload.launches[step.launch];
        if launch.kernel != f.name {
            continue;
        }
        let range = &launch.range;
        let (local, chosen) = match range.local {
            Some(l) => (l, None),
            None => {
                let l = clmap_sim::default_local_size(range);
                (l, Some(l))
            }
        };
        let scalars = scalar_values(module, f, &step.args);
        let buffer_len = match step.args.get(param as usize) {
            Some(StepArg::Buffer { slot }) => {
                let bytes = workload.buffers.get(*slot).map_or(0, |b| b.byte_len());
                let element = u64::from(module.size_of(pointee(module, f, param))).max(1);
                for (k, other) in step.args.iter().enumerate() {
                    if k != param as usize
                        && matches!(other, StepArg::Buffer { slot: s } if s == slot)
                    {
                        return Err(Refusal::new(
                            format!(
                                "the workload passes the same buffer as `{}` and `{}`: the kernel \
                                 may write what the tile holds",
                                f.params[param as usize].name, f.params[k].name
                            ),
                            f.params[k].span,
                        ));
                    }
                }
                bytes / element
            }
            _ => {
                return Err(Refusal::new(
                    format!(
                        "launch {} passes no buffer as `{}`",
                        step.launch + 1,
                        f.params[param as usize].name
                    ),
                    f.params[param as usize].span,
                ))
            }
        };
        let local_arg_bytes = step
            .args
            .iter()
            .map(|a| match a {
                StepArg::Local { bytes } => *bytes,
                _ => 0,
            })
            .sum();
        let view = LaunchView {
            facts: LaunchFacts { global: range.global, local, offset: range.offset, scalars },
            dims: range.dims,
            buffer_len,
            chosen_local_size: chosen,
            local_arg_bytes,
        };
        let seen = views.iter().any(|(v, _)| {
            v.facts.global == view.facts.global
                && v.facts.local == view.facts.local
                && v.facts.offset == view.facts.offset
                && v.facts.scalars == view.facts.scalars
                && v.buffer_len == view.buffer_len
                && v.local_arg_bytes == view.local_arg_bytes
        });
        if !seen {
            views.push((view, step.launch));
        }
    }
    Ok(views)
}

/// The tile as a footprint, with the MAP detection gives the buffer.
fn footprint(
    original: &PreparedWorkload,
    kernel: &str,
    buffer: &str,
    tile: &TileBox,
    element_bytes: u64,
) -> Footprint {
    let detections = detect(original.module(), original.workload(), original.sources());
    let found = detections.into_iter().find(|d| d.kernel == kernel && d.buffer == buffer);
    let (map, imap, radius, map_note) = match found.map(|d| d.outcome) {
        Some(DetectOutcome::Map { map, .. }) => {
            let radius = matches!(
                map.imap,
                clmap_aristotle::map::IMapKind::Block | clmap_aristotle::map::IMapKind::Neighbor
            )
            .then_some(map.radius);
            (Some(map.name()), Some(map.imap.name().to_string()), radius, None)
        }
        Some(DetectOutcome::Refused { reason }) => (None, None, None, Some(reason)),
        Some(DetectOutcome::Mismatch { map, .. }) => (
            None,
            None,
            None,
            Some(format!("{} predicted, but the simulator read other elements", map.name())),
        ),
        None => (None, None, None, Some("not detected".into())),
    };
    Footprint {
        map,
        imap,
        radius,
        map_note,
        row_length: tile.width,
        rows: tile.rows,
        columns: tile.columns,
        elements: tile.elements(),
        bytes: tile.elements().saturating_mul(element_bytes),
        origin: tile.origin_text(),
        reuse: tile.accesses_per_group as f64 / tile.elements().max(1) as f64,
    }
}

/// `file:line:col: reason` for a refusal, with the source line under it (for reports).
pub fn describe_refusal(refusal: &Refusal, sources: &clmap_lang::SourceMap) -> String {
    let mut out = refusal.describe(sources);
    if let Some((_, _, text)) = clmap_aristotle::detect::source_line(sources, refusal.span) {
        out.push_str(&format!("\n    {text}"));
    }
    out
}
