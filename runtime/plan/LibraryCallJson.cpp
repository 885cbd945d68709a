//===- LibraryCallJson.cpp - Library variants in the manifest -------------===//

#include "runtime/plan/LibraryCallJson.h"

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

} // namespace

nlohmann::json libraryCallToJson(const LibraryCall &call) {
  const LibraryMatmul &m = call.matmul;
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
  return {{"library", call.library}, {"matmul", std::move(matmul)}};
}

LibraryCall readLibraryCall(const JsonFieldReader &entry) {
  LibraryCall call;
  call.library = entry.getString("library");
  JsonFieldReader matmul = entry.getObject("matmul");
  LibraryMatmul &m = call.matmul;
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
  return call;
}

} // namespace fusec::runtime
