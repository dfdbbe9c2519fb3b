//! The normalised workload model. Both file formats load into it; a single launch is a
//! pipeline with one launch, and every kernel argument is resolved to a named buffer, a
//! by-value scalar, a local-memory size or a NULL pointer.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::PathBuf;

use crate::error::{Location, WorkloadError};
use crate::expr::Expr;
use crate::image::ImageSpec;
use crate::init::Init;
use crate::number::Number;
use crate::types::ElemType;

/// How the host creates a buffer (Oclgrind's `ro` / `wo`; OpenCL's `CL_MEM_*` flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    #[default]
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

/// Float comparison tolerance. A value passes when
/// `|actual - expected| <= abs + rel * |expected| + norm * scale`, where `scale` is the largest
/// finite `|expected|` of the whole buffer.
///
/// `rel` and `abs` judge each value on its own, which suits outputs computed the same way on
/// both sides. `norm` judges the buffer as a whole: with `rel = abs = 0` the rule is
/// `max |actual - expected| <= norm * max |expected|`, a relative error in the maximum norm.
/// That is the rule for accumulating kernels run with another order of floating-point
/// operations (a reordered sum that cancels to nearly zero has no meaningful relative error,
/// but its error is still small next to the output's magnitude), and the rule the phase-order
/// search validates with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rel: f64,
    pub abs: f64,
    /// Fraction of the buffer's largest magnitude every difference may reach (0: unused).
    pub norm: f64,
}

impl Default for Tolerance {
    /// The tolerance used for float outputs that specify none.
    fn default() -> Tolerance {
        Tolerance { rel: 1e-5, abs: 1e-6, norm: 0.0 }
    }
}

impl Tolerance {
    /// Only the norm rule: `max |actual - expected| <= fraction * max |expected|`.
    pub fn norm(fraction: f64) -> Tolerance {
        Tolerance { rel: 0.0, abs: 0.0, norm: fraction }
    }

    /// Whether the buffer-wide part is in use.
    pub fn uses_norm(&self) -> bool {
        self.norm > 0.0
    }
}

impl std::fmt::Display for Tolerance {
    /// `rel 1e-5, abs 1e-6`, `norm 1e-2`, …: the parts in use, or `exact`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = [("rel", self.rel), ("abs", self.abs), ("norm", self.norm)]
            .into_iter()
            .filter(|(_, value)| *value != 0.0)
            .map(|(name, value)| format!("{name} {value:e}"))
            .collect();
        if parts.is_empty() {
            f.write_str("exact")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// A named global (or constant) memory buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub elem: ElemType,
    /// Number of elements.
    pub len: u64,
    pub init: Init,
    pub access: Access,
    /// Compared and dumped after the run.
    pub output: bool,
    pub tolerance: Option<Tolerance>,
    /// Oclgrind's `hex`: dump the values in hexadecimal.
    pub hex_dump: bool,
    /// The image the buffer holds, passed to image parameters (see [`crate::image`]).
    pub image: Option<ImageSpec>,
    /// Set when the buffer is a window of another (an OpenCL sub-buffer): it then has no
    /// storage or initial data of its own.
    pub view: Option<View>,
}

/// Where a buffer lies in another: OpenCL's sub-buffer. A kernel that receives the view sees
/// the view's `len` elements of its parent's bytes from byte `offset` on, and what it writes
/// there lands in the parent, so pipelines that pass a buffer to one kernel and windows of it
/// to another keep one storage. The parent is an ordinary buffer (not a view, not an image),
/// neither is swapped, and host writes go to the parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The buffer the view lies in.
    pub parent: String,
    /// Byte offset of the view's first element in the parent.
    pub offset: u64,
}

impl Buffer {
    /// Size in bytes (saturating; sizes are validated at load time).
    pub fn byte_len(&self) -> u64 {
        self.len.saturating_mul(self.elem.size())
    }
}

