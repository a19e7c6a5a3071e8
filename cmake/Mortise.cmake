# mortise_add_instance(NAME SOURCE [VARIANT | LIGHT])
# Builds one allocator from its composition file into
#   build/lib/libmortise-NAME.so  (LD_PRELOAD or link)
#   build/lib/libmortise-NAME.a   (static link)
# and records NAME in the global property MORTISE_INSTANCES, which the
# conformance suite and the real-program tests iterate over.
# VARIANT marks a composition that exists to prove a layer or policy (the
# layer matrix, OS-layer variants): by default it runs the conformance suite
# in linked mode only and no real programs, so `make test` stays within its
# time budget; configure with -DMORTISE_FULL_TESTS=ON to give variants every
# mode and program too. LIGHT marks a ready allocator whose machine code is
# proved identical to another's (tests/suites/zero_cost: wfslabfl is wfslab's): it
# runs the conformance cases api, random and threads in every mode and only
# the `preload` program (MORTISE_FULL_TESTS=ON: everything). Other ready
# allocators always get everything.
option(MORTISE_FULL_TESTS "Run every conformance mode and real program on variant instances too" OFF)
set(MORTISE_INCLUDE_DIR ${CMAKE_SOURCE_DIR}/include)

# Flags every allocator translation unit needs: the compiler must not turn
# malloc+memset into calloc (or similar) inside the allocator itself, and TLS
# must use the initial-exec model even in the shared library.
set(MORTISE_ALLOCATOR_FLAGS
  -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc -fno-builtin-free
  -ftls-model=initial-exec -fvisibility=hidden
  # GCC turns one level of a layer's constant `next` pointer into a direct,
  # inlinable call per early-inliner iteration (default: 1), so without this
  # a chain with more layers (even fake ones) reaches the late inliner in a
  # different shape and helpers such as realloc compile differently
  # (tests/suites/zero_cost). MT_COMPOSE links at most 16 instances.
  $<$<C_COMPILER_ID:GNU>:--param=max-early-inliner-iterations=32>
  # segfit_lf swaps a pointer and its ABA tag together with cmpxchg16b.
  $<$<STREQUAL:${CMAKE_SYSTEM_PROCESSOR},x86_64>:-mcx16>)

function(mortise_add_instance NAME SOURCE)
  if("VARIANT" IN_LIST ARGN AND NOT MORTISE_FULL_TESTS)
    set_property(GLOBAL APPEND PROPERTY MORTISE_VARIANTS ${NAME})
  endif()
  if("LIGHT" IN_LIST ARGN AND NOT MORTISE_FULL_TESTS)
    set_property(GLOBAL APPEND PROPERTY MORTISE_LIGHT ${NAME})
  endif()
  # One compilation for both libraries: the static one is position
  # independent too, so the two would compile the same file with the same
  # flags (it is the longest part of the build: every layer inlined).
  add_library(mortise-${NAME}-objects OBJECT ${SOURCE})
  target_include_directories(mortise-${NAME}-objects PUBLIC ${MORTISE_INCLUDE_DIR})
  target_compile_options(mortise-${NAME}-objects PRIVATE ${MORTISE_ALLOCATOR_FLAGS})
  target_link_libraries(mortise-${NAME}-objects PUBLIC Threads::Threads)
  set_target_properties(mortise-${NAME}-objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(mortise-${NAME} SHARED $<TARGET_OBJECTS:mortise-${NAME}-objects>)
  add_library(mortise-${NAME}-static STATIC $<TARGET_OBJECTS:mortise-${NAME}-objects>)
  foreach(t mortise-${NAME} mortise-${NAME}-static)
    target_include_directories(${t} PUBLIC ${MORTISE_INCLUDE_DIR})
    target_link_libraries(${t} PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
    # the composition file, for the suites that compile it again their way
    # (tests/suites/debug, tests/suites/sanitize)
    get_filename_component(source ${SOURCE} ABSOLUTE)
    set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON MORTISE_SOURCE ${source})
  endforeach()
  set_target_properties(mortise-${NAME}-static PROPERTIES OUTPUT_NAME mortise-${NAME})
  set_property(GLOBAL APPEND PROPERTY MORTISE_INSTANCES ${NAME})
endfunction()

# mortise_debug_library(TARGET SOURCE): the allocator composed in SOURCE as
# the shared library libTARGET.so, built at debug level 2 (MT_ASSERTs and the
# layers' checks after slow paths, core/debug.h), for the debug tests.
function(mortise_debug_library TARGET SOURCE)
  add_library(${TARGET} SHARED ${SOURCE})
  target_include_directories(${TARGET} PRIVATE ${MORTISE_INCLUDE_DIR})
  target_compile_options(${TARGET} PRIVATE ${MORTISE_ALLOCATOR_FLAGS})
  target_compile_definitions(${TARGET} PRIVATE MORTISE_DEBUG=2)
  target_link_libraries(${TARGET} PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
  set_target_properties(${TARGET} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
