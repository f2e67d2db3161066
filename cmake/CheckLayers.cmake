# cmake -DROOT=<source tree> [-DMAX_FUNCTION_LINES=N [-DSKIP_INCLUDES=ON]] -P CheckLayers.cmake
#
# Fails, naming file:line, on any #include "..." that points upward in Strobe's layering (docs: DESIGN.md):
#   app -> plots, collectors -> core;  inside core  io <- model/params <- formats <- merge <- analysis (query) <- sweep <- engine
#   - core includes nothing of plots/, collectors/, app/, bench/ or tests/, and a core layer only its own or lower ones
#     (model and params are one level: they may include each other);
#   - plots include nothing of app/ or collectors/; collectors nothing of plots/ or app/;
#   - nothing in core, plots, collectors, app or bench includes tests/.
# Scanned: ROOT/{core,plots,collectors,app,bench}/**/*.{h,cpp}. Includes are resolved from ROOT ("core/io/error.h")
# or, when that does not name a top-level folder, relative to the including file.
#
# With MAX_FUNCTION_LINES it also fails on any function in ROOT/core that spans more lines than that (from the first
# line of its signature to its closing brace). A function is recognised the way .clang-format lays it out: a
# signature starting in column 0, a body that opens with "{" at the end of a line and closes with "}" alone in
# column 0. Inline member functions (indented) are not seen. LONG_FUNCTION_ALLOW lists "file:name" exceptions.

cmake_minimum_required(VERSION 3.25)

if(NOT ROOT)
  message(FATAL_ERROR "CheckLayers.cmake: pass -DROOT=<source tree>")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

set(_core_rank_io 0)
set(_core_rank_model 1)
set(_core_rank_params 1)
set(_core_rank_formats 2)
set(_core_rank_merge 3)
set(_core_rank_analysis 4)
set(_core_rank_query 4)   # SQL over Dataset columns: model and io only, never engine
set(_core_rank_sweep 5)
set(_core_rank_engine 6)

# Functions that may stay longer than MAX_FUNCTION_LINES ("file:name"): none today; an entry needs a reason.
set(LONG_FUNCTION_ALLOW)

set(_violations "")
set(_count 0)

# _lines(<file> <out>) — the file as a CMake list of lines; ';' '[' ']' are replaced by placeholders so that
# list handling cannot split or join lines.
macro(_read_lines path out)
  file(READ "${path}" _text)
  string(REPLACE ";" "<SEMI>" _text "${_text}")
  string(REPLACE "[" "<LB>" _text "${_text}")
  string(REPLACE "]" "<RB>" _text "${_text}")
  string(REPLACE "\\" "<BS>" _text "${_text}")
  string(REPLACE "\n" ";" ${out} "${_text}")
endmacro()

# Which part of the tree a path relative to ROOT belongs to: "core/<layer>", "plots", ... or "" (outside).
function(_area rel out)
  set(_a "")
  if(rel MATCHES "^core/([^/]+)/")
    set(_a "core/${CMAKE_MATCH_1}")
  elseif(rel MATCHES "^core/")
    set(_a "core/")
  elseif(rel MATCHES "^(plots|collectors|app|bench|tests)/")
    set(_a "${CMAKE_MATCH_1}")
  endif()
  set(${out} "${_a}" PARENT_SCOPE)
endfunction()

# Why including `to` from `from` is wrong, or "" when it is allowed.
function(_why from to out)
  set(_w "")
  if(to STREQUAL "tests")
    set(_w "tests/ is not part of any library or tool")
  elseif(from MATCHES "^core/")
    if(to MATCHES "^(plots|collectors|app|bench)$")
      set(_w "core knows nothing of ${to}/")
    elseif(to MATCHES "^core/")
      string(REGEX REPLACE "^core/" "" _fl "${from}")
      string(REGEX REPLACE "^core/" "" _tl "${to}")
      if(NOT DEFINED _core_rank_${_fl})
        set(_w "core/${_fl}/ is not a known core layer (add it to cmake/CheckLayers.cmake)")
      elseif(NOT DEFINED _core_rank_${_tl})
        set(_w "core/${_tl}/ is not a known core layer (add it to cmake/CheckLayers.cmake)")
      elseif(_core_rank_${_tl} GREATER _core_rank_${_fl})
        set(_w "core/${_fl} is below core/${_tl}")
      endif()
    endif()
  elseif(from STREQUAL "plots")
    if(to MATCHES "^(app|collectors|bench)$")
      set(_w "plots know nothing of ${to}/")
    endif()
  elseif(from STREQUAL "collectors")
    if(to MATCHES "^(app|plots|bench)$")
      set(_w "collectors know nothing of ${to}/")
    endif()
  elseif(from STREQUAL "app")
    if(to STREQUAL "bench")
      set(_w "app knows nothing of bench/")
    endif()
  endif()
  set(${out} "${_w}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE _files RELATIVE "${ROOT}" LIST_DIRECTORIES false
  "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/plots/*.h" "${ROOT}/plots/*.cpp"
  "${ROOT}/collectors/*.h" "${ROOT}/collectors/*.cpp" "${ROOT}/app/*.h" "${ROOT}/app/*.cpp"
  "${ROOT}/bench/*.h" "${ROOT}/bench/*.cpp")
