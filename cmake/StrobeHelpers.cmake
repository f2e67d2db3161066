# Shared compiler options and helpers for Strobe targets.
add_library(strobe_options INTERFACE)
target_compile_options(strobe_options INTERFACE -Wall -Wextra -Wpedantic)
if(STROBE_WERROR)
  target_compile_options(strobe_options INTERFACE -Werror)
endif()
target_compile_definitions(strobe_options INTERFACE
  STROBE_VERSION="${PROJECT_VERSION}"
  QT_NO_KEYWORDS)

# strobe_add_library(NAME DIR ...) — every .cpp under DIR (recursively) goes into NAME.
# New source files are picked up by CONFIGURE_DEPENDS: adding a file needs no CMake edit.
function(strobe_add_library name dir)
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  file(GLOB_RECURSE _hdrs CONFIGURE_DEPENDS ${dir}/*.h)
  add_library(${name} STATIC ${_srcs} ${_hdrs})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC strobe_options)
endfunction()

# strobe_add_test(NAME DIR LIBS...) — one GoogleTest binary from every .cpp in DIR.
function(strobe_add_test name dir)
  file(GLOB _srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT _srcs)
    return()
  endif()
  add_executable(${name} ${_srcs})
  target_link_libraries(${name} PRIVATE ${ARGN} GTest::gtest GTest::gtest_main strobe_options)
  target_compile_definitions(${name} PRIVATE
    STROBE_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    STROBE_RESOURCE_DIR="${PROJECT_SOURCE_DIR}/resources")
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endfunction()
