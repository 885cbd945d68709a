//===- JsonFieldReader.h - Typed, located access to manifest fields ---------===//
//
// The manifest is untrusted input. Every field the reader needs is fetched
// through this class, which checks presence and type and reports failures as
// "<file>: <path>: <reason>", e.g.
//   model.plan: kernels[2].ops[0]: missing required field 'op'
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_JSONFIELDREADER_H
#define FUSEC_RUNTIME_PLAN_JSONFIELDREADER_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace fusec::runtime {

class JsonFieldReader {
public:
  /// `path` locates `object` in the manifest ("" for the root). Throws if
  /// `object` is not a JSON object.
  JsonFieldReader(const nlohmann::json &object, std::string sourceName, std::string path);

  bool has(const char *key) const;
  /// The raw value of a required field.
  const nlohmann::json &field(const char *key) const;

  std::string getString(const char *key) const;
  int64_t getInt(const char *key) const;
  /// A required integer that must be >= 0.
  uint64_t getUnsigned(const char *key) const;
  std::vector<int64_t> getIntArray(const char *key) const;
  /// An array of non-negative integers (ids and indices).
  std::vector<size_t> getIndexArray(const char *key) const;
  /// A required array; use element() to read object entries.
  const nlohmann::json &getArray(const char *key) const;
  JsonFieldReader getObject(const char *key) const;
  /// Entry `index` of the array field `key`, which must be an object.
  JsonFieldReader element(const char *key, size_t index) const;

  /// The object itself.
  const nlohmann::json &value() const { return object_; }
  const std::string &sourceName() const { return sourceName_; }
  /// "<path>.<key>", the location of a field for messages.
  std::string fieldPath(const char *key) const;
  [[noreturn]] void fail(const std::string &reason) const;

private:
  [[noreturn]] void failField(const char *key, const std::string &reason) const;

  const nlohmann::json &object_;
  std::string sourceName_;
  std::string path_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_JSONFIELDREADER_H
