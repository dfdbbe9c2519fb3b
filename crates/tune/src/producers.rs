//! Variant producers: each knows one way of changing a kernel and builds every variant of that
//! kind it can for a workload, or says why it cannot. Tuning runs whatever list it is given, so
//! a new transform joins by adding a producer to [`default_producers`].

use std::collections::BTreeSet;

use clmap_exec::PreparedWorkload;
use clmap_grover::candidate::Decision;
use clmap_grover::{unlocal, UnlocalOptions};

use crate::variant::{
    shape_name, work_group_of, Construction, Layout, Produced, RefusedVariant, Variant,
};

/// What the device accepts, for producers whose variants must fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Work-items in a work-group (`CL_DEVICE_MAX_WORK_GROUP_SIZE`).
    pub max_work_group_size: u64,
    /// Work-items per dimension (`CL_DEVICE_MAX_WORK_ITEM_SIZES`).
    pub max_work_item_sizes: [u64; 3],
    /// `__local` memory per work-group, in bytes.
    pub local_mem_bytes: u64,
}

impl DeviceLimits {
    /// The limits of a typical OpenCL GPU (1024 work-items, 48 KiB of local memory), which the
    /// simulator is held to so that what it accepts also runs on hardware.
    pub const SIMULATOR: DeviceLimits = DeviceLimits {
        max_work_group_size: 1024,
        max_work_item_sizes: [1024, 1024, 64],
        local_mem_bytes: 48 * 1024,
    };

    pub fn of(info: &clmap_device::DeviceInfo) -> DeviceLimits {
        let item = |d: usize| info.max_work_item_sizes.get(d).map_or(1, |&s| s as u64);
        DeviceLimits {
            max_work_group_size: info.max_work_group_size as u64,
            max_work_item_sizes: [item(0), item(1), item(2)],
            local_mem_bytes: info.local_mem_bytes,
        }
    }
}

/// The workload being tuned, as producers see it.
pub struct Subject<'a> {
    pub original: &'a PreparedWorkload,
    /// The kernel whose variants are built (its launches get the new work-group sizes).
    pub kernel: &'a str,
    pub limits: DeviceLimits,
    /// Random input sets a producer that validates its variants itself uses.
    pub seeds: u64,
}

/// One way of building variants.
pub trait VariantProducer {
    /// What it builds, for progress lines (`Grover unlocal`).
    fn label(&self) -> &'static str;
    /// Every variant of its kind for `subject`, built or refused.
    fn produce(&self, subject: &Subject<'_>) -> Vec<Produced>;
}

/// Which work-group sizes to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkGroupChoice {
    /// None: tune memory layout only.
    None,
    /// The power-of-two sizes that divide the NDRange and fit the device, nearest to the
    /// launch's own size first, at most this many.
    Nearest(usize),
    /// Every such size.
    All,
    /// Exactly these sizes (each must still divide the NDRange and fit the device).
    Given(Vec<Vec<u64>>),
}

/// The producers `clmap tune` runs, in the order their variants are tried: the kernel as
/// written (the baseline), Grover's removal of each `__local` staging, local staging of each
/// `__global` buffer, then other work-group sizes.
pub fn default_producers(work_groups: WorkGroupChoice) -> Vec<Box<dyn VariantProducer>> {
    vec![
        Box::new(AsWritten),
        Box::new(GroverUnlocal),
        Box::new(LocalStaging),
        Box::new(WorkGroupSizes(work_groups)),
    ]
}

/// The workload unchanged.
pub struct AsWritten;

pub const AS_WRITTEN: &str = "as-written";

impl VariantProducer for AsWritten {
    fn label(&self) -> &'static str {
        "as written"
    }

    fn produce(&self, subject: &Subject<'_>) -> Vec<Produced> {
        vec![Ok(Variant {
            name: AS_WRITTEN.to_string(),
            construction: Construction::AsWritten,
            how: "the kernel and launch as the workload describes them".to_string(),
            layout: Layout::default(),
            work_group: work_group_of(subject.original.workload(), subject.kernel),
            prepared: subject.original.clone(),
            validated: None,
        })]
    }
}

/// Grover: one variant per `__local` buffer whose staging it can remove, and one without any
/// when it can remove several.
pub struct GroverUnlocal;

