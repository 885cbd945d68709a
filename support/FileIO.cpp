//===- FileIO.cpp - Whole-file reads and atomic writes ----------------------===//

#include "support/FileIO.h"

#include "runtime/Error.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <iterator>
#include <mutex>
#include <sys/mman.h>
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
  FileDescriptor(FileDescriptor &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileDescriptor &operator=(FileDescriptor &&) = delete;
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

/// The temporary file being written, for the signal handler: a fixed buffer
/// and a flag, because a handler may only make async-signal-safe calls.
char gTempPath[PATH_MAX];
volatile std::sig_atomic_t gTempActive = 0;
/// One atomic write at a time, so that one slot is enough.
std::mutex gWriteMutex;

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void removeTempAndReraise(int signal) {
  if (gTempActive)
    ::unlink(gTempPath);
  gTempActive = 0;
  // Die of the signal as if no handler had been installed.
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

/// While alive, SIGINT, SIGTERM and SIGHUP remove `tempPath` before the
/// process dies of them; the previous handlers are restored afterwards.
class TempFileGuard {
public:
  explicit TempFileGuard(const std::string &tempPath) {
    if (tempPath.size() >= sizeof(gTempPath))
      throw Error("cannot write '" + tempPath + "': path too long");
    std::memcpy(gTempPath, tempPath.c_str(), tempPath.size() + 1);
    gTempActive = 1;
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = removeTempAndReraise;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      ::sigaction(kCleanupSignals[i], nullptr, &previous_[i]);
      // A signal the process ignores (nohup) stays ignored.
      if (previous_[i].sa_handler != SIG_IGN)
        ::sigaction(kCleanupSignals[i], &action, nullptr);
    }
  }
  TempFileGuard(const TempFileGuard &) = delete;
  TempFileGuard &operator=(const TempFileGuard &) = delete;
  ~TempFileGuard() {
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i)
      ::sigaction(kCleanupSignals[i], &previous_[i], nullptr);
    gTempActive = 0;
  }

private:
  struct sigaction previous_[std::size(kCleanupSignals)];
};

/// Removes `<name>.tmp.<pid>` files next to `path` whose process no longer
/// exists: what a write killed by SIGKILL or a crash left behind.
void removeStaleTempFiles(const std::string &path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR *listing = ::opendir(dir.c_str());
  if (!listing)
    return;
  while (const dirent *entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
      continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const long pid = std::stol(digits);
    if (pid <= 0 || pid == static_cast<long>(::getpid()))
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(listing);
}

void writeAll(int fd, ByteRange bytes, const std::string &path) {
  size_t written = 0;
  while (written < bytes.size) {
    ssize_t n = ::write(fd, bytes.data + written, bytes.size - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw Error(systemError(path, "write"));
    }
    written += static_cast<size_t>(n);
  }
}

/// Opens the regular file at `path` for reading and stores its size; throws
/// Error naming `path` if it cannot be opened or is not a regular file.
FileDescriptor openRegularFile(const std::string &path, size_t &size) {
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0)
    throw Error(systemError(path, "open"));
  struct stat info;
  if (::fstat(file.get(), &info) != 0)
    throw Error(systemError(path, "stat"));
  if (!S_ISREG(info.st_mode))
    throw Error("cannot read '" + path + "': not a regular file");
  size = static_cast<size_t>(info.st_size);
  return file;
}

} // namespace

std::vector<uint8_t> readFileBytes(const std::string &path) {
  size_t fileSize = 0;
  FileDescriptor file = openRegularFile(path, fileSize);
  std::vector<uint8_t> bytes(fileSize);
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

std::shared_ptr<const MappedFile> MappedFile::open(const std::string &path) {
  size_t size = 0;
  FileDescriptor file = openRegularFile(path, size);
  if (size == 0) // mmap refuses empty mappings
    return std::shared_ptr<const MappedFile>(new MappedFile(nullptr, 0));
  void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.get(), 0);
  if (mapped == MAP_FAILED)
    throw Error(systemError(path, "map"));
#ifdef MADV_POPULATE_READ
  // One call maps every page instead of a fault per few pages; advice only.
  (void)::madvise(mapped, size, MADV_POPULATE_READ);
#endif
  return std::shared_ptr<const MappedFile>(new MappedFile(static_cast<const uint8_t *>(mapped), size));
}

MappedFile::~MappedFile() {
  if (data_)
    ::munmap(const_cast<uint8_t *>(data_), size_); // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

void writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes) {
  writeRangesAtomically(path, {ByteRange{bytes.data(), bytes.size()}});
}

void writeRangesAtomically(const std::string &path, const std::vector<ByteRange> &ranges) {
  const std::string tempPath = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  std::lock_guard<std::mutex> lock(gWriteMutex);
  removeStaleTempFiles(path);
  TempFileGuard guard(tempPath);
  FileDescriptor file(::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (file.get() < 0)
    throw Error(systemError(path, "create temporary file for"));
  try {
    for (const ByteRange &range : ranges)
      writeAll(file.get(), range, path);
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

std::string userCachePath(const char *overrideVariable, const std::string &entry) {
  if (const char *path = std::getenv(overrideVariable))
    return path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return std::string(xdg) + "/fusec/" + entry;
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/fusec/" + entry;
  return "";
}

} // namespace fusec::runtime
