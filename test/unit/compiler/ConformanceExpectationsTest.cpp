//===- ConformanceExpectationsTest.cpp - The per-op pass count table ------===//
//
// The table check is what keeps a passing ONNX node test from turning
// "unsupported" unnoticed, so it is tested on made-up outcomes here.
//
//===----------------------------------------------------------------------===//
#include "test/unit/compiler/ConformanceExpectations.h"

#include <catch2/catch.hpp>

using namespace fusec::testing;
using Catch::Contains;

namespace {

ConformanceOutcome pass(const std::string &test, std::vector<std::string> ops) {
  return {test, std::move(ops), true, ""};
}
ConformanceOutcome notPass(const std::string &test, std::vector<std::string> ops, const std::string &reason) {
  return {test, std::move(ops), false, reason};
}

} // namespace

TEST_CASE("the conformance table parses one count per op, with comments") {
  const PassCounts counts = parsePassCounts("# op passed\nAdd 3\n\nRelu 1  # one\n", "t.txt");
  CHECK(counts == PassCounts{{"Add", 3}, {"Relu", 1}});
  CHECK_THROWS_WITH(parsePassCounts("Add\n", "t.txt"), Contains("t.txt:1: expected '<op type> <passing tests>'"));
  CHECK_THROWS_WITH(parsePassCounts("Add 1\nAdd two\n", "t.txt"), Contains("t.txt:2: expected"));
  CHECK_THROWS_WITH(parsePassCounts("Add 1 2\n", "t.txt"), Contains("t.txt:1: expected"));
  CHECK_THROWS_WITH(parsePassCounts("Add -1\n", "t.txt"), Contains("t.txt:1: expected"));
  CHECK_THROWS_WITH(parsePassCounts("Add 1\nAdd 1\n", "t.txt"), Contains("t.txt:2: op 'Add' is listed twice"));
  CHECK_THROWS_WITH(readPassCounts("/nonexistent/table.txt"),
                    Contains("cannot read the conformance table '/nonexistent/table.txt'"));
}

TEST_CASE("a test counts once for every op type its model uses") {
  const PassCounts counts = countPasses(
      {pass("test_a", {"Add", "Relu", "Add"}), pass("test_b", {"Add"}), notPass("test_c", {"Relu"}, "failed")});
  CHECK(counts == PassCounts{{"Add", 2}, {"Relu", 1}});
}

TEST_CASE("a test leaving the pass column fails the table check, naming the op and the test") {
  const std::vector<ConformanceOutcome> outcomes = {pass("test_add", {"Add"}), pass("test_add_bcast", {"Add"}),
                                                    notPass("test_relu", {"Relu"}, "unsupported: op Relu")};
  CHECK(comparePassCounts({{"Add", 2}}, outcomes, "table.txt").empty());

  // Relu's one test became unsupported.
  const std::vector<std::string> lost = comparePassCounts({{"Add", 2}, {"Relu", 1}}, outcomes, "table.txt");
  REQUIRE(lost.size() == 1);
  CHECK_THAT(lost[0], Contains("op Relu: 0 node tests pass, table.txt expects 1; not passing now:\n"
                               "    test_relu (unsupported: op Relu)"));
  CHECK_THAT(lost[0], Contains("if this change is intended, set 'Relu 0' in table.txt"));

  // A newly passing test changes the count too: the table is exact.
  const std::vector<std::string> gained = comparePassCounts({{"Add", 1}}, outcomes, "table.txt");
  REQUIRE(gained.size() == 1);
  CHECK_THAT(gained[0], Contains("op Add: 2 node tests pass, table.txt expects 1"));
  CHECK_THAT(gained[0], Contains("set 'Add 2' in table.txt"));

  // An op that passes tests without an entry in the table.
  const std::vector<std::string> unlisted = comparePassCounts({}, outcomes, "table.txt");
  REQUIRE(unlisted.size() == 1);
  CHECK_THAT(unlisted[0], Contains("op Add: 2 node tests pass, table.txt expects 0"));
}
