# SPDX-License-Identifier: MIT
# gcev heap --format json --top 10 --paths TRACE against EXPECTED (regenerate: -DUPDATE=1).
execute_process(COMMAND ${GCEV} heap --format json --top 10 --paths ${TRACE} OUTPUT_VARIABLE _out
                RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "gcev heap failed (${_rc}): ${_err}")
endif()
if(UPDATE)
  file(WRITE "${EXPECTED}" "${_out}")
endif()
file(READ "${EXPECTED}" _exp)
if(NOT _out STREQUAL _exp)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/heap_golden.out" "${_out}")
  message(FATAL_ERROR "gcev heap output differs from ${EXPECTED} (got: ${CMAKE_CURRENT_BINARY_DIR}/heap_golden.out)")
endif()
