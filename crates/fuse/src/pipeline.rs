//! The host program as fusion sees it: launches over named storages. A *segment* is a run of
//! launches that fusion may merge — the repetitions of one launch that ping-pongs two buffers
//! (temporal fusion), or consecutive different launches over the same index space that hand
//! buffers from producer to consumer (spatial fusion). Its *stages* are the launch instances
//! in order, each with the storage every buffer parameter is bound to.

use std::collections::BTreeMap;

use clmap_workload::{Expr, LaunchArg, Workload};

use crate::refusal::Refusal;

/// Which launches a segment covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// Repetitions of launch `launch`, which swaps `pair` after each.
    Temporal { launch: usize, pair: (String, String) },
    /// Consecutive launches `first..=last`, each run once.
    Spatial { first: usize, last: usize },
    /// The repetitions of host loop `group`, whose body is launches `first..=last` (each run
    /// once per repetition): several repetitions fused into each other, as temporal fusion
    /// fuses the repetitions of one launch.
    Repeated { group: usize, first: usize, last: usize },
}

/// One launch instance of a fused kernel.
#[derive(Clone, Debug)]
pub struct Stage {
    pub launch: usize,
    /// Storage (a buffer name at the start of the fused launch) per kernel parameter, for
    /// buffer arguments.
    pub storage: Vec<Option<String>>,
    /// For temporal fusion, which repetition of its launch this stage is, in terms of the
    /// fused launch's own repetition index `i`: `K * i + k` for the k-th of K fused steps;
    /// values that change with the repetition are evaluated at it. `None` for a launch run
    /// once, whose `i` means what it means for the fused launch that replaces it (0, or the
    /// repetition of the group around both).
    pub repetition: Option<Expr>,
}

#[derive(Clone, Debug)]
pub struct Segment {
    pub kind: SegmentKind,
}

impl Segment {
    /// The stages of `steps` fused steps of this segment (a spatial segment has one fixed
    /// list of stages and ignores `steps`).
    pub fn stages(&self, workload: &Workload, steps: u32) -> Vec<Stage> {
        match &self.kind {
            SegmentKind::Temporal { launch, pair } => {
                let mut names = Names::default();
                (0..steps)
                    .map(|k| {
                        let repetition = Expr::affine(i128::from(steps), "i", i128::from(k));
                        let stage = names.stage(workload, *launch, Some(repetition));
                        names.swap(pair);
                        stage
                    })
                    .collect()
            }
            SegmentKind::Repeated { group, first, last } => {
                let mut names = Names::default();
                let mut stages = Vec::new();
                for _ in 0..steps {
                    for l in *first..=*last {
                        stages.push(names.stage(workload, l, None));
                        for pair in &workload.launches[l].swap {
                            names.swap(pair);
                        }
                    }
                    for pair in &workload.groups[*group].swap {
                        names.swap(pair);
                    }
                }
                stages
            }
            SegmentKind::Spatial { first, last } => {
                let mut names = Names::default();
                (*first..=*last)
                    .map(|l| {
                        let stage = names.stage(workload, l, None);
                        for pair in &workload.launches[l].swap {
                            names.swap(pair);
                        }
                        stage
                    })
                    .collect()
            }
        }
    }
}

/// Buffer names → storages, as swaps exchange them.
#[derive(Default)]
pub struct Names {
    map: BTreeMap<String, String>,
}

impl Names {
    /// The names after `steps` repetitions of a segment, and the swaps that make the host's
    /// names point where they do then (what a fused launch of that many steps swaps).
    pub fn after(
        workload: &Workload,
        segment: &Segment,
        steps: u32,
    ) -> (Names, Vec<(String, String)>) {
        let mut names = Names::default();
        let mut used: Vec<String> = Vec::new();
        let mut apply = |names: &mut Names, pair: &(String, String)| {
            for n in [&pair.0, &pair.1] {
                if !used.contains(n) {
                    used.push(n.clone());
                }
            }
            names.swap(pair);
        };
        for _ in 0..steps {
            match &segment.kind {
                SegmentKind::Temporal { pair, .. } => apply(&mut names, pair),
                SegmentKind::Spatial { first, last }
                | SegmentKind::Repeated { first, last, .. } => {
                    for l in *first..=*last {
                        for pair in &workload.launches[l].swap {
                            apply(&mut names, pair);
                        }
                    }
                    if let SegmentKind::Repeated { group, .. } = &segment.kind {
                        for pair in &workload.groups[*group].swap {
                            apply(&mut names, pair);
                        }
                    }
                }
            }
        }
        // The same permutation as a list of swaps.
        used.sort();
        let mut current = Names::default();
        let mut swaps = Vec::new();
        for n in &used {
            let want = names.resolve(n);
            if current.resolve(n) != want {
                let other = used
                    .iter()
                    .find(|m| current.resolve(m) == want)
                    .expect("a permutation of the names used")
                    .clone();
                let pair = (n.clone(), other);
                current.swap(&pair);
                swaps.push(pair);
            }
        }
        (names, swaps)
    }

    pub fn resolve(&self, name: &str) -> String {
        self.map.get(name).cloned().unwrap_or_else(|| name.to_string())
    }

    pub fn swap(&mut self, (a, b): &(String, String)) {
        let (sa, sb) = (self.resolve(a), self.resolve(b));
        self.map.insert(a.clone(), sb);
        self.map.insert(b.clone(), sa);
    }

