//! Launching a kernel over an NDRange: argument binding, work-group scheduling on all cores,
//! and the deterministic merge of per-thread results.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clmap_lang::ir::{AddressSpace, Module, SamplerBits};
use clmap_workload::NdRange;

use crate::checkers::Checkers;
use crate::compile::compile_kernel;
use crate::error::SimError;
use crate::exec::{GroupExec, LaunchPlan, ParamValue};
use crate::image::{BoundImage, ImageArg};
use crate::memory::{buffer_base, region_base, SharedBuffer, LOCAL_REGION};
use crate::observer::{Observer, ObserverFactory};
use crate::program::{OpaqueParam, ParamInfo, ParamSlot, Program};
use crate::report::{Report, ReportSink};
use crate::schedule::UnitQueue;
use crate::spent::Spent;
use crate::value::from_memory;

/// Most work-items in one work-group.
pub const MAX_GROUP_LANES: u64 = 1 << 16;

/// Settings of a simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// Threads running work-groups; 0 means one per available core.
    pub threads: usize,
    /// Most steps (executed operations and loop iterations) one work-group may take before
    /// the run stops with [`SimError::StepLimit`].
    pub max_steps: u64,
    /// Most bytes one thread may allocate for a work-group's registers, local and private
    /// memory.
    pub max_memory_bytes: u64,
    /// Report data races on local and global memory.
    pub check_races: bool,
    /// Report uses of undefined values: stores to global or local memory, branches and
    /// addresses that depend on memory or variables nothing wrote, or on reads out of bounds.
    pub check_uninitialised: bool,
    /// Run only the first and the last work-group of each launch (Oclgrind's `--quick`): a
    /// fast look at a large launch, whose outputs are then incomplete.
    pub quick: bool,
    /// Keep a finding of every work-item that runs into it, as Oclgrind prints them, instead
    /// of one per kind, place and object with a count ([`Report::occurrences`]): a race for
    /// every work-item that conflicts with an earlier one, ordered as Oclgrind finds it
    /// ([`Report::sync`]), a copy never waited for once per work-group; barrier divergence
    /// stays one per place.
    pub report_every_work_item: bool,
    /// Run under the interactive debugger: the workload's kernels are compiled for it and
    /// every launch runs on one thread, work-groups in order (see [`crate::debugger`]).
    pub debugger: Option<crate::debugger::DebugHook>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            threads: 0,
            max_steps: 200_000_000,
            max_memory_bytes: 1 << 30,
            check_races: false,
            check_uninitialised: false,
            quick: false,
            report_every_work_item: false,
            debugger: None,
        }
    }
}

impl SimOptions {
    /// The number of threads actually used.
    pub fn thread_count(&self) -> usize {
        if self.threads == 0 {
            // Asking the OS reads cgroup files (tens of microseconds): once per process, not
            // once per launch, or pipelines of small launches pay it every time.
            static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
            *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        } else {
            self.threads
        }
    }
}

/// A kernel argument.
#[derive(Clone, Debug)]
pub enum ArgValue {
    /// A global or constant buffer (shared: the kernel's writes are visible through it).
    Buffer(SharedBuffer),
    /// A by-value argument: little-endian bytes as `clSetKernelArg` receives them.
    Bytes(Vec<u8>),
    /// A `__local` pointer: bytes allocated per work-group.
    Local(u64),
    /// A NULL pointer.
    Null,
    /// An image: its storage (shared: the kernel's writes are visible through it) and
    /// descriptor. The descriptor's type must be the parameter's.
    Image(ImageArg),
    /// A `sampler_t`: the `CLK_*` bits, normalised coordinates | addressing | filter
    /// (`0x10 | 0x4`: unnormalised, `CLK_ADDRESS_CLAMP`, `CLK_FILTER_NEAREST`).
    Sampler(u32),
}

/// What a kernel launch produced besides the buffer contents.
#[derive(Debug)]
pub struct KernelRun<O> {
    /// Findings, sorted by work-group, work-item and location.
    pub reports: Vec<Report>,
    /// `printf` output, one string per call, by work-group then work-item.
    pub printf: Vec<String>,
    /// The merged observer.
    pub observer: O,
    pub work_groups: u64,
    pub local_size: [u64; 3],
}

/// Compiles kernel `kernel` of `module` and runs it; see [`run_program`].
pub fn run_kernel<F: ObserverFactory>(
    module: &Module,
    kernel: &str,
    range: &NdRange,
    args: &[ArgValue],
    options: &SimOptions,
    observers: &F,
) -> Result<KernelRun<F::Observer>, SimError> {
    let program = compile_kernel(module, kernel)?;
    run_program(&program, range, args, options, observers)
}

