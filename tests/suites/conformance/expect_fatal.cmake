# expect_fatal.cmake — a run that must end the process with a Mortise report:
# passes if COMMAND is killed by a signal (abort) or exits non-zero and its
# output matches EXPECT. For instances whose safety layer ends the process at
# the first bug (err_handle=fatal), where the plain case would go on.
# cmake -DEXPECT=regex [-DPRELOAD=lib.so] -P expect_fatal.cmake -- COMMAND ARGS...
# PRELOAD is set for COMMAND only: the script itself does not run on the allocator.
set(command)
set(seen_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(seen_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(seen_separator TRUE)
  endif()
endforeach()
if(NOT command OR NOT DEFINED EXPECT)
  message(FATAL_ERROR "usage: cmake -DEXPECT=regex [-DPRELOAD=lib.so] -P expect_fatal.cmake -- COMMAND ARGS...")
endif()
if(DEFINED PRELOAD)
  set(ENV{LD_PRELOAD} "${PRELOAD}")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out
                TIMEOUT 120)
unset(ENV{LD_PRELOAD})
message("${out}")
if(result STREQUAL "0")
  message(FATAL_ERROR "expect_fatal: the run went on to the end; it must stop at the first bad pointer")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "expect_fatal: the run ended (${result}) without the report /${EXPECT}/")
endif()
message("expect_fatal: ended (${result}) with the expected report")
