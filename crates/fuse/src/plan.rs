//! What one fused kernel does: for every stage, where each buffer parameter's data comes
//! from (global memory, or the local tile of an earlier stage), what it writes and where,
//! and the symbolic facts code generation needs (row-major strides, index components). All
//! refusals of a segment are decided here, before any code exists.

use std::collections::HashMap;
use std::rc::Rc;

use clmap_lang::ir::{Function, Handle, Module, TypeInner};
use clmap_workload::{LaunchArg, Workload};

use crate::analysis::{analyse, AccessKind, KernelAccesses};
use crate::pipeline::Stage;
use crate::refusal::Refusal;
use crate::sym::{Atom, Cond, Linear, Sym};

/// Where a buffer parameter of a stage reads from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Global memory, as the kernel always did.
    Global,
    /// The local tile of output `output` of stage `producer` of the same fused kernel.
    Tile { producer: usize, output: usize },
}

/// One buffer a stage writes.
#[derive(Clone, Debug)]
pub struct Output {
    pub param: u32,
    pub storage: String,
    /// Row-major strides of the write index (`strides[0] == 1`).
    pub strides: Vec<i64>,
    /// The write index is `Σ (gid_d + offset_d) * strides_d`.
    pub offset: Vec<i64>,
    /// The work-items that write (all guards of the writes, or-ed); `None` when a guard
    /// cannot be followed, in which case every tile point first gets the old value.
    pub written: Option<Cond>,
    /// Elements of the buffer (the old value is loaded only within it).
    pub len: u64,
    /// Element type, as OpenCL C spells it.
    pub elem: String,
    /// The result goes to global memory (core tile only) besides the local tile.
    pub to_global: bool,
    /// The result goes to a local tile (a later stage reads it).
    pub to_tile: bool,
    /// Core points the kernel does not write get this storage's value: set where the result
    /// goes to another storage than the kernel's own (a scratch buffer), which must end
    /// complete.
    pub fill_from: Option<String>,
    /// Nobody reads this result (a step's copy, of which only the last step's is kept): it
    /// goes to a local tile that is never read, rather than to global memory where the
    /// values of other steps would land.
    pub discard: bool,
}

impl Output {
    /// The global index of work-item `p` (names spell the point's coordinates).
    pub fn index_c(&self, point: &[String]) -> String {
        let mut parts = Vec::new();
        for (d, s) in self.strides.iter().enumerate() {
            parts.push(format!("({} + {}) * {}", point[d], self.offset[d], s));
        }
        parts.join(" + ")
    }
}

/// One read of a tile: its component per dimension (a producer work-item coordinate, once
/// the producer's offset is taken off).
#[derive(Clone, Debug)]
pub struct TileRead {
    pub place: Handle<clmap_lang::ir::Expression>,
    pub components: Vec<Linear>,
}

#[derive(Clone, Debug)]
pub struct StagePlan {
    pub launch: usize,
    pub kernel: String,
    pub function: Handle<Function>,
    pub storage: Vec<Option<String>>,
    /// The repetition of its launch this stage computes (see [`crate::pipeline::Stage`]).
    pub repetition: Option<clmap_workload::Expr>,
    /// Integer by-value arguments.
    pub values: HashMap<u32, i64>,
    pub accesses: Rc<KernelAccesses>,
    pub sources: HashMap<u32, Source>,
    pub tile_reads: HashMap<u32, Vec<TileRead>>,
    /// The buffers it writes, by parameter order.
    pub outputs: Vec<Output>,
}

impl StagePlan {
    /// The output written through parameter `param`.
    pub fn output_of(&self, param: u32) -> Option<(usize, &Output)> {
        self.outputs.iter().enumerate().find(|(_, o)| o.param == param)
    }

    pub fn value_of(&self) -> impl Fn(Atom) -> Option<i64> + '_ {
        move |a| match a {
            Atom::Param(p) => self.values.get(&p).copied(),
            _ => None,
        }
    }
}

/// A fused kernel's stages, checked.
#[derive(Clone, Debug)]
pub struct Plan {
    pub stages: Vec<StagePlan>,
    /// The index space every stage shares.
    pub global: Vec<u64>,
}