/// One kernel argument of one launch.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchArg {
    /// A pointer to a named buffer of [`Workload::buffers`].
    Buffer { buffer: String },
    /// A by-value argument; `value` has one number per vector component.
    Scalar { name: String, ty: ElemType, value: Vec<Number> },
    /// A `__local` pointer: the runtime allocates `len` elements per work-group.
    Local { name: String, elem: ElemType, len: u64 },
    /// A NULL global pointer.
    Null { name: String },
    /// A by-value integer whose value depends on the repetition: `value` is an expression of
    /// loop indices (see [`Workload::loop_indices`]), evaluated for every step.
    LoopScalar { name: String, ty: ElemType, value: Expr },
    /// A by-value argument given as the bytes `clSetKernelArg` receives, for types a workload
    /// cannot spell as numbers (structs); written as hexadecimal (`bytes = "0a000000…"`).
    Bytes { name: String, bytes: Vec<u8> },
    /// A `sampler_t`: the value of its `CLK_*` flags (see [`crate::image::parse_sampler`]).
    Sampler { name: String, bits: u32 },
}

impl LaunchArg {
    /// The label of the argument (the buffer name for buffers).
    pub fn name(&self) -> &str {
        match self {
            LaunchArg::Buffer { buffer } => buffer,
            LaunchArg::Scalar { name, .. }
            | LaunchArg::LoopScalar { name, .. }
            | LaunchArg::Local { name, .. }
            | LaunchArg::Bytes { name, .. }
            | LaunchArg::Sampler { name, .. }
            | LaunchArg::Null { name } => name,
        }
    }

    /// The bytes a by-value argument passes to `clSetKernelArg`, `None` for other kinds.
    pub fn scalar_bytes(&self) -> Option<Result<Vec<u8>, WorkloadError>> {
        if let LaunchArg::Bytes { bytes, .. } = self {
            return Some(Ok(bytes.clone()));
        }
        let LaunchArg::Scalar { name, ty, value } = self else { return None };
        let mut out = Vec::new();
        for v in value {
            if let Err(e) = v.write_le(ty.scalar, &mut out) {
                return Some(Err(invalid(format!("scalar `{name}`: {e}"))));
            }
        }
        if ty.width == 3 {
            out.resize(ty.size() as usize, 0);
        }
        Some(Ok(out))
    }
}

/// The index space of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    /// Global size per dimension; unused dimensions are 1.
    pub global: [u64; 3],
    /// Work-group size, or `None` to let the runtime choose.
    pub local: Option<[u64; 3]>,
    pub offset: [u64; 3],
    /// Number of dimensions, 1 to 3 (what `get_work_dim()` returns).
    pub dims: u8,
}

impl NdRange {
    /// A one-dimensional range.
    pub fn linear(global: u64, local: Option<u64>) -> NdRange {
        NdRange { global: [global, 1, 1], local: local.map(|l| [l, 1, 1]), offset: [0; 3], dims: 1 }
    }

    /// Total number of work-items.
    pub fn work_items(&self) -> u64 {
        self.global.iter().fold(1u64, |acc, g| acc.saturating_mul(*g))
    }

