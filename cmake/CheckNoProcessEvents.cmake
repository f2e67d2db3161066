# cmake -DROOT=<source tree> -P CheckNoProcessEvents.cmake
#
# Fails, naming file:line, on every call of processEvents in ROOT/{core,plots,collectors,app,bench}/**/*.{h,cpp}
# (DESIGN.md "Engine and caching": no processEvents() loops; background work goes through the job runner, and
# waiting for it never spins the event loop). tests/ may pump the event loop while they wait; nothing else may.
# A mention in a comment ("// no processEvents here") is not a call and is not reported.

cmake_minimum_required(VERSION 3.25)

if(NOT ROOT)
  message(FATAL_ERROR "CheckNoProcessEvents.cmake: pass -DROOT=<source tree>")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

set(_found "")
set(_count 0)
foreach(_dir core plots collectors app bench)
  file(GLOB_RECURSE _files LIST_DIRECTORIES false "${ROOT}/${_dir}/*.h" "${ROOT}/${_dir}/*.cpp")
  list(SORT _files)
  foreach(_file IN LISTS _files)
    file(READ "${_file}" _text)
    if(NOT _text MATCHES "processEvents")
      continue()
    endif()
    string(REPLACE ";" "<SEMI>" _text "${_text}")
    string(REPLACE "[" "<LB>" _text "${_text}")
    string(REPLACE "]" "<RB>" _text "${_text}")
    string(REPLACE "\\" "<BS>" _text "${_text}")
    string(REPLACE "\n" ";" _lines "${_text}")
    set(_n 0)
    foreach(_line IN LISTS _lines)
      math(EXPR _n "${_n} + 1")
      # The code before a // comment.
      string(REGEX REPLACE "//.*$" "" _code "${_line}")
      if(_code MATCHES "processEvents[ \t]*\\(")
        file(RELATIVE_PATH _rel "${ROOT}" "${_file}")
        string(APPEND _found "${_rel}:${_n}: processEvents outside tests/ (use the job runner; never spin the event loop)\n")
        math(EXPR _count "${_count} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

if(_count GREATER 0)
  message("${_found}${_count} processEvents call(s) outside tests/")
  message(FATAL_ERROR "processEvents check failed")
endif()
message(STATUS "no processEvents outside tests/")
