# SPDX-License-Identifier: MIT
# Progress on a terminal (issue 17 item 7): runs `gcev CMD...` through pty_run with its
# stdin fed from TRACE with a pause, stderr on a pseudo-terminal (TTY=1) or a file (TTY=0).
#  TTY=1: stderr holds only progress lines "\rgcev CMD: ... events/s", at most one per
#         100 ms of the run, and ends erased ("\r<spaces>\r"); stdout has none of it.
#  TTY=0: stderr stays empty.
# In: PTY_RUN, GCEV, CMD (|-separated arguments after gcev), TRACE, WORK, TTY.
cmake_minimum_required(VERSION 3.20)
string(REPLACE "|" ";" args "${CMD}")
list(GET args 0 name)
file(SIZE "${TRACE}" size)
math(EXPR pause_at "${size} / 3")
set(flags)
if(NOT TTY)
  set(flags --no-pty)
endif()
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${PTY_RUN}" ${flags} "${TRACE}" ${pause_at} 400 "${WORK}/out" "${WORK}/err" --
                        "${GCEV}" ${args} -
                RESULT_VARIABLE rc OUTPUT_VARIABLE run ERROR_VARIABLE run_err)
if(NOT rc EQUAL 0 OR NOT run MATCHES "exit=0 elapsed_ms=([0-9]+)")
  message(FATAL_ERROR "pty_run failed (${rc}): ${run}${run_err}")
endif()
set(elapsed ${CMAKE_MATCH_1})
file(READ "${WORK}/err" err)
file(READ "${WORK}/out" out)
if(out MATCHES "gcev ${name}: ")
  message(FATAL_ERROR "progress reached stdout")
endif()
if(NOT TTY)
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "stderr is not a terminal, yet gcev ${name} wrote to it:\n${err}")
  endif()
  message(STATUS "no progress when stderr is a file (${elapsed} ms)")
  return()
endif()
# pty_run writes CR as <CR> and LF as <LF>
if(NOT err MATCHES "^(<CR>gcev ${name}: [^<>]*[0-9.]+ [kMG]?events/s *)+<CR> +<CR>$")
  message(FATAL_ERROR "stderr on a terminal is not progress lines ending erased:\n${err}")
endif()
string(REGEX MATCHALL "<CR>gcev ${name}: " lines "${err}")
list(LENGTH lines n)
math(EXPR most "${elapsed} / 100 + 1")
if(n GREATER most)
  message(FATAL_ERROR "${n} progress lines in ${elapsed} ms: more than one per 100 ms")
endif()
if(NOT err MATCHES "% of [0-9.]+ [kMG]?B, |B read, ")
  message(STATUS "(no byte count: stream size unknown)")
endif()
message(STATUS "${n} progress lines in ${elapsed} ms, erased at the end")
