//! Launch descriptions and the checks made before anything reaches the device, so that a bad
//! request yields a sentence naming the limit instead of a bare status code.

use crate::error::DeviceError;
use crate::info::DeviceInfo;

/// One kernel argument, as raw bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelArg {
    /// A `__global` or `__constant` buffer created from `bytes`; when `read_back` is set, the
    /// bytes are replaced by the buffer's contents after the launch.
    Buffer {
        /// Initial contents (and, after a launch with `read_back`, final contents).
        bytes: Vec<u8>,
        /// Whether to copy the buffer back to `bytes` after the launch.
        read_back: bool,
    },
    /// A null pointer for a buffer parameter.
    Null,
    /// A by-value parameter: the bytes of the value in the device's layout (little-endian).
    Scalar(Vec<u8>),
    /// A `__local` pointer parameter with this many bytes per work-group.
    Local(usize),
}

/// Where and how wide a kernel runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// Kernel function name.
    pub kernel: String,
    /// Global size, one entry per dimension (1 to 3).
    pub global: Vec<usize>,
    /// Work-group size; `None` lets the runtime choose.
    pub local: Option<Vec<usize>>,
    /// Global offset; empty means zero in every dimension.
    pub offset: Vec<usize>,
}

impl LaunchSpec {
    /// A launch of `kernel` over `global` with the runtime's choice of work-group size.
    pub fn new(kernel: impl Into<String>, global: Vec<usize>) -> Self {
        LaunchSpec { kernel: kernel.into(), global, local: None, offset: Vec::new() }
    }

    /// The same launch with an explicit work-group size.
    pub fn with_local(mut self, local: Vec<usize>) -> Self {
        self.local = Some(local);
        self
    }

    /// The same launch with a global offset.
    pub fn with_offset(mut self, offset: Vec<usize>) -> Self {
        self.offset = offset;
        self
    }
}

/// Checks dimensions, sizes and the work-group against the device's limits.
pub(crate) fn check_launch_shape(
    info: &DeviceInfo,
    launch: &LaunchSpec,
) -> Result<(), DeviceError> {
    let invalid =
        |reason: String| DeviceError::InvalidLaunch { kernel: launch.kernel.clone(), reason };
    let dims = launch.global.len();
    let max_dims = info.max_work_item_sizes.len().clamp(1, 3);
    if dims == 0 || dims > max_dims {
        return Err(invalid(format!(
            "the global size has {dims} dimensions; the device supports 1 to {max_dims}"
        )));
    }
    if launch.global.contains(&0) {
        return Err(invalid(format!("the global size {:?} has a zero dimension", launch.global)));
    }
    if !launch.offset.is_empty() && launch.offset.len() != dims {
        return Err(invalid(format!(
            "the offset {:?} has {} dimensions but the global size {:?} has {dims}",
            launch.offset,
            launch.offset.len(),
            launch.global
        )));
    }
    for (dimension, (&global, &offset)) in
        launch.global.iter().zip(launch.offset.iter().chain(std::iter::repeat(&0))).enumerate()
    {
        if global.checked_add(offset).is_none() {
            return Err(invalid(format!(
                "offset {offset} plus global size {global} overflows in dimension {dimension}"
            )));
        }
    }
    let Some(local) = &launch.local else { return Ok(()) };
    if local.len() != dims {
        return Err(invalid(format!(
            "the work-group size {local:?} has {} dimensions but the global size {:?} has {dims}",
            local.len(),
            launch.global
        )));
    }
    let too_large = |reason: String| work_group_error(info, launch, local, reason, None);
    if local.contains(&0) {
        return Err(too_large("a work-group dimension is zero".to_string()));
    }
    let product = local.iter().try_fold(1usize, |acc, &size| acc.checked_mul(size));
    match product {
        Some(items) if items <= info.max_work_group_size => {}
        Some(items) => {
            return Err(too_large(format!(
                "{items} work-items per group exceed max_work_group_size {}",
                info.max_work_group_size
            )))
        }
        None => return Err(too_large("the work-group size overflows".to_string())),
    }
    for (dimension, &size) in local.iter().enumerate() {
        let limit = info.max_work_item_sizes.get(dimension).copied().unwrap_or(1);
        if size > limit {
            return Err(too_large(format!(
                "dimension {dimension} has {size} work-items, above max_work_item_sizes[{dimension}] \
                 = {limit}"
            )));
        }
    }
    // OpenCL 1.x requires whole work-groups; a partial last group needs an OpenCL 2.0 device
    // that compiles OpenCL C 2.0 (a 3.0 device may still lack it: the runtime's
    // CL_INVALID_WORK_GROUP_SIZE is explained then).
    let c_version = opencl_c_version(&info.opencl_c_version);
    let whole_groups_only = info.opencl_version().is_none_or(|(major, _)| major < 2)
        || c_version.is_some_and(|(major, _)| major < 2);
    if whole_groups_only {
        for (dimension, (&global, &size)) in launch.global.iter().zip(local).enumerate() {
            if global % size != 0 {
                let version = match c_version {
                    Some((a, b)) if info.opencl_version().is_some_and(|(m, _)| m >= 2) => {
                        format!("OpenCL C {a}.{b}, the only version the device compiles,")
                    }
                    _ => format!(
                        "OpenCL {}",
                        info.opencl_version()
                            .map_or("1.x".to_string(), |(a, b)| format!("{a}.{b}"))
                    ),
                };
                return Err(too_large(format!(
                    "the global size {global} is not a multiple of the work-group size {size} in \
                     dimension {dimension}, which {version} requires (partial work-groups need \
                     OpenCL C 2.0); run it on the simulator or choose a size that divides it"
                )));
            }
        }
    }
    Ok(())
}

