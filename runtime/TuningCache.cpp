//===- TuningCache.cpp - Which kernel variant ran fastest, kept on disk -----===//
#include "runtime/TuningCache.h"

#include "runtime/Error.h"
#include "support/FileIO.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <system_error>
#include <tuple>

namespace fusec::runtime {

namespace {

constexpr const char *kFormat = "fusec-tuning-1";

using Entries = std::map<TuningKey, TuningEntry>;

/// The entries of the cache file at `path` (none if it does not exist).
/// Throws Error or a JSON exception if it cannot be read or parsed.
Entries readEntries(const std::string &path) {
  Entries entries;
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    return entries;
  const std::vector<uint8_t> bytes = readFileBytes(path);
  const nlohmann::json root = nlohmann::json::parse(bytes.begin(), bytes.end());
  if (!root.is_object() || root.value("format", "") != kFormat)
    throw Error("'" + path + "' is not a fusec tuning cache (no \"format\": \"" + kFormat + "\")");
  for (const nlohmann::json &item : root.at("entries")) {
    TuningKey key;
    key.device = item.at("device").get<std::string>();
    key.plan = item.at("plan").get<std::string>();
    key.kernel = item.at("kernel").get<std::string>();
    key.batch = item.at("batch").get<int64_t>();
    key.variants = item.at("variants").get<std::vector<std::string>>();
    TuningEntry entry;
    for (const nlohmann::json &time : item.at("milliseconds"))
      entry.milliseconds.push_back(time.is_null() ? std::numeric_limits<double>::infinity() : time.get<double>());
    entry.choice = item.at("choice").get<std::string>();
    entries[std::move(key)] = std::move(entry);
  }
  return entries;
}

/// Times as JSON: a variant that was not timed (its library missing, or
/// outside the session's tactics) has an infinite time, which JSON cannot
/// spell: null.
nlohmann::json timesToJson(const std::vector<double> &milliseconds) {
  nlohmann::json times = nlohmann::json::array();
  for (double time : milliseconds)
    times.push_back(std::isfinite(time) ? nlohmann::json(time) : nlohmann::json(nullptr));
  return times;
}

nlohmann::json toJson(const Entries &entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto &[key, entry] : entries)
    list.push_back({{"device", key.device},
                    {"plan", key.plan},
                    {"kernel", key.kernel},
                    {"batch", key.batch},
                    {"variants", key.variants},
                    {"milliseconds", timesToJson(entry.milliseconds)},
                    {"choice", entry.choice}});
  return {{"format", kFormat}, {"entries", std::move(list)}};
}

} // namespace

bool TuningKey::operator<(const TuningKey &other) const {
  return std::tie(device, plan, kernel, batch, variants) <
         std::tie(other.device, other.plan, other.kernel, other.batch, other.variants);
}

std::string defaultTuningCachePath() { return userCachePath("FUSEC_TUNING_CACHE", "tuning.json"); }

TuningCache::TuningCache(std::string path, std::string *warning) : path_(std::move(path)) {
  if (path_.empty())
    return;
  try {
    entries_ = readEntries(path_);
  } catch (const std::exception &error) {
    if (warning)
      *warning = "ignoring the tuning cache '" + path_ + "': " + error.what();
  }
}

std::optional<size_t> TuningCache::lookup(const TuningKey &key) const {
  auto found = entries_.find(key);
  if (found == entries_.end())
    return std::nullopt;
  for (size_t i = 0; i < key.variants.size(); ++i)
    if (key.variants[i] == found->second.choice)
      return i;
  return std::nullopt;
}

void TuningCache::store(const TuningKey &key, TuningEntry entry) {
  entries_[key] = entry;
  stored_[key] = std::move(entry);
}

void TuningCache::save() {
  if (path_.empty() || stored_.empty())
    return;
  Entries merged;
  try {
    merged = readEntries(path_);
  } catch (const std::exception &) { // NOLINT(bugprone-empty-catch)
    // Unreadable: replaced by what this cache holds.
  }
  for (const auto &[key, entry] : entries_)
    merged.emplace(key, entry);
  for (const auto &[key, entry] : stored_)
    merged[key] = entry;
  const std::filesystem::path directory = std::filesystem::path(path_).parent_path();
  std::error_code error;
  if (!directory.empty())
    std::filesystem::create_directories(directory, error);
  if (error)
    throw Error("cannot create the directory of the tuning cache '" + path_ + "': " + error.message());
  const std::string text = toJson(merged).dump(1) + "\n";
  writeFileAtomically(path_, std::vector<uint8_t>(text.begin(), text.end()));
  entries_ = std::move(merged);
  stored_.clear();
}

} // namespace fusec::runtime
