//! The order in which a pipeline runs, with buffer swaps applied. The simulator and the
//! device runner both walk this, so swap semantics are defined once: after each repetition
//! of a launch, the names of each `swap` pair exchange their storage.

use crate::model::{BufferData, BufferSet, LaunchArg, Workload};

/// One kernel execution of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Index into [`Workload::launches`].
    pub launch: usize,
    /// Which repetition of that launch, from 0.
    pub repetition: u32,
    /// For each argument of the launch: the storage slot (an index into
    /// [`Workload::buffers`] and into the [`crate::BufferSet`] of
    /// [`Workload::initial_data`]) that a buffer argument uses in this step; `None` for
    /// scalars, local memory and NULL.
    pub arg_slots: Vec<Option<usize>>,
}

/// Iterator over the [`Step`]s of a workload, in execution order.
#[derive(Clone, Debug)]
pub struct Schedule<'a> {
    workload: &'a Workload,
    launch: usize,
    repetition: u32,
    /// `slots[i]` is the storage currently named by buffer `i`.
    slots: Vec<usize>,
}

impl Workload {
    /// The steps of the pipeline in execution order. A workload that passed validation names
    /// only known buffers; an unknown name yields `None` in [`Step::arg_slots`].
    pub fn schedule(&self) -> Schedule<'_> {
        Schedule {
            workload: self,
            launch: 0,
            repetition: 0,
            slots: (0..self.buffers.len()).collect(),
        }
    }

    /// After the whole pipeline, the storage slot each buffer name refers to (indexed like
    /// [`Workload::buffers`]). Outputs are read from these slots.
    pub fn final_slots(&self) -> Vec<usize> {
        let mut schedule = self.schedule();
        for _ in schedule.by_ref() {}
        schedule.slots
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
        BufferSet { buffers }
    }

    fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }
}

impl Iterator for Schedule<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let launch = self.workload.launches.get(self.launch)?;
        let arg_slots = launch
            .args
            .iter()
            .map(|arg| match arg {
                LaunchArg::Buffer { buffer } => {
                    self.workload.buffer_index(buffer).and_then(|i| self.slots.get(i).copied())
                }
                _ => None,
            })
            .collect();
        let step = Step { launch: self.launch, repetition: self.repetition, arg_slots };
        for (a, b) in &launch.swap {
            if let (Some(i), Some(j)) =
                (self.workload.buffer_index(a), self.workload.buffer_index(b))
            {
                self.slots.swap(i, j);
            }
        }
        self.repetition += 1;
        if self.repetition >= launch.repeat.max(1) {
            self.launch += 1;
            self.repetition = 0;
        }
        Some(step)
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
        let steps: Vec<Step> = w.schedule().collect();
        let summary: Vec<(usize, u32, Vec<Option<usize>>)> =
            steps.into_iter().map(|s| (s.launch, s.repetition, s.arg_slots)).collect();
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
}
