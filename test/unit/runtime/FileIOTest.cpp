//===- FileIOTest.cpp - Atomic writes and whole-file reads ------------------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/support/FileIO.h"

#include <filesystem>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

TEST_CASE("writeFileAtomically writes, replaces and leaves no temp file") {
  test::TempDir dir;
  const std::string path = dir.file("out.bin");
  writeFileAtomically(path, {1, 2, 3});
  CHECK(readFileBytes(path) == std::vector<uint8_t>{1, 2, 3});
  writeFileAtomically(path, {9});
  CHECK(readFileBytes(path) == std::vector<uint8_t>{9});
  writeFileAtomically(dir.file("empty.bin"), {});
  CHECK(readFileBytes(dir.file("empty.bin")).empty());
  CHECK(dir.entries() == std::vector<std::string>{"empty.bin", "out.bin"});
}

TEST_CASE("a failed atomic write removes its temp file and names the path") {
  test::TempDir dir;
  // Renaming a file over a directory fails after the data has been written.
  const std::string blocked = dir.file("blocked");
  std::filesystem::create_directory(blocked);
  CHECK_THROWS_WITH(writeFileAtomically(blocked, {1, 2, 3}),
                    Contains("cannot rename temporary file onto '" + blocked + "'"));
  CHECK(dir.entries() == std::vector<std::string>{"blocked"});
  CHECK(std::filesystem::is_empty(blocked));

  const std::string missing = dir.file("no/such/dir/out.bin");
  CHECK_THROWS_WITH(writeFileAtomically(missing, {1}), Contains("cannot create temporary file for '" + missing + "'"));
  CHECK(dir.entries() == std::vector<std::string>{"blocked"});
}

TEST_CASE("readFileBytes rejects missing files and directories") {
  test::TempDir dir;
  CHECK_THROWS_WITH(readFileBytes(dir.file("nope")), Contains("cannot open '" + dir.file("nope") + "'"));
  CHECK_THROWS_WITH(readFileBytes(dir.path()), Contains("not a regular file"));
}
