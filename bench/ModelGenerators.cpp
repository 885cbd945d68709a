//===- ModelGenerators.cpp - Synthetic models for tests and benchmarks ----===//
#include "bench/ModelGenerators.h"

#include <cmath>
#include <string>

namespace fusec::bench {
namespace {

using import::AttrValue;
using import::Graph;
using import::GraphNode;

/// Builds a graph node by node with fresh tensor names and seeded weights.
class GraphWriter {
public:
  explicit GraphWriter(std::string source) { graph.sourcePath = std::move(source); }

  std::string input(const std::string &name, std::vector<int64_t> shape) {
    graph.inputs.push_back({name, std::move(shape)});
    return name;
  }

  /// A constant with values uniform in [-scale, scale] (or in [low, high]).
  std::string constant(const std::string &name, std::vector<int64_t> shape, float low, float high) {
    import::GraphConstant c;
    c.name = name;
    c.shape = std::move(shape);
    int64_t count = 1;
    for (int64_t dim : c.shape)
      count *= dim;
    c.data.resize(count);
    for (float &value : c.data)
      value = low + (high - low) * next();
    graph.constants.push_back(std::move(c));
    return name;
  }

  std::string node(const std::string &name, const std::string &op, std::vector<std::string> inputs,
                   import::NodeAttributes attrs = {}) {
    GraphNode n;
    n.name = name;
    n.opType = op;
    n.inputs = std::move(inputs);
    n.outputs = {name + ".out"};
    n.attrs = std::move(attrs);
    graph.nodes.push_back(std::move(n));
    return name + ".out";
  }

  /// Conv (no bias) + BatchNormalization, optionally + Relu.
  std::string convBn(const std::string &name, const std::string &x, int64_t in, int64_t out, int64_t kernel,
                     int64_t stride, bool relu) {
    float scale = std::sqrt(2.0f / float(in * kernel * kernel));
    std::string w = constant(name + ".weight", {out, in, kernel, kernel}, -scale, scale);
    int64_t pad = kernel / 2;
    std::string y =
        node(name, "Conv", {x, w},
             {{"strides", AttrValue::ofInts({stride, stride})}, {"pads", AttrValue::ofInts({pad, pad, pad, pad})}});
    std::string bn = name + ".bn";
    y = node(bn, "BatchNormalization",
             {y, constant(bn + ".scale", {out}, 0.5f, 1.5f), constant(bn + ".bias", {out}, -0.1f, 0.1f),
              constant(bn + ".mean", {out}, -0.1f, 0.1f), constant(bn + ".var", {out}, 0.5f, 1.5f)});
    return relu ? node(name + ".relu", "Relu", {y}) : y;
  }

  /// A node of several outputs, named `name`.0, `name`.1, ...
  std::vector<std::string> nodeOutputs(const std::string &name, const std::string &op, std::vector<std::string> inputs,
                                       size_t count, import::NodeAttributes attrs = {}) {
    GraphNode n;
    n.name = name;
    n.opType = op;
    n.inputs = std::move(inputs);
    for (size_t i = 0; i < count; ++i)
      n.outputs.push_back(name + "." + std::to_string(i));
    n.attrs = std::move(attrs);
    graph.nodes.push_back(n);
    return n.outputs;
  }

  /// A constant of the given values.
  std::string constantOf(const std::string &name, std::vector<int64_t> shape, std::vector<float> values) {
    import::GraphConstant c;
    c.name = name;
    c.shape = std::move(shape);
    c.data = std::move(values);
    graph.constants.push_back(std::move(c));
    return name;
  }

  Graph take(std::vector<std::string> outputs) {
    graph.outputs = std::move(outputs);
    return std::move(graph);
  }
  size_t nodeCount() const { return graph.nodes.size(); }

private:
  float next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return float((state >> 40) & 0xffffff) / float(0xffffff);
  }
  Graph graph;
  uint64_t state = 0x853c49e6748fea9bULL;
};

} // namespace

