//! `clmap time`: how long a workload's kernel takes on a device.

use crate::commands::devices::environment_error;
use crate::exit::{CliError, Status};
use crate::workload_args;
// `unlocal` reports its timings through this path too.
use clmap_device::human_ns;
use clmap_device::{select_device, TimingOptions};
use serde_json::json;
use std::path::PathBuf;

/// Time a workload on an OpenCL device with profiling events.
///
/// The kernel runs `--reps` times; the first run is discarded as warm-up (as Aristotle does) and
/// the rest are reported as min / median / mean / standard deviation. With `--flush`, a buffer
/// larger than the last-level cache is written before every run so each starts cold. When the
/// workload declares `bytes_moved`, the effective bandwidth (bytes / median time) is printed.
/// A pipeline is timed as the sum of its launches per run.
///
/// How a command times kernels on a device: `time`, and `unlocal --measure`.
#[derive(clap::Args, Debug)]
pub struct TimingArgs {
    /// The device: an index from `clmap devices` (`0`, `1:0`), a type (`cpu`, `gpu`) or part of
    /// its name.
    #[arg(long, short, default_value = "default")]
    pub device: String,
    /// Runs in total, the first discarded as warm-up.
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u32).range(2..))]
    pub reps: u32,
    /// Flush the caches between runs.
    #[arg(long)]
    pub flush: bool,
}

impl TimingArgs {
    /// The selected device and the options to time on it with.
    pub fn device_and_options(
        &self,
    ) -> Result<(clmap_device::Device, clmap_device::TimingOptions), CliError> {
        let device = select_device(&self.device).map_err(environment_error)?;
        Ok((device, TimingOptions { warmup: 1, reps: self.reps - 1, flush_cache: self.flush }))
    }
}

/// Example: clmap time examples/transpose.toml --device gpu --reps 51 --flush
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The workload (.toml, or an Oclgrind .sim file).
    pub workload: PathBuf,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Also measure the device's own copy bandwidth (clEnqueueCopyBuffer of `bytes_moved / 2`
    /// bytes, timed with events) and print the workload's bandwidth as a fraction of it.
    #[arg(long)]
    pub copy_reference: bool,
    /// Print the result as JSON, with every sample.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let workload = workload_args::load(&args.workload)?;
    let (device, options) = args.timing.device_and_options()?;
    let timing = clmap_exec::time_on_device(&device, &workload, &options).map_err(|e| match e {
        clmap_exec::ExecError::Device(d) => environment_error(d),
        other => CliError::BadInput(other.to_string()),
    })?;
    let bandwidth_gbs = workload.bytes_moved.map(|b| b as f64 / timing.median);
    let reference_gbs = match (args.copy_reference, workload.bytes_moved) {
        (false, _) => None,
        (true, None) => {
            return Err(CliError::BadInput(
                "--copy-reference needs `bytes_moved` in the workload".to_string(),
            ))
        }
        (true, Some(bytes)) => Some(
            clmap_device::copy_bandwidth(&device, (bytes / 2) as usize, args.timing.reps)
                .map_err(environment_error)?,
        ),
    };
    if args.json {
        let out = json!({
            "workload": args.workload.display().to_string(),
            "device": device.info().name,
            "runs": args.timing.reps,
            "warmup": 1,
            "flush": args.timing.flush,
            "min_ns": timing.min,
            "median_ns": timing.median,
            "mean_ns": timing.mean,
            "std_ns": timing.std,
            "samples_ns": timing.samples_ns,
            "bytes_moved": workload.bytes_moved,
            "bandwidth_gbs": bandwidth_gbs,
            "copy_reference_gbs": reference_gbs,
        });
        println!("{out:#}");
    } else {
        println!("{} on {}", args.workload.display(), device.info().name);
        println!(
            "  {} runs ({} measured, first discarded{})",
            args.timing.reps,
            timing.samples_ns.len(),
            if args.timing.flush { ", caches flushed" } else { "" }
        );
        println!(
            "  min {}  median {}  mean {}  std {} ({:.1} %)",
            human_ns(timing.min),
            human_ns(timing.median),
            human_ns(timing.mean),
            human_ns(timing.std),
            100.0 * timing.relative_spread()
        );
        if let Some(gbs) = bandwidth_gbs {
            println!("  effective bandwidth {gbs:.2} GB/s (median)");
            if let Some(reference) = reference_gbs {
                println!(
                    "  device copy bandwidth (clEnqueueCopyBuffer) {reference:.2} GB/s: this workload reaches {:.1} % of it",
                    100.0 * gbs / reference
                );
            }
        }
    }
    Ok(Status::Success)
}