impl VariantProducer for GroverUnlocal {
    fn label(&self) -> &'static str {
        "Grover unlocal"
    }

    fn produce(&self, subject: &Subject<'_>) -> Vec<Produced> {
        let compiled = subject.original.compiled();
        let options =
            UnlocalOptions { kernel: Some(subject.kernel.to_string()), ..Default::default() };
        let analysis = match unlocal(compiled, &options) {
            Ok(outcome) => outcome,
            Err(e) => {
                return vec![Err(RefusedVariant {
                    name: "unlocal".to_string(),
                    construction: Construction::Unlocal { local_buffers: Vec::new() },
                    reason: e.to_string(),
                })]
            }
        };
        let mut out = Vec::new();
        // Each removable local buffer with the __global buffer its staging copies.
        let mut removable: Vec<(String, Option<String>)> = Vec::new();
        for report in &analysis.buffers {
            let name = report.candidate.name.clone();
            match &report.candidate.decision {
                Decision::Refused(refusal) => out.push(Err(RefusedVariant {
                    name: format!("unlocal:{name}"),
                    construction: Construction::Unlocal { local_buffers: vec![name] },
                    reason: refusal.describe(&compiled.sources),
                })),
                Decision::Remove(plan) => {
                    let global =
                        plan.main.value.global_loads().into_iter().find_map(|load| match load {
                            clmap_grover::index_expr::Sym::GlobalLoad { name, .. } => {
                                Some(name.clone())
                            }
                            _ => None,
                        });
                    removable.push((name, global));
                }
            }
        }
        for (name, global) in &removable {
            out.push(build_unlocal(subject, &format!("unlocal:{name}"), &[(name, global)]));
        }
        if removable.len() > 1 {
            let all: Vec<(&String, &Option<String>)> =
                removable.iter().map(|(n, g)| (n, g)).collect();
            out.push(build_unlocal(subject, "unlocal:all", &all));
        }
        out
    }
}

fn build_unlocal(
    subject: &Subject<'_>,
    name: &str,
    buffers: &[(&String, &Option<String>)],
) -> Produced {
    let local_buffers: Vec<String> = buffers.iter().map(|(n, _)| (*n).clone()).collect();
    let construction = Construction::Unlocal { local_buffers: local_buffers.clone() };
    let refuse = |reason: String| RefusedVariant {
        name: name.to_string(),
        construction: construction.clone(),
        reason,
    };
    let options = UnlocalOptions {
        kernel: Some(subject.kernel.to_string()),
        buffers: local_buffers.clone(),
        ..Default::default()
    };
    let mut outcome =
        unlocal(subject.original.compiled(), &options).map_err(|e| refuse(e.to_string()))?;
    if !outcome.changed() {
        return Err(refuse("Grover changed nothing".to_string()));
    }
    let prepared = match outcome.verified.take() {
        Some(compiled) => subject.original.with_compiled_source(&outcome.text, compiled),
        None => subject.original.with_source(&outcome.text),
    }
    .map_err(|e| refuse(format!("the rewritten kernel does not compile: {e}")))?;
    let unstaged: BTreeSet<String> = buffers.iter().filter_map(|(_, g)| (*g).clone()).collect();
    let reads: Vec<String> = buffers
        .iter()
        .map(|(n, g)| match g {
            Some(g) => format!("{g} from __global instead of through `{n}`"),
            None => format!("without `{n}`"),
        })
        .collect();
    Ok(Variant {
        name: name.to_string(),
        construction,
        how: format!("Grover removed the __local staging: reads {}", reads.join(", ")),
        layout: Layout { unstaged, staged: BTreeSet::new() },
        work_group: work_group_of(subject.original.workload(), subject.kernel),
        prepared,
        validated: None,
    })
}

/// The inverse of Grover (`clmap local`): one variant per `__global` buffer of the kernel whose
/// work-group footprint the stager can copy into a `__local` tile that fits the device.
pub struct LocalStaging;

