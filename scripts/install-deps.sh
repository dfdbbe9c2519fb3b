#!/usr/bin/env bash
# Installs the system packages clmap's build, demo and tests need, when they are missing.
# As root it runs apt-get itself; otherwise it prints the exact command and fails, so that a
# missing package is never silently skipped.
set -euo pipefail

packages=(
  clang-16              # checks that printed kernels compile (clang -fsyntax-only)
  ocl-icd-libopencl1    # the OpenCL ICD loader clmap opens at run time
  ocl-icd-opencl-dev    # libOpenCL.so and the CL headers: the host programs clmap exec is tested on link it
  gcc                   # compiles those host programs (tests/hosts, tests/exec, bench/hosts)
  libc6-dev             # their C library headers
  make                  # builds bench/hosts
  pocl-opencl-icd       # PoCL: a CPU OpenCL device, so device tests run without a GPU
  clinfo                # to see what OpenCL devices a machine has
  oclgrind              # the reference simulator the benchmarks compare against
  fonts-dejavu-core     # the font clmap analyze --plot draws PNG labels with
  llvm-16               # opt, llvm-link and llc: the phase-order search compiles through them
  libclc-16-dev         # libclc's OpenCL C headers for that pipeline
  libclc-16             # libclc's NVPTX bitcode (nvptx64--nvidiacl.bc): the -dev package does not pull it in
  libisl-dev            # isl, the integer set library fusion's tiling reasons with (crates/isl links it)
  slurm-wlm             # slurmctld, slurmd, sbatch: the test of campaigns split into Slurm jobs
  munge                 # Slurm's authentication (scripts/slurm-localhost.sh starts both)
  python3               # bench/advise_accuracy.py builds the advisor's accuracy table (tested)
  libclblast-dev        # CLBlast: third-party BLAS kernels clmap exec is tested on (tests/third_party)
  clblast-tests         # CLBlast's own test programs, run unmodified under clmap exec (bench/clblast_suite.sh)
  libclfft-dev          # clFFT: third-party generated FFT kernels clmap exec is tested on
  libviennacl-dev       # ViennaCL: third-party linear algebra kernels clmap exec is tested on
  g++                   # compiles the ViennaCL and Boost.Compute host programs (C++)
  libboost-dev          # Boost.Compute (header-only): third-party kernels generated at run time
  python3-pyopencl      # PyOpenCL: third-party generated kernels clmap exec is tested on
  python3-numpy         # what the PyOpenCL and OpenCV tests check their results with
  python3-opencv        # OpenCV: third-party image-processing kernels clmap exec is tested on
  ffmpeg                # FFmpeg's OpenCL video filters: third-party image kernels, checked against Oclgrind
  hashcat               # hashcat: a whole third-party OpenCL application (its own kernels, cracked hashes)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ! command -v cargo >/dev/null 2>&1; then
  echo "clmap needs a Rust toolchain (cargo): see https://rustup.rs" >&2
  exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "missing packages: ${missing[*]}" >&2
  echo "install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
