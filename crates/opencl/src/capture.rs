//! Capturing a run as workloads (`clmap exec --capture DIR`).
//!
//! Every launch becomes a single-launch workload: the program's source as built
//! (`program-N.cl`, with the headers it was compiled with beside it), its build options, the
//! NDRange, every argument with the contents it had when the kernel started
//! (`launch-NNNN-KERNEL/NAME.bin`), and the contents the kernel left in the buffers it may
//! write (`launch-NNNN-KERNEL.expected/NAME.bin`, for `clmap run --expect`).
//!
//! The run is also written as pipeline workloads over named buffers (`segment-NN.toml`): a
//! buffer keeps its name across launches, and a new segment starts wherever the host changed
//! a buffer between two launches (a write, a fill, a map, or its own `USE_HOST_PTR` array),
//! where the program changes, or where a buffer is used with another element type. A segment's
//! buffers start with the contents they had at their first launch in it, and
//! `segment-NN.expected/` holds what the segment left in them. Consecutive launches that repeat
//! one another, or exchange two buffers (a stencil's ping-pong), are folded into one launch
//! with `repeat` and `swap`, and a body of several launches that repeats (with integer
//! scalars advancing by a fixed step, as a time step does) into a `[[group]]` with loop
//! scalars, so the segment reads as the host loop it came from.
//!
//! By-value arguments a workload cannot write as numbers (structs) are written as their raw
//! bytes. Images are buffers with an `image = { … }` description (their texels packed, as the
//! simulator stores them), samplers their `CLK_*` flags. What a workload cannot express is left
//! out with a line in `capture.log`.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clmap_workload::{
    Access, Buffer, ElemType, Expr, Group, ImageSpec, ImageType, Init, Launch, LaunchArg, NdRange,
    Number, ScalarType, View, Workload,
};

use crate::config::config;
use crate::kernel::{Arg, Kernel, ParamKind};
use crate::object::Ptr;
use crate::program::Built;

/// A launch being captured: what to write once it has run.
pub struct Capture {
    index: usize,
    /// Buffers the kernel may write: (argument position, workload buffer name).
    written: Vec<(usize, String)>,
}

struct SegmentBuffer {
    name: String,
    elem: ElemType,
    image: Option<ImageSpec>,
    /// For a sub-buffer: its place in its parent (which the segment holds as a buffer too)
    /// and its size in bytes.
    view: Option<(View, u64)>,
    /// A parent the segment knows only through its sub-buffers: its element type is bytes
    /// until a launch passes it itself.
    implicit: bool,
    initial: Vec<u8>,
    last: Vec<u8>,
    written: bool,
}

#[derive(Default)]
struct Segment {
    program: usize,
    source_file: PathBuf,
    options: String,
    buffers: Vec<SegmentBuffer>,
    launches: Vec<Launch>,
}

