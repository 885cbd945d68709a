#!/usr/bin/env bash
# Set-up, build, then the whole test suite (unit, lit, model and conformance
# tests) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
(cd "${FUSEC_BUILD_DIR:-build}" && ctest --output-on-failure -j "$(nproc)")
# Jobs beyond ctest, each bounded and printing its wall time.
scripts/ci/tsan-emulation.sh
