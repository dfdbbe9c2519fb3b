//! The order in which a pipeline runs, with buffer swaps applied and every argument resolved.
//! The simulator and the device runner both walk this, so swap semantics and the conversion
//! of workload arguments into what a kernel receives are defined once: after each repetition
//! of a launch, the names of each `swap` pair exchange their storage, and a scalar's bytes, a
//! local allocation's size and a buffer's storage slot are computed here, with an error (never
//! a silent saturation) when a value does not fit.

use crate::error::WorkloadError;
use crate::image::ImageSpec;
use crate::model::{invalid, BufferData, BufferSet, BufferWrite, LaunchArg, Workload};
use crate::number::Number;

/// One kernel execution of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Index into [`Workload::launches`].
    pub launch: usize,
    /// Which repetition of that launch, from 0.
    pub repetition: u32,
    /// What each argument of the launch is in this step, in parameter order.
    pub args: Vec<StepArg>,
    /// Host writes into buffers that happen before this step runs, in order.
    pub host_writes: Vec<HostWrite>,
}

impl Step {
    /// For each argument: the storage slot a buffer argument uses in this step (an index into
    /// [`Workload::buffers`] and into the [`crate::BufferSet`] of [`Workload::initial_data`]),
    /// `None` for scalars, local memory and NULL.
    pub fn arg_slots(&self) -> Vec<Option<usize>> {
        self.args
            .iter()
            .map(|a| match a {
                StepArg::Buffer { slot } | StepArg::View { slot, .. } => Some(*slot),
                _ => None,
            })
            .collect()
    }
}

/// One kernel argument as the kernel receives it in one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepArg {
    /// A global or constant pointer to the storage in `slot`.
    Buffer { slot: usize },
    /// A global or constant pointer to `len` bytes of the storage in `slot` from byte
    /// `offset` on: a view (OpenCL sub-buffer) of that storage's buffer.
    View { slot: usize, offset: u64, len: u64 },
    /// A by-value argument: the bytes `clSetKernelArg` passes (a 3-component vector padded to 4).
    Scalar { bytes: Vec<u8> },
    /// A `__local` pointer to this many bytes per work-group.
    Local { bytes: u64 },
    /// A NULL pointer.
    Null,
    /// An image over the storage in `slot` (its bytes are the texels, see [`crate::image`]).
    Image { slot: usize, image: ImageSpec },
    /// A sampler, as the value of its `CLK_*` flags.
    Sampler { bits: u32 },
}

/// The host writing bytes into a buffer's storage between launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostWrite {
    /// The storage slot written (as in [`StepArg::Buffer`]).
    pub slot: usize,
    /// Byte offset of the first byte written.
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// Iterator over the [`Step`]s of a workload, in execution order: launches in order, each
/// `repeat` times, the launches of a group `repeat` times over, groups within groups. An
/// argument that cannot be converted (an unknown buffer, a scalar that does not fit its type,
/// a local size that overflows) ends the iteration with an error; [`Workload::validate`] rules
/// these out for loaded workloads. Steps are made one at a time: a pipeline of a million
/// launches is never held in memory.
#[derive(Clone, Debug)]
pub struct Schedule<'a> {
    workload: &'a Workload,
    /// The launch the next step runs, and which of its repetitions.
    launch: usize,
    repetition: u32,
    /// The groups being run, outermost first, each with its current repetition.
    active: Vec<(usize, u32)>,
    /// `slots[i]` is the storage currently named by buffer `i`.
    slots: Vec<usize>,
    failed: bool,
}

