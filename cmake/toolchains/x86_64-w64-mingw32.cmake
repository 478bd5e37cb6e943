# SPDX-License-Identifier: MIT
# Windows cross build of the library and the CLI (Debian: gcc-mingw-w64-x86-64). The
# schema generator runs on the host: pass -DGCEV_GEN_EXECUTABLE=<host gcev-gen>.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# only the mingw sysroot's .pc files (there are none for libzip: configure with -DGCEV_WITH_LIBZIP=OFF)
set(ENV{PKG_CONFIG_LIBDIR} /usr/x86_64-w64-mingw32/lib/pkgconfig)
