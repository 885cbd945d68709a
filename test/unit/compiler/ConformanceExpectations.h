//===- ConformanceExpectations.h - Passing node tests per op ----*- C++ -*-===//
//
// The ONNX conformance run must not lose a passing test quietly (an op that
// becomes "unsupported" would otherwise only shrink the pass count it
// prints). test/unit/compiler/conformance-expected.txt holds, per ONNX op
// type, how many node tests using that op pass; the run checks its counts
// against the table exactly, so a test leaves (or joins) the pass column
// only with a deliberate edit of the table.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_COMPILER_CONFORMANCEEXPECTATIONS_H
#define FUSEC_TEST_UNIT_COMPILER_CONFORMANCEEXPECTATIONS_H

#include <map>
#include <string>
#include <vector>

namespace fusec::testing {

/// Passing tests per op type.
using PassCounts = std::map<std::string, int>;

/// Parses the table: one "<op type> <passing tests>" per line, '#' starts a
/// comment. Throws std::runtime_error naming the file and line of a
/// malformed or repeated entry.
PassCounts parsePassCounts(const std::string &text, const std::string &fileName);

/// Reads and parses the table at `path`; throws std::runtime_error if the
/// file cannot be read.
PassCounts readPassCounts(const std::string &path);

/// One node test's outcome and the op types its model uses.
struct ConformanceOutcome {
  std::string test;
  std::vector<std::string> ops;
  bool passed = false;
  /// Why it did not pass ("unsupported: ...", "failed: ..."); empty if it did.
  std::string reason;
};

/// Counts, for every op type, the passing tests that use it (a test with
/// several op types counts for each).
PassCounts countPasses(const std::vector<ConformanceOutcome> &outcomes);

/// One message per op whose count differs from `expected`, naming the op,
/// both counts, the tests of that op that do not pass (with their reasons)
/// and the edit of `tableName` that would accept the change. Empty when
/// every count matches.
std::vector<std::string> comparePassCounts(const PassCounts &expected, const std::vector<ConformanceOutcome> &outcomes,
                                           const std::string &tableName);

} // namespace fusec::testing

#endif // FUSEC_TEST_UNIT_COMPILER_CONFORMANCEEXPECTATIONS_H