Graph makeResNet50(int64_t imageSize) {
  GraphWriter g("resnet50");
  std::string x = g.input("input", {import::kBatchDim, 3, imageSize, imageSize});
  x = g.convBn("conv1", x, 3, 64, 7, 2, true);
  x = g.node("maxpool", "MaxPool", {x},
             {{"kernel_shape", AttrValue::ofInts({3, 3})},
              {"strides", AttrValue::ofInts({2, 2})},
              {"pads", AttrValue::ofInts({1, 1, 1, 1})}});
  const int64_t blocks[] = {3, 4, 6, 3}, widths[] = {64, 128, 256, 512};
  int64_t channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    for (int64_t block = 0; block < blocks[stage]; ++block) {
      std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      int64_t width = widths[stage], out = width * 4;
      int64_t stride = (block == 0 && stage > 0) ? 2 : 1;
      std::string y = g.convBn(name + ".conv1", x, channels, width, 1, 1, true);
      y = g.convBn(name + ".conv2", y, width, width, 3, stride, true);
      y = g.convBn(name + ".conv3", y, width, out, 1, 1, false);
      std::string identity = x;
      if (block == 0)
        identity = g.convBn(name + ".downsample", x, channels, out, 1, stride, false);
      y = g.node(name + ".add", "Add", {y, identity});
      x = g.node(name + ".relu", "Relu", {y});
      channels = out;
    }
  }
  x = g.node("avgpool", "GlobalAveragePool", {x});
  x = g.node("flatten", "Flatten", {x});
  x = g.node("fc", "Gemm",
             {x, g.constant("fc.weight", {1000, 2048}, -0.02f, 0.02f), g.constant("fc.bias", {1000}, -0.01f, 0.01f)},
             {{"transB", AttrValue::ofInt(1)}});
  return g.take({x});
}

