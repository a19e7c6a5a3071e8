# Cross build for 64-bit Arm Linux with Debian's cross compilers
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, libc6-dev-arm64-cross):
#
#     cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# Programs run under qemu-user (Debian qemu-user) with the cross C library as
# the guest's root: CMAKE_CROSSCOMPILING_EMULATOR, which ctest puts in front
# of every test whose command is a target of this build (docs/portability.md).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(MORTISE_CROSS_TRIPLE aarch64-linux-gnu)
set(MORTISE_CROSS_SYSROOT /usr/${MORTISE_CROSS_TRIPLE} CACHE PATH
    "the target's C library and headers (guest root for qemu's -L)")
set(CMAKE_C_COMPILER ${MORTISE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${MORTISE_CROSS_TRIPLE}-g++)

find_program(MORTISE_QEMU_AARCH64 qemu-aarch64)
if(MORTISE_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MORTISE_QEMU_AARCH64} -L ${MORTISE_CROSS_SYSROOT})
endif()

# Libraries and headers of the target only; programs (python3, objdump) of the host.
set(CMAKE_FIND_ROOT_PATH ${MORTISE_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
