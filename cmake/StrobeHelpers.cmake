# Shared compiler options and helpers for Strobe targets.
add_library(strobe_options INTERFACE)
target_compile_options(strobe_options INTERFACE -Wall -Wextra -Wpedantic)
# GCC 12 at -O3 reports -Wrestrict on std::string operations inside libstdc++ (GCC bug 105329, a false
# positive fixed in GCC 13); with -Werror it would fail release builds on code that is fine.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(strobe_options INTERFACE -Wno-restrict)
endif()
if(STROBE_WERROR)
  target_compile_options(strobe_options INTERFACE -Werror)
endif()
target_compile_definitions(strobe_options INTERFACE
  STROBE_VERSION="${PROJECT_VERSION}"
  QT_NO_KEYWORDS)

# Sanitizers (presets asan and tsan set STROBE_SANITIZE). Applied to every target of the tree, Qt moc/rcc
# sources included. Executables also get default runtime options (cmake/sanitizer_defaults.cpp) so that any
# report fails the process whichever way it is started.
set(STROBE_SANITIZE "" CACHE STRING "Sanitizers to build with: empty, 'address,undefined' or 'thread'")
if(STROBE_SANITIZE)
  if(STROBE_SANITIZE MATCHES "thread" AND STROBE_SANITIZE MATCHES "address")
    message(FATAL_ERROR "STROBE_SANITIZE: ThreadSanitizer cannot be combined with AddressSanitizer")
  endif()
  # -g1 (line tables) is what a report needs for file:line; a plain -g here used to override the presets' -g1 with full
  # debug info, a third of a sanitizer build's compile time for nothing a report shows.
  set(_san_flags -fsanitize=${STROBE_SANITIZE} -fno-omit-frame-pointer -g1)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC's manual: sanitizers raise the rate of false -Wmaybe-uninitialized warnings (here inside libstdc++'s
    # std::regex, std::function and std::variant); the release build (-Werror) keeps the warning.
    list(APPEND _san_flags -Wno-maybe-uninitialized)
  endif()
  if(STROBE_SANITIZE MATCHES "undefined")
    # A UBSan finding aborts (and fails the test) instead of printing and carrying on.
    list(APPEND _san_flags -fno-sanitize-recover=all)
  endif()
  add_compile_options(${_san_flags})
  add_link_options(-fsanitize=${STROBE_SANITIZE})
  add_library(strobe_sanitizer_defaults OBJECT ${CMAKE_CURRENT_LIST_DIR}/sanitizer_defaults.cpp)
  target_compile_definitions(strobe_sanitizer_defaults PRIVATE
    STROBE_TSAN_SUPPRESSIONS="${PROJECT_SOURCE_DIR}/tests/tsan.supp"
    STROBE_LSAN_SUPPRESSIONS="${PROJECT_SOURCE_DIR}/tests/lsan.supp")
endif()

# strobe_add_executable_defaults(TARGET) — what every Strobe executable needs (sanitizer runtime defaults).
function(strobe_add_executable_defaults target)
  if(TARGET strobe_sanitizer_defaults)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:strobe_sanitizer_defaults>)
  endif()
endfunction()

# Unity (jumbo) builds, for the CI presets (release, asan, tsan) and the fuzz build: each target's .cpp files are
# compiled in batches of STROBE_UNITY_BATCH, one translation unit a batch, so that the Qt, STL, GoogleTest, fmt and
# simdjson headers every file includes are parsed once a batch instead of once a file (the build was four fifths of
# CI). CMake's own UNITY_BUILD writes `#include "/absolute/path.cpp"`, which makes every clone's translation units
# differ and so never share compiler-cache entries; these batch files include their sources by a path relative to
# the batch file (the build tree lies at the same place under every clone), so a fresh clone hits the cache of an
# earlier one. The dev preset keeps one file a unit, for quick incremental rebuilds. A source that cannot share a
# unit sets SKIP_UNITY_BUILD_INCLUSION, as with CMake's unity builds.
option(STROBE_UNITY "Compile each target's sources in batches (unity builds)" OFF)
set(STROBE_UNITY_BATCH 24 CACHE STRING "Source files a unity batch")

