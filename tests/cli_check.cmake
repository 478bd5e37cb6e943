# SPDX-License-Identifier: MIT
# Runs the gcev CLI (ARGS: |-separated) and checks its exit status (RC), that stdout
# equals the file STDOUT_FILE when given, and that stderr matches STDERR_REGEX when given.
cmake_minimum_required(VERSION 3.20)
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${GCEV}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED STDOUT_FILE)
  file(READ "${STDOUT_FILE}" want)
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "stdout differs\n--- got ---\n${out}--- want ---\n${want}")
  endif()
endif()
if(DEFINED STDERR_REGEX AND NOT err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "stderr does not match '${STDERR_REGEX}':\n${err}")
endif()
