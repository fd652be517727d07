# Cross build for aarch64 Linux with Debian's cross compiler (g++-aarch64-linux-gnu), programs run
# under qemu user emulation (qemu-user) with every CPU feature qemu has (-cpu max: NEON and the
# dot product extension). Used by tests/cross/aarch64_kernels.sh with -DAI00_KERNELS_ONLY=ON:
# the kernels and their tests need no arm64 libraries beyond the cross libc and libstdc++.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# ctest and Catch2's test discovery run the aarch64 programs through this.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu)
