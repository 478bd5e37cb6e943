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
# C99 printf (%zu, %llu) from mingw's own stdio, not msvcrt's. GCC still checks a plain
# format(printf) attribute against msvcrt's dialect there, so format warnings are left
# to the native builds.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1 -Wno-format")
