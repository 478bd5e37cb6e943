# SPDX-License-Identifier: MIT
# Writes gcev.pc (and gcev-static.pc) at install time (install(CODE) in the top CMakeLists.txt), when the
# prefix is the one the files really go under: CMAKE_INSTALL_PREFIX as
# `cmake --install --prefix` sets it. A relative libdir or includedir (GNUInstallDirs:
# lib, lib/x86_64-linux-gnu, include) is written as ${prefix}/...; an absolute one as is.
# In: GCEV_PC_IN, GCEV_PC_OUT, GCEV_PC_LIBDIR, GCEV_PC_INCLUDEDIR, GCEV_PC_VERSION, GCEV_PC_WITH_LIBZIP,
# GCEV_PC_LIBZIP_SONAME (libzip by dlopen when set), GCEV_PC_DL_LIBS.
set(GCEV_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "(.)/+$" "\\1" GCEV_PC_PREFIX "${GCEV_PC_PREFIX}")
foreach(_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${GCEV_PC_${_d}}")
    set(GCEV_PC_${_d}_FULL "${GCEV_PC_${_d}}")
  else()
    set(GCEV_PC_${_d}_FULL "\${prefix}/${GCEV_PC_${_d}}")
  endif()
endforeach()
if(GCEV_PC_WITH_LIBZIP AND GCEV_PC_LIBZIP_SONAME)
  # libzip loaded by dlopen (src/trace/core/gcev_zip_api.h): no link to it
  set(GCEV_PC_LIBS_PRIVATE "-lm")
  if(GCEV_PC_DL_LIBS)
    set(GCEV_PC_LIBS_PRIVATE "-l${GCEV_PC_DL_LIBS} -lm")
  endif()
elseif(GCEV_PC_WITH_LIBZIP)
  set(GCEV_PC_LIBS_PRIVATE "-lzip -lm")
else()
  set(GCEV_PC_LIBS_PRIVATE "-lm")
endif()
configure_file("${GCEV_PC_IN}" "${GCEV_PC_OUT}" @ONLY)
# gcev-static.pc beside it: the static library by its file name (cmake/gcev-static.pc.in)
string(REGEX REPLACE "gcev\\.pc\\.in$" "gcev-static.pc.in" _static_in "${GCEV_PC_IN}")
string(REGEX REPLACE "gcev\\.pc$" "gcev-static.pc" _static_out "${GCEV_PC_OUT}")
configure_file("${_static_in}" "${_static_out}" @ONLY)