/// The work-group size used when a launch gives none: the largest divisors of the global size
/// up to 64 work-items in x and 256 in all.
pub fn default_local_size(range: &NdRange) -> [u64; 3] {
    let mut local = [1u64; 3];
    let mut budget = 256u64;
    for d in 0..usize::from(range.dims.clamp(1, 3)) {
        let cap = if d == 0 { 64.min(budget) } else { budget };
        let g = range.global[d].max(1);
        let l = (1..=cap.min(g)).rev().find(|l| g % l == 0).unwrap_or(1);
        local[d] = l;
        budget = (budget / l).max(1);
    }
    local
}

fn bad(message: impl Into<String>) -> SimError {
    SimError::BadArguments { message: message.into() }
}

/// The storage of a program's `__global` program-scope variables (OpenCL C 2.0): created
/// from their initialisers by the first launch that uses each, then kept, so that launches of
/// the same program see what earlier ones wrote, as OpenCL 2.0 says.
#[derive(Clone, Debug, Default)]
pub struct ProgramGlobals {
    /// By index of the variable in the module.
    buffers: std::collections::HashMap<u32, SharedBuffer>,
}

impl ProgramGlobals {
    /// The contents of the variable called `name`, if a launch has used it.
    pub fn bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.buffers.values().find(|b| &*b.name == name).map(SharedBuffer::to_bytes)
    }
}

/// Runs a compiled kernel over `range` with `args`; its program-scope variables start from
/// their initialisers (see [`run_program_with_globals`] for a program's launches in turn).
pub fn run_program<F: ObserverFactory>(
    program: &Program,
    range: &NdRange,
    args: &[ArgValue],
    options: &SimOptions,
    observers: &F,
) -> Result<KernelRun<F::Observer>, SimError> {
    run_program_with_globals(
        program,
        range,
        args,
        options,
        observers,
        &mut ProgramGlobals::default(),
    )
}

