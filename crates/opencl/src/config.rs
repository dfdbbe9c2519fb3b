//! What `clmap exec` tells the platform, through the environment of the program it runs.
//!
//! The platform is loaded into a program that knows nothing of clmap, so its settings cannot
//! come from arguments: `clmap exec` sets these variables before it starts the program, and a
//! user linking the library directly can set them too. Every variable is optional.

use std::path::PathBuf;
use std::sync::OnceLock;

/// Environment variables read by the platform.
pub mod vars {
    /// `1`: report data races on local and global memory.
    pub const RACES: &str = "CLMAP_EXEC_RACES";
    /// `1`: report reads of uninitialised memory.
    pub const UNINIT: &str = "CLMAP_EXEC_UNINIT";
    /// A file the platform appends one JSON object per launch and per finding to, which
    /// `clmap exec` reads after the program ends.
    pub const LOG: &str = "CLMAP_EXEC_LOG";
    /// `oclgrind`: print findings in Oclgrind's layout instead of compiler-style blocks.
    pub const FORMAT: &str = "CLMAP_EXEC_FORMAT";
    /// A directory to write every launch into as a workload (see `capture`).
    pub const CAPTURE: &str = "CLMAP_EXEC_CAPTURE";
    /// A file to write AIWC metrics per kernel into when the program exits.
    pub const ANALYZE: &str = "CLMAP_EXEC_ANALYZE";
    /// `aiwc` for the published AIWC definitions in the analysis.
    pub const ANALYZE_MODE: &str = "CLMAP_EXEC_ANALYZE_MODE";
    /// Device limits to emulate: `name=…,local_mem=BYTES,max_work_group=N,compute_units=N,`
    /// `global_mem=BYTES,max_alloc=BYTES,warp=N` (any subset).
    pub const DEVICE: &str = "CLMAP_EXEC_DEVICE";
    /// `1`: say nothing on standard error except findings.
    pub const QUIET: &str = "CLMAP_EXEC_QUIET";
    /// `1`: report every API call that fails, with its status code (Oclgrind's
    /// `--check-api`).
    pub const CHECK_API: &str = "CLMAP_EXEC_CHECK_API";
    /// `1`: run every launch under the interactive debugger, which reads its commands from
    /// the program's standard input (see `debug`).
    pub const INTERACTIVE: &str = "CLMAP_EXEC_INTERACTIVE";
    /// A number: the steps a work-group may run before its launch is stopped as a runaway
    /// (the simulator's default when unset).
    pub const MAX_STEPS: &str = "CLMAP_EXEC_MAX_STEPS";
}

/// The limits the simulated device reports and enforces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub name: String,
    pub local_mem: u64,
    pub max_work_group: u64,
    pub max_work_item: [u64; 3],
    pub compute_units: u32,
    pub global_mem: u64,
    pub max_alloc: u64,
    pub constant_mem: u64,
    /// What `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE` answers (a warp on GPUs).
    pub preferred_multiple: u64,
    /// The one type the device is (`CL_DEVICE_TYPE_GPU`, `_CPU` or `_ACCELERATOR`), or `None`
    /// for every type at once, as Oclgrind's device is: then `clGetDeviceIDs` finds it
    /// whatever type a program asks for. Libraries that look the type up in a table of tuned
    /// parameters (ViennaCL) need one type.
    pub device_type: Option<u64>,
}

/// The names `type=` accepts, with their `CL_DEVICE_TYPE_*` bits.
pub const DEVICE_TYPES: [(&str, u64); 3] = [
    ("cpu", crate::cl::CL_DEVICE_TYPE_CPU),
    ("gpu", crate::cl::CL_DEVICE_TYPE_GPU),
    ("accelerator", crate::cl::CL_DEVICE_TYPE_ACCELERATOR),
];

impl Default for DeviceLimits {
    /// A device as generous as the simulator: Oclgrind-like limits, so that programs written
    /// for any GPU run.
    fn default() -> DeviceLimits {
        DeviceLimits {
            name: "clmap simulator".to_string(),
            local_mem: 64 << 10,
            max_work_group: 1024,
            max_work_item: [1024, 1024, 1024],
            compute_units: 1,
            global_mem: 16 << 30,
            max_alloc: 4 << 30,
            constant_mem: 64 << 10,
            preferred_multiple: 1,
            device_type: None,
        }
    }
}

