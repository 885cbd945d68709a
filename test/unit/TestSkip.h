//===- TestSkip.h - Skip a test case that cannot run here -------*- C++ -*-===//
//
// Catch2 v2 has no skip: a test case that returns early passes. Every
// ctest entry of a Catch2 test case (cmake/FusecCatchTests.cmake) reports
// the test as skipped instead when its output has "SKIPPED: ", and
// scripts/run-tests.sh lists the skipped tests with their reasons. So a test
// that needs something this machine or build lacks ends with
// FUSEC_SKIP_TEST("why"), before any check, never with a WARN and a return.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_TESTSKIP_H
#define FUSEC_TEST_UNIT_TESTSKIP_H

#include <iostream>

/// Ends the running test case as skipped, saying why.
#define FUSEC_SKIP_TEST(reason)                                                                                        \
  do {                                                                                                                 \
    std::cout << "SKIPPED: " << reason << std::endl;                                                                   \
    return;                                                                                                            \
  } while (false)

#endif // FUSEC_TEST_UNIT_TESTSKIP_H
