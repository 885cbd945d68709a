#!/usr/bin/env bash
# Plants every problem cmake/FusecCatchRegistrationCheck.cmake must catch in
# a throwaway ctest folder, with shell scripts standing in for Catch2 binaries
# (they print test names and exit with their count, as Catch2 v2's
# --list-test-names-only does), and checks that exactly the broken ones get
# a failing "<target>: test registration" entry saying why.
# Usage: catch-registration-check.sh CHECK_SCRIPT [CTEST]
set -euo pipefail
check=$1
ctest=${2:-ctest}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# binary NAME TEST_NAME...: a stand-in binary listing TEST_NAMEs.
binary() {
  local name=$1
  shift
  printf '%s\n' "$@" > "$work/$name.names"
  printf '#!/bin/sh\ncat "%s"\nexit %d\n' "$work/$name.names" $# > "$work/$name"
  chmod +x "$work/$name"
}
# target NAME REGISTERED...: the check included for NAME, after ctest
# registered REGISTERED (as catch_discover_tests' file would).
target() {
  local name=$1
  shift
  local registered=""
  for test in "$@"; do
    echo "add_test([==[$name:$test]==] /bin/true)"
    registered+=" [==[$name:$test]==]"
  done
  echo "set(${name}_TESTS$registered)"
  echo "set(FUSEC_CATCH_TARGET $name)"
  echo "set(FUSEC_CATCH_EXECUTABLE $work/$name)"
  echo "set(FUSEC_CATCH_CMAKE $(command -v cmake))"
  echo "include($check)"
}

binary healthy "one test" "another, with a comma"
binary bad_names "split; in two" "tagged [x]" " leading space" "*wildcard" "~negated" 'a "quote"'
binary unregistered "registered" "never registered"
binary empty
printf 'not a program\n' > "$work/cannot_start"
{
  target healthy "one test" "another, with a comma"
  target bad_names
  target unregistered "registered"
  target empty
  target cannot_start
  target not_built
} > "$work/CTestTestfile.cmake"

cd "$work"
listed=$("$ctest" -N)
echo "$listed"
status=0
expect() { # expect WHAT TEXT: TEXT must appear in WHAT
  grep -qF -- "$2" <<< "$1" || { echo "catch-registration-check: missing: $2" >&2; status=1; }
}
expect "$listed" "bad_names: test registration"
expect "$listed" "unregistered: test registration"
expect "$listed" "empty: test registration"
expect "$listed" "cannot_start: test registration"
expect "$listed" "not_built: test registration"
if grep -q "healthy: test registration" <<< "$listed"; then
  echo "catch-registration-check: the healthy binary got a registration entry" >&2
  status=1
fi

if output=$("$ctest" -R "test registration" --output-on-failure 2>&1); then
  echo "catch-registration-check: the registration entries passed" >&2
  status=1
fi
echo "$output"
expect "$output" 'test case "split; in two" contains '"';'"
expect "$output" 'test case "tagged [x]" contains '"'[' or ']'"
expect "$output" 'test case " leading space" starts or ends with whitespace'
expect "$output" 'test case "*wildcard" starts or ends with'
expect "$output" 'test case "~negated" starts with'
expect "$output" 'test case "a "quote"" contains'
expect "$output" 'test case "unregistered:never registered" has no ctest entry'
expect "$output" "$work/empty has no test cases"
expect "$output" "$work/cannot_start --list-test-names-only' failed"
expect "$output" "$work/not_built is not built"
exit "$status"