/// [`run_program`] with the `__global` program-scope variables kept in `globals`, which the
/// launches of one program share.
pub fn run_program_with_globals<F: ObserverFactory>(
    program: &Program,
    range: &NdRange,
    args: &[ArgValue],
    options: &SimOptions,
    observers: &F,
    globals: &mut ProgramGlobals,
) -> Result<KernelRun<F::Observer>, SimError> {
    let profiling = crate::profile::enabled();
    let started = profiling.then(Instant::now);
    range.validate_for(program.partial_groups).map_err(|message| SimError::BadRange { message })?;
    let local_size = range.local.unwrap_or_else(|| default_local_size(range));
    let lanes = local_size.iter().product::<u64>();
    if lanes > MAX_GROUP_LANES {
        return Err(SimError::BadRange {
            message: format!(
                "work-groups of {lanes} work-items; at most {MAX_GROUP_LANES} are simulated"
            ),
        });
    }
    if let Some(reqd) = program.reqd_work_group_size {
        let reqd = reqd.map(u64::from);
        if reqd != local_size {
            return Err(SimError::BadRange {
                message: format!(
                    "the kernel requires work-groups of {reqd:?}, the launch uses {local_size:?}"
                ),
            });
        }
    }
    let mut num_groups = [1u64; 3];
    for d in 0..3 {
        if range.global[d] % local_size[d] != 0 && !program.partial_groups {
            return Err(SimError::BadRange {
                message: format!(
                    "local size {} does not divide global size {} in dimension {d}",
                    local_size[d], range.global[d]
                ),
            });
        }
        // OpenCL C 2.0: a last, smaller group covers the rest.
        num_groups[d] = range.global[d].div_ceil(local_size[d]);
    }
    let uniform = (0..3).all(|d| range.global[d] % local_size[d] == 0);
    if args.len() != program.params.len() {
        return Err(bad(format!(
            "kernel `{}` takes {} arguments, {} given",
            program.kernel,
            program.params.len(),
            args.len()
        )));
    }

    // Bind arguments: buffers get regions in argument order, program constants after them.
    let mut buffers = Vec::new();
    let mut images = Vec::new();
    let mut local_bytes = program.local_size;
    let mut param_values = Vec::new();
    for (param, arg) in program.params.iter().zip(args) {
        if let Some(opaque) = param.opaque {
            let value = bind_opaque(param, opaque, arg, &mut buffers, &mut images)?;
            param_values.push(ParamValue::Components(vec![value]));
            continue;
        }
        let pointer_value = match (param.pointer_space, arg) {
            (Some(_), ArgValue::Buffer(b)) => {
                buffers.push(b.clone());
                Some(buffer_base(buffers.len() - 1))
            }
            (Some(AddressSpace::Local), ArgValue::Local(n)) => {
                let offset = local_bytes.div_ceil(16) * 16;
                local_bytes =
                    offset.checked_add(*n).ok_or_else(|| bad("local memory size overflows"))?;
                Some(region_base(LOCAL_REGION) + offset)
            }
            (Some(_), ArgValue::Null) => Some(0),
            (Some(_), other) => {
                return Err(bad(format!(
                    "parameter `{}` is a pointer; got {}",
                    param.name,
                    describe(other)
                )))
            }
            (None, ArgValue::Bytes(_)) => None,
            (None, other) => {
                return Err(bad(format!(
                    "parameter `{}` is passed by value; got {}",
                    param.name,
                    describe(other)
                )))
            }
        };
        let value = match (&param.slot, pointer_value, arg) {
            (ParamSlot::Reg { .. }, Some(p), _) => ParamValue::Components(vec![p]),
            (ParamSlot::Private { .. }, Some(p), _) => ParamValue::Bytes(p.to_le_bytes().to_vec()),
            (ParamSlot::Reg { scalar, width, .. }, None, ArgValue::Bytes(bytes)) => {
                let size = scalar.size() as usize;
                let mut values = Vec::new();
                for c in 0..*width as usize {
                    let chunk = bytes.get(c * size..(c + 1) * size).ok_or_else(|| {
                        bad(format!(
                            "parameter `{}` needs {} bytes, {} given",
                            param.name,
                            size * *width as usize,
                            bytes.len()
                        ))
                    })?;
                    let mut raw = [0u8; 8];
                    raw[..size].copy_from_slice(chunk);
                    values.push(from_memory(*scalar, u64::from_le_bytes(raw)));
                }
                ParamValue::Components(values)
            }
            (ParamSlot::Private { size, .. }, None, ArgValue::Bytes(bytes)) => {
                if (bytes.len() as u64) < *size {
                    return Err(bad(format!(
                        "parameter `{}` needs {size} bytes, {} given",
                        param.name,
                        bytes.len()
                    )));
                }
                ParamValue::Bytes(bytes.clone())
            }
            _ => return Err(bad(format!("cannot bind parameter `{}`", param.name))),
        };
        param_values.push(value);
    }
    let globals_base = buffers.len();
    images.resize(globals_base, None);
    for g in &program.globals {
        buffers.push(if g.persistent {
            globals
                .buffers
                .entry(g.variable)
                .or_insert_with(|| {
                    SharedBuffer::from_bytes(&g.name, &g.initial_bytes(globals_base))
                })
                .clone()
        } else {
            SharedBuffer::from_bytes(&g.name, &g.initial_bytes(globals_base))
        });
    }

    // Memory per thread.
    let regs = u64::from(program.slots).saturating_mul(lanes).saturating_mul(8);
    let private = program.private_size.saturating_mul(lanes);
    let needed = regs.saturating_add(private).saturating_add(local_bytes);
    if needed > options.max_memory_bytes {
        return Err(SimError::AllocationLimit {
            what: format!(
                "a work-group ({} register bytes, {private} private bytes, {local_bytes} local bytes)",
                regs
            ),
            needed,
            limit: options.max_memory_bytes,
        });
    }

    let plan = LaunchPlan {
        program,
        buffers,
        globals_base,
        images,
        param_values,
        local_size_bytes: local_bytes,
        global_size: range.global,
        local_size,
        global_offset: range.offset,
        num_groups,
        dims: u32::from(range.dims),
        max_steps: options.max_steps,
        check_uninitialised: options.check_uninitialised,
        unobserved: F::Observer::OBSERVES_NOTHING
            && !options.check_races
            && !options.check_uninitialised
            && options.debugger.is_none(),
        debugger: options.debugger.clone(),
    };
    if let Some(debugger) = &plan.debugger {
        debugger.launch_started(program, &plan);
    }
    let groups = plan.group_count();
    // Under `quick`, the first and the last group: indices 0 and 1 of the run stand for them.
    let scheduled = if options.quick { groups.min(2) } else { groups };
    let group_of = |index: u64| if options.quick && index == 1 { groups - 1 } else { index };
    // The debugger follows one work-item through groups that run one after another.
    let cores = if options.debugger.is_some() { 1 } else { options.thread_count().max(1) };
    let pieces = if plan.unobserved && program.independent_work_items && local_bytes == 0 && uniform
    {
        pieces_per_group(scheduled, lanes as usize, cores)
    } else {
        1
    };
    // Units of work: the pieces of each scheduled group, in group order.
    let units = scheduled * pieces as u64;
    let threads = (cores as u64).clamp(1, units.max(1)) as usize;
    let queue = UnitQueue::new(units, threads);
    let abort = AtomicBool::new(false);
    crate::progress::launch_started(units);
    let make = || (observers.create(), Checkers::new(options, &plan));

    // Threads merge their results as they finish, into one slot: a thread that finds the
    // slot empty leaves its results there and stops, one that finds it full takes what is
    // there, absorbs it and looks again. So merging overlaps the tail of the launch and runs
    // on the launch's own threads (no thread is started for it); when the last thread
    // leaves, the slot holds everything.
    let pending: Mutex<Option<ThreadResult<F::Observer>>> = Mutex::new(None);
    let worker = || -> WorkerTimes {
        let began = profiling.then(Instant::now);
        let mut ex = GroupExec::in_pieces(&plan, make(), pieces);
        ex.reports = ReportSink::new(options.report_every_work_item);
        if let Some(uninit) = ex.uninit.as_deref_mut() {
            uninit.every_lane = options.report_every_work_item;
        }
        let mut error = None;
        'claims: while let Some(run) = queue.claim() {
            for unit in run {
                if abort.load(Ordering::Relaxed) {
                    break 'claims;
                }
                crate::progress::unit_started();
                let index = group_of(unit / pieces as u64);
                if let Err(e) = ex.run_unit(index * pieces as u64 + unit % pieces as u64) {
                    error = Some((index, e));
                    abort.store(true, Ordering::Relaxed);
                    break 'claims;
                }
            }
        }
        let done = profiling.then(Instant::now);
        let GroupExec { observer: (user, checkers), reports, printf, .. } = ex;
        let mut result = ThreadResult {
            observer: user,
            checkers,
            reports,
            printf,
            error,
            spent: Spent::default(),
        };
        let mut merges = 0;
        loop {
            let mut slot = pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let Some(other) = slot.take() else {
                *slot = Some(result);
                break;
            };
            drop(slot);
            result.absorb(other);
            merges += 1;
        }
        WorkerTimes {
            busy: began.zip(done).map(|(b, d)| d - b).unwrap_or_default(),
            done,
            merges,
            merging: done.map(|d| d.elapsed()).unwrap_or_default(),
        }
    };

    let parallel_start = profiling.then(Instant::now);
    let times: Vec<WorkerTimes> = if threads == 1 {
        vec![worker()]
    } else {
        std::thread::scope(|scope| {
            // Each thread makes its own observer and checkers, so that setting them up (and
            // the memory they first touch) is shared out too.
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
            handles.into_iter().map(|h| h.join()).collect::<Result<Vec<_>, _>>()
        })
        .map_err(|_| SimError::InvalidIr { message: "a simulation thread failed".to_string() })?
    };
    let merge_end = profiling.then(Instant::now);
    // The parallel phase ends when the last thread takes no more work; what follows until
    // every thread has left is the merge the run waits for.
    let merge_start = times.iter().filter_map(|t| t.done).max();
    let pending = pending.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    let Some(merged) = pending else {
        return Err(SimError::InvalidIr { message: "a launch without threads".to_string() });
    };
    let mut sink = merged.reports;
    let mut printf = merged.printf;
    if let Some((_, e)) = merged.error {
        return Err(e);
    }
    let mut checkers = merged.checkers;
    for r in checkers.finish() {
        sink.push(r);
    }
    // The race shadow (tens of megabytes on a large launch) and what the merges were done
    // with (the observers' combined pages) are freed on a thread of their own, so that the
    // caller does not wait for them.
    let spent = merged.spent;
    if checkers.holds_tables() || !spent.is_empty() {
        // When no thread can be started, the closure (and the tables) is dropped here.
        let _ = std::thread::Builder::new().spawn(move || drop((checkers, spent)));
    }
    let mut observer = merged.observer;
    for r in observer.take_reports() {
        sink.push(r);
    }
    printf.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let reports = sink.into_sorted();
    if let (Some(started), Some(parallel_start), Some(merge_start), Some(merge_end)) =
        (started, parallel_start, merge_start, merge_end)
    {
        crate::profile::LaunchTimes {
            units,
            threads,
            setup: parallel_start - started,
            parallel: merge_start - parallel_start,
            busy: times.iter().map(|t| t.busy).collect(),
            merge: merge_end - merge_start,
            merges: times.iter().map(|t| t.merges).sum(),
            merging: times.iter().map(|t| t.merging).sum(),
            finish: merge_end.elapsed(),
        }
        .print();
    }
    Ok(KernelRun {
        reports,
        printf: printf.into_iter().map(|p| p.3).collect(),
        observer,
        work_groups: groups,
        local_size,
    })
}

