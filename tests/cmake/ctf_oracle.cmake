# SPDX-License-Identifier: MIT
# Fixture of the runtime_ctf_* tests: builds tests/runtime/oracle and runs it (TraceEvent 4.0.0's
# CtfTraceEventSource) on the corpus's perfcollect traces, each linked into OUT so that its
# oracle JSON can sit beside it as test_runtime_conformance expects:
#   cmake -DDOTNET=... -DROOT=<source> -DART=<build>/csharp -DCORPUS=<shared>/corpus -DOUT=<dir>
#         "-DNAMES=a;b" -P ctf_oracle.cmake
execute_process(COMMAND ${DOTNET} build ${ROOT}/tests/runtime/oracle -c Release -nologo -v:q -p:GcevArtifacts=${ART}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dotnet build of tests/runtime/oracle failed (${rc})")
endif()
file(MAKE_DIRECTORY "${OUT}")
foreach(n IN LISTS NAMES)
  file(REMOVE "${OUT}/${n}.trace.zip" "${OUT}/${n}.trace.zip.oracle.jsonl")
  file(CREATE_LINK "${CORPUS}/${n}.trace.zip" "${OUT}/${n}.trace.zip" SYMBOLIC)
  execute_process(COMMAND ${ART}/bin/Oracle/release/gcev-oracle --manifest ${ROOT}/manifest/gc.man
                          -o ${OUT}/${n}.trace.zip.oracle.jsonl ${OUT}/${n}.trace.zip RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gcev-oracle failed on ${n}.trace.zip (${rc})")
  endif()
endforeach()