    /// Checks the OpenCL 1.2 rules: 1 to 3 dimensions, non-zero sizes, local sizes dividing
    /// global sizes.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_for(false)
    }

    /// Whether every work-group is whole: no local size, or local sizes dividing the global
    /// ones.
    pub fn is_uniform(&self) -> bool {
        self.local.is_none_or(|l| (0..3).all(|d| l[d] != 0 && self.global[d] % l[d] == 0))
    }

    /// [`NdRange::validate`], except that with `partial_groups` (OpenCL C 2.0 and later) a
    /// local size need not divide the global size: the last work-group of a dimension is then
    /// smaller.
    pub fn validate_for(&self, partial_groups: bool) -> Result<(), String> {
        if !(1..=3).contains(&self.dims) {
            return Err(format!("{} dimensions given; OpenCL allows 1 to 3", self.dims));
        }
        for d in 0..3 {
            let g = self.global[d];
            if g == 0 {
                return Err(format!("global size is zero in dimension {d}"));
            }
            if g > MAX_GLOBAL_SIZE {
                return Err(format!("global size {g} in dimension {d} is larger than 2^40"));
            }
            if self.offset[d] > MAX_GLOBAL_SIZE {
                return Err(format!(
                    "global offset {} in dimension {d} is too large",
                    self.offset[d]
                ));
            }
            if let Some(local) = self.local {
                let l = local[d];
                if l == 0 {
                    return Err(format!("local size is zero in dimension {d}"));
                }
                if g % l != 0 && !partial_groups {
                    return Err(format!(
                        "local size {l} does not divide global size {g} in dimension {d} \
                         (OpenCL 1.2 requires whole work-groups; OpenCL C 2.0 allows a smaller \
                         last group: build with -cl-std=CL2.0)"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The largest global size per dimension and the largest buffer, in bytes: 2^40.
pub const MAX_GLOBAL_SIZE: u64 = 1 << 40;
/// The largest single buffer, in bytes.
pub const MAX_BUFFER_BYTES: u64 = 1 << 40;
/// Most launches a pipeline may run in total, counting repetitions.
pub const MAX_TOTAL_LAUNCHES: u64 = 1_000_000;

/// One kernel launch of a pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub kernel: String,
    pub range: NdRange,
    pub args: Vec<LaunchArg>,
    /// Host loop: the launch runs this many times in a row (at least 1).
    pub repeat: u32,
    /// After each repetition, these buffer names exchange their storage.
    pub swap: Vec<(String, String)>,
    /// A name for the repetition index of this launch's own loop, usable in
    /// [`LaunchArg::LoopScalar`] expressions besides `i`.
    pub index: Option<String>,
    /// Host writes made before every repetition of this launch, in order.
    pub writes: Vec<BufferWrite>,
}

impl Launch {
    /// A launch that runs once, with no swaps and no host writes.
    pub fn new(kernel: impl Into<String>, range: NdRange, args: Vec<LaunchArg>) -> Launch {
        Launch {
            kernel: kernel.into(),
            range,
            args,
            repeat: 1,
            swap: Vec::new(),
            index: None,
            writes: Vec::new(),
        }
    }
}

/// The host writing part of a buffer before a launch (`clEnqueueWriteBuffer` of a range).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferWrite {
    /// The buffer name, resolved to its storage when the write happens (after swaps).
    pub buffer: String,
    /// First element written.
    pub offset: u64,
    /// Number of elements written.
    pub len: u64,
    /// The data: any [`Init`] except `random` and `noinit` (a host write's data is fixed).
    pub init: Init,
}

/// A loop of the host program over consecutive launches: `{ k1; k2 } x repeat`. Groups nest:
/// two groups' launch ranges are disjoint or one contains the other.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The launches of the body, as indices into [`Workload::launches`] (non-empty).
    pub launches: Range<usize>,
    /// Times the body runs (at least 1).
    pub repeat: u32,
    /// After each repetition of the body, these buffer names exchange their storage.
    pub swap: Vec<(String, String)>,
    /// A name for this group's repetition index, usable in loop-scalar expressions.
    pub index: Option<String>,
}

/// A complete, validated workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// The file it was loaded from, if any.
    pub path: Option<PathBuf>,
    pub source_path: PathBuf,
    /// The kernel source text.
    pub source: String,
    /// Build options as for `clBuildProgram`.
    pub options: String,
    /// All buffers, in a stable order (declaration order).
    pub buffers: Vec<Buffer>,
    /// Every launch of the pipeline, in the order the host program states them.
    pub launches: Vec<Launch>,
    /// Host loops over ranges of [`Workload::launches`], outer groups before inner ones;
    /// empty for a straight pipeline.
    pub groups: Vec<Group>,
    /// Names of the output buffers, in the order they are reported.
    pub outputs: Vec<String>,
    /// Bytes read and written by the whole workload, for bandwidth figures.
    pub bytes_moved: Option<u64>,
}

/// Settings of loading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Largest total size of all buffers, in bytes.
    pub max_total_bytes: u64,
    /// Build options added to the workload's own (a `.sim` file has none): what
    /// oclgrind-kernel's `--build-options` gives.
    pub build_options: Option<String>,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions { max_total_bytes: 4 << 30, build_options: None }
    }
}

/// The contents of every buffer, in the order of [`Workload::buffers`].
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSet {
    pub buffers: Vec<BufferData>,
}

/// The contents of one buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferData {
    pub name: String,
    pub elem: ElemType,
    /// Little-endian bytes.
    pub bytes: Vec<u8>,
    /// True when the buffer was declared `noinit`: its bytes are zero but meaningless.
    pub uninitialised: bool,
}

impl BufferSet {
    /// The data of the buffer called `name`.
    pub fn get(&self, name: &str) -> Option<&BufferData> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// Mutable access to the data of the buffer called `name`.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut BufferData> {
        self.buffers.iter_mut().find(|b| b.name == name)
    }
}