impl DeviceLimits {
    /// Applies a `key=value,…` description (the format of [`vars::DEVICE`]).
    pub fn parse(text: &str) -> Result<DeviceLimits, String> {
        let mut limits = DeviceLimits::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) =
                item.split_once('=').ok_or_else(|| format!("`{item}` is not key=value"))?;
            let number =
                || value.trim().parse::<u64>().map_err(|_| format!("`{key}` needs a number"));
            match key.trim() {
                "name" => limits.name = value.trim().to_string(),
                "local_mem" => limits.local_mem = number()?,
                "max_work_group" => {
                    let n = number()?.max(1);
                    limits.max_work_group = n;
                    limits.max_work_item = [n, n, n.min(64)];
                }
                "compute_units" => {
                    limits.compute_units = number()?.clamp(1, u64::from(u32::MAX)) as u32
                }
                "global_mem" => limits.global_mem = number()?,
                "max_alloc" => limits.max_alloc = number()?,
                "constant_mem" => limits.constant_mem = number()?,
                "warp" => limits.preferred_multiple = number()?.max(1),
                "type" => {
                    let wanted = value.trim().to_ascii_lowercase();
                    limits.device_type = match DEVICE_TYPES.iter().find(|(n, _)| *n == wanted) {
                        Some((_, bits)) => Some(*bits),
                        None if wanted == "any" => None,
                        None => {
                            return Err(format!(
                                "`type` is one of cpu, gpu, accelerator or any, not `{}`",
                                value.trim()
                            ))
                        }
                    };
                }
                other => return Err(format!("unknown device limit `{other}`")),
            }
        }
        Ok(limits)
    }

    /// The description [`DeviceLimits::parse`] reads back.
    pub fn describe(&self) -> String {
        format!(
            "name={},local_mem={},max_work_group={},compute_units={},global_mem={},max_alloc={},constant_mem={},warp={},type={}",
            self.name.replace(',', " "),
            self.local_mem,
            self.max_work_group,
            self.compute_units,
            self.global_mem,
            self.max_alloc,
            self.constant_mem,
            self.preferred_multiple,
            self.type_name()
        )
    }

    /// `cpu`, `gpu`, `accelerator` or `any`, as `type=` takes it.
    pub fn type_name(&self) -> &'static str {
        DEVICE_TYPES
            .iter()
            .find(|(_, bits)| Some(*bits) == self.device_type)
            .map_or("any", |(name, _)| name)
    }
}

/// Every setting, read once.
#[derive(Debug)]
pub struct Config {
    pub races: bool,
    pub uninit: bool,
    pub log: Option<PathBuf>,
    pub oclgrind_format: bool,
    pub capture: Option<PathBuf>,
    pub analyze: Option<PathBuf>,
    pub analyze_aiwc: bool,
    pub device: DeviceLimits,
    pub quiet: bool,
    pub check_api: bool,
    pub interactive: bool,
    pub max_steps: Option<u64>,
}

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The settings of this process.
pub fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let device = match std::env::var(vars::DEVICE) {
            Ok(text) => DeviceLimits::parse(&text).unwrap_or_else(|e| {
                eprintln!("clmap: ignoring {}: {e}", vars::DEVICE);
                DeviceLimits::default()
            }),
            Err(_) => DeviceLimits::default(),
        };
        Config {
            races: flag(vars::RACES),
            uninit: flag(vars::UNINIT),
            log: path(vars::LOG),
            oclgrind_format: std::env::var(vars::FORMAT).is_ok_and(|v| v == "oclgrind"),
            capture: path(vars::CAPTURE),
            analyze: path(vars::ANALYZE),
            analyze_aiwc: std::env::var(vars::ANALYZE_MODE).is_ok_and(|v| v == "aiwc"),
            device,
            quiet: flag(vars::QUIET),
            check_api: flag(vars::CHECK_API),
            interactive: flag(vars::INTERACTIVE),
            max_steps: std::env::var(vars::MAX_STEPS).ok().and_then(|v| match v.parse() {
                Ok(steps) => Some(steps),
                Err(_) => {
                    eprintln!("clmap: ignoring {}={v}: not a number of steps", vars::MAX_STEPS);
                    None
                }
            }),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_descriptions_round_trip_and_bad_ones_say_why() {
        let limits =
            DeviceLimits::parse("name=H100,local_mem=49152,max_work_group=1024,warp=32").unwrap();
        assert_eq!(limits.name, "H100");
        assert_eq!(limits.local_mem, 49152);
        assert_eq!(limits.preferred_multiple, 32);
        assert_eq!(DeviceLimits::parse(&limits.describe()).unwrap(), limits);
        assert!(DeviceLimits::parse("local_mem=lots").unwrap_err().contains("local_mem"));
        assert!(DeviceLimits::parse("colour=red").unwrap_err().contains("colour"));
    }

    #[test]
    fn a_device_is_of_every_type_unless_given_one() {
        assert_eq!(DeviceLimits::default().device_type, None);
        let gpu = DeviceLimits::parse("type=GPU").unwrap();
        assert_eq!(gpu.device_type, Some(1 << 2), "CL_DEVICE_TYPE_GPU");
        assert_eq!(gpu.type_name(), "gpu");
        assert_eq!(DeviceLimits::parse(&gpu.describe()).unwrap().device_type, gpu.device_type);
        let any = DeviceLimits::parse(&format!("{},type=any", gpu.describe())).unwrap();
        assert_eq!(any.device_type, None, "a later type= overrides");
        let e = DeviceLimits::parse("type=fpga").unwrap_err();
        assert!(e.contains("cpu, gpu, accelerator or any") && e.contains("fpga"), "{e}");
    }
}
