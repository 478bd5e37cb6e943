# SPDX-License-Identifier: MIT
# gcev allocs --speedscope on the golden capture, then speedscope_test.mjs opens it in speedscope.
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND ${GCEV} allocs --speedscope ${OUT}/allocs.speedscope.json ${TRACE}
                OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gcev allocs --speedscope: exit ${rc}")
endif()
execute_process(COMMAND ${NODE} ${TEST} --modules ${MODULES} --out ${OUT} ${OUT}/allocs.speedscope.json
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "speedscope_test.mjs: exit ${rc}")
endif()