pub(crate) fn invalid(message: String) -> WorkloadError {
    WorkloadError::Invalid { location: Location::default(), message }
}

/// Whether a program built with `options` may launch partial work-groups: OpenCL C 2.0 and
/// later allow a last group smaller than the local size (options that do not parse allow
/// nothing new; building them reports why).
pub fn allows_partial_groups(options: &str) -> bool {
    clmap_lang::preprocess::BuildOptions::parse(options)
        .is_ok_and(|o| o.std() >= clmap_lang::preprocess::ClStd::Cl20)
}

impl Workload {
    /// Whether the workload's build options allow partial work-groups (see
    /// [`allows_partial_groups`]).
    pub fn allows_partial_groups(&self) -> bool {
        allows_partial_groups(&self.options)
    }

    /// A hash of everything in the workload that can change its results: the source, the
    /// build options, the buffers with their initial data, the launches and the outputs. The
    /// file's own path is left out, so a moved workload keeps the results stored under it.
    pub fn identity(&self) -> String {
        use sha2::{Digest, Sha256};
        let text = format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            self.source, self.options, self.buffers, self.launches, self.outputs
        );
        Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A single-launch workload built in code. Buffers are named after their arguments.
    pub fn single(
        source: impl Into<String>,
        kernel: impl Into<String>,
        range: NdRange,
        args: Vec<ArgSpec>,
    ) -> Workload {
        let mut buffers = Vec::new();
        let mut launch_args = Vec::new();
        let mut outputs = Vec::new();
        for arg in args {
            match arg {
                ArgSpec::Buffer { name, elem, len, init, output, access, tolerance } => {
                    if output {
                        outputs.push(name.clone());
                    }
                    launch_args.push(LaunchArg::Buffer { buffer: name.clone() });
                    buffers.push(Buffer {
                        name,
                        elem,
                        len,
                        init,
                        access,
                        output,
                        tolerance,
                        hex_dump: false,
                        image: None,
                        view: None,
                    });
                }
                ArgSpec::Scalar { name, ty, value } => {
                    launch_args.push(LaunchArg::Scalar { name, ty, value })
                }
                ArgSpec::Local { name, elem, len } => {
                    launch_args.push(LaunchArg::Local { name, elem, len })
                }
                ArgSpec::Null { name } => launch_args.push(LaunchArg::Null { name }),
            }
        }
        let kernel = kernel.into();
        Workload {
            path: None,
            source_path: PathBuf::from(format!("{kernel}.cl")),
            source: source.into(),
            options: String::new(),
            buffers,
            launches: vec![Launch::new(kernel, range, launch_args)],
            groups: Vec::new(),
            outputs,
            bytes_moved: None,
        }
    }

    /// The buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// Total bytes of all buffers.
    pub fn total_buffer_bytes(&self) -> u64 {
        self.buffers
            .iter()
            .filter(|b| b.view.is_none())
            .fold(0u64, |acc, b| acc.saturating_add(b.byte_len()))
    }

