# `make install` (cmake --install BUILD [--prefix P]): what a project using
# Mortise needs, relocatable (every installed file finds the others relative
# to itself, so --prefix and DESTDIR work after the build):
#   include/mortise/                 the headers
#   lib/libmortise-NAME.so, .a       every instance library that was built
#   bin/mortise                      the command (tools/mortise), its modules
#   share/mortise/mortise_lib/       (and the layers' descriptors.json) in
#                                    share/mortise/, and the instances' composition
#   share/mortise/instances/*.c, *.h files it lists (and users copy), with the
#                                    chains some of them share, and chains/*.inl
#                                    (each one's glue written out)
#   share/mortise/bench_lib/svg.py   the SVG writer `mortise tune` plots with
#   lib/pkgconfig/mortise.pc         pkg-config: cflags a composition needs, libs
#   lib/cmake/Mortise/               find_package(Mortise): Mortise::headers,
#                                    Mortise::NAME / Mortise::NAME-static per
#                                    instance, mortise_add_instance()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mortise
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

get_property(mortise_installed_instances GLOBAL PROPERTY MORTISE_INSTANCES)
foreach(name ${mortise_installed_instances})
  # OPTIONAL: a tree where only some instances were built installs those.
  install(TARGETS mortise-${name} mortise-${name}-static OPTIONAL
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endforeach()

set(mortise_share ${CMAKE_INSTALL_DATADIR}/mortise)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/mortise DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tools/mortise_lib DESTINATION ${mortise_share}
        FILES_MATCHING PATTERN "*.py" PATTERN "descriptors.json" PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/instances/ DESTINATION ${mortise_share}/instances
        FILES_MATCHING PATTERN "*.c" PATTERN "*.h" PATTERN "*.inl")
install(FILES ${PROJECT_SOURCE_DIR}/tools/bench_lib/__init__.py
              ${PROJECT_SOURCE_DIR}/tools/bench_lib/svg.py
        DESTINATION ${mortise_share}/bench_lib)
# Where the installed command finds the rest, relative to its modules
# (tools/mortise_lib/paths.py).
set(mortise_lib_dir ${CMAKE_INSTALL_PREFIX}/${mortise_share}/mortise_lib)
file(RELATIVE_PATH rel_include ${mortise_lib_dir} ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR})
file(RELATIVE_PATH rel_lib ${mortise_lib_dir} ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
file(WRITE ${CMAKE_BINARY_DIR}/install/install_layout.py
"\"\"\"Written by `make install`: the installed tree, relative to this file.\"\"\"
INCLUDE = \"${rel_include}\"
LIB = \"${rel_lib}\"
INSTANCES = \"../instances\"
TOOLS = \"..\"
")
install(FILES ${CMAKE_BINARY_DIR}/install/install_layout.py
        DESTINATION ${mortise_share}/mortise_lib)

# pkg-config: the allocator flags of cmake/Mortise.cmake a composition needs,
# less -fvisibility=hidden (it would hide the symbols of the user's own code)
# and GCC's inliner parameter (GCC only; it affects code size, not behaviour).
set(pc_flags ${MORTISE_ALLOCATOR_FLAGS})
list(FILTER pc_flags EXCLUDE REGEX "visibility|C_COMPILER_ID")
set(pc_dl)
if(CMAKE_DL_LIBS)
  set(pc_dl -l${CMAKE_DL_LIBS})
endif()
file(RELATIVE_PATH pc_to_prefix ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/install/mortise.pc CONTENT
"prefix=\${pcfiledir}/${pc_to_prefix}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}

Name: mortise
Description: Composable memory-allocator framework: header-only layers (compose with MT_COMPOSE) and ready allocators (-lmortise-NAME)
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir} -D_GNU_SOURCE -pthread $<JOIN:${pc_flags}, >
Libs: -L\${libdir} -pthread ${pc_dl}
")
install(FILES ${CMAKE_BINARY_DIR}/install/mortise.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# find_package(Mortise)
set(mortise_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Mortise)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/MortiseConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/MortiseConfig.cmake
  INSTALL_DESTINATION ${mortise_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/MortiseConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/MortiseConfig.cmake
              ${CMAKE_BINARY_DIR}/install/MortiseConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/Mortise.cmake
        DESTINATION ${mortise_cmake_dir})
