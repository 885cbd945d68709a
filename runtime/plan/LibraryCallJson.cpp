//===- LibraryCallJson.cpp - Library variants in the manifest -------------===//

#include "runtime/plan/LibraryCallJson.h"

#include <array>

namespace fusec::runtime {

namespace {

nlohmann::json batchLinearToJson(const BatchLinear &value) {
  return {{"per_batch", value.perBatch}, {"fixed", value.fixed}};
}

BatchLinear readBatchLinearField(const JsonFieldReader &object, const char *key) {
  JsonFieldReader value = object.getObject(key);
  return BatchLinear{value.getInt("per_batch"), value.getInt("fixed")};
}

bool readBool(const JsonFieldReader &object, const char *key) {
  const nlohmann::json &value = object.field(key);
  if (!value.is_boolean())
    object.fail(object.fieldPath(key) + " must be true or false, got " + value.dump());
  return value.get<bool>();
}

double readNumber(const JsonFieldReader &object, const char *key) {
  const nlohmann::json &value = object.field(key);
  if (!value.is_number())
    object.fail(object.fieldPath(key) + " must be a number, got " + value.dump());
  return value.get<double>();
}

LibraryMatmul::Activation readActivation(const JsonFieldReader &matmul) {
  const std::string name = matmul.getString("activation");
  for (auto candidate :
       {LibraryMatmul::Activation::None, LibraryMatmul::Activation::Relu, LibraryMatmul::Activation::GeluTanh})
    if (name == activationName(candidate))
      return candidate;
  matmul.fail("unknown activation '" + name + "' (expected none, relu or gelu_tanh)");
}

LibraryMatmul::Compute readCompute(const JsonFieldReader &matmul) {
  const std::string name = matmul.getString("compute");
  for (auto candidate : {LibraryMatmul::Compute::F32, LibraryMatmul::Compute::Tf32})
    if (name == computeName(candidate))
      return candidate;
  matmul.fail("unknown compute '" + name + "' (expected f32 or tf32)");
}

nlohmann::json pairToJson(const std::array<int64_t, 2> &pair) { return nlohmann::json::array({pair[0], pair[1]}); }

std::array<int64_t, 2> readPair(const JsonFieldReader &object, const char *key) {
  const nlohmann::json &value = object.field(key);
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() || !value[1].is_number_integer())
    object.fail(object.fieldPath(key) + " must be two integers (height, width), got " + value.dump());
  return {value[0].get<int64_t>(), value[1].get<int64_t>()};
}

LibraryConv::Layout readLayout(const JsonFieldReader &conv) {
  const std::string name = conv.getString("layout");
  for (auto candidate : {LibraryConv::Layout::Nchw, LibraryConv::Layout::Nhwc})
    if (name == layoutName(candidate))
      return candidate;
  conv.fail("unknown layout '" + name + "' (expected nchw or nhwc)");
}

nlohmann::json matmulToJson(const LibraryMatmul &m) {
  nlohmann::json matmul = {{"a", m.a},
                           {"b", m.b},
                           {"d", m.d},
                           {"m", batchLinearToJson(m.m)},
                           {"n", m.n},
                           {"k", m.k},
                           {"batch_count", batchLinearToJson(m.batchCount)},
                           {"strides", {{"a", m.strideA}, {"b", m.strideB}, {"c", m.strideC}, {"d", m.strideD}}},
                           {"trans_a", m.transA},
                           {"trans_b", m.transB},
                           {"alpha", m.alpha},
                           {"beta", m.beta},
                           {"activation", activationName(m.activation)},
                           {"compute", computeName(m.compute)}};
  if (m.bias)
    matmul["bias"] = *m.bias;
  if (m.c)
    matmul["c"] = *m.c;
  return matmul;
}

nlohmann::json convToJson(const LibraryConv &c) {
  nlohmann::json conv = {{"input", c.input},
                         {"filter", c.filter},
                         {"output", c.output},
                         {"n", batchLinearToJson(c.n)},
                         {"c", c.c},
                         {"h", c.h},
                         {"w", c.w},
                         {"k", c.k},
                         {"r", c.r},
                         {"s", c.s},
                         {"groups", c.groups},
                         {"pad_begin", pairToJson(c.padBegin)},
                         {"pad_end", pairToJson(c.padEnd)},
                         {"stride", pairToJson(c.stride)},
                         {"dilation", pairToJson(c.dilation)},
                         {"layout", layoutName(c.layout)},
                         {"alpha", c.alpha},
                         {"beta", c.beta},
                         {"activation", activationName(c.activation)},
                         {"compute", computeName(c.compute)}};
  if (c.bias)
    conv["bias"] = *c.bias;
  if (c.residual)
    conv["residual"] = *c.residual;
  return conv;
}

LibraryMatmul readMatmul(const JsonFieldReader &matmul) {
  LibraryMatmul m;
  m.a = static_cast<size_t>(matmul.getUnsigned("a"));
  m.b = static_cast<size_t>(matmul.getUnsigned("b"));
  m.d = static_cast<size_t>(matmul.getUnsigned("d"));
  if (matmul.has("bias"))
    m.bias = static_cast<size_t>(matmul.getUnsigned("bias"));
  if (matmul.has("c"))
    m.c = static_cast<size_t>(matmul.getUnsigned("c"));
  m.m = readBatchLinearField(matmul, "m");
  m.n = matmul.getInt("n");
  m.k = matmul.getInt("k");
  m.batchCount = readBatchLinearField(matmul, "batch_count");
  JsonFieldReader strides = matmul.getObject("strides");
  m.strideA = strides.getInt("a");
  m.strideB = strides.getInt("b");
  m.strideC = strides.getInt("c");
  m.strideD = strides.getInt("d");
  m.transA = readBool(matmul, "trans_a");
  m.transB = readBool(matmul, "trans_b");
  m.alpha = readNumber(matmul, "alpha");
  m.beta = readNumber(matmul, "beta");
  m.activation = readActivation(matmul);
  m.compute = readCompute(matmul);
  return m;
}

LibraryConv readConv(const JsonFieldReader &conv) {
  LibraryConv c;
  c.input = static_cast<size_t>(conv.getUnsigned("input"));
  c.filter = static_cast<size_t>(conv.getUnsigned("filter"));
  c.output = static_cast<size_t>(conv.getUnsigned("output"));
  if (conv.has("bias"))
    c.bias = static_cast<size_t>(conv.getUnsigned("bias"));
  if (conv.has("residual"))
    c.residual = static_cast<size_t>(conv.getUnsigned("residual"));
  c.n = readBatchLinearField(conv, "n");
  c.c = conv.getInt("c");
  c.h = conv.getInt("h");
  c.w = conv.getInt("w");
  c.k = conv.getInt("k");
  c.r = conv.getInt("r");
  c.s = conv.getInt("s");
  c.groups = conv.getInt("groups");
  c.padBegin = readPair(conv, "pad_begin");
  c.padEnd = readPair(conv, "pad_end");
  c.stride = readPair(conv, "stride");
  c.dilation = readPair(conv, "dilation");
  c.layout = readLayout(conv);
  c.alpha = readNumber(conv, "alpha");
  c.beta = readNumber(conv, "beta");
  c.activation = readActivation(conv);
  c.compute = readCompute(conv);
  return c;
}

} // namespace

nlohmann::json libraryCallToJson(const LibraryCall &call) {
  nlohmann::json entry = {{"library", call.library}};
  if (call.matmul)
    entry["matmul"] = matmulToJson(*call.matmul);
  if (call.conv)
    entry["conv"] = convToJson(*call.conv);
  return entry;
}

LibraryCall readLibraryCall(const JsonFieldReader &entry) {
  LibraryCall call;
  call.library = entry.getString("library");
  // The operation is named by its key; which library runs which the
  // verifier checks.
  if (entry.has("matmul") == entry.has("conv"))
    entry.fail("a library variant holds one of \"matmul\" and \"conv\"");
  if (entry.has("matmul"))
    call.matmul = readMatmul(entry.getObject("matmul"));
  else
    call.conv = readConv(entry.getObject("conv"));
  return call;
}

} // namespace fusec::runtime
