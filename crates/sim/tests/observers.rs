//! The observer interface: batches of lane accesses with addresses, sizes, spaces and logical
//! time; instruction, branch and barrier hooks; per-thread instances merged deterministically.

mod common;
use common::*;

use std::collections::BTreeMap;

use clmap_lang::ir::AddressSpace;
use clmap_sim::memory::{buffer_base, decode, Target};
use clmap_sim::{
    run_kernel, AccessBatch, AccessKind, ArgValue, GroupInfo, InstructionBatch, Mask, Observer,
    SimOptions,
};

#[derive(Default, Debug, PartialEq)]
struct Counts {
    /// (space, kind) -> lane accesses
    accesses: BTreeMap<(String, String), u64>,
    bytes_by_buffer: BTreeMap<usize, u64>,
    loads_per_time: BTreeMap<u64, u64>,
    instructions: u64,
    branches: u64,
    taken: u64,
    barriers: u64,
    groups: u64,
}

impl Observer for Counts {
    fn group_start(&mut self, _group: &GroupInfo) {
        self.groups += 1;
    }
    fn memory_access(&mut self, batch: &AccessBatch<'_>) {
        let key = (format!("{:?}", batch.space), format!("{:?}", batch.kind));
        let lanes: Vec<usize> = batch.mask.iter().collect();
        *self.accesses.entry(key).or_default() += lanes.len() as u64;
        for lane in lanes {
            if let Target::Buffer { index, .. } = decode(batch.addresses[lane]) {
                *self.bytes_by_buffer.entry(index).or_default() += u64::from(batch.size);
            }
        }
        if batch.kind == AccessKind::Load
            && batch.space == AddressSpace::Global
            && batch.group.group_index == 0
        {
            *self.loads_per_time.entry(batch.time).or_default() += u64::from(batch.mask.count());
        }
    }
    fn instruction(&mut self, op: &InstructionBatch<'_>) {
        self.instructions += u64::from(op.mask.count());
    }
    fn branch(&mut self, _span: clmap_lang::Span, taken: &Mask, _active: &Mask, _time: u64) {
        self.branches += 1;
        self.taken += u64::from(taken.count());
    }
    fn barrier(
        &mut self,
        _span: clmap_lang::Span,
        _fences: clmap_lang::ir::FenceFlags,
        _active: &Mask,
        _group: &GroupInfo,
        _time: u64,
    ) {
        self.barriers += 1;
    }
    fn merge(&mut self, other: Self) {
        for (k, v) in other.accesses {
            *self.accesses.entry(k).or_default() += v;
        }
        for (k, v) in other.bytes_by_buffer {
            *self.bytes_by_buffer.entry(k).or_default() += v;
        }
        for (k, v) in other.loads_per_time {
            *self.loads_per_time.entry(k).or_default() += v;
        }
        self.instructions += other.instructions;
        self.branches += other.branches;
        self.taken += other.taken;
        self.barriers += other.barriers;
        self.groups += other.groups;
    }
}

#[test]
fn observers_see_every_lane_access_and_merge_the_same_on_any_thread_count() {
    let src = r#"
    __kernel void k(__global const float *in, __global float *out, __local float *tmp) {
        int g = get_global_id(0), l = get_local_id(0);
        tmp[l] = in[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        float s = 0.0f;
        for (int i = 0; i <= l; i++) s += tmp[i];
        if (g % 2 == 0) out[g] = s;
    }"#;
    let m = module(src);
    let mut results = Vec::new();
    for threads in [1, 2, 3] {
        let input = buf_f32("in", &(0..64).map(|i| i as f32).collect::<Vec<_>>());
        let out = buf_f32("out", &[0.0; 64]);
        let options = SimOptions { threads, ..SimOptions::default() };
        let run = run_kernel(
            &m,
            "k",
            &range(&[64], &[16]),
            &[ArgValue::Buffer(input), ArgValue::Buffer(out), ArgValue::Local(64)],
            &options,
            &Counts::default,
        )
        .expect("runs");
        results.push(run.observer);
    }
    let c = &results[0];
    assert_eq!(results[1], *c);
    assert_eq!(results[2], *c);
    assert_eq!(c.groups, 4);
    assert_eq!(c.barriers, 4);
    let get = |space: &str, kind: &str| {
        c.accesses.get(&(space.to_string(), kind.to_string())).copied().unwrap_or(0)
    };
    assert_eq!(get("Global", "Load"), 64);
    assert_eq!(get("Global", "Store"), 32);
    assert_eq!(get("Local", "Store"), 64);
    // Work-item l of each group reads l + 1 elements of tmp.
    assert_eq!(get("Local", "Load"), 4 * (1..=16).sum::<u64>());
    assert_eq!(c.bytes_by_buffer.get(&0), Some(&(64 * 4)));
    assert_eq!(c.bytes_by_buffer.get(&1), Some(&(32 * 4)));
    // All 16 lanes of group 0 load `in` in one lock-step instruction at one logical time.
    assert_eq!(c.loads_per_time.values().copied().collect::<Vec<_>>(), vec![16]);
    assert!(c.instructions > 0 && c.branches > 0 && c.taken > 0);
    assert_eq!(buffer_base(1) >> 40, 2);
}
