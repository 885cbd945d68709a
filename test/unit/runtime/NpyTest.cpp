//===- NpyTest.cpp - Reading and writing .npy files -------------------------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/Npy.h"
#include "support/FileIO.h"

#include <cstring>
#include <filesystem>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

/// A .npy file with a hand-written header dict (padded like numpy's) and
/// raw data bytes.
std::vector<uint8_t> npyBytes(const std::string &dict, const std::vector<uint8_t> &data) {
  std::string header = dict;
  while ((6 + 2 + 2 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  bytes.push_back(static_cast<uint8_t>(header.size()));
  bytes.push_back(static_cast<uint8_t>(header.size() >> 8));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

/// A .npy file with a hand-written header dict (padded like numpy's).
std::vector<uint8_t> npyFile(const std::string &dict, const std::vector<float> &data, int major = 1) {
  const size_t lengthBytes = major == 1 ? 2 : 4;
  std::string header = dict;
  while ((6 + 2 + lengthBytes + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < lengthBytes; ++i)
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  const auto *raw = reinterpret_cast<const uint8_t *>(data.data());
  bytes.insert(bytes.end(), raw, raw + data.size() * sizeof(float));
  return bytes;
}

std::string headerOf(const std::vector<uint8_t> &bytes) {
  const size_t length = bytes[8] | bytes[9] << 8;
  return std::string(bytes.begin() + 10, bytes.begin() + 10 + length);
}

} // namespace

TEST_CASE("encodeNpy writes exactly what numpy.save writes") {
  const Tensor tensor({1, 3, 32, 32});
  const std::vector<uint8_t> bytes = encodeNpy(tensor);
  // numpy: magic, version 1.0, header length 118, header padded to 128 bytes.
  CHECK(std::memcmp(bytes.data(), "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
  CHECK(headerOf(bytes) ==
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 32, 32), }" + std::string(50, ' ') + "\n");
  CHECK(bytes.size() == 128 + 3 * 32 * 32 * 4);

  CHECK(headerOf(encodeNpy(Tensor({5}))).rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", 0) == 0);
  CHECK(headerOf(encodeNpy(Tensor(Shape{}))).rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 0) == 0);
  for (const Shape &shape : {Shape{}, Shape{7}, Shape{2, 3}, Shape{0, 4}})
    CHECK(encodeNpy(Tensor(shape)).size() % 4 == 0);
}

TEST_CASE("npy files round-trip through writeNpy and readNpy") {
  test::TempDir dir;
  const Tensor tensor({2, 3}, {1.5f, -2, 0, 3.25f, 1e-7f, -1e9f});
  writeNpy(dir.file("t.npy"), tensor);
  test::requireTensor(readNpy(dir.file("t.npy")), {2, 3}, tensor.values(), 0);
  test::requireTensor(decodeNpy(encodeNpy(Tensor(Shape{})), "s"), {}, {0}, 0);
  test::requireTensor(decodeNpy(encodeNpy(Tensor({0, 5})), "e"), {0, 5}, {}, 0);
}

TEST_CASE("readNpy accepts version 2.0 and numpy's header variants") {
  test::requireTensor(decodeNpy(npyFile("{'descr': '<f4', 'fortran_order': False, "
                                        "'shape': (2,), }",
                                        {1, 2}, /*major=*/2),
                                "v2.npy"),
                      {2}, {1, 2}, 0);
  // Key order and the trailing comma are not significant.
  test::requireTensor(decodeNpy(npyFile("{'shape': (1, 2), 'fortran_order': False, "
                                        "'descr': '<f4'}",
                                        {3, 4}),
                                "order.npy"),
                      {1, 2}, {3, 4}, 0);
}

TEST_CASE("readNpy reads the models' numpy-written reference data") {
  const std::string path = std::string(FUSEC_TEST_DATA_DIR) + "/models/conv_bn_relu/input_b4.npy";
  // The file is part of the source tree: its absence is a broken checkout.
  INFO("reference data file " << path);
  REQUIRE(std::filesystem::exists(path));
  const Tensor tensor = readNpy(path);
  CHECK(tensor.shape() == Shape{4, 3, 32, 32});
  // Writing it back reproduces numpy's file byte for byte.
  CHECK(encodeNpy(tensor) == readFileBytes(path));
}

TEST_CASE("readNpy rejects other dtypes, Fortran order and bad files") {
  const std::string c = "'fortran_order': False, 'shape': (2,), }";
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<f8', " + c, {1, 2, 3, 4}), "d.npy"),
                    Contains("d.npy: unsupported dtype '<f8' (supported: '<f4' f32, '<f2' f16, '<u2' bf16"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<c8', " + c, {1, 2, 3, 4}), "c.npy"),
                    Contains("c.npy: unsupported dtype '<c8'"));
  CHECK_THROWS_WITH(decodeNpy(npyBytes("{'descr': '|S3', " + c, {'a', 'b', 'c', 'd', 'e', 'f'}), "s.npy"),
                    Contains("s.npy: unsupported dtype '|S3'"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '>f4', " + c, {1, 2}), "b.npy"),
                    Contains("b.npy: unsupported dtype '>f4'"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<f4', 'fortran_order': True, "
                                      "'shape': (2,), }",
                                      {1, 2}),
                              "f.npy"),
                    Contains("f.npy: Fortran-order arrays are not supported"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<f4', " + c, {1}), "short.npy"),
                    Contains("short.npy: data size 4 bytes does not match shape [2] (8 "
                             "bytes)"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<f4', " + c, {1, 2, 3}), "long.npy"),
                    Contains("data size 12 bytes does not match"));
  CHECK_THROWS_WITH(decodeNpy({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}, "z.npy"),
                    Contains("z.npy: not a .npy file (bad magic)"));
  std::vector<uint8_t> v3 = npyFile("{'descr': '<f4', " + c, {1, 2});
  v3[6] = 3;
  CHECK_THROWS_WITH(decodeNpy(v3, "v3.npy"), Contains(".npy format version 3.0 is not supported"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<f4', 'shape': (2,), }", {1, 2}), "k.npy"),
                    Contains("k.npy: malformed .npy header: missing or invalid "
                             "'fortran_order'"));
  CHECK_THROWS_WITH(decodeNpy(npyFile("{'descr': '<f4', 'fortran_order': False, "
                                      "'shape': (2, x), }",
                                      {1, 2}),
                              "m.npy"),
                    Contains("m.npy: malformed .npy header: expected a dimension size"));
  std::vector<uint8_t> cut = npyFile("{'descr': '<f4', " + c, {1, 2});
  cut.resize(20);
  CHECK_THROWS_WITH(decodeNpy(cut, "cut.npy"), Contains("cut.npy: truncated .npy header"));
  CHECK_THROWS_WITH(readNpy("/nonexistent/in.npy"), Contains("cannot open '/nonexistent/in.npy'"));
}

TEST_CASE("npy files of every element type round-trip") {
  // Bytes as numpy writes them (little-endian).
  struct Case {
    const char *descr;
    ElementType type;
    std::vector<uint8_t> data;
    std::vector<double> values;
  };
  const std::vector<Case> cases = {
      {"<f4", ElementType::F32, {0, 0, 0xc0, 0x3f, 0, 0, 0x80, 0xbf}, {1.5, -1}},
      {"<f2", ElementType::F16, {0x00, 0x3e, 0x01, 0x00}, {1.5, 5.9604644775390625e-8}},
      {"<u2", ElementType::BF16, {0xc0, 0x3f, 0x80, 0xbf}, {1.5, -1}},
      {"<i8", ElementType::I64, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0, 0, 0, 0, 0}, {-1, 5}},
      {"<i4", ElementType::I32, {0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0x40}, {-2, 1073741824}},
      {"|b1", ElementType::I1, {1, 0}, {1, 0}},
  };
  test::TempDir dir;
  for (const Case &entry : cases) {
    INFO("descr " << entry.descr);
    const std::string dict = std::string("{'descr': '") + entry.descr + "', 'fortran_order': False, 'shape': (2,), }";
    const std::vector<uint8_t> file = npyBytes(dict, entry.data);
    const Tensor tensor = decodeNpy(file, "t.npy");
    CHECK(tensor.elementType() == entry.type);
    CHECK(tensor.shape() == Shape{2});
    CHECK(tensor.toDoubles() == entry.values);
    // Written back, it is numpy's file byte for byte.
    CHECK(encodeNpy(tensor) == file);
    writeNpy(dir.file("t.npy"), tensor);
    const Tensor again = readNpy(dir.file("t.npy"));
    CHECK(again.elementType() == entry.type);
    CHECK(again.toDoubles() == entry.values);
  }
  // numpy bools are 0 and 1; any other byte reads as true.
  const Tensor flags = decodeNpy(npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", {0, 7, 1}), "b");
  CHECK(flags.toDoubles() == std::vector<double>{0, 1, 1});
  CHECK(static_cast<const uint8_t *>(flags.rawData())[1] == 1);
  // Sizes follow the element size.
  CHECK_THROWS_WITH(
      decodeNpy(npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", {1, 2, 3, 4, 5, 6, 7, 8}),
                "i.npy"),
      Contains("i.npy: data size 8 bytes does not match shape [2] (16 bytes)"));
}
