# SPDX-License-Identifier: MIT
# The documentation says what the code does: FILE matches every REGEX (|-separated).
cmake_minimum_required(VERSION 3.20)
file(READ "${FILE}" text)
string(REPLACE "|" ";" regexes "${REGEX}")
foreach(r IN LISTS regexes)
  if(NOT text MATCHES "${r}")
    message(FATAL_ERROR "${FILE} does not say '${r}'")
  endif()
endforeach()
