//===- HashTest.cpp - Content hashes ---------------------------------------===//
//
// The plan format fixes FNV-1a 64 for its checksums: these are the published
// test vectors, so a change to the function cannot go unnoticed.
//
//===----------------------------------------------------------------------===//
#include "support/Hash.h"

#include <catch2/catch.hpp>

#include <string>

using fusec::fnv1a64;
using fusec::toHex64;

TEST_CASE("fnv1a64 matches the FNV-1a 64-bit test vectors") {
  CHECK(fnv1a64("", 0) == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a", 1) == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64("foobar", 6) == 0x85944171f73967e8ULL);
  // Hashing in pieces gives the hash of the whole.
  CHECK(fnv1a64("bar", 3, fnv1a64("foo", 3)) == fnv1a64("foobar", 6));
}

TEST_CASE("toHex64 spells 16 lowercase hex digits") {
  CHECK(toHex64(0) == "0000000000000000");
  CHECK(toHex64(0x85944171f73967e8ULL) == "85944171f73967e8");
}
