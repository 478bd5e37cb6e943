# SPDX-License-Identifier: MIT
# The README's main job (command 1 ends with "./build/tools/gcev/gcev <args>"): runs those
# args with this build's gcev from the source root, so the README cannot name a trace or an
# option that does not work. Passes when gcev exits 0 and prints EXPECT.
file(READ "${SOURCE_DIR}/README.md" readme)
if(NOT readme MATCHES "&& \\./build/tools/gcev/gcev ([^\n`]+)\n")
  message(FATAL_ERROR "README.md: command 1 does not end with ./build/tools/gcev/gcev ...")
endif()
separate_arguments(args UNIX_COMMAND "${CMAKE_MATCH_1}")
execute_process(COMMAND ${GCEV} ${args} WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gcev ${args}: exit ${rc}\n${err}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "gcev ${args}: output lacks '${EXPECT}':\n${out}")
endif()
message(STATUS "README main job: gcev ${args} works")