#[derive(Default)]
struct State {
    launches: usize,
    segments: usize,
    /// Each captured program's file, by the address of its build. The build is held here so
    /// that its address cannot be reused: a program released and another built after it
    /// would otherwise be taken for the first (libraries with a program cache do that).
    programs: HashMap<usize, (Arc<Built>, PathBuf)>,
    segment: Option<Segment>,
    registered: bool,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

extern "C" {
    fn atexit(callback: extern "C" fn()) -> i32;
}

extern "C" fn flush_at_exit() {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if let (Some(state), Some(dir)) = (guard.as_mut(), config().capture.as_ref()) {
        flush_segment(dir, state);
    }
}

fn note(dir: &Path, text: &str) {
    if let Ok(mut f) =
        std::fs::OpenOptions::new().create(true).append(true).open(dir.join("capture.log"))
    {
        let _ = writeln!(f, "{text}");
    }
}

/// A buffer name from a memory object's label (`buffer3`, `buffer3+128`).
fn buffer_name(label: &str) -> String {
    label.replace('+', "_at")
}

/// The element type of a buffer argument: the parameter's pointee type when a workload can
/// name it, bytes otherwise.
fn elem_of(type_name: &str, bytes: usize) -> ElemType {
    let pointee = type_name.trim_end_matches('*').trim();
    let pointee = pointee.strip_prefix("const ").unwrap_or(pointee);
    match ElemType::parse(pointee) {
        Some(e) if e.size() > 0 && (bytes as u64).is_multiple_of(e.size()) => e,
        _ => ElemType::scalar(ScalarType::UChar),
    }
}

/// A buffer or image argument of the launch being captured, as the segment records it. A
/// sub-buffer argument gives two: its parent (`implicit`, with the parent's whole contents)
/// and the sub-buffer as a view of it (no contents of its own).
struct Current {
    name: String,
    elem: ElemType,
    image: Option<ImageSpec>,
    view: Option<(View, u64)>,
    implicit: bool,
    bytes: Vec<u8>,
    may_write: bool,
}

/// The workload's description of an image memory object.
fn image_spec(mem: &crate::memory::Mem) -> Option<ImageSpec> {
    let crate::memory::MemKind::Image(meta) = &mem.kind else { return None };
    let desc = meta.desc;
    let spec = ImageSpec {
        ty: ImageType::from_mem_object_type(meta.object_type)?,
        width: desc.width.max(1),
        height: desc.height.max(1),
        depth: desc.depth.max(1),
        array_size: desc.array_size.max(1),
        channel_order: desc.channel_order,
        channel_type: desc.channel_type,
    };
    (spec.byte_len() == Some(mem.size as u64)).then_some(spec)
}

/// The element type that holds one channel of an image of `channel_type`, so the captured
/// texels compare channel by channel (packed formats: one element per texel).
fn image_elem(channel_type: u32) -> ElemType {
    let scalar = match clmap_workload::image::channel_type_name(channel_type) {
        Some("CL_FLOAT") => ScalarType::Float,
        Some("CL_SNORM_INT8" | "CL_SIGNED_INT8") => ScalarType::Char,
        Some("CL_SNORM_INT16" | "CL_SIGNED_INT16") => ScalarType::Short,
        Some("CL_UNORM_INT16" | "CL_UNSIGNED_INT16" | "CL_HALF_FLOAT") => ScalarType::UShort,
        Some("CL_UNORM_SHORT_565" | "CL_UNORM_SHORT_555") => ScalarType::UShort,
        Some("CL_SIGNED_INT32") => ScalarType::Int,
        Some("CL_UNSIGNED_INT32" | "CL_UNORM_INT_101010") => ScalarType::UInt,
        _ => ScalarType::UChar,
    };
    ElemType::scalar(scalar)
}

fn scalar_arg(name: &str, type_name: &str, bytes: &[u8]) -> Option<LaunchArg> {
    let ty = ElemType::parse(type_name)?;
    let size = ty.scalar.size() as usize;
    let value = (0..ty.width as usize)
        .map(|c| Number::read_le(ty.scalar, bytes.get(c * size..(c + 1) * size)?))
        .collect::<Option<Vec<Number>>>()?;
    Some(LaunchArg::Scalar { name: name.to_string(), ty, value })
}

fn write_file(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(path, bytes) {
        eprintln!("clmap: capture: cannot write {}: {e}", path.display());
    }
}

/// Writes the program's source (and headers) once; returns its path.
fn program_file(dir: &Path, state: &mut State, built: &Arc<Built>) -> PathBuf {
    let key = Arc::as_ptr(built) as usize;
    if let Some((_, path)) = state.programs.get(&key) {
        return path.clone();
    }
    let n = state.programs.len() + 1;
    let path = dir.join(format!("program-{n}.cl"));
    write_file(&path, built.source.as_bytes());
    for (id, file) in built.compiled.sources.files() {
        if id != built.compiled.main {
            if let Some(p) = &file.path {
                if p.is_relative() {
                    write_file(&dir.join(p), file.text.as_bytes());
                }
            }
        }
    }
    state.programs.insert(key, (Arc::clone(built), path.clone()));
    path
}

/// Starts capturing a launch when capture is on: writes its workload and inputs.
pub fn before(kernel: &Kernel, range: &NdRange, args: &[Arg]) -> Option<Capture> {
    let dir = config().capture.as_ref()?;
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let state = guard.get_or_insert_with(State::default);
    if !state.registered {
        state.registered = true;
        unsafe { atexit(flush_at_exit) };
    }
    state.launches += 1;
    let index = state.launches;
    let source_file = program_file(dir, state, &kernel.built);
    let tag = format!("launch-{index:04}-{}", kernel.name);

    let mut buffers = Vec::new();
    let mut launch_args = Vec::new();
    let mut written = Vec::new();
    let mut current: Vec<Current> = Vec::new();
    for (position, (arg, param)) in args.iter().zip(&kernel.params).enumerate() {
        let arg = match (arg, param.kind) {
            (Arg::Mem(m), ParamKind::Buffer { .. } | ParamKind::Image) => {
                let mem = &Ptr(*m).obj().inner;
                let name = buffer_name(&mem.label);
                let bytes = mem.bytes();
                let (elem, image, may_write) = match param.kind {
                    ParamKind::Buffer { constant } => (
                        elem_of(&param.type_name, bytes.len()),
                        None,
                        !constant
                            && param.type_qualifier & crate::cl::CL_KERNEL_ARG_TYPE_CONST == 0,
                    ),
                    _ => {
                        let Some(image) = image_spec(mem) else {
                            note(dir, &format!("{tag} ({}): argument `{}` is an image the workload format cannot describe; the launch is not captured", kernel.name, param.name));
                            return None;
                        };
                        let writes = param.access != crate::cl::CL_KERNEL_ARG_ACCESS_READ_ONLY;
                        (image_elem(image.channel_type), Some(image), writes)
                    }
                };
                let file = dir.join(&tag).join(format!("{name}.bin"));
                write_file(&file, &bytes);
                if may_write {
                    written.push((position, name.clone()));
                }
                // The same buffer passed twice is one buffer of the workload.
                if let Some(b) = buffers.iter_mut().find(|b: &&mut Buffer| b.name == name) {
                    b.output |= may_write;
                    launch_args.push(LaunchArg::Buffer { buffer: name });
                    continue;
                }
                buffers.push(Buffer {
                    name: name.clone(),
                    elem,
                    len: bytes.len() as u64 / elem.size(),
                    init: Init::File(file),
                    access: Access::ReadWrite,
                    output: may_write,
                    tolerance: None,
                    hex_dump: false,
                    image,
                    view: None,
                });
                if image.is_none() && !mem.is_whole_root() {
                    // A sub-buffer: the segment keeps its parent's storage, so that launches
                    // passing the parent, or other sub-buffers of it, see one buffer.
                    let parent = buffer_name(&mem.root.storage.name);
                    current.push(Current {
                        name: parent.clone(),
                        elem: ElemType::scalar(ScalarType::UChar),
                        image: None,
                        view: None,
                        implicit: true,
                        bytes: mem.root.storage.to_bytes(),
                        may_write,
                    });
                    let view = View { parent, offset: mem.offset as u64 };
                    current.push(Current {
                        name: name.clone(),
                        elem,
                        image: None,
                        view: Some((view, bytes.len() as u64)),
                        implicit: false,
                        bytes: Vec::new(),
                        may_write: false,
                    });
                } else {
                    current.push(Current {
                        name: name.clone(),
                        elem,
                        image,
                        view: None,
                        implicit: false,
                        bytes,
                        may_write,
                    });
                }
                LaunchArg::Buffer { buffer: name }
            }
            (Arg::Sampler(s), ParamKind::Sampler) => match crate::image::sampler_argument(*s) {
                Some(clmap_sim::ArgValue::Sampler(bits)) => {
                    LaunchArg::Sampler { name: param.name.clone(), bits }
                }
                _ => {
                    note(dir, &format!("{tag} ({}): sampler argument `{}` is not a sampler; the launch is not captured", kernel.name, param.name));
                    return None;
                }
            },
            (Arg::Null, _) => LaunchArg::Null { name: param.name.clone() },
            (Arg::Local(n), _) => {
                let elem = elem_of(&param.type_name, *n);
                LaunchArg::Local { name: param.name.clone(), elem, len: *n as u64 / elem.size() }
            }
            // Numbers where the type has them, the raw bytes otherwise (structs).
            (Arg::Bytes(b), _) => scalar_arg(&param.name, &param.type_name, b)
                .unwrap_or_else(|| LaunchArg::Bytes { name: param.name.clone(), bytes: b.clone() }),
            _ => {
                note(dir, &format!("{tag} ({}): argument `{}` does not match its parameter's kind; the launch is not captured", kernel.name, param.name));
                return None;
            }
        };
        launch_args.push(arg);
    }
    let outputs: Vec<String> =
        buffers.iter().filter(|b| b.output).map(|b| b.name.clone()).collect();
    let launch = Launch::new(kernel.name.clone(), *range, launch_args);
    let workload = Workload {
        path: None,
        source_path: source_file.clone(),
        source: kernel.built.source.clone(),
        options: kernel.built.options.clone(),
        buffers,
        launches: vec![launch.clone()],
        groups: Vec::new(),
        outputs,
        bytes_moved: None,
    };
    write_file(&dir.join(format!("{tag}.toml")), workload.to_toml(dir).as_bytes());

    extend_segment(dir, state, kernel, &source_file, launch, current);
    Some(Capture { index, written })
}

/// Adds a launch to the running segment, or starts a new one where the host changed a buffer
/// the segment knows, the program changed, or a buffer changed its element type.
fn extend_segment(
    dir: &Path,
    state: &mut State,
    kernel: &Kernel,
    source_file: &Path,
    launch: Launch,
    current: Vec<Current>,
) {
    let program = Arc::as_ptr(&kernel.built) as usize;
    let breaks = match &state.segment {
        None => false,
        Some(segment) => {
            segment.program != program
                || current.iter().any(|c| {
                    segment.buffers.iter().any(|b| {
                        let retyped = b.elem != c.elem && !b.implicit && !c.implicit;
                        b.name == c.name
                            && (retyped
                                || b.image != c.image
                                || b.view != c.view
                                || b.last != c.bytes)
                    })
                })
        }
    };
    if breaks {
        flush_segment(dir, state);
    }
    let segment = state.segment.get_or_insert_with(|| Segment {
        program,
        source_file: source_file.to_path_buf(),
        options: kernel.built.options.clone(),
        ..Segment::default()
    });
    for c in current {
        match segment.buffers.iter_mut().find(|b| b.name == c.name) {
            Some(b) => {
                b.written |= c.may_write;
                // A parent known through its sub-buffers takes the type it is first passed as.
                if b.implicit && !c.implicit {
                    b.implicit = false;
                    b.elem = c.elem;
                }
            }
            None => segment.buffers.push(SegmentBuffer {
                name: c.name,
                elem: c.elem,
                image: c.image,
                view: c.view,
                implicit: c.implicit,
                initial: c.bytes.clone(),
                last: c.bytes,
                written: c.may_write,
            }),
        }
    }
    segment.launches.push(launch);
}

impl Capture {
    /// Records what the launch left in the buffers it may write.
    pub fn after(self, kernel: &Kernel, args: &[Arg]) {
        let Some(dir) = config().capture.as_ref() else { return };
        let tag = format!("launch-{:04}-{}", self.index, kernel.name);
        let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
        let state = guard.get_or_insert_with(State::default);
        for (position, name) in &self.written {
            let Some(Arg::Mem(m)) = args.get(*position) else { continue };
            let mem = &Ptr(*m).obj().inner;
            let bytes = mem.bytes();
            write_file(&dir.join(format!("{tag}.expected")).join(format!("{name}.bin")), &bytes);
            let Some(segment) = state.segment.as_mut() else { continue };
            // A sub-buffer's writes are its parent's.
            let (name, bytes) = match segment.buffers.iter().find(|b| b.name == *name) {
                Some(SegmentBuffer { view: Some((view, _)), .. }) => {
                    // A `USE_HOST_PTR` parent's bytes are the host's array, which the launch
                    // wrote the window back into.
                    mem.root.sync_in();
                    (view.parent.clone(), mem.root.storage.to_bytes())
                }
                _ => (name.clone(), bytes),
            };
            if let Some(b) = segment.buffers.iter_mut().find(|b| b.name == name) {
                b.last = bytes;
            }
        }
    }
}

/// Folds the launches of a host loop into repetitions, so that the segment reads as the loop
/// it came from (and fusion sees a repeated launch): a launch equal to the one before it is a
/// repetition; a launch that differs from the one before it only by exchanging two buffers of
/// the same type and size is a repetition with those buffers swapped after each step (the
/// ping-pong of a stencil loop). Launches name storages; the result names buffers, which the
/// swaps move between storages. Returns the launches and, per buffer name, the storage it
/// names at the end.
fn fold_repetitions(
    launches: Vec<Launch>,
    buffers: &[SegmentBuffer],
) -> (Vec<Launch>, HashMap<String, String>) {
    let mut names: HashMap<String, String> =
        buffers.iter().map(|b| (b.name.clone(), b.name.clone())).collect();
    let alike = |x: &str, y: &str| {
        // Views and the parents of views keep their storage: they are never swapped.
        let find = |n: &str| {
            buffers.iter().find(|b| b.name == n).filter(|b| {
                b.view.is_none()
                    && !buffers.iter().any(|v| v.view.as_ref().is_some_and(|(v, _)| v.parent == n))
            })
        };
        matches!((find(x), find(y)), (Some(a), Some(b)) if a.elem == b.elem && a.image == b.image && a.initial.len() == b.initial.len())
    };
    let mut out: Vec<Launch> = Vec::new();
    for mut launch in launches {
        // Storage to the name that refers to it now.
        for arg in &mut launch.args {
            if let LaunchArg::Buffer { buffer } = arg {
                if let Some((name, _)) = names.iter().find(|(_, storage)| *storage == buffer) {
                    *buffer = name.clone();
                }
            }
        }
        let extended = match out.last_mut() {
            Some(prev) if prev.kernel == launch.kernel && prev.range == launch.range => {
                if prev.args == launch.args {
                    prev.repeat += 1;
                    for (x, y) in prev.swap.clone() {
                        swap_names(&mut names, &x, &y);
                    }
                    true
                } else if prev.repeat == 1 && prev.swap.is_empty() {
                    match exchanged_pair(&prev.args, &launch.args) {
                        Some((x, y)) if alike(&x, &y) => {
                            prev.repeat = 2;
                            prev.swap = vec![(x, y)];
                            // Two swaps so far (after each repetition): the names are back.
                            true
                        }
                        _ => false,
                    }
                } else {
                    false
                }
            }
            _ => false,
        };
        if !extended {
            out.push(launch);
        }
    }
    (out, names)
}

fn swap_names(names: &mut HashMap<String, String>, x: &str, y: &str) {
    let (Some(sx), Some(sy)) = (names.get(x).cloned(), names.get(y).cloned()) else { return };
    names.insert(x.to_string(), sy);
    names.insert(y.to_string(), sx);
}

/// The two buffer names two argument lists exchange, when that is their only difference.
fn exchanged_pair(a: &[LaunchArg], b: &[LaunchArg]) -> Option<(String, String)> {
    if a.len() != b.len() {
        return None;
    }
    let mut pair: Option<(String, String)> = None;
    for (x, y) in a.iter().zip(b) {
        if x == y {
            continue;
        }
        let (LaunchArg::Buffer { buffer: bx }, LaunchArg::Buffer { buffer: by }) = (x, y) else {
            return None;
        };
        match &pair {
            None => pair = Some((bx.clone(), by.clone())),
            Some((p, q)) if p == by && q == bx => {}
            Some(_) => return None,
        }
    }
    // Both directions must have been seen: each name appears in both lists.
    let (p, q) = pair?;
    let seen_both = a.iter().any(|x| matches!(x, LaunchArg::Buffer { buffer } if *buffer == q));
    seen_both.then_some((p, q))
}

/// The name loop scalars of a folded host loop use for its step.
const STEP: &str = "step";

/// Longest loop body (in launches) looked for.
const MAX_BODY: usize = 16;

/// How launch `b` of repetition `k` of a loop body relates to launch `a` of its first
/// repetition: `Some(steps)` when they are the same launch except integer scalars that advance
/// by a fixed amount per repetition (`steps` gives, per argument, that amount or 0).
fn same_but_steps(a: &Launch, b: &Launch, k: i128) -> Option<Vec<i128>> {
    if a.kernel != b.kernel
        || a.range != b.range
        || a.repeat != b.repeat
        || a.swap != b.swap
        || a.args.len() != b.args.len()
        || !a.writes.is_empty()
        || !b.writes.is_empty()
    {
        return None;
    }
    a.args
        .iter()
        .zip(&b.args)
        .map(|pair| match pair {
            (x, y) if x == y => Some(0),
            (
                LaunchArg::Scalar { name: n1, ty: t1, value: v1 },
                LaunchArg::Scalar { name: n2, ty: t2, value: v2 },
            ) if n1 == n2
                && t1 == t2
                && !t1.scalar.is_float()
                && v1.len() == 1
                && v2.len() == 1 =>
            {
                match (v1[0], v2[0]) {
                    (Number::Int(x), Number::Int(y)) if (y - x) % k == 0 => Some((y - x) / k),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// How many times the body `launches[start..start + len]` repeats from `start` on, with every
/// varying scalar advancing by the same amount each time; and those amounts.
fn repetitions(launches: &[Launch], start: usize, len: usize) -> (usize, Vec<Vec<i128>>) {
    let body = &launches[start..start + len];
    let mut steps: Option<Vec<Vec<i128>>> = None;
    let mut count = 1;
    while start + (count + 1) * len <= launches.len() {
        let next = &launches[start + count * len..start + (count + 1) * len];
        let k = count as i128;
        let found: Option<Vec<Vec<i128>>> =
            body.iter().zip(next).map(|(a, b)| same_but_steps(a, b, k)).collect();
        match (found, &steps) {
            (Some(f), None) => steps = Some(f),
            (Some(f), Some(s)) if f == *s => {}
            _ => break,
        }
        count += 1;
    }
    (count, steps.unwrap_or_default())
}

/// Folds a host loop over several launches into a `[[group]]`: the longest run of a repeated
/// body (two launches or more), whose scalars that change from one repetition to the next
/// become loop scalars of the group's step (FDTD's time step `t`).
fn fold_loops(launches: Vec<Launch>) -> (Vec<Launch>, Vec<Group>) {
    let mut out = Vec::new();
    let mut groups = Vec::new();
    let mut at = 0;
    while at < launches.len() {
        let best = (2..=MAX_BODY.min(launches.len() - at))
            .map(|len| (len, repetitions(&launches, at, len)))
            .filter(|(_, (count, _))| *count >= 2)
            .max_by_key(|(len, (count, _))| (len * count, std::cmp::Reverse(*len)));
        let Some((len, (count, steps))) = best else {
            out.push(launches[at].clone());
            at += 1;
            continue;
        };
        let first = out.len();
        for (launch, step) in launches[at..at + len].iter().zip(&steps) {
            let mut launch = launch.clone();
            for (arg, d) in launch.args.iter_mut().zip(step) {
                if *d == 0 {
                    continue;
                }
                if let LaunchArg::Scalar { name, ty, value } = arg {
                    let Number::Int(start) = value[0] else { continue };
                    *arg = LaunchArg::LoopScalar {
                        name: name.clone(),
                        ty: *ty,
                        value: Expr::affine(*d, STEP, start),
                    };
                }
            }
            out.push(launch);
        }
        groups.push(Group {
            launches: first..first + len,
            repeat: count as u32,
            swap: Vec::new(),
            index: Some(STEP.to_string()),
        });
        at += len * count;
    }
    (out, groups)
}

/// Writes the running segment as a pipeline workload and its expected outputs.
fn flush_segment(dir: &Path, state: &mut State) {
    let Some(segment) = state.segment.take() else { return };
    if segment.launches.is_empty() {
        return;
    }
    state.segments += 1;
    let tag = format!("segment-{:02}", state.segments);
    let (launches, final_storage) = fold_repetitions(segment.launches, &segment.buffers);
    let (launches, groups) = fold_loops(launches);
    let storage = |name: &str| {
        let label = final_storage.get(name).map_or(name, String::as_str);
        segment.buffers.iter().find(|b| b.name == label)
    };
    let mut buffers = Vec::new();
    for b in &segment.buffers {
        if let Some((view, size)) = &b.view {
            buffers.push(Buffer {
                name: b.name.clone(),
                elem: b.elem,
                len: size / b.elem.size(),
                init: Init::Zero,
                access: Access::ReadWrite,
                output: false,
                tolerance: None,
                hex_dump: false,
                image: None,
                view: Some(view.clone()),
            });
            continue;
        }
        let file = dir.join(&tag).join(format!("{}.bin", b.name));
        write_file(&file, &b.initial);
        // An output is reported under its final name, which swaps may have moved to the
        // storage another name started with.
        let last = storage(&b.name).unwrap_or(b);
        let written = b.written || last.written;
        if written {
            write_file(
                &dir.join(format!("{tag}.expected")).join(format!("{}.bin", b.name)),
                &last.last,
            );
        }
        buffers.push(Buffer {
            name: b.name.clone(),
            elem: b.elem,
            len: b.initial.len() as u64 / b.elem.size(),
            init: Init::File(file),
            access: Access::ReadWrite,
            output: written,
            tolerance: None,
            hex_dump: false,
            image: b.image,
            view: None,
        });
    }
    let source = std::fs::read_to_string(&segment.source_file).unwrap_or_default();
    let workload = Workload {
        path: None,
        source_path: segment.source_file.clone(),
        source,
        options: segment.options.clone(),
        outputs: buffers.iter().filter(|b| b.output).map(|b| b.name.clone()).collect(),
        buffers,
        launches,
        groups,
        bytes_moved: None,
    };
    write_file(&dir.join(format!("{tag}.toml")), workload.to_toml(dir).as_bytes());
}
