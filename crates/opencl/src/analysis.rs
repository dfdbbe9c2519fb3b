//! AIWC metrics over a whole program run (`clmap exec --analyze`): every launch runs with a
//! metrics observer, observers of the same kernel merge, and the metrics per kernel are
//! written when the program exits.

use std::sync::{Mutex, Once};

use clmap_metrics::{KernelMetrics, MetricsObserver, Mode};
use clmap_sim::{ArgValue, Observer, SimOptions};
use clmap_workload::NdRange;

use crate::config::config;
use crate::kernel::Kernel;
use crate::launch::{run_plain, Outcome};

/// Per kernel name, in order of first launch: the merged observer and the launch count.
static METRICS: Mutex<Vec<(String, MetricsObserver, u64)>> = Mutex::new(Vec::new());

extern "C" {
    fn atexit(callback: extern "C" fn()) -> i32;
}

extern "C" fn write_at_exit() {
    write_analysis();
}

/// Runs a launch, observed when analysis is on.
pub fn run_observed(
    kernel: &Kernel,
    range: &NdRange,
    values: &[ArgValue],
    options: &SimOptions,
) -> Result<Outcome, clmap_sim::SimError> {
    if config().analyze.is_none() {
        return run_plain(kernel, range, values, options);
    }
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| unsafe {
        atexit(write_at_exit);
    });
    let mode = if config().analyze_aiwc { Mode::AiwcCompat } else { Mode::Clmap };
    let run = clmap_sim::run_program(&kernel.sim, range, values, options, &|| {
        MetricsObserver::new(mode)
    })?;
    let mut all = METRICS.lock().unwrap_or_else(|e| e.into_inner());
    match all.iter_mut().find(|(name, _, _)| *name == kernel.name) {
        Some((_, merged, count)) => {
            merged.merge(run.observer);
            *count += 1;
        }
        None => all.push((kernel.name.clone(), run.observer, 1)),
    }
    Ok(Outcome { reports: run.reports, printf: run.printf, work_groups: run.work_groups })
}

/// The metrics of every kernel launched so far.
pub fn metrics() -> Vec<(KernelMetrics, u64)> {
    let all = METRICS.lock().unwrap_or_else(|e| e.into_inner());
    all.iter().map(|(name, observer, count)| (observer.finish(name), *count)).collect()
}

/// Writes the metrics file `clmap exec --analyze` reads.
pub fn write_analysis() {
    let Some(path) = &config().analyze else { return };
    let kernels: Vec<serde_json::Value> = metrics()
        .into_iter()
        .map(|(m, launches)| serde_json::json!({ "launches": launches, "metrics": m }))
        .collect();
    let text = serde_json::to_string(&kernels).unwrap_or_else(|_| "[]".to_string());
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("clmap: cannot write the analysis to {}: {e}", path.display());
    }
}
