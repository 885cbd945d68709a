#!/usr/bin/env bash
# Runs ctest in BUILD_DIR (default build), one entry per test case, then
# prints the skipped tests with their reasons, the failed tests and the
# passed/failed/skipped counts (summarize-tests.py, with lit's tests counted
# one by one). Exits non-zero if a test failed.
# Usage: scripts/ci/ctest.sh [BUILD_DIR]
# Environment: FUSEC_CTEST_JOBS (parallel tests, default nproc).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "${1:-build}" || exit 1
# The lit entry rewrites its per-test results; none left from an earlier run.
rm -f ctest-results.xml test/lit/lit-results.xml
status=0
ctest --output-on-failure -j "${FUSEC_CTEST_JOBS:-$(nproc)}" --output-junit "$PWD/ctest-results.xml" || status=$?
"$here/summarize-tests.py" "$PWD/ctest-results.xml" --lit "$PWD/test/lit/lit-results.xml" || status=1
exit "$status"
