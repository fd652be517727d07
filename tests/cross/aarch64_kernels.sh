#!/bin/sh
# The kernel tests on aarch64 (docs/model.md "Kernels and ISAs"): cross-builds src/cpu_kernels and
# tests/cpu_kernels with Debian's g++-aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake,
# AI00_KERNELS_ONLY: no arm64 TBB, fmt or simdjson needed) and runs them under qemu-aarch64
# -cpu max, where the scalar, neon64 and neon64_dotprod tables all run: every kernel of every
# table against the scalar one, and each table forced in turn. Registered with ctest (label
# `cross`) when the cross compiler and qemu are installed (scripts/install-deps.sh).
#
# usage: aarch64_kernels.sh <source dir> <build dir> <Catch2_DIR> <xsimd_DIR> [launcher]
# The build dir is kept between runs, so a second run rebuilds only what changed.
set -eu
if [ "$#" -lt 4 ]; then
  echo "usage: $0 <source dir> <build dir> <Catch2_DIR> <xsimd_DIR> [compiler launcher]" >&2
  exit 2
fi
src=$1
build=$2
launcher=${5:-}
set -- -S "$src" -B "$build" --toolchain "$src/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DAI00_KERNELS_ONLY=ON -DAI00_BUILD_TESTS=ON \
  -DAI00_BUILD_TOOLS=OFF -DAI00_BUILD_EXAMPLES=OFF -DCatch2_DIR="$3" -Dxsimd_DIR="$4"
if [ -n "$launcher" ]; then
  set -- "$@" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" -DCMAKE_C_COMPILER_LAUNCHER="$launcher"
fi
cmake "$@" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j2 --target test_cpu_kernels test_cpu_kernels_select
ctest --test-dir "$build" --output-on-failure -j2
