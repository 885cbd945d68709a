//===- FileIOTest.cpp - Atomic writes and whole-file reads ------------------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "support/FileIO.h"

#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

TEST_CASE("writeRangesAtomically writes its ranges one after another") {
  test::TempDir dir;
  const std::string path = dir.file("ranges.bin");
  const std::vector<uint8_t> a = {1, 2}, b(70000, 7);
  writeRangesAtomically(path, {{a.data(), a.size()}, {nullptr, 0}, {b.data(), b.size()}, {a.data(), 1}});
  std::vector<uint8_t> expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  expected.push_back(1);
  CHECK(readFileBytes(path) == expected);
  CHECK(dir.entries() == std::vector<std::string>{"ranges.bin"});
}

TEST_CASE("a mapped file holds the file's bytes, and keeps them when the file is replaced") {
  test::TempDir dir;
  const std::string path = dir.file("mapped.bin");
  std::vector<uint8_t> bytes(3 * 4096 + 5);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 7);
  writeFileAtomically(path, bytes);
  std::shared_ptr<const MappedFile> mapped = MappedFile::open(path);
  REQUIRE(mapped->size() == bytes.size());
  CHECK(std::vector<uint8_t>(mapped->data(), mapped->data() + mapped->size()) == bytes);
  // fusec replaces files by rename: the mapping keeps the old file.
  writeFileAtomically(path, {1, 2, 3});
  CHECK(std::vector<uint8_t>(mapped->data(), mapped->data() + mapped->size()) == bytes);
  CHECK(MappedFile::open(path)->size() == 3);

  writeFileAtomically(dir.file("empty.bin"), {});
  CHECK(MappedFile::open(dir.file("empty.bin"))->size() == 0);
  CHECK_THROWS_WITH(MappedFile::open(dir.file("missing.bin")), Contains("missing.bin"));
  CHECK_THROWS_WITH(MappedFile::open(dir.path()), Contains("not a regular file"));
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

TEST_CASE("a stale temporary file of a dead process is removed by the next write") {
  test::TempDir dir;
  const std::string path = dir.file("model.plan");
  // A process id that certainly no longer exists: a child that has exited
  // and been reaped.
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  writeFileAtomically(path + ".tmp." + std::to_string(child), {1, 2, 3});
  // Temporaries of other files and of a live process (this one) are kept.
  writeFileAtomically(dir.file("other.plan.tmp." + std::to_string(child)), {4});
  writeFileAtomically(dir.file("model.plan.tmp.1"), {5});
  writeFileAtomically(path, {7});
  CHECK(dir.entries() ==
        std::vector<std::string>{"model.plan", "model.plan.tmp.1", "other.plan.tmp." + std::to_string(child)});
}

TEST_CASE("SIGTERM during an atomic write removes the temporary file") {
  test::TempDir dir;
  const std::string path = dir.file("model.plan");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The temporary is a FIFO, so the write blocks until the parent reads:
    // the signal then arrives in the middle of writeFileAtomically.
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    if (::mkfifo(temp.c_str(), 0600) != 0)
      ::_exit(3);
    try {
      writeFileAtomically(path, std::vector<uint8_t>(1 << 20, 0x5a));
    } catch (...) {
    }
    ::_exit(4);
  }
  const std::string temp = path + ".tmp." + std::to_string(child);
  int fifo = -1;
  for (int attempt = 0; attempt < 1000 && fifo < 0; ++attempt) {
    fifo = ::open(temp.c_str(), O_RDONLY | O_NONBLOCK);
    if (fifo < 0)
      ::usleep(10000);
  }
  REQUIRE(fifo >= 0);
  // Once data arrives the child is inside the write, its handlers installed.
  char byte = 0;
  ssize_t got = 0;
  for (int attempt = 0; attempt < 1000 && got <= 0; ++attempt) {
    got = ::read(fifo, &byte, 1);
    if (got <= 0)
      ::usleep(10000);
  }
  REQUIRE(got == 1);
  REQUIRE(::kill(child, SIGTERM) == 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  ::close(fifo);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(dir.entries().empty());
}

TEST_CASE("user cache paths follow the override, then XDG_CACHE_HOME, then HOME") {
  // Restores the environment variables it changes.
  struct SavedVariable {
    std::string name;
    std::optional<std::string> value;
    explicit SavedVariable(std::string variable) : name(std::move(variable)) {
      if (const char *current = std::getenv(name.c_str()))
        value = current;
    }
    ~SavedVariable() {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  };
  SavedVariable overrideVariable("FUSEC_TEST_CACHE_OVERRIDE"), xdg("XDG_CACHE_HOME"), home("HOME");
  ::unsetenv("FUSEC_TEST_CACHE_OVERRIDE");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  CHECK(userCachePath("FUSEC_TEST_CACHE_OVERRIDE", "tuning.json") == "/home/someone/.cache/fusec/tuning.json");
  ::setenv("XDG_CACHE_HOME", "/var/cache/someone", 1);
  CHECK(userCachePath("FUSEC_TEST_CACHE_OVERRIDE", "kernels") == "/var/cache/someone/fusec/kernels");
  ::setenv("FUSEC_TEST_CACHE_OVERRIDE", "/tmp/elsewhere.json", 1);
  CHECK(userCachePath("FUSEC_TEST_CACHE_OVERRIDE", "tuning.json") == "/tmp/elsewhere.json");
  ::unsetenv("FUSEC_TEST_CACHE_OVERRIDE");
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  CHECK(userCachePath("FUSEC_TEST_CACHE_OVERRIDE", "kernels").empty());
}
