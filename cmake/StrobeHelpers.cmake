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
  set(_san_flags -fsanitize=${STROBE_SANITIZE} -fno-omit-frame-pointer -g)
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

# strobe_add_library(NAME DIR ...) — every .cpp under DIR (recursively) goes into NAME.
# New source files are picked up by CONFIGURE_DEPENDS: adding a file needs no CMake edit.
function(strobe_add_library name dir)
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  file(GLOB_RECURSE _hdrs CONFIGURE_DEPENDS ${dir}/*.h)
  add_library(${name} STATIC ${_srcs} ${_hdrs})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC strobe_options)
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
  target_link_libraries(${name} PRIVATE ${arg_UNPARSED_ARGUMENTS} GTest::gtest GTest::gtest_main strobe_options)
  target_compile_definitions(${name} PRIVATE
    STROBE_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    STROBE_RESOURCE_DIR="${PROJECT_SOURCE_DIR}/resources")
  strobe_add_executable_defaults(${name})
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