impl Workload {
    /// The steps of the pipeline in execution order, each with its arguments resolved.
    pub fn schedule(&self) -> Schedule<'_> {
        Schedule {
            workload: self,
            launch: 0,
            repetition: 0,
            active: Vec::new(),
            slots: (0..self.buffers.len()).collect(),
            failed: false,
        }
    }

    /// Every step of the pipeline, or the first argument that cannot be converted.
    pub fn steps(&self) -> Result<Vec<Step>, WorkloadError> {
        self.schedule().collect()
    }

    /// After the whole pipeline, the storage slot each buffer name refers to (indexed like
    /// [`Workload::buffers`]). Outputs are read from these slots.
    pub fn final_slots(&self) -> Vec<usize> {
        // Swaps do not depend on argument values, so the walk goes on past a bad argument.
        let mut walk = self.schedule();
        let mut budget = self.launch_count().saturating_add(1);
        while walk.launch < self.launches.len() && budget > 0 {
            walk.enter_groups();
            walk.advance();
            budget -= 1;
        }
        walk.slots
    }

    /// Turns the storage after a run (slots in the order of [`Workload::buffers`], as
    /// [`Workload::initial_data`] made them) into contents by final name: entry `i` is what
    /// buffer `i`'s name refers to once every swap has happened. Reports and comparisons
    /// then look buffers up by name.
    pub fn contents_by_final_name(&self, storage: BufferSet) -> BufferSet {
        let slots = self.final_slots();
        let mut taken: Vec<Option<BufferData>> = storage.buffers.into_iter().map(Some).collect();
        let mut buffers = Vec::with_capacity(taken.len());
        for (i, buffer) in self.buffers.iter().enumerate() {
            let slot = slots.get(i).copied().unwrap_or(i);
            if let Some(mut data) = taken.get_mut(slot).and_then(Option::take) {
                data.name = buffer.name.clone();
                buffers.push(data);
            }
        }
        // Views and their parents are never swapped: a view is its parent's window.
        let mut set = BufferSet { buffers };
        self.fill_views(&mut set);
        set
    }

    pub(crate) fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }
}

