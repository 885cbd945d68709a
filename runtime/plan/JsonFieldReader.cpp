//===- JsonFieldReader.cpp - Typed, located access to manifest fields -------===//

#include "runtime/plan/JsonFieldReader.h"

#include "runtime/Error.h"

#include <limits>

namespace fusec::runtime {

using nlohmann::json;

namespace {

bool isInt64(const json &value) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return value.is_number_integer();
}

} // namespace

JsonFieldReader::JsonFieldReader(const json &object, std::string sourceName, std::string path)
    : object_(object), sourceName_(std::move(sourceName)), path_(std::move(path)) {
  if (!object_.is_object())
    fail(std::string("expected a JSON object, found ") + object_.type_name());
}

bool JsonFieldReader::has(const char *key) const { return object_.contains(key); }

std::string JsonFieldReader::fieldPath(const char *key) const {
  return path_.empty() ? std::string(key) : path_ + "." + key;
}

void JsonFieldReader::fail(const std::string &reason) const {
  throw Error(sourceName_ + ": " + (path_.empty() ? "manifest" : path_) + ": " + reason);
}

void JsonFieldReader::failField(const char *key, const std::string &reason) const {
  throw Error(sourceName_ + ": " + fieldPath(key) + ": " + reason);
}

const json &JsonFieldReader::field(const char *key) const {
  auto it = object_.find(key);
  if (it == object_.end())
    fail(std::string("missing required field '") + key + "'");
  return *it;
}

std::string JsonFieldReader::getString(const char *key) const {
  const json &value = field(key);
  if (!value.is_string())
    failField(key, std::string("expected a string, found ") + value.type_name());
  return value.get<std::string>();
}

int64_t JsonFieldReader::getInt(const char *key) const {
  const json &value = field(key);
  if (!isInt64(value))
    failField(key, "expected an integer, found " + value.dump());
  return value.get<int64_t>();
}

uint64_t JsonFieldReader::getUnsigned(const char *key) const {
  int64_t value = getInt(key);
  if (value < 0)
    failField(key, "expected a non-negative integer, found " + std::to_string(value));
  return static_cast<uint64_t>(value);
}

std::vector<int64_t> JsonFieldReader::getIntArray(const char *key) const {
  const json &value = getArray(key);
  std::vector<int64_t> result;
  result.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (!isInt64(value[i]))
      failField(key, "entry " + std::to_string(i) + ": expected an integer, found " + value[i].dump());
    result.push_back(value[i].get<int64_t>());
  }
  return result;
}

std::vector<size_t> JsonFieldReader::getIndexArray(const char *key) const {
  std::vector<size_t> result;
  for (int64_t value : getIntArray(key)) {
    if (value < 0)
      failField(key, "expected non-negative indices, found " + std::to_string(value));
    result.push_back(static_cast<size_t>(value));
  }
  return result;
}

const json &JsonFieldReader::getArray(const char *key) const {
  const json &value = field(key);
  if (!value.is_array())
    failField(key, std::string("expected an array, found ") + value.type_name());
  return value;
}

JsonFieldReader JsonFieldReader::getObject(const char *key) const {
  return JsonFieldReader(field(key), sourceName_, fieldPath(key));
}

JsonFieldReader JsonFieldReader::element(const char *key, size_t index) const {
  return JsonFieldReader(getArray(key).at(index), sourceName_, fieldPath(key) + "[" + std::to_string(index) + "]");
}

} // namespace fusec::runtime