/// A write of the last stage sent to a scratch buffer instead of its storage: temporal
/// fusion of an even number of steps, whose last step writes the buffer the first reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The ping-pong pair: the last stage writes one of them.
    pub pair: (String, String),
    pub scratch: String,
}

/// Plans the stages; `live_after` says whether a storage's content is used after the
/// segment (for the last writer of each storage).
pub fn plan(
    module: &Module,
    workload: &Workload,
    stages: &[Stage],
    live_after: &dyn Fn(&str) -> bool,
    redirect: Option<&Redirect>,
    analyses: &mut HashMap<usize, Rc<KernelAccesses>>,
) -> Result<Plan, Refusal> {
    let first = &workload.launches[stages[0].launch];
    let dims = first.range.dims as usize;
    let global: Vec<u64> = first.range.global[..dims].to_vec();
    let mut out: Vec<StagePlan> = Vec::new();
    for (k, stage) in stages.iter().enumerate() {
        let launch = &workload.launches[stage.launch];
        if launch.range.offset != [0; 3] {
            return Err(Refusal::unlocated(format!(
                "`{}` runs with a global offset",
                launch.kernel
            )));
        }
        let function = module.kernel_by_name(&launch.kernel).ok_or_else(|| {
            Refusal::unlocated(format!("the program has no kernel `{}`", launch.kernel))
        })?;
        let accesses = analyses
            .entry(stage.launch)
            .or_insert_with(|| Rc::new(analyse(module, function, launch.range.global)))
            .clone();
        if let Some(b) = accesses.blockers.first() {
            return Err(b.clone());
        }
        let mut values = HashMap::new();
        for (i, arg) in launch.args.iter().enumerate() {
            if let LaunchArg::Scalar { value, .. } = arg {
                if let [n] = value.as_slice() {
                    if let Some(v) = match n {
                        clmap_workload::Number::Int(v) => i64::try_from(*v).ok(),
                        clmap_workload::Number::Float(_) => None,
                    } {
                        values.insert(i as u32, v);
                    }
                }
            }
        }
        let f = &module.functions[function];
        let sub = |s: &Sym| {
            s.substitute(&|a| match a {
                Atom::Param(p) => values.get(&p).copied(),
                _ => None,
            })
        };
        // The written buffers, each at one affine, injective index of the work-item.
        let written: Vec<u32> = {
            let mut w: Vec<u32> =
                accesses.accesses.iter().filter(|a| a.kind.writes()).map(|a| a.param).collect();
            w.sort();
            w.dedup();
            w
        };
        if written.is_empty() {
            return Err(Refusal::new(format!("`{}` writes no buffer", f.name), f.span));
        }
        let mut outputs = Vec::new();
        for &param in &written {
            outputs.push(plan_output(module, workload, stage, &accesses, &values, &global, param)?);
        }
        // Reads.
        let mut sources = HashMap::new();
        let mut tile_reads: HashMap<u32, Vec<TileRead>> = HashMap::new();
        for (p, s) in stage.storage.iter().enumerate() {
            let Some(s) = s else { continue };
            let p = p as u32;
            let reads: Vec<_> = accesses.of_param(p).filter(|a| a.kind.reads()).collect();
            if let Some(o) = outputs.iter().find(|o| o.param != p && o.storage == *s) {
                return Err(Refusal::new(
                    format!(
                        "`{}` and `{}` are the same buffer `{s}` in this launch (an in-place update)",
                        f.params[p as usize].name, f.params[o.param as usize].name
                    ),
                    f.span,
                ));
            }
            if written.contains(&p) {
                continue;
            }
            let producer = (0..k)
                .rev()
                .find_map(|j| out[j].outputs.iter().position(|o| o.storage == *s).map(|o| (j, o)));
            let Some((producer, output)) = producer else {
                sources.insert(p, Source::Global);
                continue;
            };
            if reads.is_empty() {
                sources.insert(p, Source::Global);
                continue;
            }
            if let Some(r) = accesses.opaque_reason(p) {
                return Err(r.clone());
            }
            let strides = out[producer].outputs[output].strides.clone();
            let mut list = Vec::new();
            for r in reads {
                let i = match &r.index {
                    Ok(i) => sub(i),
                    Err(reason) => {
                        return Err(Refusal::new(
                            format!("the read index is not affine: {reason}"),
                            r.span,
                        ))
                    }
                };
                let lin = i
                    .linear()
                    .ok_or_else(|| Refusal::new("a product of unknowns in a read index", r.span))?;
                let components = lin.delinearise(&strides).ok_or_else(|| {
                    Refusal::new(
                        "the read index does not follow the producer's row-major layout",
                        r.span,
                    )
                })?;
                list.push(TileRead { place: r.place, components });
            }
            tile_reads.insert(p, list);
            sources.insert(p, Source::Tile { producer, output });
        }
        out.push(StagePlan {
            launch: stage.launch,
            kernel: f.name.clone(),
            function,
            storage: stage.storage.clone(),
            repetition: stage.repetition.clone(),
            values,
            accesses,
            sources,
            tile_reads,
            outputs,
        });
    }
    let last = out.len() - 1;
    if let Some(r) = redirect {
        redirect_last(&mut out[last], r, &global)?;
    }
    // Which outputs go where: a tile when a later stage reads it; global memory when it is the
    // last stage, or the last writer of a storage used after the segment.
    for k in 0..out.len() {
        for o in 0..out[k].outputs.len() {
            let storage = out[k].outputs[o].storage.clone();
            let to_tile = out[k + 1..].iter().any(|s| {
                s.sources.values().any(|src| *src == Source::Tile { producer: k, output: o })
            });
            let last_writer =
                !out[k + 1..].iter().any(|s| s.outputs.iter().any(|w| w.storage == storage));
            let output = &mut out[k].outputs[o];
            output.to_tile = to_tile;
            output.to_global = k == last || (last_writer && live_after(&storage));
            if !output.to_tile && !output.to_global {
                output.to_tile = true;
                output.discard = true;
            }
        }
    }
    // A storage written to global memory must not be read from global memory by the fused
    // kernel: other work-groups would see the new values too early.
    for k in 0..out.len() {
        for output in out[k].outputs.iter().filter(|o| o.to_global) {
            let storage = &output.storage;
            for (j, s) in out.iter().enumerate() {
                for (p, src) in &s.sources {
                    if *src == Source::Global && s.storage[*p as usize].as_deref() == Some(storage)
                    {
                        return Err(Refusal::unlocated(format!(
                            "stage {} (`{}`) reads `{storage}` from global memory while stage {} \
                             writes it there",
                            j + 1,
                            s.kernel,
                            k + 1
                        )));
                    }
                }
            }
        }
    }
    Ok(Plan { stages: out, global })
}

