# SPDX-License-Identifier: MIT
# Installs gcev into a temporary prefix and uses it as a new user would (issue 17 item 1):
#   LAYOUT=default    `cmake --install BUILD_DIR --prefix WORK/prefix` of the tree under test
#   LAYOUT=multiarch  a fresh library+CLI tree configured with -DCMAKE_INSTALL_PREFIX=/usr
#                     (GNUInstallDirs: lib/<multiarch>), installed with DESTDIR=WORK/root
# then checks the installed files, `gcev --version` and the man page against VERSION, the
# .pc file's paths, and builds and runs tests/install/consumer.c with find_package
# (gcev::gcev and gcev::gcev_static) and with pkg-config (shared, and --static with the
# static libgcev; libzip stays shared: Debian ships no libzip.a).
# In: SOURCE_DIR BUILD_DIR WORK LAYOUT VERSION C_COMPILER PKG_CONFIG OBJDUMP [LIBRARY_ARCHITECTURE]
cmake_minimum_required(VERSION 3.20)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

function(expect_equal what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: got '${got}', expected '${want}'")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(jobs -j2)

if(LAYOUT STREQUAL "default")
  run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK}/prefix")
  set(root "")
  set(prefix "${WORK}/prefix")
  file(STRINGS "${BUILD_DIR}/CMakeCache.txt" _l REGEX "^CMAKE_INSTALL_LIBDIR:")
  string(REGEX REPLACE "^[^=]*=" "" libdir "${_l}")
elseif(LAYOUT STREQUAL "multiarch")
  set(cfg -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${C_COMPILER}
          -DGCEV_BUILD_TESTS=OFF -DGCEV_BUILD_EXAMPLES=OFF -DGCEV_BUILD_BENCH=OFF)
  if(NOT LIBRARY_ARCHITECTURE)
    # a host where GNUInstallDirs knows no multiarch name: ask for the same shape
    list(APPEND cfg -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu)
  endif()
  run("configure" ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK}/build" ${cfg})
  file(STRINGS "${WORK}/build/CMakeCache.txt" _l REGEX "^CMAKE_INSTALL_LIBDIR:")
  string(REGEX REPLACE "^[^=]*=" "" libdir "${_l}")
  if(NOT libdir MATCHES "^lib/.+")
    message(FATAL_ERROR "prefix /usr gave libdir '${libdir}', not a multiarch lib/<triplet>")
  endif()
  run("build" ${CMAKE_COMMAND} --build "${WORK}/build" ${jobs})
  set(ENV{DESTDIR} "${WORK}/root")
  run("install" ${CMAKE_COMMAND} --install "${WORK}/build")
  unset(ENV{DESTDIR})
  set(root "${WORK}/root")
  set(prefix "/usr")
else()
  message(FATAL_ERROR "LAYOUT must be default or multiarch")
endif()
set(top "${root}${prefix}")
set(lib "${top}/${libdir}")

# ---- the files a user expects --------------------------------------------------
foreach(f include/gcev/gcev.h include/gcev/gcev_trace.h include/gcev/gcev_stats.h include/gcev/gcev_report.h
          include/gcev/gcev_events.h
          ${libdir}/libgcev.a ${libdir}/libgcev.so ${libdir}/cmake/gcev/gcevConfig.cmake
          ${libdir}/cmake/gcev/gcevConfigVersion.cmake ${libdir}/pkgconfig/gcev.pc ${libdir}/pkgconfig/gcev-static.pc bin/gcev
          share/man/man1/gcev.1)
  if(NOT EXISTS "${top}/${f}")
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()

# ---- one version everywhere: project(VERSION) ----------------------------------
run("gcev --version" "${top}/bin/gcev" --version)
expect_equal("gcev --version" "${run_out}" "gcev ${VERSION}\n")
file(STRINGS "${top}/share/man/man1/gcev.1" th REGEX "^\\.TH ")
if(NOT th MATCHES "\"gcev ${VERSION}\"")
  message(FATAL_ERROR "installed man page title '${th}' does not say gcev ${VERSION}")
endif()