    fn stage(&self, workload: &Workload, launch: usize, repetition: Option<Expr>) -> Stage {
        let storage = workload.launches[launch]
            .args
            .iter()
            .map(|a| match a {
                LaunchArg::Buffer { buffer } => Some(self.resolve(buffer)),
                _ => None,
            })
            .collect();
        Stage { launch, storage, repetition }
    }
}

/// The groups (host loops) around launch `l`, innermost last.
fn enclosing(workload: &Workload, l: usize) -> Vec<usize> {
    (0..workload.groups.len()).filter(|g| workload.groups[*g].launches.contains(&l)).collect()
}

/// The segments of a workload worth fusing, and why the other launches are not. Segments
/// stay inside one host loop: launches fuse only with neighbours in the same groups.
pub fn segments(workload: &Workload) -> (Vec<Segment>, Vec<Refusal>) {
    let mut found = Vec::new();
    let mut refused = Vec::new();
    let launches = &workload.launches;
    let mut l = 0;
    while l < launches.len() {
        let launch = &launches[l];
        if launch.repeat > 1 {
            match temporal_pair(workload, l) {
                Ok(pair) => found.push(Segment { kind: SegmentKind::Temporal { launch: l, pair } }),
                Err(r) => refused.push(r),
            }
            l += 1;
            continue;
        }
        // A chain: following launches run once, over the same index space, in the same host
        // loops, without host writes in between.
        let loops = enclosing(workload, l);
        let mut last = l;
        while last + 1 < launches.len() {
            let next = &launches[last + 1];
            if next.repeat != 1
                || !next.writes.is_empty()
                || next.range.global != launch.range.global
                || next.range.dims != launch.range.dims
                || enclosing(workload, last + 1) != loops
            {
                break;
            }
            last += 1;
        }
        let repeated = repeated_group(workload, l, last);
        if let Some(group) = repeated {
            found.push(Segment { kind: SegmentKind::Repeated { group, first: l, last } });
        } else if last > l {
            found.push(Segment { kind: SegmentKind::Spatial { first: l, last } });
        } else if workload.launch_count() > 1 {
            refused.push(Refusal::unlocated(format!(
                "launch {} (`{}`) runs once and no neighbouring launch has the same index space, \
                 the same host loops and no host writes between them",
                l + 1,
                launch.kernel
            )));
        }
        l = last + 1;
    }
    if workload.launch_count() == 1 {
        refused.push(Refusal::unlocated(format!(
            "the pipeline is a single launch of `{}` run once: there is nothing to fuse it with",
            launches[0].kernel
        )));
    }
    (found, refused)
}

/// The host loop whose body is exactly launches `first..=last`, when its repetitions can be
/// fused into each other: it runs at least 3 times (2 fused and the last), swaps buffers
/// after each repetition, and passes no values that change with the repetition.
fn repeated_group(workload: &Workload, first: usize, last: usize) -> Option<usize> {
    let group = *enclosing(workload, first).last()?;
    let g = &workload.groups[group];
    let body = &workload.launches[first..=last];
    (g.launches == (first..last + 1)
        && g.repeat >= 3
        && !g.swap.is_empty()
        && body.iter().all(|l| l.repeat == 1 && l.writes.is_empty())
        && !body.iter().any(|l| l.args.iter().any(|a| matches!(a, LaunchArg::LoopScalar { .. }))))
    .then_some(group)
}

/// A repeated launch fuses in time when it swaps exactly one pair of buffers after each
/// repetition (it reads one and writes the other) and has no host writes. Values that change
/// with the repetition (a row number) are passed to every fused step separately.
fn temporal_pair(workload: &Workload, l: usize) -> Result<(String, String), Refusal> {
    let launch = &workload.launches[l];
    let who = format!("launch {} (`{}`, repeat {})", l + 1, launch.kernel, launch.repeat);
    if launch.swap.len() != 1 {
        return Err(Refusal::unlocated(format!(
            "{who} does not swap exactly one pair of buffers after each repetition, so its \
             repetitions do not hand results on"
        )));
    }
    if !launch.writes.is_empty() {
        return Err(Refusal::unlocated(format!("{who} has host writes before every repetition")));
    }
    if !enclosing(workload, l).is_empty()
        && launch.args.iter().any(|a| matches!(a, LaunchArg::LoopScalar { .. }))
    {
        // Inside a host loop, `i` of a launch fused down to one repetition would become the
        // loop's index: such values are not regrouped yet.
        return Err(Refusal::unlocated(format!(
            "{who} is inside a host loop and passes values that change with the repetition \
             (not fused yet)"
        )));
    }
    let own_index = |n: &str| n == "i" || launch.index.as_deref() == Some(n);
    let outer = launch.args.iter().find(|a| match a {
        LaunchArg::LoopScalar { value, .. } => !value.names().into_iter().all(own_index),
        _ => false,
    });
    if let Some(arg) = outer {
        return Err(Refusal::unlocated(format!(
            "{who} passes `{}`, a value that depends on an enclosing loop's index",
            arg.name()
        )));
    }
    if launch.repeat < 3 {
        return Err(Refusal::unlocated(format!(
            "{who}: fusing needs at least 3 repetitions (2 fused steps and the last one)"
        )));
    }
    Ok(launch.swap[0].clone())
}
