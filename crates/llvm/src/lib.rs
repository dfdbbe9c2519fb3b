//! The LLVM toolchain as child processes: OpenCL C → LLVM IR → an explicit pass sequence → PTX.
