# mortise_clang_executable(NAME SANITIZE <-fsanitize=...> SOURCES <files...> [FLAGS <more flags>] [LIBS <-lNAME...>])
# Builds tests/.../NAME with clang and the given sanitizers, outside the main
# (unsanitized, any-compiler) build: one clang command compiles and links
# the sources with the allocator flags (cmake/Mortise.cmake). Sets
# NAME_PATH in the caller to the executable, or NAME_PROBLEM to why it cannot
# be built here (no clang, or no sanitizer runtime for these flags):
# mortise_clang_test then registers a failing test with that message, so a
# machine without the tools fails loudly instead of skipping.
# Used by tests/suites/sanitize and tests/suites/fuzz.
find_program(MORTISE_CLANG NAMES clang clang-14)
set(MORTISE_SANITIZE_DIR ${CMAKE_CURRENT_LIST_DIR})
file(GLOB_RECURSE MORTISE_ALL_HEADERS ${MORTISE_INCLUDE_DIR}/*.h)

function(mortise_clang_executable name)
  cmake_parse_arguments(A "" "SANITIZE" "SOURCES;FLAGS;LIBS" ${ARGN})
  if(NOT MORTISE_CLANG)
    set(${name}_PROBLEM "clang not found (install clang and libclang-rt-14-dev)" PARENT_SCOPE)
    return()
  endif()
  # can clang link a program with these sanitizers? (runtime libraries present)
  set(probe_dir ${CMAKE_CURRENT_BINARY_DIR}/probe-${name})
  file(MAKE_DIRECTORY ${probe_dir})
  if(A_SANITIZE MATCHES fuzzer)
    file(WRITE ${probe_dir}/probe.c
      "#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  else()
    file(WRITE ${probe_dir}/probe.c "int main(void) { return 0; }\n")
  endif()
  execute_process(COMMAND ${MORTISE_CLANG} ${A_SANITIZE} ${probe_dir}/probe.c -o ${probe_dir}/probe
    RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_VARIABLE probe_err)
  if(NOT probe_rc EQUAL 0)
    string(REPLACE "\n" " " probe_err "${probe_err}")
    set(${name}_PROBLEM "clang cannot build with ${A_SANITIZE} (install libclang-rt-14-dev): ${probe_err}" PARENT_SCOPE)
    return()
  endif()
  set(werror "")
  if(MORTISE_WERROR)
    set(werror -Werror)
  endif()
  # the allocator flags, less the ones for another compiler (generator expressions)
  set(alloc_flags ${MORTISE_ALLOCATOR_FLAGS})
  list(FILTER alloc_flags EXCLUDE REGEX "^\\$<")
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(OUTPUT ${out}
    COMMAND ${MORTISE_CLANG} -std=c11 -D_GNU_SOURCE -Wall -Wextra ${werror}
            -I${MORTISE_INCLUDE_DIR} -O1 -g -fno-omit-frame-pointer -pthread
            ${alloc_flags} ${A_SANITIZE} ${A_FLAGS} ${A_SOURCES} ${A_LIBS} -o ${out}
    DEPENDS ${A_SOURCES} ${MORTISE_ALL_HEADERS} ${MORTISE_SANITIZE_DIR}/ops.h
            ${MORTISE_SANITIZE_DIR}/san_alloc.h
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "clang ${A_SANITIZE}: ${name}"
    COMMAND_EXPAND_LISTS VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
  set(${name}_PATH ${out} PARENT_SCOPE)
endfunction()

# mortise_clang_test(TEST <ctest name> EXE <mortise_clang_executable name>
#                    LABEL <label> ENV <VAR=value...> ARGS <arguments...>)
# Registers the test, failing on any sanitizer report in its output too; if
# the executable could not be built here, a test that fails saying why.
set(MORTISE_SANITIZER_REPORTS
  "ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer|ERROR: LeakSanitizer|CHECK FAILED")
function(mortise_clang_test)
  cmake_parse_arguments(A "" "TEST;EXE;LABEL" "ENV;ARGS" ${ARGN})
  if(${A_EXE}_PATH)
    add_test(NAME ${A_TEST} COMMAND ${${A_EXE}_PATH} ${A_ARGS})
    set_tests_properties(${A_TEST} PROPERTIES TIMEOUT 600 LABELS ${A_LABEL}
      FAIL_REGULAR_EXPRESSION "${MORTISE_SANITIZER_REPORTS}" ENVIRONMENT "${A_ENV}")
  else()
    add_test(NAME ${A_TEST} COMMAND ${CMAKE_COMMAND} -E echo "FAIL: ${${A_EXE}_PROBLEM}")
    set_tests_properties(${A_TEST} PROPERTIES LABELS ${A_LABEL} FAIL_REGULAR_EXPRESSION "FAIL:")
  endif()
endfunction()
