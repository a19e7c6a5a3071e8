# Cross build for 64-bit Arm Linux with Debian's cross compilers
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, libc6-dev-arm64-cross):
#
#     cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# Programs run under qemu-user (Debian qemu-user) with the cross C library as
# the guest's root: CMAKE_CROSSCOMPILING_EMULATOR, which ctest puts in front
# of every test whose command is a target of this build (docs/portability.md).
#
# Libraries of the target beyond the C library and GCC's own, if a program
# needs any, come from Debian's multiarch packages (after `dpkg
# --add-architecture arm64`): headers in /usr/include/aarch64-linux-gnu,
# libraries in /usr/lib/aarch64-linux-gnu.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(MORTISE_CROSS_TRIPLE aarch64-linux-gnu)
set(MORTISE_CROSS_SYSROOT /usr/${MORTISE_CROSS_TRIPLE} CACHE PATH
    "the target's C library and headers (guest root for qemu's -L)")
set(CMAKE_C_COMPILER ${MORTISE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${MORTISE_CROSS_TRIPLE}-g++)

# The cross linker searches /usr/lib/aarch64-linux-gnu already, the cross
# compiler not /usr/include/aarch64-linux-gnu: searched last, after GCC's and
# the C library's headers, as a native compiler orders its multiarch folder
# (a multiarch package's header must not hide GCC's).
set(MORTISE_CROSS_MULTIARCH_INCLUDE /usr/include/${MORTISE_CROSS_TRIPLE})
set(CMAKE_C_FLAGS_INIT "-idirafter ${MORTISE_CROSS_MULTIARCH_INCLUDE}")
set(CMAKE_CXX_FLAGS_INIT "-idirafter ${MORTISE_CROSS_MULTIARCH_INCLUDE}")

find_program(MORTISE_QEMU_AARCH64 qemu-aarch64)
if(MORTISE_QEMU_AARCH64)
  # The guest's C library from the cross root only. With libc6:arm64
  # installed (any multiarch package above pulls it in), the guest's loader
  # would find that one first, in /lib/aarch64-linux-gnu (qemu falls back to
  # the host's file where the root has none), a build other than its own:
  # ld.so 2.36-8cross1 with libc.so.6 2.36-9+deb12u14 spins for ever before
  # main. LD_LIBRARY_PATH is searched before those folders; libraries the
  # cross root lacks still come from them.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MORTISE_QEMU_AARCH64} -L ${MORTISE_CROSS_SYSROOT}
      -E LD_LIBRARY_PATH=${MORTISE_CROSS_SYSROOT}/lib)
endif()

# Libraries and headers of the target only; programs (python3, objdump) of the host.
set(CMAKE_FIND_ROOT_PATH ${MORTISE_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