    /// Checks every invariant of the model: unique buffer names, known buffer references,
    /// valid ranges, initialisers that fit their types, swaps of equal-sized buffers, and the
    /// allocation limits. Loading calls it; tools that build workloads in code should too.
    pub fn validate(&self, options: &LoadOptions) -> Result<(), WorkloadError> {
        let mut names = BTreeSet::new();
        for b in &self.buffers {
            if !names.insert(b.name.as_str()) {
                return Err(invalid(format!("buffer name `{}` is used twice", b.name)));
            }
            let bytes = b.len.checked_mul(b.elem.size()).filter(|n| *n <= MAX_BUFFER_BYTES);
            if bytes.is_none() {
                return Err(invalid(format!(
                    "buffer `{}` ({} x {}) is larger than 2^40 bytes",
                    b.name, b.len, b.elem
                )));
            }
            b.init
                .check(b.elem, b.len)
                .map_err(|e| invalid(format!("buffer `{}`: {e}", b.name)))?;
            if let Some(problem) = b.image.and_then(|image| image.problem(b.byte_len())) {
                return Err(invalid(format!("buffer `{}`: {problem}", b.name)));
            }
            if let Some(t) = b.tolerance {
                if !(t.rel >= 0.0 && t.abs >= 0.0 && t.rel.is_finite() && t.abs.is_finite()) {
                    return Err(invalid(format!(
                        "buffer `{}`: tolerances must be finite and non-negative",
                        b.name
                    )));
                }
            }
        }
        for b in &self.buffers {
            if let Some(view) = &b.view {
                self.validate_view(b, view)
                    .map_err(|e| invalid(format!("buffer `{}`: {e}", b.name)))?;
            }
        }
        let total = self.total_buffer_bytes();
        if total > options.max_total_bytes {
            return Err(WorkloadError::TooLarge {
                location: Location::default(),
                needed: total,
                limit: options.max_total_bytes,
            });
        }
        if self.launches.is_empty() {
            return Err(invalid("the workload has no launch".to_string()));
        }
        for (i, launch) in self.launches.iter().enumerate() {
            let at = format!("launch {} (`{}`)", i + 1, launch.kernel);
            if launch.kernel.is_empty() {
                return Err(invalid(format!("launch {}: empty kernel name", i + 1)));
            }
            launch
                .range
                .validate_for(self.allows_partial_groups())
                .map_err(|e| invalid(format!("{at}: {e}")))?;
            if launch.repeat == 0 {
                return Err(invalid(format!("{at}: repeat must be at least 1")));
            }
            let indices = self.loop_indices(i);
            for (k, name) in indices.iter().enumerate() {
                let valid =
                    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid || indices[..k].contains(name) {
                    return Err(invalid(format!(
                        "{at}: loop index name `{name}` is not an identifier or is used twice \
                         (`i` is always the innermost repeating loop)"
                    )));
                }
            }
            for arg in &launch.args {
                self.validate_arg(arg, &indices).map_err(|e| invalid(format!("{at}: {e}")))?;
            }
            self.validate_swaps(&launch.swap).map_err(|e| invalid(format!("{at}: {e}")))?;
            for write in &launch.writes {
                self.validate_write(write).map_err(|e| invalid(format!("{at}: {e}")))?;
            }
        }
        self.validate_groups()?;
        let launches_total = self.launch_count();
        if launches_total > MAX_TOTAL_LAUNCHES {
            return Err(invalid(format!(
                "the pipeline runs {launches_total} launches; at most {MAX_TOTAL_LAUNCHES} allowed"
            )));
        }
        for name in &self.outputs {
            if self.buffer(name).is_none() {
                return Err(invalid(format!("output `{name}` is not a buffer")));
            }
        }
        // Values that depend on the repetition are checked for every step the pipeline
        // makes (at most MAX_TOTAL_LAUNCHES), so no repetition can fail half-way through a run.
        let varying = self
            .launches
            .iter()
            .any(|l| l.args.iter().any(|a| matches!(a, LaunchArg::LoopScalar { .. })));
        if varying {
            for step in self.schedule() {
                step?;
            }
        }
        Ok(())
    }

    /// A view lies inside an ordinary buffer and is not an image.
    fn validate_view(&self, buffer: &Buffer, view: &View) -> Result<(), String> {
        let Some(parent) = self.buffer(&view.parent) else {
            return Err(format!("it is a view of unknown buffer `{}`", view.parent));
        };
        if parent.view.is_some() || parent.image.is_some() || buffer.image.is_some() {
            return Err(format!(
                "a view must be a plain buffer in a plain buffer; `{}` is a view or an image",
                view.parent
            ));
        }
        let end = view.offset.checked_add(buffer.byte_len());
        if end.is_none_or(|end| end > parent.byte_len()) {
            return Err(format!(
                "bytes {} to {} lie outside `{}` ({} bytes)",
                view.offset,
                view.offset.saturating_add(buffer.byte_len()),
                view.parent,
                parent.byte_len()
            ));
        }
        Ok(())
    }

    /// Whether buffer `name` is a view or has views: such buffers keep their storage.
    fn in_a_view(&self, name: &str) -> bool {
        self.buffers.iter().any(|b| {
            b.view.as_ref().is_some_and(|v| v.parent == name)
                || (b.name == name && b.view.is_some())
        })
    }

