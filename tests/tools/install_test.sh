#!/usr/bin/env bash
# tests/tools/install_test.sh BUILD — `make install` into a temporary prefix,
# then use it as a project would (README "Use Mortise in your project"):
#   1. the installed mortise command lists the installed instances and builds
#      a prefixed allocator from the installed headers;
#   2. an installed composition file compiles with `pkg-config --cflags`;
#      a program compiled with `pkg-config --cflags --libs mortise` that
#      composes its own allocator (custom_socket, prefix app_) beside the
#      system malloc, linked with a ready allocator (-lmortise-segfit) as its
#      malloc, and with the command's prefixed static library;
#   3. a CMake project using find_package(Mortise).
# Fails without pkg-config (.ci/run installs pkgconf) or a built segfit.
set -euo pipefail
build=$(cd "$1" && pwd)
command -v pkg-config >/dev/null || { echo "FAIL: no pkg-config (apt-get install pkgconf)"; exit 1; }
test -f "$build/lib/libmortise-segfit.so" || { echo "FAIL: segfit not built in $build"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in include/mortise/mortise.h lib/libmortise-segfit.so lib/libmortise-segfit.a \
         bin/mortise share/mortise/mortise_lib/cli.py lib/pkgconfig/mortise.pc \
         lib/cmake/Mortise/MortiseConfig.cmake share/mortise/instances/segfit.c; do
    test -e "$prefix/$f" || { echo "not installed: $f"; exit 1; }
done

# 1. The installed command, away from the source tree.
cd "$work"
export MORTISE_CACHE_DIR=$work/cache
unset MORTISE_BUILD_DIR MORTISE_LIB_DIR
"$prefix/bin/mortise" list > list.txt
grep -q "segfit  *\[built\] mmap_heap::segfit_lk" list.txt || { cat list.txt; exit 1; }
"$prefix/bin/mortise" build -v 'mmap_heap::segfit_lk(sync=spinlock)::malloc_socket' \
    --prefix cmd_ --static libcmd.a -o libcmd.so 2> build.log
grep -q -- "-I$prefix/include" build.log || { cat build.log; echo "not the installed headers"; exit 1; }
# (outputs go to files: grep -q ending a pipe early would fail it under pipefail)
nm libcmd.a > nm.txt
grep -q ' T cmd_malloc$' nm.txt || { echo "no cmd_malloc in libcmd.a"; exit 1; }
"$prefix/bin/mortise" run segfit -- sh -c 'echo "$LD_PRELOAD"' > run.txt
grep -q "$prefix/lib/libmortise-segfit.so" run.txt || { cat run.txt; exit 1; }

# 2. pkg-config: a composition of the program's own, a ready malloc, the
#    command's prefixed library; an installed composition file that includes
#    a chain it shares with others (hslab.c: hslab_chain.h) compiles as copied.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -std=c11 $(pkg-config --cflags mortise) -c "$prefix/share/mortise/instances/hslab.c" -o hslab.o
cat > composition.c <<'C'
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>
#define MT_PREFIX app_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, custom_socket)
C
cat > main.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void *app_malloc(size_t);
void app_free(void *);
size_t app_malloc_usable_size(void *);
void *cmd_malloc(size_t);
void cmd_free(void *);
int main(void)
{
    char *a = app_malloc(100), *b = malloc(100), *c = cmd_malloc(100);
    if (!a || !b || !c || app_malloc_usable_size(a) < 100)
        return 1;
    memset(a, 1, 100), memset(b, 2, 100), memset(c, 3, 100);
    Dl_info where;                       /* malloc is the ready allocator's */
    if (!dladdr((void *)malloc, &where) || !strstr(where.dli_fname, "libmortise-segfit"))
        return 2;
    app_free(a), free(b), cmd_free(c);
    puts("installed-ok");
    return 0;
}
C
cc -std=c11 $(pkg-config --cflags mortise) -c composition.c -o composition.o
cc -std=c11 -c main.c -o main.o
cc main.o composition.o libcmd.a -o app $(pkg-config --libs mortise) -lmortise-segfit
LD_LIBRARY_PATH=$prefix/lib ./app > app.txt
grep -q installed-ok app.txt

# 3. find_package(Mortise)
mkdir proj
cp composition.c proj/composition.c
cat > proj/main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
void *app_malloc(size_t);
void app_free(void *);
int main(void)
{
    void *p = app_malloc(64), *q = malloc(64);
    if (!p || !q)
        return 1;
    app_free(p), free(q);
    puts("cmake-ok");
    return 0;
}
C
cat > proj/CMakeLists.txt <<'C'
cmake_minimum_required(VERSION 3.16)
project(uses_mortise C)
find_package(Mortise REQUIRED)
mortise_add_instance(app composition.c)          # libmortise-app.so / .a
add_executable(app_prog main.c)
target_link_libraries(app_prog PRIVATE mortise-app-static Mortise::segfit)
add_executable(headers_only composition.c main.c)
target_compile_options(headers_only PRIVATE ${MORTISE_ALLOCATOR_FLAGS})
target_link_libraries(headers_only PRIVATE Mortise::headers)
C
cmake -S proj -B proj/build -DCMAKE_PREFIX_PATH="$prefix" > cmake.log 2>&1 || { cat cmake.log; exit 1; }
cmake --build proj/build > cmake-build.log 2>&1 || { cat cmake-build.log; exit 1; }
LD_LIBRARY_PATH=$prefix/lib proj/build/app_prog > app_prog.txt
grep -q cmake-ok app_prog.txt
proj/build/headers_only > headers_only.txt
grep -q cmake-ok headers_only.txt
echo "install test: ok ($prefix)"