list(SORT _files)
if(NOT _files)
  message(FATAL_ERROR "CheckLayers.cmake: no sources under ${ROOT}")
endif()

foreach(rel IN LISTS _files)
  _area("${rel}" _from)
  get_filename_component(_dir "${rel}" DIRECTORY)
  _read_lines("${ROOT}/${rel}" _lines)
  set(_n 0)
  foreach(line IN LISTS _lines)
    math(EXPR _n "${_n} + 1")
    if(SKIP_INCLUDES OR NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(_inc "${CMAKE_MATCH_1}")
    if(_inc MATCHES "^(core|plots|collectors|app|bench|tests)/")
      set(_target "${_inc}")
    else()
      # Relative to the including file (normalise "..").
      get_filename_component(_abs "${ROOT}/${_dir}/${_inc}" ABSOLUTE)
      file(RELATIVE_PATH _target "${ROOT}" "${_abs}")
    endif()
    _area("${_target}" _to)
    if(_to STREQUAL "")
      continue()
    endif()
    _why("${_from}" "${_to}" _reason)
    if(_reason)
      string(APPEND _violations "${rel}:${_n}: includes \"${_inc}\": ${_reason}\n")
      math(EXPR _count "${_count} + 1")
    endif()
  endforeach()

  if(MAX_FUNCTION_LINES AND rel MATCHES "^core/")
    set(_n 0)
    set(_start 0)       # line of the current function's signature, 0 outside one
    set(_sig "")
    set(_in_body OFF)
    foreach(line IN LISTS _lines)
      math(EXPR _n "${_n} + 1")
      if(_in_body)
        if(line MATCHES "^}")
          if(line MATCHES "^}[ \t]*(//.*)?$")
            math(EXPR _len "${_n} - ${_start} + 1")
            if(_len GREATER MAX_FUNCTION_LINES)
              # The function's name: the last identifier (with its scope) before the first '('.
              string(REGEX MATCH "([A-Za-z_~][A-Za-z0-9_:~]*)[ \t]*\\(" _m "${_sig}")
              set(_name "${CMAKE_MATCH_1}")
              if(NOT "${rel}:${_name}" IN_LIST LONG_FUNCTION_ALLOW)
                string(APPEND _violations
                  "${rel}:${_start}: function ${_name} is ${_len} lines long (at most ${MAX_FUNCTION_LINES})\n")
                math(EXPR _count "${_count} + 1")
              endif()
            endif()
          endif()
          set(_in_body OFF)
          set(_start 0)
        endif()
        continue()
      endif()
      if(_start EQUAL 0)
        if(line MATCHES "^[A-Za-z_~]" AND NOT line MATCHES
            "^(namespace|struct|class|enum|union|extern|template|using|typedef|static_assert|public|private|protected)([^A-Za-z0-9_]|$)")
          set(_start ${_n})
          set(_sig "${line}")
        else()
          continue()
        endif()
      else()
        string(APPEND _sig " ${line}")
      endif()
      if(line MATCHES "{[ \t]*$")
        set(_in_body ON)
      elseif(line MATCHES "(<SEMI>|})[ \t]*$" OR line STREQUAL "")
        set(_start 0)
      endif()
    endforeach()
  endif()
endforeach()

list(LENGTH _files _nfiles)
if(_count GREATER 0)
  string(REPLACE "<SEMI>" ";" _violations "${_violations}")
  string(REPLACE "<LB>" "[" _violations "${_violations}")
  string(REPLACE "<RB>" "]" _violations "${_violations}")
  string(REPLACE "<BS>" "\\" _violations "${_violations}")
  message("${_violations}")
  message(FATAL_ERROR "${_count} layering problem(s) in ${_nfiles} files under ${ROOT}")
endif()
if(MAX_FUNCTION_LINES)
  message(STATUS "layering: ${_nfiles} files under ${ROOT}: no include points upward, no core function is longer than ${MAX_FUNCTION_LINES} lines")
else()
  message(STATUS "layering: ${_nfiles} files under ${ROOT}: no include points upward")
endif()