impl Schedule<'_> {
    /// Starts every group that begins at the current launch and is not running yet.
    fn enter_groups(&mut self) {
        if self.repetition != 0 {
            return;
        }
        let w = self.workload;
        for g in w.enclosing_groups(self.launch) {
            let starts_here = w.groups.get(g).is_some_and(|x| x.launches.start == self.launch);
            if starts_here && !self.active.iter().any(|(a, _)| *a == g) {
                self.active.push((g, 0));
            }
        }
    }

    fn swap(&mut self, pairs: &[(String, String)]) {
        for (a, b) in pairs {
            if let (Some(i), Some(j)) =
                (self.workload.buffer_index(a), self.workload.buffer_index(b))
            {
                self.slots.swap(i, j);
            }
        }
    }

    /// Moves past the current step: the launch's swaps, then its next repetition, or the next
    /// launch, closing (and repeating) the groups that end there.
    fn advance(&mut self) {
        let w = self.workload;
        let Some(launch) = w.launches.get(self.launch) else { return };
        self.swap(&launch.swap);
        self.repetition += 1;
        if self.repetition < launch.repeat.max(1) {
            return;
        }
        self.repetition = 0;
        self.launch += 1;
        while let Some(&(g, rep)) = self.active.last() {
            let Some(group) = w.groups.get(g) else { break };
            if group.launches.end != self.launch {
                break;
            }
            self.swap(&group.swap);
            if rep + 1 < group.repeat.max(1) {
                if let Some(top) = self.active.last_mut() {
                    top.1 = rep + 1;
                }
                self.launch = group.launches.start;
                break;
            }
            self.active.pop();
        }
    }

    /// The value of a loop index in the current step.
    fn index_value(&self, name: &str) -> Option<i128> {
        let w = self.workload;
        let launch = w.launches.get(self.launch)?;
        if name == "i" {
            if launch.repeat > 1 {
                return Some(i128::from(self.repetition));
            }
            let repeating = self
                .active
                .iter()
                .rev()
                .find(|(g, _)| w.groups.get(*g).is_some_and(|x| x.repeat > 1));
            return Some(repeating.map_or(0, |(_, rep)| i128::from(*rep)));
        }
        if launch.index.as_deref() == Some(name) {
            return Some(i128::from(self.repetition));
        }
        self.active
            .iter()
            .rev()
            .find(|(g, _)| w.groups.get(*g).is_some_and(|x| x.index.as_deref() == Some(name)))
            .map(|(_, rep)| i128::from(*rep))
    }

    fn resolve(&self, arg: &LaunchArg) -> Result<StepArg, WorkloadError> {
        match arg {
            LaunchArg::Buffer { buffer } => {
                let index = self.workload.buffer_index(buffer);
                if let Some(b) = index.map(|i| &self.workload.buffers[i]) {
                    if let Some(view) = &b.view {
                        let parent = self.workload.buffer_index(&view.parent);
                        return parent
                            .and_then(|p| self.slots.get(p).copied())
                            .map(|slot| StepArg::View {
                                slot,
                                offset: view.offset,
                                len: b.byte_len(),
                            })
                            .ok_or_else(|| {
                                invalid(format!(
                                    "view `{buffer}` lies in unknown buffer `{}`",
                                    view.parent
                                ))
                            });
                    }
                }
                let image = index.and_then(|i| self.workload.buffers[i].image);
                index
                    .and_then(|i| self.slots.get(i).copied())
                    .map(|slot| match image {
                        Some(image) => StepArg::Image { slot, image },
                        None => StepArg::Buffer { slot },
                    })
                    .ok_or_else(|| invalid(format!("argument names unknown buffer `{buffer}`")))
            }
            LaunchArg::Sampler { bits, .. } => Ok(StepArg::Sampler { bits: *bits }),
            LaunchArg::Scalar { .. } | LaunchArg::Bytes { .. } => match arg.scalar_bytes() {
                Some(bytes) => Ok(StepArg::Scalar { bytes: bytes? }),
                None => Err(invalid(format!("argument `{}` is not a scalar", arg.name()))),
            },
            LaunchArg::LoopScalar { name, ty, value } => {
                let known = || self.workload.loop_indices(self.launch);
                let v = value
                    .eval(&|n| self.index_value(n), &known)
                    .map_err(|e| invalid(format!("scalar `{name}` = `{value}`: {e}")))?;
                let mut bytes = Vec::new();
                Number::Int(v).write_le(ty.scalar, &mut bytes).map_err(|e| {
                    let i = self.index_value("i").unwrap_or(0);
                    invalid(format!("scalar `{name}` = `{value}` at i = {i}: {e}"))
                })?;
                Ok(StepArg::Scalar { bytes })
            }
            LaunchArg::Local { name, elem, len } => {
                len.checked_mul(elem.size()).map(|bytes| StepArg::Local { bytes }).ok_or_else(
                    || invalid(format!("local `{name}` of {len} x {elem} does not fit in 64 bits")),
                )
            }
            LaunchArg::Null { .. } => Ok(StepArg::Null),
        }
    }

    fn host_write(&self, write: &BufferWrite) -> Result<HostWrite, WorkloadError> {
        let w = self.workload;
        let (index, buffer) =
            w.buffers.iter().enumerate().find(|(_, b)| b.name == write.buffer).ok_or_else(
                || invalid(format!("host write names unknown buffer `{}`", write.buffer)),
            )?;
        let slot = self.slots.get(index).copied().unwrap_or(index);
        let bytes = write
            .init
            .generate(buffer.elem, write.len, 0)
            .map_err(|e| invalid(format!("host write to `{}`: {e}", write.buffer)))?;
        let offset = write.offset.checked_mul(buffer.elem.size()).ok_or_else(|| {
            invalid(format!("host write to `{}`: offset overflows", write.buffer))
        })?;
        Ok(HostWrite { slot, offset, bytes })
    }

    fn step(&self) -> Result<Step, WorkloadError> {
        let Some(launch) = self.workload.launches.get(self.launch) else {
            return Err(invalid("the schedule ran past the last launch".to_string()));
        };
        let host_writes =
            launch.writes.iter().map(|w| self.host_write(w)).collect::<Result<Vec<_>, _>>()?;
        let args = launch.args.iter().map(|arg| self.resolve(arg)).collect::<Result<_, _>>()?;
        Ok(Step { launch: self.launch, repetition: self.repetition, args, host_writes })
    }
}

