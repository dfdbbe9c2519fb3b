#!/bin/sh
# Checks that every kernel of the corpus is valid OpenCL C 1.2 for clang.
# Usage: tests/corpus/check_clang.sh [CLANG]   (default: clang-16, else clang)
# Exits non-zero if any file fails; prints each failing file with clang's output.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
clang=${1:-}
if [ -z "$clang" ]; then
    if command -v clang-16 >/dev/null 2>&1; then clang=clang-16; else clang=clang; fi
fi
failed=0
checked=0
for file in "$dir"/*.cl; do
    checked=$((checked + 1))
    if ! output=$("$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header \
            -fsyntax-only -I "$dir" "$file" 2>&1); then
        failed=$((failed + 1))
        echo "FAIL: $file"
        echo "$output"
    fi
done
echo "checked $checked files, $failed failed"
[ "$failed" -eq 0 ]
