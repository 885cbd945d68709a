//===- Npy.cpp - Read and write NumPy .npy files ----------------------------===//
//
// Format: "\x93NUMPY", major, minor, header length (uint16 LE for 1.0, uint32
// LE for 2.0), then an ASCII Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a final newline so the data starts 64-byte aligned,
// then the raw data.
//
//===----------------------------------------------------------------------===//

#include "runtime/Npy.h"

#include "runtime/Error.h"
#include "support/CheckedMath.h"
#include "support/FileIO.h"

#include <cstring>
#include <map>
#include <optional>

namespace fusec::runtime {

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicSize = 6;
constexpr size_t kNpyAlignment = 64;

/// The descr of each element type. numpy has no bfloat16: a bf16 tensor is
/// stored as its 16-bit patterns in a uint16 array (ml_dtypes can view it
/// as bfloat16), so every '<u2' array reads as bf16.
const char *descrOf(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "<f4";
  case ElementType::F16:
    return "<f2";
  case ElementType::BF16:
    return "<u2";
  case ElementType::I64:
    return "<i8";
  case ElementType::I32:
    return "<i4";
  case ElementType::I1:
    return "|b1";
  case ElementType::I8:
    return "|i1";
  case ElementType::U8:
    return "|u1";
  }
  return "?";
}

std::optional<ElementType> typeOfDescr(const std::string &descr) {
  for (ElementType type : {ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::I64, ElementType::I32,
                           ElementType::I1, ElementType::I8, ElementType::U8})
    if (descr == descrOf(type))
      return type;
  return std::nullopt;
}

/// One value of the header dict: a string, a bool or a tuple of integers.
struct HeaderValue {
  enum class Kind { String, Bool, Tuple } kind = Kind::String;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

/// Parses the restricted Python literal syntax numpy writes.
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &sourceName) : text_(text), sourceName_(sourceName) {}

  std::map<std::string, HeaderValue> parseDict() {
    expect('{');
    std::map<std::string, HeaderValue> dict;
    while (!consume('}')) {
      std::string key = parseString();
      expect(':');
      dict[key] = parseValue();
      // numpy writes a comma after every entry, but it is optional last.
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the header dict");
    return dict;
  }

private:
  [[noreturn]] void fail(const std::string &reason) const {
    throw Error(sourceName_ + ": malformed .npy header: " + reason + " in \"" + text_ + "\"");
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }

  bool consumeWord(const char *word) {
    skipSpace();
    size_t length = std::strlen(word);
    if (text_.compare(pos_, length, word) != 0)
      return false;
    pos_ += length;
    return true;
  }

  std::string parseString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail("expected a quoted string");
    const char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos)
      fail("unterminated string");
    std::string value = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return value;
  }

  int64_t parseInt() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
      ++pos_;
    if (start == pos_ || pos_ - start > 15)
      fail("expected a dimension size");
    return std::stoll(text_.substr(start, pos_ - start));
  }

  HeaderValue parseValue() {
    HeaderValue value;
    skipSpace();
    for (bool flag : {true, false}) {
      if (consumeWord(flag ? "True" : "False")) {
        value.kind = HeaderValue::Kind::Bool;
        value.flag = flag;
        return value;
      }
    }
    if (consume('(')) {
      value.kind = HeaderValue::Kind::Tuple;
      while (!consume(')')) {
        value.ints.push_back(parseInt());
        if (!consume(',')) {
          expect(')');
          break;
        }
      }
      return value;
    }
    value.text = parseString();
    return value;
  }

  const std::string &text_;
  const std::string &sourceName_;
  size_t pos_ = 0;
};

const HeaderValue &headerField(const std::map<std::string, HeaderValue> &dict, const char *key, HeaderValue::Kind kind,
                               const std::string &sourceName) {
  auto it = dict.find(key);
  if (it == dict.end() || it->second.kind != kind)
    throw Error(sourceName + ": malformed .npy header: missing or invalid '" + key + "'");
  return it->second;
}

[[noreturn]] void failDecoding(const std::string &sourceName, const std::string &reason) {
  throw Error(sourceName + ": " + reason);
}

uint64_t loadLE(const uint8_t *in, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

} // namespace

