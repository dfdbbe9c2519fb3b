//! The OpenCL device a test runs on.

use crate::Requirement;
use clmap_device::{select_device, Device};

/// The device to test on: the one `CLMAP_TEST_DEVICE` selects (as `clmap devices` lists them),
/// else a CPU device (what CI has, and the same answers on every machine), else the first one.
///
/// Returns `None` after printing why when the machine has none, so the test can pass without
/// running.
///
/// # Panics
/// When there is no device and `CLMAP_REQUIRE_OPENCL=1`.
pub fn opencl_device() -> Option<Device> {
    let chosen = match std::env::var("CLMAP_TEST_DEVICE") {
        Ok(selector) => select_device(&selector),
        Err(_) => select_device("cpu").or_else(|_| select_device("")),
    };
    match chosen {
        Ok(device) => Some(device),
        Err(error) => {
            Requirement::OpenCl.unavailable(error);
            None
        }
    }
}

/// The device `selector` picks (`cpu`, `gpu`, an index or part of a name), for tests that hand
/// the same selector to the `clmap` binary; `None` as [`opencl_device`] does.
///
/// # Panics
/// When there is no such device and `CLMAP_REQUIRE_OPENCL=1`.
pub fn opencl_device_matching(selector: &str) -> Option<Device> {
    match select_device(selector) {
        Ok(device) => Some(device),
        Err(error) => {
            Requirement::OpenCl.unavailable(format_args!("`{selector}`: {error}"));
            None
        }
    }
}