/// Fewest lanes in a piece of a work-group: narrower pieces would spend more on dispatching
/// operations than they gain from running on more cores.
const MIN_PIECE_LANES: usize = 32;

/// Into how many pieces each of `groups` work-groups of `lanes` independent work-items is
/// split so that `cores` threads share the launch evenly: none (1) when there are several
/// groups per core already; else enough for about four units per core, each of at least
/// [`MIN_PIECE_LANES`] lanes, the count dividing `lanes`. Four per core rather than one,
/// because lanes differ in work (a triangular loop gives the first lanes the most).
fn pieces_per_group(groups: u64, lanes: usize, cores: usize) -> usize {
    let wanted = 4 * cores as u64;
    if cores <= 1 || groups == 0 || groups >= wanted {
        return 1;
    }
    let most = (wanted.div_ceil(groups) as usize).min(lanes / MIN_PIECE_LANES);
    (1..=most).rev().find(|p| lanes.is_multiple_of(*p)).unwrap_or(1)
}

struct ThreadResult<O> {
    observer: O,
    checkers: Checkers,
    reports: ReportSink,
    printf: Vec<(u64, usize, u64, String)>,
    error: Option<(u64, SimError)>,
    /// What the merges into this result were done with, freed after the launch.
    spent: Spent,
}