impl VariantProducer for LocalStaging {
    fn label(&self) -> &'static str {
        "local staging"
    }

    fn produce(&self, subject: &Subject<'_>) -> Vec<Produced> {
        let Some(params) = subject.original.kernel_params(subject.kernel) else {
            return Vec::new();
        };
        let limits = clmap_stage::StageLimits {
            max_local_bytes: subject.limits.local_mem_bytes,
            seeds: subject.seeds,
        };
        params
            .iter()
            .filter(|p| p.space == clmap_workload::ParamSpace::Global)
            .map(|p| {
                let name = format!("stage:{}", p.name);
                let construction = Construction::Stage { buffer: p.name.clone() };
                let staged =
                    clmap_stage::stage_buffer(subject.original, subject.kernel, &p.name, &limits)
                        .map_err(|refusal| RefusedVariant {
                        name: name.clone(),
                        construction: construction.clone(),
                        reason: clmap_stage::describe_refusal(
                            &refusal,
                            &subject.original.compiled().sources,
                        ),
                    })?;
                let f = &staged.footprint;
                let map = f.map.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
                Ok(Variant {
                    name,
                    construction,
                    how: format!(
                        "`{}` staged in the __local tile `{}`{map}: {} x {} elements ({} bytes) \
                         per work-group from {}, each read {:.1} times",
                        p.name, staged.tile, f.rows, f.columns, f.bytes, f.origin, f.reuse
                    ),
                    layout: Layout {
                        unstaged: BTreeSet::new(),
                        staged: BTreeSet::from([p.name.clone()]),
                    },
                    work_group: work_group_of(staged.prepared.workload(), subject.kernel),
                    validated: Some(crate::variant::ProducerValidation {
                        seeds: staged.validation.seeds,
                        max_abs: staged.validation.max_abs,
                    }),
                    prepared: staged.prepared,
                })
            })
            .collect()
    }
}

/// Several `__global` buffers staged at once: the stager's tiles composed, one buffer after the
/// other on the previous buffer's rewrite, so that advice to stage several buffers has a variant
/// to be judged against. Each set of buffers gives one variant, `stage:A+B`, validated against
/// the original like any rewrite (the stager's own check compares each step with the step
/// before it only, so tuning validates the composition again).
pub struct CombinedStaging(pub Vec<BTreeSet<String>>);

/// The name of the variant staging `buffers` together.
pub fn combined_stage_name(buffers: &BTreeSet<String>) -> String {
    format!("stage:{}", buffers.iter().cloned().collect::<Vec<_>>().join("+"))
}

impl VariantProducer for CombinedStaging {
    fn label(&self) -> &'static str {
        "combined staging"
    }

    fn produce(&self, subject: &Subject<'_>) -> Vec<Produced> {
        self.0.iter().filter(|set| set.len() > 1).map(|set| build_combined(subject, set)).collect()
    }
}

fn build_combined(subject: &Subject<'_>, buffers: &BTreeSet<String>) -> Produced {
    let name = combined_stage_name(buffers);
    let construction = Construction::StageAll { buffers: buffers.iter().cloned().collect() };
    let refuse = |reason: String| RefusedVariant {
        name: name.clone(),
        construction: construction.clone(),
        reason,
    };
    // The tiles of the buffers staged so far count against the device's local memory: the
    // stager adds what the kernel already declares to each new tile.
    let limits =
        clmap_stage::StageLimits { max_local_bytes: subject.limits.local_mem_bytes, seeds: 1 };
    let mut current = subject.original.clone();
    let mut parts = Vec::new();
    for buffer in buffers {
        let staged = clmap_stage::stage_buffer(&current, subject.kernel, buffer, &limits).map_err(
            |refusal| {
                refuse(format!(
                    "`{buffer}` after {}: {}",
                    if parts.is_empty() { "nothing".to_string() } else { parts.join(", ") },
                    clmap_stage::describe_refusal(&refusal, &current.compiled().sources)
                ))
            },
        )?;
        parts.push(format!("`{buffer}` in `{}` ({} bytes)", staged.tile, staged.footprint.bytes));
        current = staged.prepared;
    }
    Ok(Variant {
        how: format!("staged together: {}", parts.join(", ")),
        work_group: work_group_of(current.workload(), subject.kernel),
        name,
        construction,
        layout: Layout { unstaged: BTreeSet::new(), staged: buffers.clone() },
        prepared: current,
        // Validated by tuning against the original, not step by step.
        validated: None,
    })
}

/// The kernel as written under other work-group sizes.
pub struct WorkGroupSizes(pub WorkGroupChoice);

