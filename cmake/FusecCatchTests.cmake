# fusec_catch_tests(TARGET [PROPERTIES prop value ...]): one ctest entry per
# Catch2 test case of TARGET, named "TARGET:<test case>", so that ctest's
# passed/failed/skipped counts are counts of test cases.
#
# Every entry
#  - runs with "-w NoTests": an entry whose name matches no test case (a name
#    that registration split or mangled) fails instead of passing empty;
#  - is reported as skipped when the test case prints "SKIPPED: <reason>"
#    (FUSEC_SKIP_TEST in test/unit/TestSkip.h), so a test that cannot run on
#    this machine neither passes nor fails.
#
# catch_discover_tests lists the test cases once, after the build; a binary
# that cannot start there registers nothing, silently. So every ctest run
# also includes FusecCatchRegistrationCheck.cmake after the discovered tests:
# it lists the test cases again and, where the binary cannot start, lists
# none, has a name discovery cannot pass back to Catch2, or has test cases
# ctest did not register, adds one failing entry "TARGET: test registration"
# that says which and why. A healthy build has no such entry.
function(fusec_catch_tests target)
  cmake_parse_arguments(ARG "" "" "PROPERTIES" ${ARGN})
  catch_discover_tests(${target}
    TEST_PREFIX "${target}:"
    EXTRA_ARGS -w NoTests
    # Not "SKIPPED: ": the build drops a trailing space on its way to ctest.
    PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED: ." ${ARG_PROPERTIES})

  # Included after catch_discover_tests' file, whose ${target}_TESTS it reads.
  set(check_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_registration_check.cmake)
  file(GENERATE OUTPUT ${check_file} CONTENT
"set(FUSEC_CATCH_TARGET [==[${target}]==])
set(FUSEC_CATCH_EXECUTABLE [==[$<TARGET_FILE:${target}>]==])
set(FUSEC_CATCH_CMAKE [==[${CMAKE_COMMAND}]==])
include([==[${CMAKE_CURRENT_FUNCTION_LIST_DIR}/FusecCatchRegistrationCheck.cmake]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${check_file})
endfunction()