/// Sends the last stage's write of its buffer of the pair to `r.scratch`. The scratch buffer must end
/// holding what the storage would: every element is an index-space point (the layout is
/// the plain row-major one), and the points the kernel does not write, which are the same
/// in every repetition, get the storage's values.
fn redirect_last(stage: &mut StagePlan, r: &Redirect, global: &[u64]) -> Result<(), Refusal> {
    let kernel = stage.kernel.clone();
    let in_pair = |s: &str| s == r.pair.0 || s == r.pair.1;
    let Some(output) = stage.outputs.iter_mut().find(|o| in_pair(&o.storage)) else {
        return Err(Refusal::unlocated(format!(
            "an even number of steps: the last step of `{kernel}` writes neither `{}` nor `{}`",
            r.pair.0, r.pair.1
        )));
    };
    let storage = output.storage.clone();
    let mut row = 1i64;
    for (d, g) in global.iter().enumerate() {
        if output.strides[d] != row || output.offset[d] != 0 {
            return Err(Refusal::unlocated(format!(
                "an even number of steps needs `{storage}` written at every element, row by row"
            )));
        }
        row *= *g as i64;
    }
    if output.len != row as u64 {
        return Err(Refusal::unlocated(format!(
            "an even number of steps needs `{storage}` to be exactly the index space ({} elements, not {row})",
            output.len
        )));
    }
    let mut atoms = Vec::new();
    match &output.written {
        Some(c) => c.atoms(&mut atoms),
        None => {
            return Err(Refusal::unlocated(
                "an even number of steps needs the points a step writes to be known",
            ))
        }
    }
    if atoms.iter().any(|a| matches!(a, Atom::Param(_))) {
        return Err(Refusal::unlocated(
            "an even number of steps needs every step to write the same points (the guard \
             depends on a value that changes with the repetition)",
        ));
    }
    output.fill_from = Some(storage);
    output.storage = r.scratch.clone();
    let param = output.param as usize;
    stage.storage[param] = Some(r.scratch.clone());
    Ok(())
}