# ---- pkg-config: the paths are where the files are ------------------------------
set(ENV{PKG_CONFIG_LIBDIR} "${lib}/pkgconfig")
unset(ENV{PKG_CONFIG_PATH})
foreach(v prefix libdir includedir)
  run("pkg-config --variable=${v}" ${PKG_CONFIG} --variable=${v} gcev)
  string(STRIP "${run_out}" pc_${v})
endforeach()
expect_equal("gcev.pc prefix" "${pc_prefix}" "${prefix}")
expect_equal("gcev.pc libdir" "${pc_libdir}" "${prefix}/${libdir}")
expect_equal("gcev.pc includedir" "${pc_includedir}" "${prefix}/include")
run("pkg-config --modversion" ${PKG_CONFIG} --modversion gcev)
expect_equal("pkg-config --modversion" "${run_out}" "${VERSION}\n")
if(root)
  # the flags of a DESTDIR staging tree: pkg-config prepends the sysroot to -I and -L
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${root}")
endif()

set(want "GC 12 gen 1 AllocLarge; open: unsupported trace format or version\n")
function(check_consumer exe linkage)
  set(ENV{LD_LIBRARY_PATH} "${lib}")
  run("${exe}" "${exe}")
  unset(ENV{LD_LIBRARY_PATH})
  expect_equal("${exe} output" "${run_out}" "${want}")
  if(OBJDUMP)
    run("objdump" ${OBJDUMP} -p "${exe}")
    string(FIND "${run_out}" "libgcev.so" needs)
    if(linkage STREQUAL "shared" AND needs EQUAL -1)
      message(FATAL_ERROR "${exe} does not load libgcev.so")
    elseif(linkage STREQUAL "static" AND NOT needs EQUAL -1)
      message(FATAL_ERROR "${exe} loads libgcev.so although it was linked statically")
    endif()
  endif()
endfunction()

set(src "${SOURCE_DIR}/tests/install/consumer.c")
foreach(mode shared static)
  if(mode STREQUAL "shared")
    run("pkg-config" ${PKG_CONFIG} --cflags --libs gcev)
    set(extra "")
  else()
    # gcev-static.pc names the archive itself: no linker flag of the user's own needed
    run("pkg-config gcev-static" ${PKG_CONFIG} --cflags --libs gcev-static)
    set(extra "")
  endif()
  string(STRIP "${run_out}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(exe "${WORK}/pc_consumer_${mode}")
  run("cc (pkg-config ${mode})" ${C_COMPILER} -std=c11 -o "${exe}" "${src}" ${flags} ${extra})
  check_consumer("${exe}" ${mode})
  if(mode STREQUAL "static")
    # and it runs with libgcev.so gone from the prefix
    file(GLOB _sos "${lib}/libgcev.so*")
    foreach(_so IN LISTS _sos)
      file(RENAME "${_so}" "${_so}.away")
    endforeach()
    execute_process(COMMAND "${exe}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    foreach(_so IN LISTS _sos)
      file(RENAME "${_so}.away" "${_so}")
    endforeach()
    if(NOT _rc EQUAL 0 OR NOT _out STREQUAL want)
      message(FATAL_ERROR "the gcev-static.pc program without libgcev.so: exit ${_rc}, '${_out}' ${_err}")
    endif()
  endif()
endforeach()
unset(ENV{PKG_CONFIG_LIBDIR})
unset(ENV{PKG_CONFIG_SYSROOT_DIR})

# ---- find_package(gcev): gcev::gcev (shared) and gcev::gcev_static ----------------
run("consumer configure" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install" -B "${WORK}/consumer"
    -DCMAKE_C_COMPILER=${C_COMPILER} "-DCMAKE_PREFIX_PATH=${top}" -DWANT_VERSION=${VERSION}
    -DCMAKE_BUILD_TYPE=Release)
run("consumer build" ${CMAKE_COMMAND} --build "${WORK}/consumer" ${jobs})
check_consumer("${WORK}/consumer/consumer_shared" shared)
check_consumer("${WORK}/consumer/consumer_static" static)
message(STATUS "install (${LAYOUT}): prefix ${prefix}, libdir ${libdir}: files, version, pkg-config and find_package OK")
