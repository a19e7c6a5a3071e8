# Cross build for 64-bit Windows with Debian's mingw-w64 (gcc-mingw-w64-x86-64):
#
#     cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake
#
# builds the instances that run on Windows (MORTISE_WINDOWS_INSTANCES in the
# top CMakeLists.txt) as static libraries that replace malloc
# (lib/libmortise-NAME.a) and as DLLs with the prefixed API mt_malloc, mt_free,
# ... (bin/mortise-NAME.dll, lib/libmortise-NAME.dll.a). The tests run under
# wine: tests/ports/port_windows.py, docs/portability.md.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(MORTISE_CROSS_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${MORTISE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${MORTISE_CROSS_TRIPLE}-g++)
set(CMAKE_RC_COMPILER ${MORTISE_CROSS_TRIPLE}-windres)
# printf and friends with C99 formats (%zu) instead of msvcrt's
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")

# Debian's wine: /usr/lib/wine/wine64 is not on PATH.
find_program(MORTISE_WINE64 NAMES wine64 PATHS /usr/lib/wine NO_DEFAULT_PATH)
find_program(MORTISE_WINE64 wine64)
if(MORTISE_WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MORTISE_WINE64})
endif()

set(CMAKE_FIND_ROOT_PATH /usr/${MORTISE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
