//! With the loader pointed at an empty vendors directory there is no platform, and every entry
//! point must say so in a sentence instead of failing obscurely. This runs in its own test
//! binary because the loader reads its environment once per process.

use clmap_device::{list_devices, select_device, DeviceError};

#[test]
fn empty_vendor_directory_is_reported_as_no_platform() {
    let empty = clmap_testkit::Scratch::new("empty-vendors");
    // Both the ocl-icd and the Khronos loader honour these; clearing the file list keeps
    // drivers named there from being loaded anyway.
    std::env::set_var("OCL_ICD_VENDORS", format!("{}/", empty.path().display()));
    std::env::remove_var("OCL_ICD_FILENAMES");
    let listing = list_devices();
    let selection = select_device("gpu");
    match listing {
        Err(DeviceError::NoPlatform { .. }) => {
            let message = listing.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains("no platform"), "{message}");
            assert!(message.contains("apt-get install"), "{message}");
        }
        Err(DeviceError::NoRuntime { .. }) => {
            let message = listing.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.starts_with("no OpenCL runtime found"), "{message}");
        }
        other => panic!("expected no platform, got {other:?}"),
    }
    assert!(matches!(
        selection,
        Err(DeviceError::NoPlatform { .. } | DeviceError::NoRuntime { .. })
    ));
}