/// The version in a device's `CL_DEVICE_OPENCL_C_VERSION` ("OpenCL C 1.2 PoCL").
fn opencl_c_version(text: &str) -> Option<(u32, u32)> {
    let number = text.strip_prefix("OpenCL C ")?.split_whitespace().next()?;
    let (major, minor) = number.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Builds the work-group error with every limit named.
pub(crate) fn work_group_error(
    info: &DeviceInfo,
    launch: &LaunchSpec,
    local: &[usize],
    reason: String,
    kernel_limit: Option<usize>,
) -> DeviceError {
    let mut limits = format!(
        "device limits: max_work_group_size {}, max_work_item_sizes {:?}",
        info.max_work_group_size, info.max_work_item_sizes
    );
    if let Some(kernel_limit) = kernel_limit {
        limits.push_str(&format!(", kernel maximum {kernel_limit}"));
    }
    DeviceError::InvalidWorkGroupSize {
        kernel: launch.kernel.clone(),
        device: info.name.clone(),
        local: local.to_vec(),
        reason,
        limits,
    }
}

/// Checks the `__local` bytes requested through arguments against the device's local memory.
pub(crate) fn check_local_arguments(
    info: &DeviceInfo,
    kernel: &str,
    local_sizes: impl Iterator<Item = usize>,
) -> Result<(), DeviceError> {
    let mut count = 0usize;
    let requested = local_sizes.fold(0u64, |sum, size| {
        count += 1;
        sum.saturating_add(size as u64)
    });
    if requested > info.local_mem_bytes {
        return Err(DeviceError::LocalMemoryExceeded {
            kernel: kernel.to_string(),
            device: info.name.clone(),
            requested,
            available: info.local_mem_bytes,
            detail: format!("{count} __local arguments"),
        });
    }
    Ok(())
}

/// Checks one buffer against the device's largest allocation.
pub(crate) fn check_allocation(
    info: &DeviceInfo,
    what: String,
    bytes: usize,
) -> Result<(), DeviceError> {
    if bytes as u64 > info.max_mem_alloc_bytes {
        return Err(DeviceError::AllocationTooLarge {
            what,
            device: info.name.clone(),
            bytes: bytes as u64,
            max: info.max_mem_alloc_bytes,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::info::tests::sample_info;

    fn spec(global: Vec<usize>, local: Option<Vec<usize>>) -> LaunchSpec {
        LaunchSpec { kernel: "k".into(), global, local, offset: Vec::new() }
    }

    #[test]
    fn accepts_launches_within_limits() {
        let info = sample_info(0, 0, "gpu");
        assert!(check_launch_shape(&info, &spec(vec![1024, 64], Some(vec![32, 32]))).is_ok());
        assert!(check_launch_shape(&info, &spec(vec![100], None)).is_ok());
    }

    #[test]
    fn rejects_bad_dimensions_and_zero_sizes() {
        let info = sample_info(0, 0, "gpu");
        for launch in [
            spec(vec![], None),
            spec(vec![1, 1, 1, 1], None),
            spec(vec![0, 4], None),
            spec(vec![64], Some(vec![8, 8])),
            spec(vec![64], None).with_offset(vec![1, 2]),
            spec(vec![usize::MAX], None).with_offset(vec![1]),
        ] {
            assert!(
                matches!(
                    check_launch_shape(&info, &launch),
                    Err(DeviceError::InvalidLaunch { .. })
                ),
                "{launch:?}"
            );
        }
    }

    #[test]
    fn work_group_errors_name_the_limits() {
        let info = sample_info(0, 0, "gpu");
        let message = check_launch_shape(&info, &spec(vec![2048, 64], Some(vec![64, 32])))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(message.contains("2048 work-items per group"), "{message}");
        assert!(message.contains("max_work_group_size 1024"), "{message}");
        let message = check_launch_shape(&info, &spec(vec![1, 1, 128], Some(vec![1, 1, 128])))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(message.contains("max_work_item_sizes[2] = 64"), "{message}");
    }

    #[test]
    fn partial_groups_rejected_only_before_opencl_2() {
        let mut info = sample_info(0, 0, "gpu");
        let launch = spec(vec![100], Some(vec![64]));
        // An OpenCL 3.0 device that compiles only OpenCL C 1.2 (PoCL's CPU device).
        let message = check_launch_shape(&info, &launch).err().map(|e| e.to_string());
        assert!(
            message.as_deref().is_some_and(|m| m.contains("OpenCL C 1.2")
                && m.contains("partial work-groups need OpenCL C 2.0")),
            "{message:?}"
        );
        info.opencl_c_version = "OpenCL C 2.0 pocl".into();
        assert!(check_launch_shape(&info, &launch).is_ok());
        info.device_version = "OpenCL 1.2 CUDA".into();
        assert!(matches!(
            check_launch_shape(&info, &launch),
            Err(DeviceError::InvalidWorkGroupSize { .. })
        ));
    }

    #[test]
    fn local_and_allocation_limits() {
        let info = sample_info(0, 0, "gpu");
        assert!(check_local_arguments(&info, "k", [16 * 1024, 32 * 1024].into_iter()).is_ok());
        let error = check_local_arguments(&info, "k", [48 * 1024, 1].into_iter());
        assert!(matches!(error, Err(DeviceError::LocalMemoryExceeded { requested: 49153, .. })));
        assert!(check_allocation(&info, "argument 0".into(), 1 << 28).is_ok());
        assert!(check_allocation(&info, "argument 0".into(), (1 << 28) + 1).is_err());
    }
}