    fn validate_swaps(&self, swap: &[(String, String)]) -> Result<(), String> {
        for (a, b) in swap {
            let (Some(x), Some(y)) = (self.buffer(a), self.buffer(b)) else {
                return Err(format!("swap names unknown buffer `{a}` or `{b}`"));
            };
            if self.in_a_view(a) || self.in_a_view(b) {
                return Err(format!(
                    "cannot swap `{a}` with `{b}`: views and the buffers they lie in keep their storage"
                ));
            }
            if x.byte_len() != y.byte_len() {
                return Err(format!(
                    "cannot swap `{a}` ({} bytes) with `{b}` ({} bytes)",
                    x.byte_len(),
                    y.byte_len()
                ));
            }
        }
        Ok(())
    }

    fn validate_write(&self, write: &BufferWrite) -> Result<(), String> {
        let name = &write.buffer;
        let Some(buffer) = self.buffer(name) else {
            return Err(format!("host write names unknown buffer `{name}`"));
        };
        if let Some(view) = &buffer.view {
            return Err(format!(
                "host write into view `{name}`: write into `{}` at its offset instead",
                view.parent
            ));
        }
        if write.len == 0 {
            return Err(format!("host write to `{name}` has zero elements"));
        }
        let end = write.offset.checked_add(write.len);
        if end.is_none_or(|end| end > buffer.len) {
            return Err(format!(
                "host write to `{name}` covers elements {} to {} but the buffer has {}",
                write.offset,
                write.offset.saturating_add(write.len),
                buffer.len
            ));
        }
        if matches!(write.init, Init::Random { .. } | Init::NoInit) {
            return Err(format!(
                "host write to `{name}`: `random` and `noinit` are not host data; \
                 use zero, fill, range, a file or a list of values"
            ));
        }
        write.init.check(buffer.elem, write.len).map_err(|e| format!("host write to `{name}`: {e}"))
    }

    fn validate_groups(&self) -> Result<(), WorkloadError> {
        for (g, group) in self.groups.iter().enumerate() {
            let at = format!("group {}", g + 1);
            let Range { start, end } = group.launches;
            if start >= end || end > self.launches.len() {
                return Err(invalid(format!(
                    "{at}: covers launches {start}..{end} of {}; a group needs at least one launch",
                    self.launches.len()
                )));
            }
            if group.repeat == 0 {
                return Err(invalid(format!("{at}: repeat must be at least 1")));
            }
            self.validate_swaps(&group.swap).map_err(|e| invalid(format!("{at}: {e}")))?;
            for (h, other) in self.groups.iter().enumerate().skip(g + 1) {
                let (a, b) = (&group.launches, &other.launches);
                let disjoint = a.end <= b.start || b.end <= a.start;
                let nested = (a.start <= b.start && b.end <= a.end)
                    || (b.start <= a.start && a.end <= b.end);
                if !disjoint && !nested {
                    return Err(invalid(format!(
                        "groups {} and {} overlap without one containing the other",
                        g + 1,
                        h + 1
                    )));
                }
            }
        }
        Ok(())
    }

    /// The groups around launch `launch`, outermost first.
    pub fn enclosing_groups(&self, launch: usize) -> Vec<usize> {
        let mut around: Vec<usize> =
            (0..self.groups.len()).filter(|g| self.groups[*g].launches.contains(&launch)).collect();
        // Nested ranges: a longer range is further out; equal ranges keep declaration order.
        around.sort_by_key(|g| (usize::MAX - self.groups[*g].launches.len(), *g));
        around
    }

    /// The loop indices a loop-scalar expression of launch `launch` may name: `i` (the
    /// innermost loop that runs more than once: the launch's own, then its groups from the
    /// inside out; 0 when none does), then every `index` name of the launch and its groups.
    pub fn loop_indices(&self, launch: usize) -> Vec<String> {
        let mut names = vec!["i".to_string()];
        if let Some(l) = self.launches.get(launch) {
            names.extend(l.index.clone());
        }
        for g in self.enclosing_groups(launch).into_iter().rev() {
            names.extend(self.groups[g].index.clone());
        }
        names
    }

    /// Kernel launches the whole pipeline makes, counting every repetition of launches and
    /// groups (saturating).
    pub fn launch_count(&self) -> u64 {
        let mut total = 0u64;
        for (i, launch) in self.launches.iter().enumerate() {
            let mut times = u64::from(launch.repeat.max(1));
            for g in self.enclosing_groups(i) {
                times = times.saturating_mul(u64::from(self.groups[g].repeat.max(1)));
            }
            total = total.saturating_add(times);
        }
        total
    }

