//===- FileIO.cpp - Whole-file reads and atomic writes ----------------------===//

#include "runtime/support/FileIO.h"

#include "runtime/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fusec::runtime {

namespace {

std::string systemError(const std::string &path, const std::string &step) {
  return "cannot " + step + " '" + path + "': " + std::strerror(errno);
}

/// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }
  /// Closes now so that the error of close() itself can be reported.
  int release() {
    int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

private:
  int fd_;
};

void writeAll(int fd, const std::vector<uint8_t> &bytes, const std::string &path) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw Error(systemError(path, "write"));
    }
    written += static_cast<size_t>(n);
  }
}

} // namespace

std::vector<uint8_t> readFileBytes(const std::string &path) {
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0)
    throw Error(systemError(path, "open"));
  struct stat info;
  if (::fstat(file.get(), &info) != 0)
    throw Error(systemError(path, "stat"));
  if (!S_ISREG(info.st_mode))
    throw Error("cannot read '" + path + "': not a regular file");

  std::vector<uint8_t> bytes(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(file.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw Error(systemError(path, "read"));
    if (n == 0)
      throw Error("cannot read '" + path + "': file shrank while reading");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

void writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes) {
  const std::string tempPath = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  FileDescriptor file(::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (file.get() < 0)
    throw Error(systemError(path, "create temporary file for"));
  try {
    writeAll(file.get(), bytes, path);
    if (::fsync(file.get()) != 0)
      throw Error(systemError(path, "fsync"));
    if (file.release() != 0)
      throw Error(systemError(path, "close"));
    if (::rename(tempPath.c_str(), path.c_str()) != 0)
      throw Error(systemError(path, "rename temporary file onto"));
  } catch (...) {
    ::unlink(tempPath.c_str());
    throw;
  }
}

} // namespace fusec::runtime
