#!/usr/bin/env bash
# Assembles `llvmkit/`: the pieces of Debian's LLVM 16 that the phase-order pipeline needs and that
# a GPU machine without them lacks (opt, llc, llvm-link, libclc's NVPTX bitcode and headers).
# The binaries link against libLLVM-16.so.1, which Ubuntu 24.04 ships too, so the kit is small
# (about 10 MB) and clang-16 from the target machine does the front end.
#
# On the target machine:
#   export CLMAP_LLVM_BIN=$PWD/llvmkit/bin CLMAP_LIBCLC=$PWD/llvmkit/nvptx64--nvidiacl.bc \
#          CLMAP_CLC_INCLUDE=$PWD/llvmkit/include
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kit=${1:-$root/llvmkit}
for f in /usr/lib/llvm-16/bin/opt /usr/lib/llvm-16/bin/llc /usr/lib/llvm-16/bin/llvm-link \
         /usr/lib/clc/nvptx64--nvidiacl.bc /usr/include/clc/clc.h; do
  [ -e "$f" ] || { echo "missing $f: apt-get install llvm-16 libclc-16-dev" >&2; exit 1; }
done
rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/include"
cp /usr/lib/llvm-16/bin/opt /usr/lib/llvm-16/bin/llc /usr/lib/llvm-16/bin/llvm-link "$kit/bin/"
cp /usr/lib/clc/nvptx64--nvidiacl.bc "$kit/"
cp -r /usr/include/clc "$kit/include/"
# clang-16 is expected on the target; a versioned name is enough for the toolchain discovery.
echo "llvmkit ready in $kit ($(du -sh "$kit" | cut -f1))"
