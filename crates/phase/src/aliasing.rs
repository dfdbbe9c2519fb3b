//! Aliased inputs: the same buffer passed for two pointer arguments of a launch.
//!
//! NVIDIA's compiler, and LLVM without a run-time check, must assume that two `__global`
//! pointers may point into the same buffer; passes such as `loop-versioning` and
//! `loop-versioning-licm` add a check of the address ranges and a fast copy of the loop for
//! the case where they do not overlap. The workload's own buffers never overlap, so its
//! inputs only ever run the fast copy: a sequence whose check (or whose slow copy) is wrong
//! would pass every validation on them. Running the workload with two arguments bound to one
//! buffer takes the other branch of the check.
//!
//! # When a workload allows it
//!
//! A pair of arguments may share a buffer when the result is still defined by the kernel's
//! source, so that the vendor's compilation of the source gives a reference to compare with:
//!
//! 1. both are `__global` pointers to the same type, passed in the same launch, naming two
//!    different buffers of the same element type, the kept one at least as long as the one it
//!    replaces (every index of the replaced stays inside the kept);
//! 2. the pipeline neither swaps nor writes from the host either buffer (their storage then
//!    stays one object for the whole run);
//! 3. the simulator runs the small workload with the shared buffer without a data race and
//!    without an out-of-bounds access: no work-item reads or writes an element that another
//!    work-item writes, so the outputs do not depend on the order the device runs work-items
//!    in. Two pointers the kernel only reads always qualify; a written pointer qualifies when
//!    each work-item reads through the other only the elements it writes itself (GESUMMV's
//!    `tmp[i]` and `y[i]`), and is refused when one work-item's store feeds another's load
//!    (GEMM's `c` and `a`).
//!
//! Every replacement applies to the whole workload: each argument naming the replaced buffer
//! names the kept one instead, in every launch.

use std::collections::HashMap;

use clmap_exec::prepared::PreparedWorkload;
use clmap_lang::ir::AddressSpace;
use clmap_sim::memory::{decode, Target};
use clmap_sim::{AccessBatch, AccessKind, Observer, ReportKind, SimOptions};
use clmap_workload::{BufferSet, LaunchArg, ParamSpace, StepArg, Workload};

/// A workload in which one buffer stands for another.
#[derive(Clone, Debug)]
pub struct AliasedLayout {
    /// The buffer both arguments name.
    pub kept: String,
    /// The buffer no launch names any more.
    pub replaced: String,
    /// The workload with the replacement made.
    pub workload: Workload,
    /// The reference outputs on this layout, once computed by an evaluator.
    pub(crate) reference: Option<BufferSet>,
}

impl AliasedLayout {
    /// How reports name the layout: `replaced=kept`.
    pub fn label(&self) -> String {
        format!("{}={}", self.replaced, self.kept)
    }
}

/// A pair of arguments that may not share a buffer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedAlias {
    /// The buffer that would be kept.
    pub kept: String,
    /// The buffer that would be replaced.
    pub replaced: String,
    /// Why not.
    pub reason: String,
}

/// The layouts a workload allows and the pairs it does not.
#[derive(Clone, Debug, Default)]
pub struct AliasAnalysis {
    /// Layouts to validate with, at most the limit given.
    pub allowed: Vec<AliasedLayout>,
    /// Candidate pairs left out, with the reason.
    pub refused: Vec<RefusedAlias>,
}

/// Finds the aliased layouts `prepared` allows (see the module documentation), keeping at
/// most `limit`. Pairs with more output buffers are tried first: a store through one pointer
/// seen by a load through the other is what takes a run-time alias check's other branch,
/// while two pointers that are only read could share a buffer under any code.
pub fn aliased_layouts(prepared: &PreparedWorkload, limit: usize) -> AliasAnalysis {
    let workload = prepared.workload();
    let mut analysis = AliasAnalysis::default();
    let is_output = |name: &str| workload.outputs.iter().any(|o| o == name);
    let mut pairs = candidate_pairs(prepared);
    pairs.sort_by_key(|(a, b)| {
        std::cmp::Reverse(usize::from(is_output(a)) + usize::from(is_output(b)))
    });
    let len_of = |name: &str| workload.buffers.iter().find(|b| b.name == name).map_or(0, |b| b.len);
    for (first, second) in pairs {
        if analysis.allowed.len() >= limit {
            break;
        }
        // The longer buffer stands for both, so every index of either stays inside it.
        let (kept, replaced) =
            if len_of(&first) >= len_of(&second) { (first, second) } else { (second, first) };
        let refuse = |reason: String| RefusedAlias {
            kept: kept.clone(),
            replaced: replaced.clone(),
            reason,
        };
        let variant = match replace_buffer(workload, &kept, &replaced) {
            Ok(variant) => variant,
            Err(reason) => {
                analysis.refused.push(refuse(reason));
                continue;
            }
        };
        match race_free(prepared, &variant) {
            Ok(()) => analysis.allowed.push(AliasedLayout {
                kept,
                replaced,
                workload: variant,
                reference: None,
            }),
            Err(reason) => analysis.refused.push(refuse(reason)),
        }
    }
    analysis
}

