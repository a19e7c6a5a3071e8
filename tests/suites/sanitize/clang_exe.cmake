# mortise_clang_executable(NAME SANITIZE <-fsanitize=...> SOURCES <files...>
#                          [FLAGS <more flags>] [INCLUDES <dirs searched first>]
#                          [LIBS <-lNAME...>] [COMPOSITION <name>])
# Builds tests/.../NAME with clang and the given sanitizers, outside the main
# (unsanitized, any-compiler) build: one clang command compiles and links
# the sources with the allocator flags (cmake/Mortise.cmake). COMPOSITION:
# a composition of mortise_sanitized_compositions, linked as its shared
# object (mortise_sanitized_object) instead of being compiled again. Sets
# NAME_PATH in the caller to the executable, or NAME_PROBLEM to why it cannot
# be built here (no clang, or no sanitizer runtime for these flags):
# mortise_clang_test then registers a failing test with that message, so a
# machine without the tools fails loudly instead of skipping.
# Used by tests/suites/sanitize and tests/suites/fuzz.
find_program(MORTISE_CLANG NAMES clang clang-14)
set(MORTISE_SANITIZE_DIR ${CMAKE_CURRENT_LIST_DIR})
file(GLOB_RECURSE MORTISE_ALL_HEADERS ${MORTISE_INCLUDE_DIR}/*.h)

function(mortise_clang_executable name)
  cmake_parse_arguments(A "" "SANITIZE;COMPOSITION" "SOURCES;FLAGS;INCLUDES;LIBS" ${ARGN})
  if(NOT MORTISE_CLANG)
    set(${name}_PROBLEM "clang not found (install clang and libclang-rt-14-dev)" PARENT_SCOPE)
    return()
  endif()
  # can clang link a program with these sanitizers? (runtime libraries
  # present; asked once per set of flags, not once per composition)
  string(MAKE_C_IDENTIFIER "${A_SANITIZE}" probe_key)
  get_property(probe_rc GLOBAL PROPERTY MORTISE_CLANG_PROBE_${probe_key})
  get_property(probe_err GLOBAL PROPERTY MORTISE_CLANG_PROBE_ERR_${probe_key})
  if("${probe_rc}" STREQUAL "")
    set(probe_dir ${CMAKE_BINARY_DIR}/sanitizer-probes/${probe_key})
    file(MAKE_DIRECTORY ${probe_dir})
    if(A_SANITIZE MATCHES fuzzer)
      file(WRITE ${probe_dir}/probe.c
        "#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
    else()
      file(WRITE ${probe_dir}/probe.c "int main(void) { return 0; }\n")
    endif()
    execute_process(COMMAND ${MORTISE_CLANG} ${A_SANITIZE} ${probe_dir}/probe.c -o ${probe_dir}/probe
      RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_VARIABLE probe_err)
    set_property(GLOBAL PROPERTY MORTISE_CLANG_PROBE_${probe_key} "${probe_rc}")
    set_property(GLOBAL PROPERTY MORTISE_CLANG_PROBE_ERR_${probe_key} "${probe_err}")
  endif()
  if(NOT probe_rc EQUAL 0)
    string(REPLACE "\n" " " probe_err "${probe_err}")
    set(${name}_PROBLEM "clang cannot build with ${A_SANITIZE} (install libclang-rt-14-dev): ${probe_err}" PARENT_SCOPE)
    return()
  endif()
  set(objects "")
  if(A_COMPOSITION)
    mortise_sanitized_object(${A_COMPOSITION})
    set(objects ${${A_COMPOSITION}_SAN_OBJECT})
  endif()
  mortise_clang_flags(flags INCLUDES ${A_INCLUDES})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(OUTPUT ${out}
    COMMAND ${MORTISE_CLANG} ${flags} ${A_SANITIZE} ${A_FLAGS} ${A_SOURCES} ${objects} ${A_LIBS} -o ${out}
    DEPENDS ${A_SOURCES} ${objects} ${MORTISE_ALL_HEADERS} ${flags_headers} ${MORTISE_SANITIZE_DIR}/ops.h
            ${MORTISE_SANITIZE_DIR}/san_alloc.h
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "clang ${A_SANITIZE}: ${name}"
    COMMAND_EXPAND_LISTS VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
  if(A_COMPOSITION)
    add_dependencies(${name} san_object_${A_COMPOSITION})
  endif()
  set(${name}_PATH ${out} PARENT_SCOPE)
endfunction()

# mortise_clang_flags(VAR [INCLUDES <dirs searched first>]): clang's compile
# flags for allocator code, the same for every program and object here; sets
# VAR_headers to the headers of those directories (the command's
# dependencies).
function(mortise_clang_flags var)
  cmake_parse_arguments(A "" "" "INCLUDES" ${ARGN})
  set(werror "")
  if(MORTISE_WERROR)
    set(werror -Werror)
  endif()
  # the allocator flags, less the ones for another compiler (the rest, e.g.
  # -mcx16 on x86-64, are generator expressions the command evaluates)
  set(alloc_flags ${MORTISE_ALLOCATOR_FLAGS})
  list(FILTER alloc_flags EXCLUDE REGEX "C_COMPILER_ID")
  set(includes "")
  set(include_headers "")
  foreach(dir ${A_INCLUDES})
    list(APPEND includes -I${dir})
    file(GLOB_RECURSE dir_headers ${dir}/*.h)
    list(APPEND include_headers ${dir_headers})
  endforeach()
  set(${var} -std=c11 -D_GNU_SOURCE -Wall -Wextra ${werror} ${includes} -I${MORTISE_INCLUDE_DIR} -O1 -g
      -fno-omit-frame-pointer -pthread ${alloc_flags} PARENT_SCOPE)
  set(${var}_headers ${include_headers} PARENT_SCOPE)
endfunction()

# mortise_sanitized_object(NAME): the composition NAME (NAME_SAN_SOURCE of
# mortise_sanitized_compositions, under the san_ prefix) compiled once, for
# the ASan + UBSan stress program and the fuzzer both: ASan and UBSan with
# the checks of both programs, plus the fuzzer's coverage hooks
# (fuzzer-no-link), which the stress program, linked without libFuzzer,
# leaves to the sanitizer runtime's empty defaults. Built by the target
# san_object_NAME (made once, whichever suite asks first); sets
# NAME_SAN_OBJECT in the caller.
function(mortise_sanitized_object name)
  set(obj ${CMAKE_BINARY_DIR}/sanitized-objects/${name}.o)
  get_property(made GLOBAL PROPERTY MORTISE_SAN_OBJECT_${name})
  if(NOT made)
    set_property(GLOBAL PROPERTY MORTISE_SAN_OBJECT_${name} TRUE)
    file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/sanitized-objects)
    mortise_clang_flags(flags INCLUDES ${MORTISE_SANITIZE_PREFIXED})
    add_custom_command(OUTPUT ${obj}
      COMMAND ${MORTISE_CLANG} ${flags} -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all
              -c ${${name}_SAN_SOURCE} -o ${obj}
      DEPENDS ${${name}_SAN_SOURCE} ${MORTISE_ALL_HEADERS} ${flags_headers}
      WORKING_DIRECTORY ${MORTISE_SANITIZE_DIR}
      COMMENT "clang ASan+UBSan+coverage: ${name}.o"
      COMMAND_EXPAND_LISTS VERBATIM)
    add_custom_target(san_object_${name} DEPENDS ${obj})
  endif()
  set(${name}_SAN_OBJECT ${obj} PARENT_SCOPE)
endfunction()

# mortise_clang_test(TEST <ctest name> EXE <mortise_clang_executable name>
#                    LABEL <label> ENV <VAR=value...> ARGS <arguments...>
#                    [EMPTY_DIR <dir>])
# Registers the test, failing on any sanitizer report in its output too; if
# the executable could not be built here, a test that fails saying why.
# EMPTY_DIR: a directory emptied before every run (the fuzzer's work corpus,
# so a run replays what it is given and no more than it found last time).
set(MORTISE_SANITIZER_REPORTS
  "ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer|ERROR: LeakSanitizer|CHECK FAILED")
function(mortise_clang_test)
  cmake_parse_arguments(A "" "TEST;EXE;LABEL;EMPTY_DIR" "ENV;ARGS" ${ARGN})
  if(${A_EXE}_PATH)
    set(launcher "")
    if(A_EMPTY_DIR)
      set(launcher sh -c "rm -rf \"$0\" && mkdir -p \"$0\" && exec \"$@\"" ${A_EMPTY_DIR})
    endif()
    add_test(NAME ${A_TEST} COMMAND ${launcher} ${${A_EXE}_PATH} ${A_ARGS})
    set_tests_properties(${A_TEST} PROPERTIES TIMEOUT 600 LABELS ${A_LABEL}
      FAIL_REGULAR_EXPRESSION "${MORTISE_SANITIZER_REPORTS}" ENVIRONMENT "${A_ENV}")
  else()
    add_test(NAME ${A_TEST} COMMAND ${CMAKE_COMMAND} -E echo "FAIL: ${${A_EXE}_PROBLEM}")
    set_tests_properties(${A_TEST} PROPERTIES LABELS ${A_LABEL} FAIL_REGULAR_EXPRESSION "FAIL:")
  endif()
endfunction()

# mortise_sanitized_compositions(NAMES_VAR): the compositions the sanitizer
# and fuzz suites build, each under the san_ prefix: `mixed` (san_alloc.c,
# written for these suites) and every instance whose composition file is in
# instances/, but the pass-through ones (MORTISE_CONFORMANCE_SKIP). For each NAME it sets, in the
# caller, NAME_SAN_SOURCE (the composition file, compiled unchanged with
# MORTISE_SANITIZE_PREFIXED first on the include path) and NAME_SAN_SHORT
# (true for a VARIANT instance: a layer or policy already proven elsewhere,
# which gets the shortened runs — docs/testing.md).
set(MORTISE_SANITIZE_PREFIXED ${MORTISE_SANITIZE_DIR}/prefixed)
function(mortise_sanitized_compositions names_var)
  get_property(instances GLOBAL PROPERTY MORTISE_INSTANCES)
  get_property(skip GLOBAL PROPERTY MORTISE_CONFORMANCE_SKIP)
  get_property(variants GLOBAL PROPERTY MORTISE_VARIANTS)
  set(names mixed)
  set(mixed_SAN_SOURCE ${MORTISE_SANITIZE_DIR}/san_alloc.c PARENT_SCOPE)
  set(mixed_SAN_SHORT FALSE PARENT_SCOPE)
  if(skip)
    list(REMOVE_ITEM instances ${skip})
  endif()
  foreach(name ${instances})
    get_target_property(dir mortise-${name} SOURCE_DIR)
    if(dir STREQUAL "${CMAKE_SOURCE_DIR}/instances") # not one composed for a test or a benchmark
      get_target_property(source mortise-${name} MORTISE_SOURCE)
      list(APPEND names ${name})
      set(${name}_SAN_SOURCE ${source} PARENT_SCOPE)
    endif()
    if(name IN_LIST variants)
      set(${name}_SAN_SHORT TRUE PARENT_SCOPE)
    else()
      set(${name}_SAN_SHORT FALSE PARENT_SCOPE)
    endif()
  endforeach()
  set(${names_var} ${names} PARENT_SCOPE)
endfunction()