/// What a thread of a launch measured (only when profiling).
struct WorkerTimes {
    /// From its start to taking no more work.
    busy: Duration,
    /// When it took no more work.
    done: Option<Instant>,
    /// Other threads' results it absorbed, and the time from `done` to leaving its results.
    merges: usize,
    merging: Duration,
}

impl<O: Observer> ThreadResult<O> {
    /// Absorbs another thread's results. Every part merges commutatively and associatively,
    /// so results do not depend on which thread ran which group, nor on the merge order.
    fn absorb(&mut self, other: ThreadResult<O>) {
        self.observer.merge_keeping(other.observer, &mut self.spent);
        self.spent.append(other.spent);
        self.checkers.merge(other.checkers);
        self.reports.merge(other.reports);
        self.printf.extend(other.printf);
        if let Some((index, e)) = other.error {
            if self.error.as_ref().is_none_or(|(i, _)| index < *i) {
                self.error = Some((index, e));
            }
        }
    }
}

fn describe(arg: &ArgValue) -> &'static str {
    match arg {
        ArgValue::Buffer(_) => "a buffer",
        ArgValue::Bytes(_) => "a value",
        ArgValue::Local(_) => "a local-memory size",
        ArgValue::Null => "NULL",
        ArgValue::Image(_) => "an image",
        ArgValue::Sampler(_) => "a sampler",
    }
}

/// Binds an image or sampler argument; returns its register value. An image's storage
/// becomes a buffer of the launch and the value is the address of its first texel.
fn bind_opaque(
    param: &ParamInfo,
    opaque: OpaqueParam,
    arg: &ArgValue,
    buffers: &mut Vec<SharedBuffer>,
    images: &mut Vec<Option<BoundImage>>,
) -> Result<u64, SimError> {
    match (opaque, arg) {
        (OpaqueParam::Image(kind), ArgValue::Image(image)) => {
            let bound = BoundImage::new(image, kind)
                .map_err(|why| bad(format!("image argument of `{}`: {why}", param.name)))?;
            buffers.push(image.storage.clone());
            images.resize(buffers.len() - 1, None);
            images.push(Some(bound));
            Ok(buffer_base(buffers.len() - 1))
        }
        (OpaqueParam::Sampler, ArgValue::Sampler(bits)) => {
            if SamplerBits::decode(*bits).is_none() {
                return Err(bad(format!(
                    "sampler argument of `{}`: {bits:#x} is no combination of CLK_* sampler flags",
                    param.name
                )));
            }
            Ok(u64::from(*bits))
        }
        (OpaqueParam::Image(kind), other) => Err(bad(format!(
            "parameter `{}` is an {}; got {}",
            param.name,
            kind.name(),
            describe(other)
        ))),
        (OpaqueParam::Sampler, other) => {
            Err(bad(format!("parameter `{}` is a sampler_t; got {}", param.name, describe(other))))
        }
    }
}
