# SPDX-License-Identifier: MIT
# One CMake object library per source folder (a layer). Its PRIVATE include
# directories are its own folder plus the folders named in USES, so an include of
# a layer it may not use does not compile: that is how the layer rule of
# doc/ARCHITECTURE.md is enforced. Every layer sees the public headers.
#
#   gcev_layer(<name> [PUBLIC_API_ONLY | PUBLIC_API] SOURCES <files...> [USES <folders under src/...>])
#
# PUBLIC_API_ONLY: the layer sees only include/gcev (heap, allocs); the architecture
# check then also refuses any call of a symbol libgcev does not export.
# PUBLIC_API: the layer may call exported functions of any layer besides its
# USES layers (session: base, and the trace readers through the public API; stats and report: base).
#
# The objects of every layer go into libgcev (src/CMakeLists.txt).
function(gcev_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 L "PUBLIC_API_ONLY;PUBLIC_API" "" "SOURCES;USES")
  set(target gcev_${name})
  add_library(${target} OBJECT ${L_SOURCES})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  set(dirs "${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(u IN LISTS L_USES)
    list(APPEND dirs "${GCEV_SOURCE_ROOT}/src/${u}")
  endforeach()
  target_include_directories(${target}
    PUBLIC "${GCEV_SOURCE_ROOT}/include" "${GCEV_GEN_DIR}/include"
    PRIVATE ${dirs})
  target_compile_definitions(${target} PRIVATE GCEV_BUILDING)
  add_dependencies(${target} gcev_generated)
  gcev_warnings(${target})
  set_property(GLOBAL APPEND PROPERTY GCEV_LAYER_TARGETS ${target})
  # the layer test (tests/arch) reads each layer's folder and allowed folders
  set(allowed)
  foreach(u IN LISTS L_USES)
    string(APPEND allowed " ${GCEV_SOURCE_ROOT}/src/${u}")
  endforeach()
  if(L_PUBLIC_API_ONLY)
    set(pub 1)
  elseif(L_PUBLIC_API)
    set(pub 2)
  else()
    set(pub 0)
  endif()
  set_property(GLOBAL APPEND_STRING PROPERTY GCEV_LAYER_PLAN
    "layer ${name} ${CMAKE_CURRENT_SOURCE_DIR} ${pub}${allowed}\nobj ${name} $<JOIN:$<TARGET_OBJECTS:${target}>,\nobj ${name} >\n")
endfunction()
