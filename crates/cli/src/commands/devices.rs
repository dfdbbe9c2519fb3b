//! `clmap devices`: which OpenCL devices this machine has.

use crate::exit::{CliError, Status};
use clmap_device::{list_devices, listing_hint, DeviceError, DeviceInfo};

/// List the OpenCL platforms and devices this machine has.
///
/// For each: name, type, compute units, clock, global and local memory (scratchpad or emulated),
/// work-group limits, driver and OpenCL C version.
///
/// The first column is the selector that picks the device in `--device` (`platform:device`);
/// `--device` also takes a type (`cpu`, `gpu`) or part of the name.
///
/// The OpenCL library is loaded at run time: without one, clmap says how to install it
/// (Debian: apt-get install ocl-icd-libopencl1 pocl-opencl-icd). If NVIDIA's driver is
/// installed but its ICD file is missing, it says how to point OCL_ICD_VENDORS at it.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the devices as JSON (every field, sizes in bytes).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<Status, CliError> {
    let devices = list_devices().map_err(environment_error)?;
    if args.json {
        let out = serde_json::to_string_pretty(&devices)
            .map_err(|e| CliError::BadInput(format!("cannot encode devices as JSON: {e}")))?;
        println!("{out}");
    } else {
        for d in &devices {
            print!("{}", describe(d));
        }
    }
    if let Some(hint) = listing_hint(&devices) {
        eprintln!("note: {hint}");
    }
    Ok(Status::Success)
}

/// Errors that mean "this machine lacks OpenCL" rather than "the input was wrong".
pub fn environment_error(error: DeviceError) -> CliError {
    match error {
        // A selector that matches nothing is a missing device too (exit 3 for every
        // command): the same workload and flags work on a machine that has the device.
        DeviceError::NoRuntime { .. }
        | DeviceError::NoPlatform { .. }
        | DeviceError::NoDevice { .. }
        | DeviceError::SelectorNotFound { .. } => CliError::Environment(error.to_string()),
        other => CliError::BadInput(other.to_string()),
    }
}

fn describe(d: &DeviceInfo) -> String {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    format!(
        "{sel}  {name}\n      platform      {platform} ({pversion})\n      type          {ty}, {cu} compute units at {clock} MHz\n      global memory {global:.0} MiB (largest allocation {alloc:.0} MiB, cache {cache:.1} MiB)\n      local memory  {local} KiB per work-group, {ltype}\n      work-groups   up to {wg} work-items, {sizes:?} per dimension{simd}\n      driver        {driver}; {cver}{fp64}\n",
        sel = d.index_selector(),
        name = d.name,
        platform = d.platform_name,
        pversion = d.platform_version,
        ty = d.device_type.as_str(),
        cu = d.compute_units,
        clock = d.max_clock_mhz,
        global = mib(d.global_mem_bytes),
        alloc = mib(d.max_mem_alloc_bytes),
        cache = mib(d.global_mem_cache_bytes),
        local = d.local_mem_bytes / 1024,
        ltype = match d.local_mem_type {
            clmap_device::LocalMemoryKind::Scratchpad => "dedicated scratchpad",
            clmap_device::LocalMemoryKind::Emulated => "emulated in global memory (caches)",
            clmap_device::LocalMemoryKind::None => "none",
        },
        wg = d.max_work_group_size,
        sizes = d.max_work_item_sizes,
        simd = d.simd_width.map(|w| format!(", run {w} at a time")).unwrap_or_default(),
        driver = d.driver_version,
        cver = d.opencl_c_version,
        fp64 = if d.fp64 { ", fp64" } else { "" },
    )
}
