//! Choosing one device from the list by what a user types.

use crate::error::DeviceError;
use crate::info::{DeviceInfo, DeviceType};

/// What a selector string asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Selector {
    /// Empty or "default": the first GPU, else the first device.
    Default,
    /// Position in the flat listing ("0", "3").
    Position(usize),
    /// Platform and device index ("1:0").
    PlatformDevice(usize, usize),
    /// Kind of device ("cpu", "gpu", "accelerator").
    Type(DeviceType),
    /// Case-insensitive substring of the device or platform name.
    Name(String),
}

fn parse_selector(text: &str) -> Selector {
    let text = text.trim();
    if text.is_empty() || text.eq_ignore_ascii_case("default") {
        return Selector::Default;
    }
    if let Ok(position) = text.parse::<usize>() {
        return Selector::Position(position);
    }
    if let Some((platform, device)) = text.split_once(':') {
        if let (Ok(platform), Ok(device)) =
            (platform.trim().parse::<usize>(), device.trim().parse::<usize>())
        {
            return Selector::PlatformDevice(platform, device);
        }
    }
    match text.to_ascii_lowercase().as_str() {
        "cpu" => Selector::Type(DeviceType::Cpu),
        "gpu" => Selector::Type(DeviceType::Gpu),
        "accelerator" => Selector::Type(DeviceType::Accelerator),
        lower => Selector::Name(lower.to_string()),
    }
}

/// Lists devices one per line, for error messages.
pub(crate) fn describe_choices<'a>(devices: impl IntoIterator<Item = &'a DeviceInfo>) -> String {
    let lines: Vec<String> =
        devices.into_iter().map(|info| format!("  {}", info.summary_line())).collect();
    if lines.is_empty() {
        "  (none)".to_string()
    } else {
        lines.join("\n")
    }
}

/// Picks the position in `devices` that `selector` designates.
///
/// Accepted forms: a position in the listing (`"0"`), `platform:device` (`"1:0"`), a device
/// type (`"cpu"`, `"gpu"`, `"accelerator"`), a case-insensitive substring of the device or
/// platform name, or empty / `"default"` for the first GPU (else the first device). A name or
/// type that matches several devices is ambiguous unless exactly one device name equals it.
pub(crate) fn choose_device(devices: &[DeviceInfo], selector: &str) -> Result<usize, DeviceError> {
    let not_found = || DeviceError::SelectorNotFound {
        selector: selector.to_string(),
        choices: describe_choices(devices),
    };
    let matches: Vec<usize> = match parse_selector(selector) {
        Selector::Default => {
            let first_gpu = devices.iter().position(|info| info.device_type == DeviceType::Gpu);
            return first_gpu
                .or(if devices.is_empty() { None } else { Some(0) })
                .ok_or_else(not_found);
        }
        Selector::Position(position) => {
            return if position < devices.len() { Ok(position) } else { Err(not_found()) };
        }
        Selector::PlatformDevice(platform, device) => {
            return devices
                .iter()
                .position(|info| info.platform_index == platform && info.device_index == device)
                .ok_or_else(not_found);
        }
        Selector::Type(kind) => (0..devices.len())
            .filter(|&position| devices.get(position).is_some_and(|info| info.device_type == kind))
            .collect(),
        Selector::Name(needle) => {
            let exact: Vec<usize> = (0..devices.len())
                .filter(|&position| {
                    devices
                        .get(position)
                        .is_some_and(|info| info.name.to_ascii_lowercase() == needle)
                })
                .collect();
            if exact.len() == 1 {
                exact
            } else {
                (0..devices.len())
                    .filter(|&position| {
                        devices.get(position).is_some_and(|info| {
                            info.name.to_ascii_lowercase().contains(&needle)
                                || info.platform_name.to_ascii_lowercase().contains(&needle)
                        })
                    })
                    .collect()
            }
        }
    };
    match matches.as_slice() {
        [] => Err(not_found()),
        [only] => Ok(*only),
        several => Err(DeviceError::SelectorAmbiguous {
            selector: selector.to_string(),
            choices: describe_choices(several.iter().filter_map(|&position| devices.get(position))),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::tests::sample_info;

    fn two_platforms() -> Vec<DeviceInfo> {
        let mut cpu = sample_info(0, 0, "cpu-haswell-AVX2");
        cpu.device_type = DeviceType::Cpu;
        cpu.platform_name = "Portable Computing Language".into();
        let gpu_a = sample_info(1, 0, "NVIDIA H100 80GB HBM3");
        let gpu_b = sample_info(1, 1, "NVIDIA H100");
        vec![cpu, gpu_a, gpu_b]
    }

    #[test]
    fn selects_by_position_and_platform_device() {
        let devices = two_platforms();
        assert_eq!(choose_device(&devices, "0").ok(), Some(0));
        assert_eq!(choose_device(&devices, "1:1").ok(), Some(2));
        assert_eq!(choose_device(&devices, " 1 : 0 ").ok(), Some(1));
        assert!(matches!(choose_device(&devices, "7"), Err(DeviceError::SelectorNotFound { .. })));
        assert!(matches!(
            choose_device(&devices, "2:0"),
            Err(DeviceError::SelectorNotFound { .. })
        ));
    }

    #[test]
    fn selects_by_type_and_name() {
        let devices = two_platforms();
        assert_eq!(choose_device(&devices, "CPU").ok(), Some(0));
        assert_eq!(choose_device(&devices, "haswell").ok(), Some(0));
        assert_eq!(choose_device(&devices, "portable").ok(), Some(0));
        // An exact name wins over substring matches.
        assert_eq!(choose_device(&devices, "nvidia h100").ok(), Some(2));
        assert_eq!(choose_device(&devices, "").ok(), Some(1));
    }

    #[test]
    fn ambiguous_selector_lists_only_the_matches() {
        let devices = two_platforms();
        match choose_device(&devices, "gpu") {
            Err(DeviceError::SelectorAmbiguous { choices, .. }) => {
                assert!(choices.contains("1:0") && choices.contains("1:1"));
                assert!(!choices.contains("0:0"));
            }
            other => panic!("expected ambiguity, got {other:?}"),
        }
        assert!(matches!(
            choose_device(&devices, "nvidia"),
            Err(DeviceError::SelectorAmbiguous { .. })
        ));
    }

    #[test]
    fn unmatched_selector_lists_every_device() {
        let devices = two_platforms();
        let message =
            choose_device(&devices, "radeon").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("radeon"));
        assert!(message.contains("0:0") && message.contains("1:1"));
        assert!(matches!(choose_device(&[], ""), Err(DeviceError::SelectorNotFound { .. })));
    }
}