impl VariantProducer for WorkGroupSizes {
    fn label(&self) -> &'static str {
        "work-group sizes"
    }

    fn produce(&self, subject: &Subject<'_>) -> Vec<Produced> {
        let workload = subject.original.workload();
        let Some(first) = workload.launches.iter().find(|l| l.kernel == subject.kernel) else {
            return Vec::new();
        };
        let dims = first.range.dims.clamp(1, 3) as usize;
        let globals: Vec<[u64; 3]> = workload
            .launches
            .iter()
            .filter(|l| l.kernel == subject.kernel)
            .map(|l| l.range.global)
            .collect();
        let current =
            first.range.local.unwrap_or_else(|| clmap_sim::default_local_size(&first.range));
        let current = current[..dims].to_vec();
        let written = work_group_of(workload, subject.kernel);
        if matches!(self.0, WorkGroupChoice::None) {
            return Vec::new();
        }
        if let Some(required) = required_size(subject) {
            // The kernel promises the compiler one size; any other is an invalid launch.
            return vec![Err(RefusedVariant {
                name: "wg:*".to_string(),
                construction: Construction::WorkGroup { size: Vec::new() },
                reason: format!(
                    "the kernel declares reqd_work_group_size({}): no other size may launch it",
                    required.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                ),
            })];
        }
        let sizes = match &self.0 {
            WorkGroupChoice::None => return Vec::new(),
            WorkGroupChoice::Given(sizes) => {
                return sizes
                    .iter()
                    .filter(|s| Some(*s) != written.as_ref())
                    .map(|s| {
                        fits(s, dims, &globals, &subject.limits)
                            .map_err(|reason| RefusedVariant {
                                name: format!("wg:{}", shape_name(s)),
                                construction: Construction::WorkGroup { size: s.clone() },
                                reason,
                            })
                            .and_then(|()| build_work_group(subject, s))
                    })
                    .collect();
            }
            WorkGroupChoice::Nearest(n) => {
                let mut all = candidate_sizes(dims, &globals, &subject.limits);
                all.retain(|s| Some(s) != written.as_ref());
                all.sort_by(|a, b| {
                    distance(a, &current).total_cmp(&distance(b, &current)).then_with(|| b.cmp(a))
                });
                all.truncate(*n);
                all
            }
            WorkGroupChoice::All => {
                let mut all = candidate_sizes(dims, &globals, &subject.limits);
                all.retain(|s| Some(s) != written.as_ref());
                all
            }
        };
        sizes.iter().map(|s| build_work_group(subject, s)).collect()
    }
}

/// The work-group size the kernel's `reqd_work_group_size` attribute fixes, if any.
fn required_size(subject: &Subject<'_>) -> Option<[u32; 3]> {
    let module = subject.original.module();
    let kernel = module.kernel_by_name(subject.kernel)?;
    match &module.functions[kernel].kind {
        clmap_lang::ir::FunctionKind::Kernel(attributes) => attributes.reqd_work_group_size,
        clmap_lang::ir::FunctionKind::Helper => None,
    }
}

/// Power-of-two sizes per dimension that divide every launch's global size and fit the device,
/// with at least 32 work-items (a warp) where some size has that many: smaller groups leave
/// most of a GPU's SIMD lanes idle.
fn candidate_sizes(dims: usize, globals: &[[u64; 3]], limits: &DeviceLimits) -> Vec<Vec<u64>> {
    let per_dim: Vec<Vec<u64>> = (0..dims)
        .map(|d| {
            let mut options = Vec::new();
            let mut size = 1u64;
            while size <= limits.max_work_item_sizes[d]
                && size <= limits.max_work_group_size
                && globals.iter().all(|g| g[d] % size == 0)
            {
                options.push(size);
                size *= 2;
            }
            options
        })
        .collect();
    let mut out: Vec<Vec<u64>> = vec![Vec::new()];
    for options in &per_dim {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                options.iter().map(move |&s| {
                    let mut next = prefix.clone();
                    next.push(s);
                    next
                })
            })
            .collect();
    }
    out.retain(|s| s.iter().product::<u64>() <= limits.max_work_group_size);
    let largest = out.iter().map(|s| s.iter().product::<u64>()).max().unwrap_or(1);
    let smallest = largest.min(32);
    out.retain(|s| s.iter().product::<u64>() >= smallest);
    out
}

