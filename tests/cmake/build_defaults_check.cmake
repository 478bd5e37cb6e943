# SPDX-License-Identifier: MIT
# What the README's commands give a new user (issue 17 item 2):
#  MODE=build_type  configuring with no CMAKE_BUILD_TYPE gives an optimised Release build;
#  MODE=readme      every `cmake --build` in README.md runs a bounded number of jobs (-jN).
# In: SOURCE_DIR, WORK (build_type), C_COMPILER.
cmake_minimum_required(VERSION 3.20)
if(MODE STREQUAL "build_type")
  file(REMOVE_RECURSE "${WORK}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK}" -DCMAKE_C_COMPILER=${C_COMPILER}
                          -DGCEV_BUILD_TESTS=OFF -DGCEV_BUILD_BENCH=OFF -DGCEV_BUILD_EXAMPLES=OFF
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configure failed:\n${out}\n${err}")
  endif()
  file(STRINGS "${WORK}/CMakeCache.txt" bt REGEX "^CMAKE_BUILD_TYPE:")
  if(NOT bt MATCHES "=Release$")
    message(FATAL_ERROR "no build type given: got '${bt}', expected Release")
  endif()
  file(REMOVE_RECURSE "${WORK}")
elseif(MODE STREQUAL "readme")
  file(STRINGS "${SOURCE_DIR}/README.md" lines REGEX "cmake --build")
  set(n 0)
  foreach(l IN LISTS lines)
    string(REGEX MATCHALL "cmake --build [^&|;`]*" builds "${l}")
    foreach(b IN LISTS builds)
      math(EXPR n "${n} + 1")
      if(NOT b MATCHES " -j ?[1-9][0-9]*( |$)" AND NOT b MATCHES "--target")
        message(FATAL_ERROR "README.md: '${b}' has no bounded -jN")
      endif()
    endforeach()
  endforeach()
  if(n EQUAL 0)
    message(FATAL_ERROR "README.md has no cmake --build command")
  endif()
  message(STATUS "${n} cmake --build commands, each with a bounded -jN (or one target)")
else()
  message(FATAL_ERROR "MODE must be build_type or readme")
endif()
