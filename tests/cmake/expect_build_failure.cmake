# SPDX-License-Identifier: MIT
# Builds TARGET in BUILD_DIR; passes only when the build fails and its output names EXPECT
# (so a build broken for another reason does not count as the rule working).
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled: the layer's include path lets it include ${EXPECT}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "${TARGET} failed, but not on ${EXPECT}:\n${out}")
endif()
message(STATUS "${TARGET} does not compile (${EXPECT} is not on its include path), as the layer rule says")