Graph makeTransformerLayer(const TransformerLayerSpec &spec) {
  const int64_t embed = spec.embed, heads = spec.heads, headDim = spec.embed / spec.heads, seq = spec.seq;
  GraphWriter g(spec.causal ? "gpt2_block" : "encoder_layer");
  const std::string x = g.input("x", {import::kBatchDim, seq, embed});
  auto weight = [&](const std::string &name, std::vector<int64_t> shape) {
    const float scale = 1.0f / std::sqrt(float(shape.front()));
    return g.constant(name, std::move(shape), -scale, scale);
  };
  auto linear = [&](const std::string &name, const std::string &input, int64_t in, int64_t out) {
    const std::string product = g.node(name + ".matmul", "MatMul", {input, weight(name + ".weight", {in, out})});
    return g.node(name, "Add", {product, g.constant(name + ".bias", {out}, -0.1f, 0.1f)});
  };
  auto layerNorm = [&](const std::string &name, const std::string &input) {
    return g.node(
        name, "LayerNormalization",
        {input, g.constant(name + ".scale", {embed}, 0.8f, 1.2f), g.constant(name + ".bias", {embed}, -0.1f, 0.1f)},
        {{"axis", AttrValue::ofInt(-1)}});
  };
  auto scalar = [&](const std::string &name, float value) { return g.constantOf(name, {}, {value}); };

  const std::string attentionInput = spec.causal ? layerNorm("ln1", x) : x;
  const std::vector<std::string> qkv =
      g.nodeOutputs("split", "Split", {linear("qkv", attentionInput, embed, 3 * embed)}, 3,
                    {{"axis", AttrValue::ofInt(2)}, {"split", AttrValue::ofInts({embed, embed, embed})}});
  auto headsOf = [&](const std::string &name, const std::string &value, std::vector<int64_t> perm) {
    const std::string split =
        g.node(name + ".reshape", "Reshape", {value}, {{"shape", AttrValue::ofInts({0, 0, heads, headDim})}});
    return g.node(name, "Transpose", {split}, {{"perm", AttrValue::ofInts(std::move(perm))}});
  };
  const std::string q = headsOf("q", qkv[0], {0, 2, 1, 3}), k = headsOf("k", qkv[1], {0, 2, 3, 1}),
                    v = headsOf("v", qkv[2], {0, 2, 1, 3});
  std::string scores = g.node("scores", "MatMul", {q, k});
  scores = g.node("scaled", "Div", {scores, scalar("root_d", std::sqrt(float(headDim)))});
  if (spec.causal) {
    std::vector<float> mask(size_t(seq * seq), 0.0f);
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = i + 1; j < seq; ++j)
        mask[size_t(i * seq + j)] = -1e9f;
    scores = g.node("masked", "Add", {scores, g.constantOf("causal_mask", {seq, seq}, std::move(mask))});
  }
  const std::string probabilities = g.node("probs", "Softmax", {scores}, {{"axis", AttrValue::ofInt(3)}});
  std::string context = g.node("context", "MatMul", {probabilities, v});
  context = g.node("context_t", "Transpose", {context}, {{"perm", AttrValue::ofInts({0, 2, 1, 3})}});
  context = g.node("merged", "Reshape", {context}, {{"shape", AttrValue::ofInts({0, 0, embed})}});
  std::string hidden = g.node("residual1", "Add", {x, linear("out_proj", context, embed, embed)});
  if (!spec.causal)
    hidden = layerNorm("ln1", hidden);

  const std::string ffnInput = spec.causal ? layerNorm("ln2", hidden) : hidden;
  const std::string up = linear("ffn1", ffnInput, embed, spec.ffn);
  // GELU, erf form: x * 0.5 * (1 + erf(x / sqrt 2)).
  std::string gelu = g.node("gelu.erf", "Erf", {g.node("gelu.div", "Div", {up, scalar("root_2", std::sqrt(2.0f))})});
  gelu = g.node("gelu.add", "Add", {gelu, scalar("one", 1.0f)});
  gelu = g.node("gelu", "Mul", {g.node("gelu.mul", "Mul", {up, gelu}), scalar("half", 0.5f)});
  std::string y = g.node("residual2", "Add", {hidden, linear("ffn2", gelu, spec.ffn, embed)});
  if (!spec.causal)
    y = layerNorm("ln2", y);
  return g.take({y});
}

Graph makeElementwiseChain(int64_t nodes) {
  GraphWriter g("elementwise_chain");
  std::string x = g.input("input", {import::kBatchDim, 64});
  std::string scale = g.constant("scale", {64}, 0.9f, 1.1f);
  std::string shift = g.constant("shift", {64}, -0.1f, 0.1f);
  const char *cycle[] = {"Mul", "Add", "Relu", "Sigmoid", "Tanh"};
  for (int64_t i = 0; i < nodes; ++i) {
    std::string op = cycle[i % 5];
    std::vector<std::string> inputs = {x};
    if (op == "Mul")
      inputs.push_back(scale);
    if (op == "Add")
      inputs.push_back(shift);
    x = g.node("n" + std::to_string(i), op, inputs);
  }
  return g.take({x});
}

Graph makeResidualBlocks(int64_t nodes) {
  GraphWriter g("residual_blocks");
  std::string x = g.input("input", {import::kBatchDim, 8, 8, 8});
  for (int64_t block = 0; g.nodeCount() + 7 <= static_cast<size_t>(nodes) || block == 0; ++block) {
    std::string name = "b" + std::to_string(block);
    std::string y = g.convBn(name + ".conv1", x, 8, 8, 1, 1, true);
    y = g.convBn(name + ".conv2", y, 8, 8, 1, 1, false);
    y = g.node(name + ".add", "Add", {y, x});
    x = g.node(name + ".relu", "Relu", {y});
  }
  return g.take({x});
}

} // namespace fusec::bench
