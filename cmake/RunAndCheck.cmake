# cmake -DCMD="exe|arg|..." -DEXPECT_EXIT=N [-DSTDOUT_REGEX=re] [-DSTDERR_REGEX=re] [-DSTDOUT_EMPTY=ON]
#       [-DSTDERR_EMPTY=ON] -P RunAndCheck.cmake
# Runs CMD and fails unless its exit code is exactly EXPECT_EXIT and its output matches. Used by
# strobe_add_cli_test (cmake/StrobeHelpers.cmake) for command-line behaviour: exit codes, stdout vs stderr.
string(REPLACE "|" ";" _cmd "${CMD}")
execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
set(_fail "")
if(NOT "${_rc}" STREQUAL "${EXPECT_EXIT}")
  string(APPEND _fail "exit code ${_rc}, expected ${EXPECT_EXIT}\n")
endif()
foreach(_stream OUT ERR)
  string(TOLOWER "${_stream}" _name)
  set(_text "${_${_name}}")
  if(STD${_stream}_REGEX AND NOT _text MATCHES "${STD${_stream}_REGEX}")
    string(APPEND _fail "std${_name} does not match '${STD${_stream}_REGEX}'\n")
  endif()
  if(STD${_stream}_EMPTY AND NOT _text STREQUAL "")
    string(APPEND _fail "std${_name} should be empty\n")
  endif()
endforeach()
if(_fail)
  message(FATAL_ERROR "${CMD}\n${_fail}--- stdout:\n${_out}\n--- stderr:\n${_err}")
endif()
