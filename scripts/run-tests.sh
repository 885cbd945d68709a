#!/usr/bin/env bash
# Set-up, build, then the whole test suite (unit, lit, model and conformance
# tests) through ctest, one entry per test case; then the skipped tests with
# their reasons and the passed/failed/skipped counts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/setup.sh
scripts/build.sh
cd "${FUSEC_BUILD_DIR:-build}"
# The lit entry rewrites its per-test results; none left from an earlier run.
rm -f ctest-results.xml test/lit/lit-results.xml
status=0
ctest --output-on-failure -j "$(nproc)" --output-junit "$PWD/ctest-results.xml" || status=$?
"$root/scripts/ci/summarize-tests.py" "$PWD/ctest-results.xml" --lit "$PWD/test/lit/lit-results.xml" || status=1
exit "$status"