fn fits(
    size: &[u64],
    dims: usize,
    globals: &[[u64; 3]],
    limits: &DeviceLimits,
) -> Result<(), String> {
    if size.len() != dims {
        return Err(format!(
            "the kernel is launched in {dims} dimension(s), the size has {}",
            size.len()
        ));
    }
    for (d, &s) in size.iter().enumerate() {
        if s == 0 {
            return Err("a work-group size of zero".to_string());
        }
        if let Some(g) = globals.iter().find(|g| g[d] % s != 0) {
            return Err(format!("{s} does not divide the global size {} in dimension {d}", g[d]));
        }
        if s > limits.max_work_item_sizes[d] {
            return Err(format!(
                "{s} work-items in dimension {d} exceed the device's {}",
                limits.max_work_item_sizes[d]
            ));
        }
    }
    let total: u64 = size.iter().product();
    if total > limits.max_work_group_size {
        return Err(format!(
            "{total} work-items exceed the device's work-group limit of {}",
            limits.max_work_group_size
        ));
    }
    Ok(())
}

/// How far apart two shapes are, as the sum of their per-dimension factors in powers of two.
fn distance(a: &[u64], b: &[u64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| ((x.max(1) as f64).log2() - (y.max(1) as f64).log2()).abs())
        .sum()
}

fn build_work_group(subject: &Subject<'_>, size: &[u64]) -> Produced {
    let name = format!("wg:{}", shape_name(size));
    let construction = Construction::WorkGroup { size: size.to_vec() };
    let mut workload = subject.original.workload().clone();
    for launch in workload.launches.iter_mut().filter(|l| l.kernel == subject.kernel) {
        let mut local = [1u64; 3];
        local[..size.len()].copy_from_slice(size);
        launch.range.local = Some(local);
    }
    let prepared = PreparedWorkload::new(workload).map_err(|e| RefusedVariant {
        name: name.clone(),
        construction: construction.clone(),
        reason: e.to_string(),
    })?;
    Ok(Variant {
        how: format!("the kernel as written, launched in work-groups of {}", shape_name(size)),
        name,
        construction,
        layout: Layout::default(),
        work_group: Some(size.to_vec()),
        prepared,
        validated: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: DeviceLimits = DeviceLimits::SIMULATOR;

    #[test]
    fn sizes_divide_the_range_and_fit_the_device() {
        let sizes = candidate_sizes(2, &[[64, 16, 1]], &LIMITS);
        assert!(sizes.contains(&vec![16, 16]));
        assert!(sizes.contains(&vec![64, 1]));
        assert!(!sizes.contains(&vec![4, 4]), "fewer than 32 work-items");
        assert!(sizes.iter().all(|s| 64 % s[0] == 0 && 16 % s[1] == 0));
        let small = DeviceLimits { max_work_group_size: 64, ..LIMITS };
        assert!(candidate_sizes(2, &[[64, 16, 1]], &small).iter().all(|s| s[0] * s[1] <= 64));
        // A 1-D range of 48 work-items: 16 divides it, 32 does not.
        assert_eq!(candidate_sizes(1, &[[48, 1, 1]], &LIMITS), vec![vec![16u64]]);
    }

    #[test]
    fn given_sizes_are_checked_against_the_range_and_the_device() {
        assert!(fits(&[16, 16], 2, &[[64, 64, 1]], &LIMITS).is_ok());
        assert!(fits(&[24, 16], 2, &[[64, 64, 1]], &LIMITS)
            .unwrap_err()
            .contains("does not divide"));
        assert!(fits(&[64, 32], 2, &[[64, 64, 1]], &LIMITS).unwrap_err().contains("limit of 1024"));
        assert!(fits(&[64], 2, &[[64, 64, 1]], &LIMITS).is_err());
    }

    #[test]
    fn nearest_sizes_come_first() {
        let mut all = candidate_sizes(2, &[[64, 64, 1]], &LIMITS);
        all.sort_by(|a, b| distance(a, &[16, 16]).total_cmp(&distance(b, &[16, 16])));
        assert_eq!(all[0], vec![16, 16]);
        assert!(distance(&all[1], &[16, 16]) == 1.0);
    }
}
