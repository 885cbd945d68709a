//===- NpyTest.cpp - Reading and writing .npy files -------------------------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/Npy.h"
#include "runtime/support/FileIO.h"

#include <cstring>
#include <filesystem>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

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
                    Contains("d.npy: unsupported dtype '<f8' (only little-endian float32"));
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
