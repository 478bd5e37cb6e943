# SPDX-License-Identifier: MIT
# Runs make_sample_trace (GEN) into OUT and checks the bytes equal the committed WANT,
# so examples/sample.nettrace never drifts from the program that documents it.
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND "${GEN}" "${OUT}" RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_sample_trace failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}" "${WANT}" RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "${WANT} differs from what make_sample_trace writes now: "
                      "regenerate it (and tests/data/cli/stats_sample.*)")
endif()
