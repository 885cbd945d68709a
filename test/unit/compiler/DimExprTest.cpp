//===- DimExprTest.cpp - Symbolic sizes of shape arithmetic ---------------===//
#include "compiler/import/DimExpr.h"

#include <catch2/catch.hpp>

#include <limits>
#include <map>

using fusec::import::DimExpr;

namespace {

const DimExpr batch = DimExpr::symbol("batch");
const DimExpr seq = DimExpr::symbol("seq");

DimExpr operator+(const DimExpr &a, const DimExpr &b) { return *DimExpr::add(a, b); }
DimExpr operator*(const DimExpr &a, const DimExpr &b) { return *DimExpr::mul(a, b); }

/// The value at batch = b, seq = s.
int64_t at(const DimExpr &expr, int64_t b, int64_t s) {
  std::map<std::string, int64_t> values{{"batch", b}, {"seq", s}};
  return *expr.evaluate([&](const std::string &name) { return values.at(name); });
}

} // namespace

TEST_CASE("dimension expressions have one canonical form", "[onnx][dimexpr]") {
  CHECK((batch * 4 + 1).str() == "4*batch + 1");
  CHECK((seq * batch).str() == "batch*seq");
  CHECK(seq * batch == batch * seq);
  CHECK((batch + seq) * (batch + 1) == batch * batch + batch * seq + batch + seq);
  CHECK((batch * batch * -2 + 3).str() == "-2*batch*batch + 3");
  CHECK(*DimExpr::sub(batch * 3, batch * 3) == DimExpr(0));
  CHECK(DimExpr(-7).str() == "-7");
  CHECK(DimExpr(0).str() == "0");
  CHECK((batch * 4).linearIn("batch") == std::make_pair(int64_t(0), int64_t(4)));
  CHECK(!(batch * seq).linearIn("batch"));
  CHECK((batch * seq).mentions("seq"));
  // Overflow is refused, not wrapped.
  CHECK(!DimExpr::mul(batch * std::numeric_limits<int64_t>::max(), DimExpr(2)));
  CHECK(!DimExpr::add(batch * std::numeric_limits<int64_t>::max(), batch));
}

TEST_CASE("division and remainder of dimension expressions match integers at every size", "[onnx][dimexpr]") {
  // Exact quotients: (4*batch + 8) / 4, (batch*seq*6) / (3*seq).
  const DimExpr sum = batch * 4 + 8;
  REQUIRE(DimExpr::div(sum, DimExpr(4)));
  CHECK(*DimExpr::div(sum, DimExpr(4)) == batch + 2);
  REQUIRE(DimExpr::div(batch * seq * 6, seq * 3));
  CHECK(*DimExpr::div(batch * seq * 6, seq * 3) == batch * 2);
  CHECK(*DimExpr::div(batch + 1, batch + 1) == DimExpr(1));
  CHECK(!DimExpr::div(batch, DimExpr(3)));
  CHECK(!DimExpr::div(batch * 4 + 2, DimExpr(4)));
  CHECK(!DimExpr::div(batch, DimExpr(0)));
  CHECK(*DimExpr::div(DimExpr(-7), DimExpr(2)) == DimExpr(-3)); // toward zero, as ONNX's integer Div
  // Remainders, checked against the integers at several sizes: fmod = 0
  // takes the divisor's sign, fmod = 1 the dividend's.
  const DimExpr a = batch * 6 + 5;
  for (int64_t divisor : {3, -3, 2}) {
    for (bool fmod : {false, true}) {
      std::optional<DimExpr> r = DimExpr::mod(a, DimExpr(divisor), fmod);
      REQUIRE(r);
      for (int64_t b : {1, 2, 7}) {
        const int64_t value = at(a, b, 1);
        int64_t expected = value % divisor;
        if (!fmod && expected != 0 && ((expected < 0) != (divisor < 0)))
          expected += divisor;
        CHECK(at(*r, b, 1) == expected);
      }
    }
  }
  const DimExpr negative = batch * -6 + -1;
  CHECK(*DimExpr::mod(negative, DimExpr(3), false) == DimExpr(2));
  CHECK(*DimExpr::mod(negative, DimExpr(3), true) == DimExpr(-1));
  CHECK(!DimExpr::mod(batch, DimExpr(4), false));
  CHECK(*DimExpr::mod(batch * seq, batch * seq, false) == DimExpr(0));
}

TEST_CASE("comparisons of dimension expressions are decided only when every size agrees", "[onnx][dimexpr]") {
  CHECK(DimExpr::compare(batch, DimExpr(-1)) == 1);
  CHECK(DimExpr::compare(batch * 4 + 2, DimExpr(0)) == 1);
  CHECK(DimExpr::compare(batch * -1, DimExpr(0)) == -1);
  CHECK(DimExpr::compare(batch * 2, batch + batch) == 0);
  CHECK(!DimExpr::compare(batch, DimExpr(1))); // equal at batch 1 only
  CHECK(!DimExpr::compare(batch, DimExpr(3))); // either way
  CHECK(!DimExpr::compare(batch, seq));        // unrelated symbols
  CHECK(DimExpr::alwaysAtLeast(batch, DimExpr(1)));
  CHECK(!DimExpr::alwaysAtLeast(DimExpr(1), batch));
  CHECK(*DimExpr::max(batch, DimExpr(1)) == batch);
  CHECK(*DimExpr::min(batch * 2, batch) == batch);
  CHECK(!DimExpr::max(batch, DimExpr(2)));
}

TEST_CASE("dimension expressions stay small: repeated squaring is refused", "[onnx][dimexpr]") {
  // A hostile shape graph squaring the batch 40 times would build a term of
  // 2^40 symbols; past the degree bound the product has no value.
  std::optional<DimExpr> power = batch;
  int squarings = 0;
  while (power && squarings < 40) {
    power = DimExpr::mul(*power, *power);
    ++squarings;
  }
  CHECK(!power);
  CHECK(squarings <= 4); // batch^16 exceeds kMaxDegree = 8
}