/// The layout a label of [`AliasedLayout::label`] names (`replaced=kept`), rebuilt without the
/// simulator's checks: for a process that is handed the layouts [`aliased_layouts`] allowed.
pub fn layout_from_label(workload: &Workload, label: &str) -> Result<AliasedLayout, String> {
    let Some((replaced, kept)) = label.split_once('=') else {
        return Err(format!("`{label}` is not an aliased layout (replaced=kept)"));
    };
    let variant = replace_buffer(workload, kept, replaced).map_err(|e| format!("{label}: {e}"))?;
    Ok(AliasedLayout {
        kept: kept.to_string(),
        replaced: replaced.to_string(),
        workload: variant,
        reference: None,
    })
}

/// Pairs of distinct buffers passed as `__global` pointers to the same type in one launch,
/// each unordered pair once, in the order the launches and arguments first show them.
fn candidate_pairs(prepared: &PreparedWorkload) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for launch in &prepared.workload().launches {
        let Some(params) = prepared.kernel_params(&launch.kernel) else { continue };
        let pointers: Vec<(&str, &str)> = launch
            .args
            .iter()
            .zip(&params)
            .filter_map(|(arg, param)| match arg {
                LaunchArg::Buffer { buffer } if param.space == ParamSpace::Global => {
                    Some((buffer.as_str(), param.type_name.as_str()))
                }
                _ => None,
            })
            .collect();
        for (i, (first, first_type)) in pointers.iter().enumerate() {
            for (second, second_type) in pointers.iter().skip(i + 1) {
                let known = pairs
                    .iter()
                    .any(|(a, b)| (a == first && b == second) || (a == second && b == first));
                if first != second && first_type == second_type && !known {
                    pairs.push((first.to_string(), second.to_string()));
                }
            }
        }
    }
    pairs
}

/// The workload with every argument naming `replaced` naming `kept` instead.
fn replace_buffer(workload: &Workload, kept: &str, replaced: &str) -> Result<Workload, String> {
    let find = |name: &str| workload.buffers.iter().find(|b| b.name == name);
    let (Some(kept_buffer), Some(replaced_buffer)) = (find(kept), find(replaced)) else {
        return Err("not a buffer of the workload".to_string());
    };
    if kept_buffer.elem != replaced_buffer.elem {
        return Err("the buffers hold different element types".to_string());
    }
    if kept_buffer.len < replaced_buffer.len {
        return Err(format!(
            "`{kept}` has {} elements, fewer than the {} of `{replaced}`",
            kept_buffer.len, replaced_buffer.len
        ));
    }
    let involved = |name: &str| name == kept || name == replaced;
    let swapped = workload
        .launches
        .iter()
        .flat_map(|l| &l.swap)
        .chain(workload.groups.iter().flat_map(|g| &g.swap))
        .any(|(a, b)| involved(a) || involved(b));
    if swapped {
        return Err("the pipeline swaps one of them".to_string());
    }
    if workload.launches.iter().flat_map(|l| &l.writes).any(|w| involved(&w.buffer)) {
        return Err("the host writes one of them between launches".to_string());
    }
    let mut variant = workload.clone();
    for launch in &mut variant.launches {
        for arg in &mut launch.args {
            if let LaunchArg::Buffer { buffer } = arg {
                if buffer == replaced {
                    *buffer = kept.to_string();
                }
            }
        }
    }
    Ok(variant)
}

