# cmake -DNM=nm -DCC=cc -DOBJECTS="a.o;b.o" -DMEMORY=m.o -DOUT=x.so -P check_undefined.cmake
# Fails unless the freestanding objects need nothing from their environment
# but memcpy and memset, and link with -nostdlib (plus those two) into a
# shared object with no undefined symbol left.
cmake_minimum_required(VERSION 3.16)
set(allowed memcpy memset)
foreach(object ${OBJECTS})
  execute_process(COMMAND ${NM} -u ${object} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} -u ${object} failed")
  endif()
  string(REGEX MATCHALL "U [^\n]+" undefined "${listing}")
  foreach(entry ${undefined})
    string(REGEX REPLACE "^U " "" symbol "${entry}")
    if(NOT symbol IN_LIST allowed)
      message(SEND_ERROR "${object}: needs ${symbol} from its environment")
    endif()
  endforeach()
  message(STATUS "${object}: undefined: ${undefined}")
endforeach()
execute_process(COMMAND ${CC} -nostdlib -shared -Wl,--no-undefined -o ${OUT} ${OBJECTS} ${MEMORY}
                RESULT_VARIABLE rc ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "-nostdlib link failed:\n${errors}")
endif()
