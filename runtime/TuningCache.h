//===- TuningCache.h - Which kernel variant ran fastest, kept on disk -------===//
//
// fuserun --tune (DeviceOptions::tune) times the compiled variants of a
// plan's conv/GEMM kernels and keeps the fastest. The choice holds for one
// plan source, kernel, run batch, set of variants and device (with its
// driver), and is written to a JSON file so that later sessions on that
// device reuse it without timing anything:
//
//   {"format": "fusec-tuning-1",
//    "entries": [{"device": "NVIDIA H200 (sm_90), driver 13.0",
//                 "plan": "<source_hash>", "kernel": "sk4_conv_relu", "batch": 8,
//                 "variants": ["#fuse.config<...>", ...],
//                 "milliseconds": [0.021, 0.017, 0.030],
//                 "choice": "#fuse.config<...>"}]}
//
// The choice is stored as the variant's config, not its index, and an entry
// applies only to a kernel whose variants are exactly those listed, so a
// recompiled plan never inherits a choice made among other kernels. Saving
// merges with what the file holds by then (another process may have tuned
// other kernels) and replaces it atomically (temporary file, then rename).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_TUNINGCACHE_H
#define FUSEC_RUNTIME_TUNINGCACHE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusec::runtime {

/// What identifies one tuning decision.
struct TuningKey {
  std::string device;
  std::string plan;
  std::string kernel;
  int64_t batch = 1;
  /// The configs of the kernel's variants, in plan order (variant 0 first).
  std::vector<std::string> variants;

  bool operator<(const TuningKey &other) const;
};

/// One decision: the configs' timings and the config that won.
struct TuningEntry {
  std::vector<double> milliseconds;
  std::string choice;
};

/// The default file: $FUSEC_TUNING_CACHE, else
/// $XDG_CACHE_HOME/fusec/tuning.json, else ~/.cache/fusec/tuning.json.
std::string defaultTuningCachePath();

class TuningCache {
public:
  /// An empty cache kept in memory only.
  TuningCache() = default;
  /// Reads `path` if it exists. A file that cannot be read or parsed is
  /// ignored (it will be replaced when the cache is saved) and `warning`
  /// says why.
  explicit TuningCache(std::string path, std::string *warning = nullptr);

  const std::string &path() const { return path_; }
  /// The variant index (into key.variants) chosen for `key`, if any.
  std::optional<size_t> lookup(const TuningKey &key) const;
  void store(const TuningKey &key, TuningEntry entry);
  size_t size() const { return entries_.size(); }

  /// Writes the entries stored since loading, merged into what the file
  /// holds now, atomically. Throws Error naming the file if it cannot.
  /// Does nothing without a path or without new entries.
  void save();

private:
  std::string path_;
  std::map<TuningKey, TuningEntry> entries_;
  /// Keys stored since loading (written over the file's at save()).
  std::map<TuningKey, TuningEntry> stored_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_TUNINGCACHE_H
