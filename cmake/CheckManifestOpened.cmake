# cmake -DROOT=<source tree> -P CheckManifestOpened.cmake
#
# The run model (core/model/run_manifest.h) is the one place a run's manifest.yaml or a sweep's sweep.yaml is
# opened: fails, naming file:line, on any other file of ROOT/{core,plots,collectors,app,bench} (tests/ aside) with a
# string literal that names either file ("manifest.yaml", "<dir>/sweep.yaml", ...) — the way code opens or probes
# one: a literal without spaces. Help texts that mention the files inside a sentence are not such literals.

cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "CheckManifestOpened.cmake: pass -DROOT=<source tree>")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

set(_count 0)
set(_report "")
set(_files "")
foreach(_dir core plots collectors app bench)
  file(GLOB_RECURSE _found "${ROOT}/${_dir}/*.h" "${ROOT}/${_dir}/*.cpp" "${ROOT}/${_dir}/*.py")
  list(APPEND _files ${_found})
endforeach()
list(LENGTH _files _nfiles)
foreach(_file IN LISTS _files)
  file(RELATIVE_PATH _rel "${ROOT}" "${_file}")
  if(_rel MATCHES "^core/model/run_manifest\\.(h|cpp)$")
    continue()
  endif()
  file(STRINGS "${_file}" _lines)
  set(_n 0)
  foreach(_line IN LISTS _lines)
    math(EXPR _n "${_n} + 1")
    if(_line MATCHES "\"[^\" ]*(manifest|sweep)\\.yaml\"")
      string(APPEND _report "${_rel}:${_n}: names ${CMAKE_MATCH_1}.yaml: open it through core/model/run_manifest.h\n")
      math(EXPR _count "${_count} + 1")
    endif()
  endforeach()
endforeach()
if(_count GREATER 0)
  message("${_report}")
  message(FATAL_ERROR "${_count} place(s) outside core/model open a run manifest or sweep file")
endif()
message(STATUS "run model: ${_nfiles} files: manifest.yaml and sweep.yaml are opened only in core/model")
