# mortise_add_instance(NAME SOURCE)
# Builds one ready allocator from its composition file into
#   build/lib/libmortise-NAME.so  (LD_PRELOAD or link)
#   build/lib/libmortise-NAME.a   (static link)
# and records NAME in the global property MORTISE_INSTANCES, which the
# conformance suite iterates over.
set(MORTISE_INCLUDE_DIR ${CMAKE_SOURCE_DIR}/include)

# Flags every allocator translation unit needs: the compiler must not turn
# malloc+memset into calloc (or similar) inside the allocator itself, and TLS
# must use the initial-exec model even in the shared library.
set(MORTISE_ALLOCATOR_FLAGS
  -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc -fno-builtin-free
  -ftls-model=initial-exec -fvisibility=hidden)

function(mortise_add_instance NAME SOURCE)
  add_library(mortise-${NAME} SHARED ${SOURCE})
  add_library(mortise-${NAME}-static STATIC ${SOURCE})
  foreach(t mortise-${NAME} mortise-${NAME}-static)
    target_include_directories(${t} PUBLIC ${MORTISE_INCLUDE_DIR})
    target_compile_options(${t} PRIVATE ${MORTISE_ALLOCATOR_FLAGS})
    target_link_libraries(${t} PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
    set_target_properties(${t} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endforeach()
  set_target_properties(mortise-${NAME}-static PROPERTIES OUTPUT_NAME mortise-${NAME})
  set_property(GLOBAL APPEND PROPERTY MORTISE_INSTANCES ${NAME})
endfunction()
