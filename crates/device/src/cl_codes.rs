//! Names and plain-language meanings of OpenCL status codes.
//!
//! Runtimes report failures as bare negative integers; users should never have to look one up.
//! The table covers the core API (1.0 to 3.0), the ICD loader and the run-time loading layer.

/// Status code returned when the OpenCL library could not be loaded at run time.
pub const RUNTIME_LOAD_FAILED: i32 = -2000;
/// Status code returned when the loaded OpenCL library lacks an entry point.
pub const FUNCTION_NOT_AVAILABLE: i32 = -2001;
/// Status code of the ICD loader when it found no platform.
pub const PLATFORM_NOT_FOUND_KHR: i32 = -1001;

/// Symbolic name of a status code (e.g. `CL_OUT_OF_RESOURCES`); `CL_UNKNOWN_ERROR` when the code
/// is not part of the table.
pub fn cl_error_name(code: i32) -> &'static str {
    match code {
        0 => "CL_SUCCESS",
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -3 => "CL_COMPILER_NOT_AVAILABLE",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -7 => "CL_PROFILING_INFO_NOT_AVAILABLE",
        -8 => "CL_MEM_COPY_OVERLAP",
        -9 => "CL_IMAGE_FORMAT_MISMATCH",
        -10 => "CL_IMAGE_FORMAT_NOT_SUPPORTED",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -12 => "CL_MAP_FAILURE",
        -13 => "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        -14 => "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        -15 => "CL_COMPILE_PROGRAM_FAILURE",
        -16 => "CL_LINKER_NOT_AVAILABLE",
        -17 => "CL_LINK_PROGRAM_FAILURE",
        -18 => "CL_DEVICE_PARTITION_FAILED",
        -19 => "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
        -30 => "CL_INVALID_VALUE",
        -31 => "CL_INVALID_DEVICE_TYPE",
        -32 => "CL_INVALID_PLATFORM",
        -33 => "CL_INVALID_DEVICE",
        -34 => "CL_INVALID_CONTEXT",
        -35 => "CL_INVALID_QUEUE_PROPERTIES",
        -36 => "CL_INVALID_COMMAND_QUEUE",
        -37 => "CL_INVALID_HOST_PTR",
        -38 => "CL_INVALID_MEM_OBJECT",
        -39 => "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
        -40 => "CL_INVALID_IMAGE_SIZE",
        -41 => "CL_INVALID_SAMPLER",
        -42 => "CL_INVALID_BINARY",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -44 => "CL_INVALID_PROGRAM",
        -45 => "CL_INVALID_PROGRAM_EXECUTABLE",
        -46 => "CL_INVALID_KERNEL_NAME",
        -47 => "CL_INVALID_KERNEL_DEFINITION",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -53 => "CL_INVALID_WORK_DIMENSION",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -55 => "CL_INVALID_WORK_ITEM_SIZE",
        -56 => "CL_INVALID_GLOBAL_OFFSET",
        -57 => "CL_INVALID_EVENT_WAIT_LIST",
        -58 => "CL_INVALID_EVENT",
        -59 => "CL_INVALID_OPERATION",
        -60 => "CL_INVALID_GL_OBJECT",
        -61 => "CL_INVALID_BUFFER_SIZE",
        -62 => "CL_INVALID_MIP_LEVEL",
        -63 => "CL_INVALID_GLOBAL_WORK_SIZE",
        -64 => "CL_INVALID_PROPERTY",
        -65 => "CL_INVALID_IMAGE_DESCRIPTOR",
        -66 => "CL_INVALID_COMPILER_OPTIONS",
        -67 => "CL_INVALID_LINKER_OPTIONS",
        -68 => "CL_INVALID_DEVICE_PARTITION_COUNT",
        -69 => "CL_INVALID_PIPE_SIZE",
        -70 => "CL_INVALID_DEVICE_QUEUE",
        -71 => "CL_INVALID_SPEC_ID",
        -72 => "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
        -1000 => "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        -1057 => "CL_DEVICE_PARTITION_FAILED_EXT",
        -1058 => "CL_INVALID_PARTITION_COUNT_EXT",
        -1059 => "CL_INVALID_PARTITION_NAME_EXT",
        -1121 => "CL_CONTEXT_TERMINATED_KHR",
        -1138 => "CL_INVALID_COMMAND_BUFFER_KHR",
        -1139 => "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR",
        -1140 => "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR",
        -1141 => "CL_INVALID_MUTABLE_COMMAND_KHR",
        -1142 => "CL_INVALID_SEMAPHORE_KHR",
        -9999 => "CL_NV_ILLEGAL_ADDRESS",
        RUNTIME_LOAD_FAILED => "CL_RUNTIME_LOAD_FAILED",
        FUNCTION_NOT_AVAILABLE => "CL_FUNCTION_NOT_AVAILABLE",
        _ => "CL_UNKNOWN_ERROR",
    }
}