/// One written buffer parameter of a stage: its layout over the work-items, the guard of its
/// writes, and where its storage is.
fn plan_output(
    module: &Module,
    workload: &Workload,
    stage: &Stage,
    accesses: &KernelAccesses,
    values: &HashMap<u32, i64>,
    global: &[u64],
    param: u32,
) -> Result<Output, Refusal> {
    let f = &module.functions[workload_function(module, workload, stage)];
    let value = |a: Atom| match a {
        Atom::Param(p) => values.get(&p).copied(),
        _ => None,
    };
    if let Some(r) = accesses.opaque_reason(param) {
        return Err(r.clone());
    }
    let writes: Vec<_> = accesses.of_param(param).collect();
    let mut index: Option<Sym> = None;
    let mut guards = Vec::new();
    for w in &writes {
        if w.kind != AccessKind::Write {
            return Err(Refusal::new(
                format!("`{}` is read and updated in place", f.params[param as usize].name),
                w.span,
            ));
        }
        if w.in_loop {
            return Err(Refusal::new(
                "a write inside a loop (more than one element per work-item)",
                w.span,
            ));
        }
        let i = match &w.index {
            Ok(i) => i.substitute(&value),
            Err(r) => {
                return Err(Refusal::new(format!("the write index is not affine: {r}"), w.span))
            }
        };
        if index.as_ref().is_some_and(|prev| prev.linear() != i.linear()) {
            return Err(Refusal::new("writes at different indices", w.span));
        }
        index = Some(i);
        guards.push(w.guard.substitute(&value));
    }
    let index = index.expect("a written parameter has a write");
    let span = writes[0].span;
    let (strides, offset) = write_layout(&index, global).map_err(|r| Refusal::new(r, span))?;
    let written = if guards.iter().any(|g| g.unknown().is_some()) {
        None
    } else if guards.len() == 1 {
        guards.pop()
    } else {
        Some(Cond::Or(guards))
    };
    let storage = stage.storage[param as usize].clone().expect("buffer argument");
    let buffer = workload.buffer(&storage).expect("bound storage exists");
    let elem = match &module.types[f.params[param as usize].ty] {
        TypeInner::Pointer { pointee, .. } => clmap_lang::print::print_type(module, *pointee),
        _ => unreachable!("buffer parameters are pointers"),
    };
    Ok(Output {
        param,
        storage,
        strides,
        offset,
        written,
        len: buffer.len,
        elem,
        to_global: false,
        to_tile: false,
        fill_from: None,
        discard: false,
    })
}

fn workload_function(module: &Module, workload: &Workload, stage: &Stage) -> Handle<Function> {
    module
        .kernel_by_name(&workload.launches[stage.launch].kernel)
        .expect("the stage's kernel was found when it was planned")
}

/// Strides and offsets of a write index `Σ (gid_d + o_d) * s_d` over a row-major layout.
fn write_layout(index: &Sym, global: &[u64]) -> Result<(Vec<i64>, Vec<i64>), String> {
    let lin = index.linear().ok_or("the write index multiplies unknowns")?;
    let mut strides = Vec::new();
    for d in 0..global.len() {
        let s = lin.coefficient(Atom::GlobalId(d as u8));
        if s <= 0 {
            return Err(format!(
                "the write index does not grow with get_global_id({d}); fusion needs one element per work-item"
            ));
        }
        strides.push(s);
    }
    if lin.terms.len() != global.len() {
        return Err("the write index depends on more than the work-item's global id".into());
    }
    if strides[0] != 1 {
        return Err("the write index does not step by one element along dimension 0".into());
    }
    for d in 1..strides.len() {
        if strides[d] < strides[d - 1] * global[d - 1] as i64 {
            return Err(format!(
                "the write index's stride along dimension {d} ({}) is smaller than a row ({}): \
                 work-items would overlap",
                strides[d],
                strides[d - 1] * global[d - 1] as i64
            ));
        }
    }
    let parts = Linear { terms: Default::default(), constant: lin.constant }
        .delinearise(&strides)
        .ok_or("the write index's offset does not split into rows")?;
    Ok((strides, parts.iter().map(|p| p.constant).collect()))
}
