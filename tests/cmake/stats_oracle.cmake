# SPDX-License-Identifier: MIT
# Fixture of the stats_traceevent_corpus_* tests: builds tests/runtime/oracle (into its own
# artifacts folder, so that it never races the other fixtures' builds) and runs it (TraceEvent
# 4.0.0) on the corpus's EventPipe traces, writing OUT/<name>.oracle.jsonl:
#   cmake -DDOTNET=... -DROOT=<source> -DART=<build>/csharp -DCORPUS=<shared>/corpus -DOUT=<dir>
#         "-DNAMES=a.nettrace;b.netperf" -P stats_oracle.cmake
set(art "${ART}-stats")
execute_process(COMMAND ${DOTNET} build ${ROOT}/tests/runtime/oracle -c Release -nologo -v:q -p:GcevArtifacts=${art}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dotnet build of tests/runtime/oracle failed (${rc})")
endif()
file(MAKE_DIRECTORY "${OUT}")
foreach(n IN LISTS NAMES)
  execute_process(COMMAND ${art}/bin/Oracle/release/gcev-oracle --manifest ${ROOT}/manifest/gc.man
                          -o ${OUT}/${n}.oracle.jsonl ${CORPUS}/${n} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gcev-oracle failed on ${n} (${rc})")
  endif()
endforeach()