/// Runs the variant on the simulator and checks that no element one work-item writes is
/// read or written by another work-item in the same launch, through any argument. (The
/// simulator's race checker follows each argument separately, so it does not see two
/// arguments that share one buffer: this check follows the storage.)
fn race_free(prepared: &PreparedWorkload, variant: &Workload) -> Result<(), String> {
    let steps = variant.steps().map_err(|e| e.to_string())?;
    let (run, observers) = clmap_sim::run_workload_with(
        prepared.module(),
        variant,
        variant.initial_data(0).map_err(|e| e.to_string())?,
        &SimOptions::default(),
        &SharingObserver::default,
    )
    .map_err(|e| format!("the simulator cannot run it: {e}"))?;
    if let Some(found) = run.reports.iter().find(|r| r.report.kind == ReportKind::OutOfBounds) {
        return Err(format!(
            "{} in kernel `{}`: {}",
            found.report.kind.name(),
            found.kernel,
            found.report.message
        ));
    }
    for (step, observer) in steps.iter().zip(observers) {
        // Buffer arguments in order are the simulator's buffers 0, 1, …; several of them may
        // be one storage slot, or views into one (at the view's byte offset).
        let slots: Vec<(usize, u64)> = step
            .args
            .iter()
            .filter_map(|arg| match arg {
                StepArg::Buffer { slot } => Some((*slot, 0)),
                StepArg::View { slot, offset, .. } => Some((*slot, *offset)),
                _ => None,
            })
            .collect();
        let mut by_slot: HashMap<(usize, u64), Touch> = HashMap::new();
        for ((ordinal, offset), touch) in observer.touches {
            let Some(&(slot, base)) = slots.get(ordinal) else { continue };
            by_slot.entry((slot, base + offset)).or_default().absorb(touch);
        }
        let mut conflicts: Vec<(usize, u64)> =
            by_slot.iter().filter(|(_, t)| t.conflicts()).map(|(&key, _)| key).collect();
        conflicts.sort_unstable();
        if let Some(&(slot, offset)) = conflicts.first() {
            let name = variant.buffers.get(slot).map_or("?", |b| b.name.as_str());
            let kernel = variant.launches.get(step.launch).map_or("?", |l| l.kernel.as_str());
            return Err(format!(
                "data race in kernel `{kernel}`: byte {offset} of `{name}` is written by one \
                 work-item and accessed by another ({} bytes in all)",
                conflicts.len()
            ));
        }
    }
    Ok(())
}

/// Which work-items touched a byte: none, one (its linear global id) or several.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Who {
    #[default]
    Nobody,
    One(u64),
    Several,
}

impl Who {
    fn add(self, other: Who) -> Who {
        match (self, other) {
            (Who::Nobody, x) | (x, Who::Nobody) => x,
            (Who::One(a), Who::One(b)) if a == b => Who::One(a),
            _ => Who::Several,
        }
    }
}

/// The writers and the accessors (readers and writers) of one byte.
#[derive(Clone, Copy, Debug, Default)]
struct Touch {
    writers: Who,
    accessors: Who,
}

impl Touch {
    fn absorb(&mut self, other: Touch) {
        self.writers = self.writers.add(other.writers);
        self.accessors = self.accessors.add(other.accessors);
    }

    /// Written by someone and touched by someone else.
    fn conflicts(&self) -> bool {
        match (self.writers, self.accessors) {
            (Who::Nobody, _) => false,
            (Who::One(w), Who::One(a)) => w != a,
            _ => true,
        }
    }
}

/// Records, per (buffer argument, byte), which work-items wrote and accessed it.
#[derive(Default)]
struct SharingObserver {
    touches: HashMap<(usize, u64), Touch>,
}

impl Observer for SharingObserver {
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        if batch.space != AddressSpace::Global {
            return;
        }
        let writes = batch.kind != AccessKind::Load;
        let [gx, gy, _] = batch.group.global_size;
        for lane in batch.mask.iter() {
            let Some(&address) = batch.addresses.get(lane) else { continue };
            let Target::Buffer { index, offset } = decode(address) else { continue };
            let [x, y, z] = batch.group.global_id(lane);
            let who = Who::One(x + gx * (y + gy * z));
            for byte in offset..offset + u64::from(batch.size) {
                let touch = self.touches.entry((index, byte)).or_default();
                touch.absorb(Touch {
                    writers: if writes { who } else { Who::Nobody },
                    accessors: who,
                });
            }
        }
    }

    fn merge(&mut self, other: Self) {
        for (key, touch) in other.touches {
            self.touches.entry(key).or_default().absorb(touch);
        }
    }
}