/// A sentence that explains the usual cause of a status code when running kernels, for the
/// codes whose names alone mislead (resource exhaustion is reported under several names and
/// often only at launch time, because static `__local` usage is known only to the runtime).
pub fn cl_error_explanation(code: i32) -> Option<&'static str> {
    let sentence = match code {
        -4 => {
            "the device could not allocate memory for a buffer: the buffers of this launch may \
             exceed the device's global memory, or another process holds it"
        }
        -5 => {
            "the device ran out of resources for this launch: typically the kernel's __local \
             memory (static arrays plus __local arguments) or its registers exceed what one \
             work-group may use; try a smaller work-group or less local memory"
        }
        -6 => "the host ran out of memory",
        -7 => "the command queue was created without profiling, so no timing is available",
        -11 => "the program failed to build; the build log says why",
        -46 => "the program has no kernel of that name",
        -51 => "an argument's size does not match the kernel parameter's type",
        -52 => "some kernel arguments were not set",
        -54 => {
            "the work-group size is not valid for this kernel and device: it may exceed the \
             kernel's maximum (which can be below the device's because of registers or local \
             memory), not divide the global size, or disagree with reqd_work_group_size"
        }
        -55 => "a work-group dimension exceeds the device's maximum work-item size",
        -63 => "the global size exceeds what the device can address",
        -9999 => "the kernel accessed an illegal address (out-of-bounds access on the device)",
        RUNTIME_LOAD_FAILED => "the OpenCL library (libOpenCL.so.1) could not be loaded",
        FUNCTION_NOT_AVAILABLE => {
            "the loaded OpenCL library does not provide this function: it predates the OpenCL \
             version the function belongs to, or it is a driver meant to sit behind the ICD \
             loader (OPENCL_DYLIB_PATH must name a loader such as libOpenCL.so.1, not a driver)"
        }
        _ => return None,
    };
    Some(sentence)
}

/// [`cl_error_explanation`] for a status returned by a given call (`clFinish`,
/// `clEnqueueReadBuffer`, `clCreateContext`, …). NVIDIA's OpenCL reports a kernel that
/// accessed an illegal address as `CL_OUT_OF_RESOURCES` on whatever command comes next (a
/// transfer, a wait, the next launch), and once that happened, creating a context in the same
/// process fails with `CL_NV_ILLEGAL_ADDRESS`: blaming `__local` memory or registers there would
/// send the user after the wrong cause.
pub fn cl_error_explanation_during(call: &str, code: i32) -> Option<&'static str> {
    let launch = call.starts_with("clEnqueueNDRangeKernel");
    match code {
        -5 if launch => Some(
            "either this launch needs more __local memory (static arrays plus __local \
             arguments) or registers than one work-group may use (try a smaller work-group or \
             less local memory), or an earlier kernel on this queue failed while running, most \
             often by accessing an illegal address (NVIDIA's OpenCL reports that on the next \
             command)",
        ),
        -5 => Some(
            "an earlier kernel on this queue failed while running, most often by accessing an \
             illegal address (an out-of-bounds access: NVIDIA's OpenCL reports it as \
             CL_OUT_OF_RESOURCES on the next command); the context is unusable from then on",
        ),
        -9999 if !launch => Some(
            "a kernel run earlier by this process accessed an illegal address (an out-of-bounds \
             access); NVIDIA's OpenCL then refuses the device to the whole process, so only a \
             new process can use it again",
        ),
        _ => cl_error_explanation(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_resource_codes() {
        assert_eq!(cl_error_name(-5), "CL_OUT_OF_RESOURCES");
        assert_eq!(cl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
        assert_eq!(cl_error_name(-4), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
        assert_eq!(cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
        assert_eq!(cl_error_name(-12345), "CL_UNKNOWN_ERROR");
    }

    #[test]
    fn every_core_code_has_a_name() {
        for code in (-19..=0).chain(-72..=-30) {
            assert_ne!(cl_error_name(code), "CL_UNKNOWN_ERROR", "code {code}");
        }
    }

    #[test]
    fn out_of_resources_after_a_kernel_is_an_illegal_address_not_local_memory() {
        for call in ["clFinish", "clEnqueueReadBuffer", "clWaitForEvents"] {
            let text = cl_error_explanation_during(call, -5).expect("explained");
            assert!(text.contains("illegal address"), "{call}: {text}");
            assert!(!text.contains("__local"), "{call}: {text}");
        }
        let launch = cl_error_explanation_during("clEnqueueNDRangeKernel (`k`)", -5).unwrap();
        assert!(launch.contains("__local") && launch.contains("illegal address"), "{launch}");
        let reopen = cl_error_explanation_during("clCreateContext", -9999).unwrap();
        assert!(reopen.contains("earlier") && reopen.contains("new process"), "{reopen}");
        assert_eq!(cl_error_explanation_during("clFinish", -54), cl_error_explanation(-54));
    }

    #[test]
    fn resource_codes_are_explained() {
        for code in [-4, -5, -54] {
            assert!(cl_error_explanation(code).is_some(), "code {code}");
        }
        assert!(cl_error_explanation(-30).is_none());
    }
}