    fn validate_arg(&self, arg: &LaunchArg, indices: &[String]) -> Result<(), String> {
        match arg {
            LaunchArg::Buffer { buffer } => {
                if self.buffer(buffer).is_none() {
                    return Err(format!("argument names unknown buffer `{buffer}`"));
                }
            }
            LaunchArg::Scalar { name, ty, value } => {
                if value.len() != usize::from(ty.width) {
                    return Err(format!(
                        "scalar `{name}` of type {ty} needs {} values, {} given",
                        ty.width,
                        value.len()
                    ));
                }
                let mut scratch = Vec::new();
                for v in value {
                    v.write_le(ty.scalar, &mut scratch)
                        .map_err(|e| format!("scalar `{name}`: {e}"))?;
                }
            }
            LaunchArg::Local { name, elem, len } => {
                let bytes = len.checked_mul(elem.size()).unwrap_or(u64::MAX);
                if *len == 0 || bytes > MAX_BUFFER_BYTES {
                    return Err(format!(
                        "local `{name}` must have 1 to 2^40 bytes, has {len} x {elem}"
                    ));
                }
            }
            LaunchArg::Null { .. } => {}
            LaunchArg::Bytes { name, bytes } => {
                if bytes.is_empty() {
                    return Err(format!("`bytes` of `{name}` are empty"));
                }
            }
            LaunchArg::Sampler { name, bits } => {
                if let Some(problem) = crate::image::sampler_problem(*bits) {
                    return Err(format!("sampler `{name}`: {problem}"));
                }
            }
            LaunchArg::LoopScalar { name, ty, value } => {
                if ty.width != 1 || ty.scalar.is_float() {
                    return Err(format!(
                        "scalar `{name}`: a value that depends on the repetition must be of an \
                         integer type, not {ty}"
                    ));
                }
                for used in value.names() {
                    if !indices.iter().any(|n| n == used) {
                        return Err(format!(
                            "scalar `{name}`: `{used}` is not a loop index here (known: {})",
                            indices.join(", ")
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Initial contents of every buffer, deterministic for a given `seed_shift` (0 = the seeds
    /// written in the file; n = every random seed shifted by n, to test on several inputs).
    pub fn initial_data(&self, seed_shift: u64) -> Result<BufferSet, WorkloadError> {
        let location = Location::file(self.path.clone());
        let mut buffers = Vec::with_capacity(self.buffers.len());
        for b in &self.buffers {
            if b.view.is_some() {
                // Filled from the parent below, once every parent has its data.
                buffers.push(BufferData {
                    name: b.name.clone(),
                    elem: b.elem,
                    bytes: Vec::new(),
                    uninitialised: false,
                });
                continue;
            }
            let bytes = b.init.generate(b.elem, b.len, seed_shift).map_err(|message| {
                WorkloadError::Invalid {
                    location: location.clone(),
                    message: format!("buffer `{}`: {message}", b.name),
                }
            })?;
            buffers.push(BufferData {
                name: b.name.clone(),
                elem: b.elem,
                bytes,
                uninitialised: b.init == Init::NoInit,
            });
        }
        let mut set = BufferSet { buffers };
        self.fill_views(&mut set);
        Ok(set)
    }

    /// Sets the bytes of every view in `set` (indexed like [`Workload::buffers`]) to its
    /// window of its parent's bytes there.
    pub fn fill_views(&self, set: &mut BufferSet) {
        for (i, b) in self.buffers.iter().enumerate() {
            let Some(view) = &b.view else { continue };
            let Some(parent) = self.buffer_index(&view.parent) else { continue };
            let window = set.buffers.get(parent).and_then(|p| {
                let start = usize::try_from(view.offset).ok()?;
                let end = start.checked_add(usize::try_from(b.byte_len()).ok()?)?;
                Some((p.bytes.get(start..end)?.to_vec(), p.uninitialised))
            });
            if let (Some((bytes, uninitialised)), Some(data)) = (window, set.buffers.get_mut(i)) {
                data.bytes = bytes;
                data.uninitialised = uninitialised;
            }
        }
    }
}

/// An argument of a single-launch workload, as written in a `[[arg]]` table.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    Buffer {
        name: String,
        elem: ElemType,
        len: u64,
        init: Init,
        output: bool,
        access: Access,
        tolerance: Option<Tolerance>,
    },
    Scalar {
        name: String,
        ty: ElemType,
        value: Vec<Number>,
    },
    Local {
        name: String,
        elem: ElemType,
        len: u64,
    },
    Null {
        name: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ScalarType;

    fn float() -> ElemType {
        ElemType::scalar(ScalarType::Float)
    }

    fn vector_add() -> Workload {
        let buffer = |name: &str, init: Init, output: bool| ArgSpec::Buffer {
            name: name.to_string(),
            elem: float(),
            len: 64,
            init,
            output,
            access: Access::ReadWrite,
            tolerance: None,
        };
        Workload::single(
            "__kernel void add(...) {}",
            "add",
            NdRange::linear(64, Some(16)),
            vec![
                buffer("a", Init::Random { seed: 1, lo: None, hi: None }, false),
                buffer("b", Init::Fill(Number::Int(2)), false),
                buffer("c", Init::NoInit, true),
                ArgSpec::Scalar {
                    name: "n".into(),
                    ty: ElemType::scalar(ScalarType::UInt),
                    value: vec![Number::Int(64)],
                },
            ],
        )
    }

    #[test]
    fn single_builds_one_launch_over_named_buffers() {
        let w = vector_add();
        assert_eq!(w.validate(&LoadOptions::default()).map_err(|e| e.to_string()), Ok(()));
        assert_eq!(w.launches.len(), 1);
        assert_eq!(w.outputs, vec!["c".to_string()]);
        let data = w.initial_data(0).expect("data");
        assert_eq!(data.buffers.len(), 3);
        assert_eq!(
            data.get("b").map(|b| b.bytes[..4].to_vec()),
            Some(2.0f32.to_le_bytes().to_vec())
        );
        assert!(data.get("c").is_some_and(|c| c.uninitialised));
        assert_ne!(data.get("a"), w.initial_data(5).expect("data").get("a"));
    }

    #[test]
    fn validation_rejects_bad_models() {
        let mut w = vector_add();
        w.launches[0].range.local = Some([7, 1, 1]);
        assert!(w.validate(&LoadOptions::default()).unwrap_err().to_string().contains("divide"));
        let mut w = vector_add();
        w.launches[0].range.local = Some([0, 1, 1]);
        assert!(w.validate(&LoadOptions::default()).is_err());
        let mut w = vector_add();
        w.launches[0].range.dims = 4;
        assert!(w.validate(&LoadOptions::default()).is_err());
        let mut w = vector_add();
        w.buffers[0].len = 1 << 40;
        assert!(w.validate(&LoadOptions::default()).unwrap_err().to_string().contains("2^40"));
        let w = vector_add();
        let tight = LoadOptions { max_total_bytes: 100, build_options: None };
        assert!(matches!(w.validate(&tight), Err(WorkloadError::TooLarge { needed: 768, .. })));
        let mut w = vector_add();
        w.launches[0].args.push(LaunchArg::Buffer { buffer: "nope".into() });
        assert!(w.validate(&LoadOptions::default()).is_err());
        let mut w = vector_add();
        w.launches[0].swap.push(("a".into(), "missing".into()));
        assert!(w.validate(&LoadOptions::default()).is_err());
    }

    #[test]
    fn scalar_bytes_pad_three_component_vectors() {
        let arg = LaunchArg::Scalar {
            name: "v".into(),
            ty: ElemType { scalar: ScalarType::Short, width: 3 },
            value: vec![Number::Int(1), Number::Int(2), Number::Int(3)],
        };
        assert_eq!(arg.scalar_bytes().map(|r| r.ok()), Some(Some(vec![1, 0, 2, 0, 3, 0, 0, 0])));
    }
}

/// Bytes as the hexadecimal text a workload writes them in (`bytes = "…"`).
pub fn bytes_to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of hexadecimal text (two digits per byte, no separators).
pub fn hex_to_bytes(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if text.len() % 2 != 0 {
        return Err(format!("`{text}` has an odd number of hexadecimal digits"));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(text.get(i..i + 2).unwrap_or(""), 16)
                .map_err(|_| format!("`{text}` is not hexadecimal (two digits per byte)"))
        })
        .collect()
}
