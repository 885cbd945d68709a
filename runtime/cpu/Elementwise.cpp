//===- Elementwise.cpp - Unary activations and broadcasting binary ops ------===//
//
// Relu, Sigmoid, Tanh, Erf, Sqrt, Gelu, Clip, Neg, Exp, Log, Abs, Reciprocal,
// LeakyRelu, HardSigmoid, HardSwish: one input, same-shape result.
// Add, Sub, Mul, Div, Pow, Min, Max, Mod: numpy broadcasting of both operands.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "support/ScalarOps.h"

#include <algorithm>
#include <cmath>

namespace fusec::runtime::cpu {

namespace {

template <typename Fn> void applyUnary(const OpContext &context, Fn fn) {
  const ConstView &x = context.operand(0);
  context.expectResultShape(x.shape);
  float *y = context.result().data;
  const int64_t count = numElements(x.shape);
  for (int64_t i = 0; i < count; ++i)
    y[i] = fn(x.data[i]);
}

void relu(const OpContext &context) {
  // std::max(x, 0) keeps NaN, as ONNX and PyTorch do.
  applyUnary(context, [](float x) { return std::max(x, 0.0f); });
}

void sigmoid(const OpContext &context) {
  applyUnary(context, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
}

void tanhOp(const OpContext &context) {
  applyUnary(context, [](float x) { return std::tanh(x); });
}

void erfOp(const OpContext &context) {
  applyUnary(context, [](float x) { return std::erf(x); });
}

void sqrtOp(const OpContext &context) {
  applyUnary(context, [](float x) { return std::sqrt(x); });
}

void gelu(const OpContext &context) {
  const std::string approximate = context.stringAttr("approximate");
  if (approximate == "none") {
    applyUnary(context, [](float x) { return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2))); });
  } else if (approximate == "tanh") {
    const float kSqrt2OverPi = static_cast<float>(M_2_SQRTPI * M_SQRT1_2);
    applyUnary(context, [=](float x) {
      const float inner = kSqrt2OverPi * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + std::tanh(inner));
    });
  } else {
    context.fail("attribute 'approximate' must be \"none\" or \"tanh\", not \"" + approximate + "\"");
  }
}

void clip(const OpContext &context) {
  const float low = context.optionalFloatAttr("min").value_or(-INFINITY);
  const float high = context.optionalFloatAttr("max").value_or(INFINITY);
  applyUnary(context, [=](float x) { return std::min(std::max(x, low), high); });
}

void leakyRelu(const OpContext &context) {
  const float alpha = context.floatAttr("alpha");
  applyUnary(context, [=](float x) { return x >= 0.0f ? x : alpha * x; });
}

void hardSigmoid(const OpContext &context) {
  const float alpha = context.floatAttr("alpha"), beta = context.floatAttr("beta");
  applyUnary(context, [=](float x) { return std::min(std::max(alpha * x + beta, 0.0f), 1.0f); });
}

void hardSwish(const OpContext &context) {
  applyUnary(context, [](float x) { return x * std::min(std::max(x * (1.0f / 6.0f) + 0.5f, 0.0f), 1.0f); });
}

template <typename Fn> void applyBinary(const OpContext &context, Fn fn) {
  const ConstView &a = context.operand(0);
  const ConstView &b = context.operand(1);
  std::optional<Shape> shape = broadcastShapes(a.shape, b.shape);
  if (!shape)
    context.fail("operand shapes " + formatShape(a.shape) + " and " + formatShape(b.shape) + " do not broadcast");
  context.expectResultShape(*shape);
  const Strides stridesA = broadcastStrides(a.shape, *shape);
  const Strides stridesB = broadcastStrides(b.shape, *shape);
  const int64_t rowLength = shape->empty() ? 1 : shape->back();
  const int64_t stepA = shape->empty() ? 0 : stridesA.back();
  const int64_t stepB = shape->empty() ? 0 : stridesB.back();
  float *y = context.result().data;
  forEachRow(*shape, stridesA, stridesB, [&](int64_t offset, int64_t offsetA, int64_t offsetB) {
    const float *rowA = a.data + offsetA;
    const float *rowB = b.data + offsetB;
    float *rowY = y + offset;
    for (int64_t j = 0; j < rowLength; ++j)
      rowY[j] = fn(rowA[j * stepA], rowB[j * stepB]);
  });
}

void addOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return a + b; });
}
void subOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return a - b; });
}
void mulOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return a * b; });
}
void divOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return a / b; });
}
void powOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return std::pow(a, b); });
}

// Min and Max propagate NaN, as torch.minimum and torch.maximum do.
void minOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return scalar::min(a, b); });
}
void maxOp(const OpContext &context) {
  applyBinary(context, [](float a, float b) { return scalar::max(a, b); });
}
// x where x >= 0 (and NaN), else slope * x.
void preluOp(const OpContext &context) {
  applyBinary(context, [](float x, float slope) { return x < 0.0f ? slope * x : x; });
}
void modOp(const OpContext &context) {
  const bool fmod = context.flagAttr("fmod");
  applyBinary(context, [=](float a, float b) { return scalar::mod(a, b, fmod); });
}

} // namespace

void registerElementwiseOps(OpRegistry &registry) {
  const std::pair<const char *, OpFunction> unaryOps[] = {{"Relu", relu}, {"Sigmoid", sigmoid}, {"Tanh", tanhOp},
                                                          {"Erf", erfOp}, {"Sqrt", sqrtOp},     {"Gelu", gelu},
                                                          {"Clip", clip}};
  const std::pair<const char *, OpFunction> moreUnaryOps[] = {
      {"Neg", [](const OpContext &c) { applyUnary(c, [](float x) { return -x; }); }},
      {"Exp", [](const OpContext &c) { applyUnary(c, [](float x) { return std::exp(x); }); }},
      {"Log", [](const OpContext &c) { applyUnary(c, [](float x) { return std::log(x); }); }},
      {"Abs", [](const OpContext &c) { applyUnary(c, [](float x) { return std::fabs(x); }); }},
      {"Reciprocal", [](const OpContext &c) { applyUnary(c, [](float x) { return 1.0f / x; }); }},
      {"LeakyRelu", leakyRelu},
      {"HardSigmoid", hardSigmoid},
      {"HardSwish", hardSwish},
      {"Floor", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::floor(x)); }); }},
      {"Ceil", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::ceil(x)); }); }},
      {"Round", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::nearbyint(x)); }); }},
      {"Sign",
       [](const OpContext &c) {
         applyUnary(c, [](float x) { return float(x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x); });
       }},
      {"Sin", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::sin(x)); }); }},
      {"Cos", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::cos(x)); }); }},
      {"Tan", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::tan(x)); }); }},
      {"Asin", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::asin(x)); }); }},
      {"Acos", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::acos(x)); }); }},
      {"Atan", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::atan(x)); }); }},
      {"Sinh", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::sinh(x)); }); }},
      {"Cosh", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::cosh(x)); }); }},
      {"Asinh", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::asinh(x)); }); }},
      {"Acosh", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::acosh(x)); }); }},
      {"Atanh", [](const OpContext &c) { applyUnary(c, [](float x) { return float(std::atanh(x)); }); }},
  };
  for (const auto &[name, function] : moreUnaryOps)
    registry.add(name, OpInfo{function, 1, 1});
  for (const auto &[name, function] : unaryOps)
    registry.add(name, OpInfo{function, 1, 1});
  const std::pair<const char *, OpFunction> binaryOps[] = {{"Add", addOp}, {"Sub", subOp}, {"Mul", mulOp},
                                                           {"Div", divOp}, {"Pow", powOp}, {"Min", minOp},
                                                           {"Max", maxOp}, {"Mod", modOp}, {"PRelu", preluOp}};
  for (const auto &[name, function] : binaryOps)
    registry.add(name, OpInfo{function, 2, 2});
}

} // namespace fusec::runtime::cpu
