//===- FileIO.h - Whole-file reads and atomic writes ------------------------===//
//
// Plans and .npy files are small enough to read and write in one piece. Writes
// go through a temporary file and a rename so that a reader never sees a
// partially written file, whatever fails on the way.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_SUPPORT_FILEIO_H
#define FUSEC_SUPPORT_FILEIO_H

#include "support/ByteRange.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusec::runtime {

/// Returns the contents of the regular file at `path`; throws Error otherwise.
std::vector<uint8_t> readFileBytes(const std::string &path);

/// The contents of the regular file at `path`, read-only, without reading
/// it: the file is mapped, its pages come from the page cache as they are
/// touched (a ~100 MB plan is not copied into fresh memory first). Throws
/// Error like readFileBytes. Files are replaced by rename (as
/// writeFileAtomically does), which leaves a mapping of the old file intact;
/// a file truncated in place while mapped would fault on access.
class MappedFile {
public:
  static std::shared_ptr<const MappedFile> open(const std::string &path);
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();

  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  MappedFile(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  const uint8_t *data_;
  size_t size_;
};

/// Writes `bytes` to `path.tmp.<pid>` in the same directory, fsyncs it and
/// renames it over `path`. On any failure the temporary file is removed and an
/// Error naming `path` and the failing step is thrown; `path` is untouched.
/// SIGINT, SIGTERM or SIGHUP during the write remove the temporary file too
/// (then the process dies of the signal as it would have), and temporaries
/// `path.tmp.<pid>` of processes that no longer exist (killed with SIGKILL)
/// are removed before writing.
void writeFileAtomically(const std::string &path, const std::vector<uint8_t> &bytes);

/// writeFileAtomically for a file given as ranges written one after another
/// (a plan's header and manifest, then weights where the compiler holds
/// them), so that it never has to be assembled in memory.
void writeRangesAtomically(const std::string &path, const std::vector<ByteRange> &ranges);

/// Where fusec keeps `entry` (a file or directory) among the user's caches:
/// $`overrideVariable` when set, else $XDG_CACHE_HOME/fusec/`entry`, else
/// ~/.cache/fusec/`entry`; "" when none of those is set.
std::string userCachePath(const char *overrideVariable, const std::string &entry);

} // namespace fusec::runtime

#endif // FUSEC_SUPPORT_FILEIO_H
