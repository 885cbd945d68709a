# Included by ctest (see FusecCatchTests.cmake) after the tests that
# catch_discover_tests registered for one Catch2 binary, with
# FUSEC_CATCH_TARGET, FUSEC_CATCH_EXECUTABLE and FUSEC_CATCH_CMAKE set.
# Lists the binary's test cases and, if anything keeps them from running as
# registered, adds a failing entry "<target>: test registration" that says
# what. Run as a script with FUSEC_CATCH_FAILURE set, it is that entry: it
# prints the reason and fails.
if(DEFINED FUSEC_CATCH_FAILURE)
  message(FATAL_ERROR "${FUSEC_CATCH_FAILURE}")
endif()

set(_fusec_problems "")
set(_fusec_prefix "${FUSEC_CATCH_TARGET}:")
if(NOT EXISTS "${FUSEC_CATCH_EXECUTABLE}")
  string(APPEND _fusec_problems "\n  ${FUSEC_CATCH_EXECUTABLE} is not built")
else()
  execute_process(COMMAND "${FUSEC_CATCH_EXECUTABLE}" --list-test-names-only
    OUTPUT_VARIABLE _fusec_listing ERROR_VARIABLE _fusec_errors RESULT_VARIABLE _fusec_result)
  # Name by name, with ';' (CMake's list separator) and '[', ']' (which
  # group list elements) kept out of the list.
  string(REPLACE ";" "@FUSEC_SEMICOLON@" _fusec_listing "${_fusec_listing}")
  string(REPLACE "[" "@FUSEC_OPEN@" _fusec_listing "${_fusec_listing}")
  string(REPLACE "]" "@FUSEC_CLOSE@" _fusec_listing "${_fusec_listing}")
  string(REGEX REPLACE "\n$" "" _fusec_listing "${_fusec_listing}")
  set(_fusec_names "")
  if(NOT _fusec_listing STREQUAL "")
    string(REPLACE "\n" ";" _fusec_names "${_fusec_listing}")
  endif()
  list(LENGTH _fusec_names _fusec_count)
  # Catch2 v2 exits with the number of test cases it listed (at most 255), so
  # anything else means the binary did not start or did not list them all.
  set(_fusec_expected_result ${_fusec_count})
  if(_fusec_count GREATER 255)
    set(_fusec_expected_result 255)
  endif()
  if(NOT _fusec_result STREQUAL "${_fusec_expected_result}")
    string(APPEND _fusec_problems "\n  '${FUSEC_CATCH_EXECUTABLE} --list-test-names-only' failed "
                                  "(exit status '${_fusec_result}', ${_fusec_count} test cases listed): "
                                  "${_fusec_errors}")
  elseif(_fusec_count EQUAL 0)
    string(APPEND _fusec_problems "\n  ${FUSEC_CATCH_EXECUTABLE} has no test cases")
  endif()

  # Names that catch_discover_tests cannot hand back to Catch2 as a test
  # spec: ';' splits the ctest entry, '[' and ']' group CMake list elements,
  # whitespace at either end is trimmed, '"' and '\' are spec syntax it does
  # not escape, '*' at either end is a wildcard, and '~', '#' or 'exclude:'
  # at the start change what matches.
  set(_fusec_registered_names "")
  foreach(_fusec_name IN LISTS _fusec_names)
    string(REPLACE "@FUSEC_SEMICOLON@" ";" _fusec_shown "${_fusec_name}")
    string(REPLACE "@FUSEC_OPEN@" "[" _fusec_shown "${_fusec_shown}")
    string(REPLACE "@FUSEC_CLOSE@" "]" _fusec_shown "${_fusec_shown}")
    set(_fusec_reason "")
    if(_fusec_name MATCHES "@FUSEC_SEMICOLON@")
      set(_fusec_reason "contains ';'")
    elseif(_fusec_name MATCHES "@FUSEC_(OPEN|CLOSE)@")
      set(_fusec_reason "contains '[' or ']'")
    elseif(_fusec_name MATCHES "^[ \t]|[ \t]$")
      set(_fusec_reason "starts or ends with whitespace")
    elseif(_fusec_name MATCHES "[\"\\\\]")
      set(_fusec_reason "contains '\"' or '\\'")
    elseif(_fusec_name MATCHES "^\\*|\\*$")
      set(_fusec_reason "starts or ends with '*'")
    elseif(_fusec_name MATCHES "^(~|#|exclude:)")
      set(_fusec_reason "starts with '~', '#' or 'exclude:'")
    endif()
    if(_fusec_reason)
      string(APPEND _fusec_problems "\n  test case \"${_fusec_shown}\" ${_fusec_reason}: rename it")
    else()
      list(APPEND _fusec_registered_names "${_fusec_prefix}${_fusec_name}")
    endif()
  endforeach()

  # Every listed test case has its entry (a stale or failed discovery).
  foreach(_fusec_name IN LISTS _fusec_registered_names)
    # (list(FIND), not if(IN_LIST): ctest reads this with every policy unset.)
    list(FIND ${FUSEC_CATCH_TARGET}_TESTS "${_fusec_name}" _fusec_index)
    if(_fusec_index EQUAL -1)
      string(APPEND _fusec_problems "\n  test case \"${_fusec_name}\" has no ctest entry (rebuild to rediscover)")
    endif()
  endforeach()
endif()

if(_fusec_problems)
  add_test("${FUSEC_CATCH_TARGET}: test registration" "${FUSEC_CATCH_CMAKE}"
    "-DFUSEC_CATCH_FAILURE=${FUSEC_CATCH_TARGET}: test cases that ctest cannot run as registered:${_fusec_problems}"
    -P "${CMAKE_CURRENT_LIST_FILE}")
endif()
