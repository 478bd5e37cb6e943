# SPDX-License-Identifier: MIT
# The synthetic traces of tests/support/stats_scenarios.c (tests/data/stats), two checks:
#   MODE=reproducible: make_stats_scenarios (GEN) writes into OUT exactly the committed DIR/*.nettrace;
#   MODE=oracle: TraceEvent (tests/runtime/oracle, built with DOTNET from ROOT into ART-stats, as
#     stats_oracle.cmake does) reads each committed trace into exactly the committed
#     DIR/<name>.oracle.jsonl.
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
file(GLOB want "${DIR}/*.nettrace")
if(MODE STREQUAL "reproducible")
  # EMULATOR: how a cross build (s390x under qemu) runs the program; empty natively
  execute_process(COMMAND ${EMULATOR} "${GEN}" "${OUT}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "make_stats_scenarios failed: ${rc}")
  endif()
  file(GLOB got "${OUT}/*.nettrace")
  list(LENGTH want nw)
  list(LENGTH got ng)
  if(NOT nw EQUAL ng)
    message(FATAL_ERROR "make_stats_scenarios writes ${ng} traces, ${DIR} holds ${nw}: regenerate (see the program)")
  endif()
  foreach(t IN LISTS want)
    get_filename_component(n "${t}" NAME)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}/${n}" "${t}" RESULT_VARIABLE diff)
    if(NOT diff EQUAL 0)
      message(FATAL_ERROR "${t} differs from what make_stats_scenarios writes now: regenerate it and its "
                          "oracle reading (see tests/stats/make_stats_scenarios.c)")
    endif()
  endforeach()
elseif(MODE STREQUAL "oracle")
  set(art "${ART}-stats")
  execute_process(COMMAND ${DOTNET} build ${ROOT}/tests/runtime/oracle -c Release -nologo -v:q
                          -p:GcevArtifacts=${art} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dotnet build of tests/runtime/oracle failed (${rc})")
  endif()
  set(ORACLE "${art}/bin/Oracle/release/gcev-oracle")
  foreach(t IN LISTS want)
    get_filename_component(n "${t}" NAME_WE)
    execute_process(COMMAND "${ORACLE}" --manifest "${ROOT}/manifest/gc.man" -o "${OUT}/${n}.oracle.jsonl" "${t}"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "gcev-oracle failed on ${t} (${rc})")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}/${n}.oracle.jsonl" "${DIR}/${n}.oracle.jsonl"
                    RESULT_VARIABLE diff)
    if(NOT diff EQUAL 0)
      message(FATAL_ERROR "TraceEvent reads ${t} as ${OUT}/${n}.oracle.jsonl, not as the committed "
                          "${DIR}/${n}.oracle.jsonl: commit the new reading")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "MODE is reproducible or oracle")
endif()