function(strobe_unity target)
  if(NOT STROBE_UNITY)
    return()
  endif()
  get_target_property(_srcs ${target} SOURCES)
  get_target_property(_src_dir ${target} SOURCE_DIR)
  set(_batch_dir ${CMAKE_CURRENT_BINARY_DIR}/unity/${target})
  set(_unit "")
  set(_count 0)
  set(_index 0)
  set(_units)
  foreach(_s IN LISTS _srcs)
    if(NOT _s MATCHES "\\.cpp$" OR _s MATCHES "^\\$<")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH _s BASE_DIRECTORY ${_src_dir} NORMALIZE OUTPUT_VARIABLE _abs)
    get_source_file_property(_skip ${_abs} SKIP_UNITY_BUILD_INCLUSION)
    if(_skip)
      continue()
    endif()
    file(RELATIVE_PATH _rel ${_batch_dir} ${_abs})
    string(APPEND _unit "#include \"${_rel}\"\n")
    set_source_files_properties(${_abs} PROPERTIES HEADER_FILE_ONLY ON)
    math(EXPR _count "${_count} + 1")
    if(_count EQUAL STROBE_UNITY_BATCH)
      _strobe_unity_write(${_batch_dir}/unity_${_index}.cpp "${_unit}")
      list(APPEND _units ${_batch_dir}/unity_${_index}.cpp)
      math(EXPR _index "${_index} + 1")
      set(_unit "")
      set(_count 0)
    endif()
  endforeach()
  if(_count GREATER 0)
    _strobe_unity_write(${_batch_dir}/unity_${_index}.cpp "${_unit}")
    list(APPEND _units ${_batch_dir}/unity_${_index}.cpp)
  endif()
  target_sources(${target} PRIVATE ${_units})
  # GCC warns of a class whose base is in an anonymous namespace (a GoogleTest fixture) unless it is defined in the
  # main file, which an included source is not: in a batch the warning says nothing about the code.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
endfunction()

# Writes a batch file only when its text changes, so that reconfiguring does not rebuild every batch.
function(_strobe_unity_write path text)
  set(_text "// Unity batch written by cmake/StrobeHelpers.cmake (strobe_unity); do not edit.\n${text}")
  if(EXISTS ${path})
    file(READ ${path} _old)
    if(_old STREQUAL _text)
      return()
    endif()
  endif()
  file(WRITE ${path} "${_text}")
endfunction()

# strobe_add_library(NAME DIR ...) — every .cpp under DIR (recursively) goes into NAME.
# New source files are picked up by CONFIGURE_DEPENDS: adding a file needs no CMake edit.
function(strobe_add_library name dir)
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  file(GLOB_RECURSE _hdrs CONFIGURE_DEPENDS ${dir}/*.h)
  add_library(${name} STATIC ${_srcs} ${_hdrs})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC strobe_options)
  strobe_unity(${name})
endfunction()

# Default per-test time limit (seconds): a hang fails the test instead of stalling CI. Sanitizer builds run
# several times slower, so they get more.
if(STROBE_SANITIZE)
  set(STROBE_TEST_TIMEOUT 900)
else()
  set(STROBE_TEST_TIMEOUT 300)
endif()

# strobe_add_test(NAME DIR LIBS... [PROPERTIES prop value...]) — one GoogleTest binary from every .cpp in DIR;
# PROPERTIES are added to each test's (e.g. RESOURCE_LOCK for tests that share a machine-wide resource).
# CI also runs under ThreadSanitizer the tests whose name contains "Concurrency" (e.g. TEST(LoadConcurrency, ...)),
# those labelled "concurrency", and the JobRunner.* and RunLoader.* suites (see .ci/setup, STROBE_TSAN_TESTS).
function(strobe_add_test name dir)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "PROPERTIES")
  file(GLOB _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT _srcs)
    return()
  endif()
  add_executable(${name} ${_srcs})
  # The checkout's and build's paths come from strobe_test_paths (tests/test_paths.h), not from defines on every
  # test file, which would make each clone's test objects differ for the compiler cache.
  target_link_libraries(${name} PRIVATE ${arg_UNPARSED_ARGUMENTS} strobe_test_paths GTest::gtest GTest::gtest_main
    strobe_options)
  strobe_add_executable_defaults(${name})
  strobe_unity(${name})
  include(GoogleTest)
  # PRE_TEST: tests are listed when ctest runs, not at build time, so a build never runs a test binary.
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 120 DISCOVERY_MODE PRE_TEST
    PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT ${STROBE_TEST_TIMEOUT} ${arg_PROPERTIES})
endfunction()

# strobe_add_cli_test(NAME EXIT_CODE [STDOUT regex] [STDERR regex] [STDOUT_EMPTY] COMMAND exe args...)
# Runs a program and checks its exact exit code (ctest alone only knows zero/non-zero) and its output.
function(strobe_add_cli_test name expect_exit)
  cmake_parse_arguments(PARSE_ARGV 2 arg "STDOUT_EMPTY;STDERR_EMPTY" "STDOUT;STDERR" "COMMAND")
  string(REPLACE ";" "|" _cmd "${arg_COMMAND}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND}
    "-DCMD=${_cmd}" "-DEXPECT_EXIT=${expect_exit}" "-DSTDOUT_REGEX=${arg_STDOUT}" "-DSTDERR_REGEX=${arg_STDERR}"
    "-DSTDOUT_EMPTY=${arg_STDOUT_EMPTY}" "-DSTDERR_EMPTY=${arg_STDERR_EMPTY}"
    -P ${PROJECT_SOURCE_DIR}/cmake/RunAndCheck.cmake)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${STROBE_TEST_TIMEOUT})
endfunction()
