//! Grover: removes local-memory staging from OpenCL kernels, source to source (seed 000).
//!
//! For every `__local` buffer used as a software-managed cache (global load → local store,
//! barrier, local loads), Grover finds which global element each local load reads and
//! replaces the load by that global load; the staging stores, the declaration and the
//! barriers that no longer guard anything go away. Anything else (reductions, scans,
//! histograms, tiles reused as scratch, loads whose origin is not unique) is refused with the
//! reason. The result is a minimal edit of the user's text.
//!
//! ```text
//! walk (events: LS, LL, barriers) ─► candidate (selection, systems, nGL) ─► rewrite (edits)
//!                                        │ poly, solve, index_expr             │ render
//!                                        └──────────── explain ◄───────────────┘
//! ```
//!
//! [`unlocal`] is the whole transform; [`validate::validate`] runs the result against the
//! original on the simulator before it is reported as done, and [`measure::measure`] times
//! both on a device (seed 000's normalised performance np).

pub mod candidate;
pub mod explain;
pub mod index_expr;
pub mod measure;
pub mod poly;
pub mod refusal;
pub mod render;
pub mod rewrite;
pub mod solve;
pub mod validate;
pub mod walk;

use candidate::{Candidate, Decision};
use clmap_lang::edit::{unified_diff, EditSet};
use clmap_lang::frontend::Compiled;
use clmap_lang::ir::{Function, Handle};
use clmap_lang::valid::{TransformError, VerifyOptions};
use walk::{Events, LocalBuffer, Walker};

/// What to transform.
#[derive(Clone, Debug, Default)]
pub struct UnlocalOptions {
    /// The kernel; may be left out when the file has one kernel.
    pub kernel: Option<String>,
    /// Only these local buffers (by name); all eligible ones when empty.
    pub buffers: Vec<String>,
    /// Keep removed statements as `//` comments (seed 000 Figure 1b).
    pub comment_out: bool,
    /// Whether the rewritten text is compiled again, and so validated, before it is returned
    /// (on in debug builds and tests, or with `CLMAP_VERIFY=1`; see
    /// [`clmap_lang::valid::verify_after_transform`]).
    pub verify: VerifyOptions,
}

#[derive(Debug, thiserror::Error)]
pub enum GroverError {
    #[error("the file has no kernel named `{0}`")]
    NoSuchKernel(String),
    #[error("the file has several kernels ({0}); choose one with --kernel")]
    WhichKernel(String),
    #[error("the file has no kernels")]
    NoKernel,
    #[error("kernel `{kernel}` has no local buffer named `{name}` (it has: {known})")]
    NoSuchBuffer { kernel: String, name: String, known: String },
    #[error(transparent)]
    Rewrite(#[from] rewrite::RewriteError),
    /// The rewrite produced code that does not compile or does not validate: a bug in Grover.
    #[error(transparent)]
    Transform(#[from] TransformError),
}

/// The outcome for one local buffer.
#[derive(Clone, Debug)]
pub struct BufferReport {
    pub candidate: Candidate,
    /// Whether the buffer was asked for (with `--buffer`, or all when none was named).
    pub selected: bool,
    /// The replacement text of each local load, when removed.
    pub replacements: Vec<String>,
}

impl BufferReport {
    pub fn removed(&self) -> bool {
        self.selected && matches!(self.candidate.decision, Decision::Remove(_))
    }
}

/// The transform's result.
pub struct Outcome {
    pub kernel: String,
    pub kernel_handle: Handle<Function>,
    pub buffers: Vec<BufferReport>,
    pub events: Events,
    pub edits: EditSet,
    pub original: String,
    /// The new source text (equal to `original` when nothing was removed).
    pub text: String,
    /// `text` compiled, when the verify-after-transform switch checked it; validation runs
    /// this program rather than compiling the text again.
    pub verified: Option<Compiled>,
    pub barriers_removed: bool,
}

impl Outcome {
    pub fn changed(&self) -> bool {
        self.text != self.original
    }

    /// `diff -u` of the change, named after `name`.
    pub fn diff(&self, name: &str) -> String {
        unified_diff(&self.original, &self.text, &format!("a/{name}"), &format!("b/{name}"), 3)
    }

    /// Names of the removed buffers.
    pub fn removed(&self) -> Vec<String> {
        self.buffers.iter().filter(|b| b.removed()).map(|b| b.candidate.name.clone()).collect()
    }
}

/// Analyses the kernel and removes the local buffers asked for where it can.
pub fn unlocal(compiled: &Compiled, options: &UnlocalOptions) -> Result<Outcome, GroverError> {
    let module = &compiled.module;
    let kernels: Vec<_> = module.kernels().collect();
    let (handle, function) = match &options.kernel {
        Some(name) => kernels
            .iter()
            .find(|(_, f)| &f.name == name)
            .copied()
            .ok_or_else(|| GroverError::NoSuchKernel(name.clone()))?,
        None => match kernels.as_slice() {
            [] => return Err(GroverError::NoKernel),
            [one] => *one,
            many => {
                let names: Vec<&str> = many.iter().map(|(_, f)| f.name.as_str()).collect();
                return Err(GroverError::WhichKernel(names.join(", ")));
            }
        },
    };
    let events = Walker::new(module, function).run();
    let buffers = candidate::local_buffers(module, function);
    for wanted in &options.buffers {
        if !buffers.iter().any(|(_, n)| n == wanted) {
            let known: Vec<&str> = buffers.iter().map(|(_, n)| n.as_str()).collect();
            return Err(GroverError::NoSuchBuffer {
                kernel: function.name.clone(),
                name: wanted.clone(),
                known: if known.is_empty() { "none".into() } else { known.join(", ") },
            });
        }
    }
    let mut reports: Vec<BufferReport> = buffers
        .iter()
        .map(|(buffer, name)| BufferReport {
            candidate: Candidate {
                buffer: *buffer,
                name: name.clone(),
                decision: candidate::analyse(module, function, &events, *buffer),
            },
            selected: options.buffers.is_empty() || options.buffers.contains(name),
            replacements: Vec::new(),
        })
        .collect();
    let removed: Vec<LocalBuffer> =
        reports.iter().filter(|r| r.removed()).map(|r| r.candidate.buffer).collect();
    let plans: Vec<&candidate::Plan> = reports
        .iter()
        .filter(|r| r.removed())
        .filter_map(|r| match &r.candidate.decision {
            Decision::Remove(p) => Some(p.as_ref()),
            Decision::Refused(_) => None,
        })
        .collect();
    // Barriers guard local memory only while some local buffer remains.
    let barriers_removed = !removed.is_empty() && removed.len() == buffers.len();
    let original = compiled.sources.get(compiled.main).map(|f| f.text.clone()).unwrap_or_default();
    let result = rewrite::rewrite(
        module,
        function,
        &compiled.sources,
        compiled.main,
        &events,
        &plans,
        &removed,
        barriers_removed,
        options.comment_out,
    )?;
    let mut texts = result.texts.into_iter();
    for r in reports.iter_mut().filter(|r| r.removed()) {
        r.replacements = texts.next().unwrap_or_default();
    }
    let text = result.edits.apply(&original);
    let verified = if text != original {
        rewrite::verify_rewrite(compiled, &text, options.verify)?
    } else {
        None
    };
    Ok(Outcome {
        kernel: function.name.clone(),
        kernel_handle: handle,
        buffers: reports,
        events,
        edits: result.edits,
        original,
        text,
        verified,
        barriers_removed,
    })
}
