//! Finding the OpenCL library and its platforms, and explaining why none are there.

use std::sync::OnceLock;

use opencl3::platform::{get_platforms, Platform};

use crate::cl_codes::{PLATFORM_NOT_FOUND_KHR, RUNTIME_LOAD_FAILED};
use crate::error::DeviceError;

/// The library NVIDIA's driver installs for OpenCL; present even where its ICD file is not.
const NVIDIA_OPENCL_LIBRARY: &str = "libnvidia-opencl.so.1";

/// Whether `libOpenCL.so.1` (or a path in `OPENCL_DYLIB_PATH`) could be loaded.
pub fn runtime_available() -> bool {
    cl3::is_opencl_runtime_available()
}

/// The platforms the ICD loader lists, or the error that explains why there are none.
pub(crate) fn platforms() -> Result<Vec<Platform>, DeviceError> {
    if !runtime_available() {
        return Err(DeviceError::NoRuntime { hint: loaderless_nvidia_hint() });
    }
    match get_platforms() {
        Ok(platforms) if platforms.is_empty() => {
            Err(DeviceError::NoPlatform { hint: missing_nvidia_icd_hint(&[]) })
        }
        Ok(platforms) => Ok(platforms),
        Err(error) if error.0 == PLATFORM_NOT_FOUND_KHR => {
            Err(DeviceError::NoPlatform { hint: missing_nvidia_icd_hint(&[]) })
        }
        Err(error) if error.0 == RUNTIME_LOAD_FAILED => {
            Err(DeviceError::NoRuntime { hint: loaderless_nvidia_hint() })
        }
        Err(error) => Err(DeviceError::cl("clGetPlatformIDs", error.0)),
    }
}

/// Whether NVIDIA's OpenCL driver library can be opened. Opening it costs a few milliseconds
/// and has no lasting effect, so the answer is computed once per process.
pub fn nvidia_driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| dlopen2::raw::Library::open(NVIDIA_OPENCL_LIBRARY).is_ok())
}

/// Advice for the common case where NVIDIA's driver is installed but the ICD loader does not
/// know about it (its `.icd` file is missing, as in many containers). Empty when an NVIDIA
/// platform is listed or the driver is absent. The text starts with a newline so it can be
/// appended to an error message.
pub fn missing_nvidia_icd_hint(platform_names: &[String]) -> String {
    let nvidia_listed =
        platform_names.iter().any(|name| name.to_ascii_lowercase().contains("nvidia"));
    if nvidia_listed || !nvidia_driver_present() {
        return String::new();
    }
    nvidia_icd_instructions()
}

/// Advice when there is no ICD loader but NVIDIA's driver is installed. The driver library
/// exports only the ICD entry points, so it cannot stand in for the loader (pointing
/// `OPENCL_DYLIB_PATH` at it fails); the loader must be installed first.
fn loaderless_nvidia_hint() -> String {
    if !nvidia_driver_present() {
        return String::new();
    }
    format!(
        "\nnote: NVIDIA's OpenCL driver is installed ({NVIDIA_OPENCL_LIBRARY}) but works only \
         behind the ICD loader; install the loader (Debian: apt-get install \
         ocl-icd-libopencl1), and if the GPU is then not listed, clmap will say how to \
         register it."
    )
}

/// The commands that make NVIDIA's platform visible to the ICD loader.
///
/// The trailing slash of `OCL_ICD_VENDORS` matters: ocl-icd 2.3.2 appends the file names to the
/// variable without a separator, so without it no vendor file is found at all.
pub fn nvidia_icd_instructions() -> String {
    format!(
        "\nnote: NVIDIA's driver is present ({NVIDIA_OPENCL_LIBRARY} can be opened) but its ICD \
         file is missing, so the OpenCL loader does not list it. Create a vendors directory \
         with a file naming the library and point OCL_ICD_VENDORS at it (keep the trailing \
         slash):\n    \
         mkdir -p \"$HOME/.local/etc/OpenCL/vendors\"\n    \
         echo {NVIDIA_OPENCL_LIBRARY} > \"$HOME/.local/etc/OpenCL/vendors/nvidia.icd\"\n    \
         cp /etc/OpenCL/vendors/*.icd \"$HOME/.local/etc/OpenCL/vendors/\"  \
         # keeps the other platforms\n    \
         export OCL_ICD_VENDORS=\"$HOME/.local/etc/OpenCL/vendors/\"\n\
         (or, as root, for every user: echo {NVIDIA_OPENCL_LIBRARY} > \
         /etc/OpenCL/vendors/nvidia.icd)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_hint_when_nvidia_is_listed() {
        assert_eq!(missing_nvidia_icd_hint(&["NVIDIA CUDA".to_string()]), "");
    }

    #[test]
    fn instructions_name_the_library_and_variable() {
        let text = nvidia_icd_instructions();
        assert!(text.contains("libnvidia-opencl.so.1"));
        assert!(text.contains("OCL_ICD_VENDORS"));
        assert!(text.starts_with('\n'));
        // ocl-icd 2.3.2 finds nothing unless the directory ends with a slash.
        assert!(text.contains("OCL_ICD_VENDORS=\"$HOME/.local/etc/OpenCL/vendors/\""));
    }
}
