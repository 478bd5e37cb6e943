# SPDX-License-Identifier: MIT
# Big-endian cross build (Debian: gcc-s390x-linux-gnu, qemu-user-static; cmocka from the
# s390x architecture: dpkg --add-architecture s390x, libcmocka-dev:s390x). Tests run under
# qemu. The schema generator runs on the host: pass -DGCEV_GEN_EXECUTABLE=<host gcev-gen>.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# Run with the s390x multiarch libc (libc6:s390x, which cmocka pulls in) and its loader, not
# the cross toolchain's copy: mixing the two loaders and libcs aborts at start.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x-static -L / -E
                                  LD_LIBRARY_PATH=/lib/s390x-linux-gnu:/usr/lib/s390x-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/s390x-linux-gnu/pkgconfig)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++) # the C++ header test (g++-s390x-linux-gnu)
