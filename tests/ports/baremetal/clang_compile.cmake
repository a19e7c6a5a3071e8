# cmake -DCLANG=clang -DFLAGS="a;b" -DSOURCES="x.c;y.c" -DOUT=dir -P clang_compile.cmake
# Compiles every firmware source with clang for a bare-metal target (compile
# only: clang brings no linker setup for these boards), with the project's
# -Wall -Wextra -Werror: the freestanding code is clean under both compilers.
cmake_minimum_required(VERSION 3.16)
execute_process(COMMAND ${CLANG} -print-resource-dir OUTPUT_VARIABLE resource OUTPUT_STRIP_TRAILING_WHITESPACE)
file(MAKE_DIRECTORY ${OUT})
foreach(source ${SOURCES})
  get_filename_component(stem ${source} NAME_WE)
  execute_process(COMMAND ${CLANG} ${FLAGS} -std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -nostdinc
                          -isystem ${resource}/include -c ${source} -o ${OUT}/${stem}.o
                  RESULT_VARIABLE rc ERROR_VARIABLE errors)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${source}:\n${errors}")
  endif()
endforeach()
message(STATUS "clang ${FLAGS}: compiled ${SOURCES}")