impl Iterator for Schedule<'_> {
    type Item = Result<Step, WorkloadError>;

    fn next(&mut self) -> Option<Result<Step, WorkloadError>> {
        if self.failed {
            return None;
        }
        let launch = self.workload.launches.get(self.launch)?;
        self.enter_groups();
        let step = match self.step() {
            Ok(step) => step,
            Err(e) => {
                self.failed = true;
                let at = format!("launch {} (`{}`)", self.launch + 1, launch.kernel);
                return Some(Err(invalid(format!("{at}: {e}"))));
            }
        };
        self.advance();
        Some(Ok(step))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn pipeline(repeat: u32) -> Workload {
        let text = format!(
            r#"
source = "schedule.rs"
outputs = ["a"]
[buffers]
a = {{ type = "float", len = 4 }}
b = {{ type = "float", len = 4 }}
c = {{ type = "float", len = 4 }}
[[launch]]
kernel = "step"
global = [4]
args = ["a", "b", {{ scalar = "int", value = 1 }}]
repeat = {repeat}
swap = ["a", "b"]
[[launch]]
kernel = "finish"
global = [4]
args = ["a", "c"]
"#
        );
        Workload::from_toml_str(&text, Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path())
            .expect("valid pipeline")
    }

    #[test]
    fn swaps_apply_after_each_repetition() {
        let w = pipeline(3);
        let steps: Vec<Step> = w.steps().expect("valid steps");
        let summary: Vec<(usize, u32, Vec<Option<usize>>)> =
            steps.into_iter().map(|s| (s.launch, s.repetition, s.arg_slots())).collect();
        assert_eq!(
            summary,
            vec![
                (0, 0, vec![Some(0), Some(1), None]),
                (0, 1, vec![Some(1), Some(0), None]),
                (0, 2, vec![Some(0), Some(1), None]),
                // After three swaps, `a` names the storage the last step wrote.
                (1, 0, vec![Some(1), Some(2)]),
            ]
        );
        assert_eq!(w.final_slots(), vec![1, 0, 2]);
        assert_eq!(pipeline(2).final_slots(), vec![0, 1, 2]);
    }

    #[test]
    fn contents_follow_the_final_names() {
        let w = pipeline(3);
        let mut storage = w.initial_data(0).expect("data");
        for (i, b) in storage.buffers.iter_mut().enumerate() {
            b.bytes = vec![i as u8; 16];
        }
        let named = w.contents_by_final_name(storage);
        let firsts: Vec<(String, u8)> =
            named.buffers.iter().map(|b| (b.name.clone(), b.bytes[0])).collect();
        assert_eq!(firsts, vec![("a".into(), 1), ("b".into(), 0), ("c".into(), 2)]);
    }

    #[test]
    fn arguments_are_converted_once_with_errors_not_saturation() {
        let w = pipeline(1);
        let first = w.schedule().next().expect("a step").expect("valid");
        assert_eq!(first.args[2], StepArg::Scalar { bytes: 1i32.to_le_bytes().to_vec() });
        let mut huge = pipeline(1);
        huge.launches[0].args[2] = LaunchArg::Local {
            name: "tile".into(),
            elem: crate::types::ElemType::scalar(crate::types::ScalarType::Double),
            len: u64::MAX / 2,
        };
        let err = huge.steps().expect_err("overflow is an error").to_string();
        assert!(err.contains("launch 1 (`step`)") && err.contains("64 bits"), "{err}");
        // The schedule stops at the error instead of going on with a wrong argument.
        assert_eq!(huge.schedule().count(), 1);
        let mut unknown = pipeline(1);
        unknown.launches[1].args[0] = LaunchArg::Buffer { buffer: "nope".into() };
        assert!(unknown.steps().expect_err("unknown").to_string().contains("`nope`"));
        // Swaps are still followed, so outputs keep their final names.
        assert_eq!(unknown.final_slots(), vec![1, 0, 2]);
    }
}
