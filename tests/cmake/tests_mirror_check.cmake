# SPDX-License-Identifier: MIT
# Keeps tests/ a mirror of src/ (tests/README.md):
#   cmake -DSOURCE_DIR=<repo> "-DCROSS=cli;gen;..." -P tests_mirror_check.cmake
# - no test_*.c left at the top of tests/;
# - every tests/<dir>/test_*.c sits in a folder that src/ has (tests/trace/etl for src/trace/etl)
#   or in one of the CROSS folders (tests of tools/ and of the whole package, which src/ lacks);
# - every CMake script of tests/ is in tests/cmake.
cmake_minimum_required(VERSION 3.20) # IN_LIST
set(_tests "${SOURCE_DIR}/tests")
set(_bad "")
file(GLOB _top RELATIVE "${_tests}" "${_tests}/test_*.c" "${_tests}/test_*.cpp")
foreach(f IN LISTS _top)
  string(APPEND _bad "  tests/${f}: a test at the top of tests/ (move it to the folder of the src/ layer it tests)\n")
endforeach()
file(GLOB_RECURSE _all RELATIVE "${_tests}" "${_tests}/*/test_*.c")
foreach(f IN LISTS _all)
  get_filename_component(_dir "${f}" DIRECTORY)
  string(REGEX REPLACE "/.*" "" _first "${_dir}")
  if(NOT IS_DIRECTORY "${SOURCE_DIR}/src/${_dir}" AND NOT _first IN_LIST CROSS)
    string(APPEND _bad "  tests/${f}: src/${_dir} does not exist and ${_first} is not a cross-cutting folder\n")
  endif()
endforeach()
file(GLOB_RECURSE _scripts RELATIVE "${_tests}" "${_tests}/*.cmake")
foreach(f IN LISTS _scripts)
  if(NOT f MATCHES "^cmake/[^/]+\\.cmake$")
    string(APPEND _bad "  tests/${f}: CMake scripts of the tests go in tests/cmake\n")
  endif()
endforeach()
if(NOT _bad STREQUAL "")
  message(FATAL_ERROR "tests/ does not mirror src/ (tests/README.md):\n${_bad}")
endif()
list(LENGTH _all _n)
message(STATUS "OK: ${_n} test files, each in a src/ layer's folder or a cross-cutting one")
