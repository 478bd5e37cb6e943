# SPDX-License-Identifier: MIT
# Extracts the corpus's LTTng .trace.zip files into the build tree (a ctest fixture):
#   cmake -DCORPUS=<shared>/corpus -DOUT=<dir> -P ctf_extract.cmake
# OUT/<zip name without .trace.zip>/ gets the perfcollect tree as it is in the zip.
file(GLOB zips "${CORPUS}/lttng-*.trace.zip")
if(NOT zips)
  message(FATAL_ERROR "no lttng-*.trace.zip in ${CORPUS}")
endif()
foreach(z IN LISTS zips)
  get_filename_component(n "${z}" NAME)
  string(REGEX REPLACE "\\.trace\\.zip$" "" n "${n}")
  file(REMOVE_RECURSE "${OUT}/${n}")
  file(MAKE_DIRECTORY "${OUT}/${n}")
  file(ARCHIVE_EXTRACT INPUT "${z}" DESTINATION "${OUT}/${n}")
endforeach()
