# SPDX-License-Identifier: MIT
# Line and branch coverage of the library (gcc + gcov): configure with -DGCEV_COVERAGE=ON,
# then `cmake --build <dir> --target coverage` runs the test suite from zeroed counters
# and prints, per source file of libgcev, the lines and branches it executed.
# Included twice from the top CMakeLists.txt: before the targets (flags), after them (target).
if(NOT GCEV_COVERAGE)
  return()
endif()
if(NOT DEFINED _gcev_coverage_flags_done)
  set(_gcev_coverage_flags_done ON)
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "GCEV_COVERAGE needs gcc (gcov): CC=gcc cmake -DGCEV_COVERAGE=ON ...")
  endif()
  find_program(GCEV_GCOV gcov REQUIRED)
  # -O0: branches and lines as written, not as the optimizer merged them
  add_compile_options(--coverage -O0)
  add_link_options(--coverage)
  return()
endif()
# The library's objects, one "object" line each (the generated tables are data, not logic).
get_property(_layers GLOBAL PROPERTY GCEV_LAYER_TARGETS)
set(_objs "")
foreach(l IN LISTS _layers)
  string(APPEND _objs "$<JOIN:$<TARGET_OBJECTS:${l}>,\n>\n")
endforeach()
file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/coverage/objects.txt" CONTENT "${_objs}")
add_custom_target(coverage
  COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR} -DSOURCE=${CMAKE_SOURCE_DIR} -DGCOV=${GCEV_GCOV}
          -DCTEST=${CMAKE_CTEST_COMMAND} -P ${CMAKE_SOURCE_DIR}/cmake/coverage_report.cmake
  USES_TERMINAL
  COMMENT "Running the tests with coverage counters and reporting per library file")
