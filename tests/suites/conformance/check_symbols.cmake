# check_symbols.cmake — proves from the binary itself that a conformance
# program gets its malloc from Mortise, not from the C library:
#   MODE=static: the fully static program defines malloc, free, ... and
#     contains none of glibc's malloc implementation (its internal symbols);
#   MODE=linked: the program needs LIBRARY (libmortise-NAME.so), which comes
#     before libc in its search order, and leaves malloc & co. undefined.
# cmake -DMODE=static|linked -DBINARY=path [-DLIBRARY=libmortise-NAME.so] -P check_symbols.cmake
set(passed 0)
set(failed 0)
# expect("what failed" CONDITION...): the condition as if() reads it
macro(expect message)
  if(${ARGN})
    math(EXPR passed "${passed} + 1")
  else()
    math(EXPR failed "${failed} + 1")
    message("check_symbols: FAILED: ${message}")
  endif()
endmacro()

set(family malloc free calloc realloc reallocarray memalign posix_memalign
    aligned_alloc valloc pvalloc malloc_usable_size malloc_trim mallinfo2
    malloc_stats malloc_info mallopt)
# Symbols only glibc's malloc.o defines: any of them means libc malloc is in.
set(glibc_malloc _int_malloc _int_free _int_realloc _int_memalign __libc_malloc
    __libc_free __libc_calloc __libc_realloc __libc_memalign main_arena
    malloc_consolidate sysmalloc)

if(MODE STREQUAL "static")
  execute_process(COMMAND nm ${BINARY} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
  expect("nm ${BINARY} failed" rc EQUAL 0)
  execute_process(COMMAND readelf -d ${BINARY} OUTPUT_VARIABLE dyn)
  string(FIND "${dyn}" "NEEDED" needed)
  expect("the static program needs shared libraries" needed EQUAL -1)
  foreach(s ${family})
    string(REGEX MATCH "\n[0-9a-f]+ [TW] ${s}\n" hit "\n${syms}")
    expect("${s} is not defined in the program" hit)
  endforeach()
  foreach(s ${glibc_malloc})
    string(REGEX MATCH "\n[0-9a-f]* *[A-Za-z] ${s}\n" hit "\n${syms}")
    expect("glibc's malloc is linked in (${s})" NOT hit)
  endforeach()
  string(REGEX MATCH "\n[0-9a-f]+ [tT] mt_process_init\n" hit "\n${syms}")
  expect("Mortise's code (mt_process_init) is not in the program" hit)
elseif(MODE STREQUAL "linked")
  execute_process(COMMAND readelf -d ${BINARY} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  expect("readelf ${BINARY} failed" rc EQUAL 0)
  string(FIND "${dyn}" "[${LIBRARY}]" mortise_at)
  string(FIND "${dyn}" "[libc.so" libc_at)
  expect("${LIBRARY} is not NEEDED" mortise_at GREATER -1)
  expect("${LIBRARY} does not come before libc" mortise_at LESS libc_at)
  execute_process(COMMAND nm -D --undefined-only ${BINARY} OUTPUT_VARIABLE undef)
  foreach(s malloc free calloc realloc)
    string(REGEX MATCH "U ${s}(@[^\n]*)?\n" hit "${undef}")
    expect("${s} is not imported" hit)
  endforeach()
else()
  message(FATAL_ERROR "MODE must be static or linked")
endif()
message("conformance: ${passed} passed, ${failed} failed")
if(failed)
  message(FATAL_ERROR "malloc does not come from Mortise")
endif()