Tensor decodeNpy(const std::vector<uint8_t> &bytes, const std::string &sourceName) {
  auto fail = [&](const std::string &reason) { failDecoding(sourceName, reason); };
  if (bytes.size() < kNpyMagicSize + 2 || std::memcmp(bytes.data(), kNpyMagic, kNpyMagicSize) != 0)
    fail("not a .npy file (bad magic)");
  const unsigned major = bytes[kNpyMagicSize];
  const unsigned minor = bytes[kNpyMagicSize + 1];
  if ((major != 1 && major != 2) || minor != 0)
    fail(".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
         " is not supported (only 1.0 and 2.0)");
  const size_t lengthBytes = major == 1 ? 2 : 4;
  const size_t prefix = kNpyMagicSize + 2 + lengthBytes;
  if (bytes.size() < prefix)
    fail("truncated .npy header");
  const uint64_t headerLength = loadLE(bytes.data() + kNpyMagicSize + 2, lengthBytes);
  if (headerLength > bytes.size() - prefix)
    fail("truncated .npy header");
  const std::string header(bytes.begin() + prefix, bytes.begin() + prefix + headerLength);

  const auto dict = HeaderParser(header, sourceName).parseDict();
  for (const auto &entry : dict)
    if (entry.first != "descr" && entry.first != "fortran_order" && entry.first != "shape")
      fail("unexpected .npy header key '" + entry.first + "'");
  const std::string &descr = headerField(dict, "descr", HeaderValue::Kind::String, sourceName).text;
  const std::optional<ElementType> type = typeOfDescr(descr);
  if (!type)
    fail("unsupported dtype '" + descr +
         "' (supported: '<f4' f32, '<f2' f16, '<u2' bf16 bit patterns, '<i8' i64, '<i4' i32, '|b1' i1, '|i1' i8, '|u1' "
         "u8)");
  if (headerField(dict, "fortran_order", HeaderValue::Kind::Bool, sourceName).flag)
    fail("Fortran-order arrays are not supported (save in C order)");
  Shape shape = headerField(dict, "shape", HeaderValue::Kind::Tuple, sourceName).ints;

  const uint64_t dataBytes = bytes.size() - prefix - headerLength;
  const std::optional<int64_t> elements = checkedElementCount(shape);
  const std::optional<int64_t> bytesNeeded =
      elements ? checkedMul(*elements, static_cast<int64_t>(elementSize(*type))) : std::nullopt;
  if (!bytesNeeded)
    fail("shape " + formatShape(shape) + " is too large");
  const uint64_t expected = static_cast<uint64_t>(*bytesNeeded);
  if (dataBytes != expected)
    fail("data size " + std::to_string(dataBytes) + " bytes does not match " + "shape " + formatShape(shape) + " (" +
         std::to_string(expected) + " bytes)");
  // Plans only run on little-endian hosts, so the data is copied as is.
  Tensor tensor =
      Tensor::fromBytes(std::move(shape), *type, bytes.data() + prefix + headerLength, static_cast<size_t>(expected));
  if (*type == ElementType::I1) {
    // numpy's bools are bytes 0 and 1; any other byte means true.
    auto *flags = static_cast<uint8_t *>(tensor.rawData());
    for (size_t i = 0; i < tensor.byteSize(); ++i)
      flags[i] = flags[i] != 0;
  }
  return tensor;
}

Tensor readNpy(const std::string &path) { return decodeNpy(readFileBytes(path), path); }

std::vector<uint8_t> encodeNpy(const Tensor &tensor) {
  // The dict is exactly what numpy writes: keys sorted, Python tuple syntax.
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i)
    shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  shape += tensor.shape().size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descrOf(tensor.elementType()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";

  // Like numpy, pad with at least one space so that the data is aligned.
  unsigned major = 1;
  size_t prefix = kNpyMagicSize + 2 + 2;
  auto padFor = [&](size_t prefixSize) { return kNpyAlignment - (prefixSize + header.size() + 1) % kNpyAlignment; };
  if (header.size() + padFor(prefix) + 1 > 0xffff) {
    major = 2;
    prefix = kNpyMagicSize + 2 + 4;
  }
  header += std::string(padFor(prefix), ' ') + "\n";

  std::vector<uint8_t> bytes(prefix + header.size() + tensor.byteSize());
  std::memcpy(bytes.data(), kNpyMagic, kNpyMagicSize);
  bytes[kNpyMagicSize] = static_cast<uint8_t>(major);
  bytes[kNpyMagicSize + 1] = 0;
  for (size_t i = 0; i < prefix - kNpyMagicSize - 2; ++i)
    bytes[kNpyMagicSize + 2 + i] = static_cast<uint8_t>(header.size() >> (8 * i));
  std::memcpy(bytes.data() + prefix, header.data(), header.size());
  if (tensor.byteSize() > 0)
    std::memcpy(bytes.data() + prefix + header.size(), tensor.rawData(), tensor.byteSize());
  return bytes;
}

void writeNpy(const std::string &path, const Tensor &tensor) { writeFileAtomically(path, encodeNpy(tensor)); }

} // namespace fusec::runtime
