//! Phase-order search: which LLVM pass sequence makes an OpenCL kernel fastest on an NVIDIA GPU.
