//===- PlanWriter.cpp - Lower a fused module to a model.plan --------------===//
#include "compiler/PlanWriter.h"
#include "compiler/MemoryPlanner.h"
#include "compiler/OnnxAttributes.h"
#include "compiler/ValueNames.h"
#include "compiler/Version.h"
#include "compiler/import/GraphBuilder.h"

#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/LibraryCall.h"
#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"
#include "ir/SliceViews.h"

#include "runtime/plan/LibraryCallJson.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanContainer.h"
#include "support/CheckedMath.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

using namespace mlir;
using nlohmann::json;

namespace fusec {
namespace {

/// The plan element type of an MLIR element type, or nullopt for types a plan
/// cannot hold (f64, ui8, ...): the dialect's names are the plan's dtypes.
std::optional<runtime::ElementType> planElementType(Type type) {
  std::optional<StringRef> name = fuse::elementTypeName(type);
  return name ? runtime::parseElementType(*name) : std::nullopt;
}

/// The index of the range named `name`, or nullopt.
std::optional<size_t> rangeNamed(const std::vector<runtime::DimensionRange> &ranges, const std::string &name) {
  auto range = std::find_if(ranges.begin(), ranges.end(),
                            [&](const runtime::DimensionRange &candidate) { return candidate.name == name; });
  if (range == ranges.end())
    return std::nullopt;
  return static_cast<size_t>(range - ranges.begin());
}

/// The manifest shape of a tensor type: -1 for the batch, the range's code
/// for a dimension the plan runs over a range (named in the type's
/// encoding; ShapeUtils.h), else the size.
FailureOr<json> shapeToJson(Type type, const std::vector<runtime::DimensionRange> &ranges) {
  json shape = json::array();
  for (int64_t dim : fuse::symbolicShape(type)) {
    if (!fuse::isSymbolic(dim)) {
      shape.push_back(dim);
      continue;
    }
    if (dim == fuse::kDynamic) {
      shape.push_back(plan::kBatchDim);
      continue;
    }
    const std::string name = fuse::symbolName(dim);
    std::optional<size_t> range = rangeNamed(ranges, name);
    if (!range)
      return failure();
    shape.push_back(plan::rangeDimCode(*range));
  }
  return shape;
}

/// The bytes of a tensor as a function of the batch, each ranged dimension at
/// its maximum (DimensionRanges.h: the layout planned there holds every
/// smaller size), or failure if one sample of it exceeds kMaxTensorBytes
/// (shape inference rejects such shapes, so this only guards the planner's
/// arithmetic) or names a dimension without a range. The element type must
/// be one planElementType() accepts.
FailureOr<BatchLinear> bytesOf(Type type, const std::vector<runtime::DimensionRange> &ranges) {
  auto tensor = llvm::cast<RankedTensorType>(type);
  SmallVector<int64_t> sample;
  bool scaled = false;
  for (int64_t dim : fuse::symbolicShape(type)) {
    scaled |= dim == fuse::kDynamic;
    if (!fuse::isSymbolic(dim) || dim == fuse::kDynamic) {
      sample.push_back(dim == fuse::kDynamic ? 1 : dim);
      continue;
    }
    const std::string name = fuse::symbolName(dim);
    std::optional<size_t> range = rangeNamed(ranges, name);
    if (!range)
      return failure();
    sample.push_back(ranges[*range].max);
  }
  const std::optional<runtime::ElementType> element = planElementType(tensor.getElementType());
  if (!element)
    return failure();
  std::optional<int64_t> bytes =
      checkedTensorBytes(sample, /*batch=*/1, static_cast<int64_t>(runtime::elementSize(*element)));
  if (!bytes)
    return failure();
  return scaled ? BatchLinear{*bytes, 0} : BatchLinear{0, *bytes};
}

class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, const PlanOptions &options) : func(func), options(options), names(func) {}

  FailureOr<PlanContents> build();

private:
  struct Buffer {
    std::string name;
    std::string kind;
    Type type;
    uint64_t weightOffset = 0;
    size_t firstStep = 0, lastStep = 0;
    /// A slice view of buffer `root` (fuse.slice_views); roots are the
    /// buffers that have views.
    std::optional<size_t> root;
    fuse::SliceView view;
    bool hasViews = false;
    /// All of `root`'s bytes under this buffer's shape (fuse.alias).
    bool alias = false;
  };

  /// The manifest dtype of a tensor of `type`; for a type no plan can hold,
  /// reports an error naming `what` at `loc` (once, build() then fails) and
  /// returns "f32" so that building can go on to the end.
  std::string dtypeOf(Type type, Location loc, const std::string &what);
  std::string dtypeOf(Value value) { return dtypeOf(value.getType(), value.getLoc(), "value '" + names[value] + "'"); }
  json valueToJson(Value value) {
    return {{"shape", shapeOf(value.getType(), value.getLoc())}, {"dtype", dtypeOf(value)}};
  }
  /// The manifest shape of `type`; for a run-time dimension without a range
  /// (a module compiled with other options), reports an error at `loc`
  /// (once, build() then fails).
  json shapeOf(Type type, Location loc) {
    FailureOr<json> shape = shapeToJson(type, options.ranges);
    if (succeeded(shape))
      return *shape;
    if (!unsupportedType)
      emitError(loc) << "type " << type << " names a run-time dimension the plan has no range for (the ranges: "
                     << (options.ranges.empty() ? std::string("none") : runtime::formatRanges(options.ranges)) << ")";
    unsupportedType = true;
    return json::array();
  }

  FailureOr<size_t> bufferFor(Value value);
  /// The buffer kernel result `result` is stored in, made at `step` if it
  /// has none yet: its own, or a view inside its root's (made too).
  size_t resultBuffer(Value result, size_t step);
  size_t addBuffer(std::string name, std::string kind, Type type) {
    buffers.push_back({std::move(name), std::move(kind), type});
    return buffers.size() - 1;
  }
  LogicalResult addKernel(Operation *op);
  LogicalResult addCopyKernel(Value from, size_t toBuffer);
  /// Writes `artifact`'s config, launch and images into `entry`, and each
  /// of its variants into an entry of its `variants`.
  void addImage(json &entry, const KernelArtifact &artifact);
  /// Writes `kernel`'s library variant (after its `compiledVariants`
  /// compiled ones) and the default variant, or why it has none.
  void addLibraryVariant(json &entry, fuse::SuperkernelOp kernel, size_t compiledVariants);
  /// The image ranges of each compiled function, by entry name.
  std::map<std::string, json> sharedImages;
  json opToJson(Operation *op, llvm::DenseMap<Value, size_t> &locals, json &values);

  func::FuncOp func;
  const PlanOptions &options;
  ValueNames names;
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, size_t> bufferOfValue;
  /// Each weight is a piece viewing its constant's data where the module
  /// holds it: ~100 MB that are never copied before they are written.
  plan::SectionPieces weights{std::string(plan::kWeightsSection)};
  std::vector<uint8_t> images;
  json kernels = json::array();
  bool unsupportedType = false;
};

std::string PlanBuilder::dtypeOf(Type type, Location loc, const std::string &what) {
  Type element = llvm::cast<RankedTensorType>(type).getElementType();
  if (std::optional<runtime::ElementType> planType = planElementType(element))
    return runtime::elementTypeName(*planType);
  if (!unsupportedType)
    emitError(loc) << what << " has element type " << element
                   << ", which a plan cannot hold (f32, f16, bf16, i64, i32, i1, i8, u8)";
  unsupportedType = true;
  return "f32";
}

FailureOr<size_t> PlanBuilder::bufferFor(Value value) {
  auto it = bufferOfValue.find(value);
  if (it != bufferOfValue.end())
    return it->second;
  auto constant = value.getDefiningOp<fuse::ConstantOp>();
  if (!constant)
    return emitError(value.getLoc()) << "value used before a kernel computes it";
  // Large weights are viewed in their blobs; splats are expanded into
  // storage the section keeps.
  std::vector<uint8_t> storage;
  std::optional<ArrayRef<uint8_t>> data = fuse::constantBytes(constant.getValue(), storage);
  if (!data)
    return constant.emitError() << "constant data is unavailable (elided resource?)";
  size_t id = addBuffer(names[value], "weight", value.getType());
  weights.size = plan::alignTo(weights.size, plan::kSectionAlignment);
  buffers[id].weightOffset = weights.size;
  weights.pieces.push_back({weights.size, {data->data(), data->size()}});
  weights.size += data->size();
  if (!storage.empty()) // moving the vector keeps its bytes where the piece points
    weights.storage.push_back(std::move(storage));
  bufferOfValue[value] = id;
  return id;
}

size_t PlanBuilder::resultBuffer(Value result, size_t step) {
  auto existing = bufferOfValue.find(result);
  if (existing != bufferOfValue.end())
    return existing->second;
  std::optional<size_t> root;
  std::optional<fuse::SliceView> view = fuse::sliceViewOf(result);
  if (view) {
    Value rootValue = fuse::sliceViewRoot(result);
    if (rootValue != result) {
      root = resultBuffer(rootValue, step);
      buffers[*root].hasViews = true;
    }
  }
  size_t id = addBuffer(names[result], "arena", result.getType());
  buffers[id].firstStep = buffers[id].lastStep = step;
  if (root) {
    buffers[id].root = root;
    buffers[id].view = *view;
  }
  bufferOfValue[result] = id;
  return id;
}

json PlanBuilder::opToJson(Operation *op, llvm::DenseMap<Value, size_t> &locals, json &values) {
  json operands = json::array(), results = json::array();
  for (Value operand : op->getOperands())
    operands.push_back(locals.lookup(operand));
  for (Value result : op->getResults()) {
    locals[result] = values.size();
    results.push_back(values.size());
    values.push_back(valueToJson(result));
  }
  auto onnx = llvm::cast<fuse::OnnxOpInterface>(op);
  json attrs = onnxAttributesToJson(op);
  // Expand's target and Slice's ends may name run-time dimensions (-2 - k:
  // symbols[k]); the plan holds their codes, which the runtime replaces by
  // each run's sizes.
  auto withCodes = [&](const char *name, ArrayRef<int64_t> values, ArrayAttr symbols) {
    std::vector<int64_t> coded(values.begin(), values.end());
    for (int64_t &dim : coded) {
      if (dim > -2)
        continue;
      const std::string symbol = llvm::cast<StringAttr>(symbols[-2 - dim]).str();
      std::optional<size_t> range = rangeNamed(options.ranges, symbol);
      if (!range) {
        if (!unsupportedType)
          emitError(op->getLoc()) << op->getName() << " names the run-time dimension '" << symbol
                                  << "', which the plan has no range for";
        unsupportedType = true;
        continue;
      }
      dim = plan::rangeDimCode(*range);
    }
    attrs[name] = coded;
  };
  if (auto expand = llvm::dyn_cast<fuse::ExpandOp>(op); expand && expand.getSymbols())
    withCodes("shape", expand.getShape(), *expand.getSymbols());
  if (auto slice = llvm::dyn_cast<fuse::SliceOp>(op); slice && slice.getSymbols())
    withCodes("ends", slice.getEnds(), *slice.getSymbols());
  return {{"op", onnx.getOnnxName().str()},
          {"name", opDisplayName(op)},
          {"operands", operands},
          {"results", results},
          {"attrs", attrs}};
}

LogicalResult PlanBuilder::addKernel(Operation *op) {
  size_t step = kernels.size();
  json inputs = json::array(), outputs = json::array(), values = json::array(), ops = json::array(),
       yields = json::array();
  llvm::DenseMap<Value, size_t> locals;
  auto superkernel = llvm::dyn_cast<fuse::SuperkernelOp>(op);
  // Kernel inputs are the op's operands; inside a superkernel the body's
  // block arguments stand for them.
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    auto buffer = bufferFor(operand);
    if (failed(buffer))
      return failure();
    buffers[*buffer].lastStep = step;
    inputs.push_back(*buffer);
    Value local = superkernel ? superkernel.getBody().getArgument(index) : operand;
    locals[local] = values.size();
    values.push_back(valueToJson(operand));
  }
  std::string kind, name;
  if (superkernel) {
    for (Operation &inner : superkernel.getBody().front().without_terminator()) {
      if (!llvm::isa<fuse::OnnxOpInterface>(inner))
        return inner.emitError() << "cannot be executed inside a kernel";
      ops.push_back(opToJson(&inner, locals, values));
    }
    for (Value yielded : superkernel.getBody().front().getTerminator()->getOperands())
      yields.push_back(locals.lookup(yielded));
    kind = superkernel.getKind().str();
    name = superkernel.getSymName().str();
  } else {
    if (!llvm::isa<fuse::OnnxOpInterface>(op))
      return op->emitError() << "cannot be lowered to a kernel";
    ops.push_back(opToJson(op, locals, values));
    for (Value result : op->getResults())
      yields.push_back(locals.lookup(result));
    kind = fuse::kernelKindName(fuse::classifyOp(op)).str();
    name = "k" + std::to_string(step) + "_" + fuse::identifierFrom(opDisplayName(op));
  }
  for (Value result : op->getResults()) {
    size_t id = resultBuffer(result, step);
    buffers[id].lastStep = step;
    outputs.push_back(id);
  }
  json entry = {{"name", name},     {"kind", kind}, {"inputs", inputs}, {"outputs", outputs},
                {"values", values}, {"ops", ops},   {"yields", yields}};
  if (options.target != "cpu") {
    auto artifact = options.kernels.find(name);
    if (artifact == options.kernels.end())
      return op->emitError() << "no compiled kernel image for '" << name << "'";
    addImage(entry, artifact->second);
    if (superkernel)
      addLibraryVariant(entry, superkernel, artifact->second.variants.size());
  }
  kernels.push_back(entry);
  return success();
}

void PlanBuilder::addImage(json &entry, const KernelArtifact &artifact) {
  auto append = [&](const void *data, size_t size) {
    images.resize(plan::alignTo(images.size(), plan::kSectionAlignment));
    json where = {{"offset", images.size()}, {"size", size}};
    auto *bytes = static_cast<const uint8_t *>(data);
    images.insert(images.end(), bytes, bytes + size);
    return where;
  };
  const codegen::KernelLaunch &launch = artifact.generated.launch;
  // A range's name in the plan: its code, as in shapes (the types named
  // only ranges the plan has, shapeToJson checked).
  auto rangeCode = [&](const std::string &name) {
    std::optional<size_t> range = rangeNamed(options.ranges, name);
    return range ? plan::rangeDimCode(*range) : int64_t{0};
  };
  json grid = json::array();
  for (size_t axis = 0; axis < launch.grid.size(); ++axis) {
    const GridDim &dim = launch.grid[axis];
    json dimension = {{"per_batch", dim.work.perBatch}, {"fixed", dim.work.fixed}, {"divisor", dim.divisor}};
    for (const std::string &name : launch.gridRanges[axis])
      dimension["ranges"].push_back(rangeCode(name));
    grid.push_back(std::move(dimension));
  }
  entry["launch"] = {{"block", launch.block}, {"grid", grid}};
  for (const auto &[position, name] : launch.rangeArguments)
    entry["launch"]["range_arguments"].push_back({{"argument", position}, {"range", rangeCode(name)}});
  if (launch.sharedBytes > 0)
    entry["launch"]["shared_bytes"] = launch.sharedBytes;
  if (launch.splitMaxSlices > 1)
    entry["launch"]["split_k"] = {{"max_slices", launch.splitMaxSlices},
                                  {"k_tiles", launch.splitKTiles},
                                  {"partial_floats", launch.splitPartialFloats}};
  if (!launch.arguments.empty())
    entry["launch"]["arguments"] = launch.arguments;
  for (const TensorMapDesc &map : launch.tensorMaps) {
    json described = {{"buffer", map.buffer},
                      {"element", map.bf16 ? "bf16" : "f16"},
                      {"rows", {{"per_batch", map.rows.perBatch}, {"fixed", map.rows.fixed}}},
                      {"columns", map.columns},
                      {"box", map.box}};
    if (!map.middle.empty())
      described["middle"] = map.middle;
    if (map.swizzleBytes != TensorMapDesc::kSwizzleBytes)
      described["swizzle"] = map.swizzleBytes;
    if (!map.elementStrides.empty())
      described["element_strides"] = map.elementStrides;
    entry["launch"]["tensor_maps"].push_back(std::move(described));
  }
  // Kernels that share compiled code (the same code under another name, or
  // a kernel's variants, compiled in its program) share its image: stored
  // once, loaded once.
  const std::string &function = artifact.compiled.entry.empty() ? artifact.generated.name : artifact.compiled.entry;
  const std::string &program = artifact.compiled.program.empty() ? function : artifact.compiled.program;
  auto shared = sharedImages.find(program);
  if (shared == sharedImages.end()) {
    json ranges = {{"ptx", append(artifact.compiled.ptx.data(), artifact.compiled.ptx.size())},
                   {"cubin", append(artifact.compiled.cubin.data(), artifact.compiled.cubin.size())}};
    shared = sharedImages.emplace(program, std::move(ranges)).first;
  }
  // The CUBIN first: a driver takes the first image it can load, and the
  // CUBIN for the device's own architecture needs no JIT.
  json images = json::array();
  for (const char *format : {plan::kCubinImageFormat, plan::kPtxImageFormat}) {
    json image = {{"format", format}, {"target", options.target}, {"entry", function}};
    image.update(shared->second[format]);
    images.push_back(std::move(image));
  }
  entry["images"] = std::move(images);
  if (!artifact.generated.config.empty())
    entry["config"] = artifact.generated.config;
  if (artifact.variants.empty())
    return;
  json variants = json::array();
  for (const KernelArtifact &variant : artifact.variants) {
    json variantEntry = json::object();
    addImage(variantEntry, variant);
    variants.push_back(std::move(variantEntry));
  }
  entry["variants"] = std::move(variants);
}

void PlanBuilder::addLibraryVariant(json &entry, fuse::SuperkernelOp kernel, size_t compiledVariants) {
  if (std::optional<StringRef> reason = kernel.getNoLibrary())
    entry["no_library_variant"] = reason->str();
  if (!kernel.getLibrary())
    return;
  // The pass matched the same body; the plan verifier checks the call
  // against the buffers.
  fuse::LibraryCallMatch match = fuse::matchLibraryCall(kernel);
  if (!match.matched())
    return;
  runtime::LibraryCall call{match.library, match.matmul, match.conv};
  entry["library_variants"] = json::array({runtime::libraryCallToJson(call)});
  if (kernel.getLibraryDefault())
    entry["default_variant"] = 1 + compiledVariants;
}

LogicalResult PlanBuilder::addCopyKernel(Value from, size_t toBuffer) {
  auto source = bufferFor(from);
  if (failed(source))
    return failure();
  size_t step = kernels.size();
  buffers[*source].lastStep = step;
  json value = valueToJson(from);
  kernels.push_back({{"name", "k" + std::to_string(step) + "_copy_" + fuse::identifierFrom(buffers[toBuffer].name)},
                     {"kind", plan::kCopyKernelKind},
                     {"inputs", {*source}},
                     {"outputs", {toBuffer}},
                     {"values", {value, value}},
                     {"ops",
                      {{{"op", "Identity"},
                        {"name", buffers[toBuffer].name},
                        {"operands", {0}},
                        {"results", {1}},
                        {"attrs", json::object()}}}},
                     {"yields", {1}}});
  return success();
}

FailureOr<PlanContents> PlanBuilder::build() {
  json inputs = json::array(), outputs = json::array();
  for (BlockArgument arg : func.getArguments()) {
    size_t id = addBuffer(names[arg], "input", arg.getType());
    bufferOfValue[arg] = id;
    inputs.push_back({{"name", names[arg]},
                      {"dtype", dtypeOf(arg)},
                      {"shape", shapeOf(arg.getType(), arg.getLoc())},
                      {"buffer", id}});
  }
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (llvm::isa<fuse::ConstantOp>(op))
      continue;
    // Its operands were stored into its result's buffer: no kernel.
    if (auto concat = llvm::dyn_cast<fuse::SuperkernelOp>(op); concat && fuse::isInPlace(concat)) {
      resultBuffer(concat.getResult(0), kernels.size());
      continue;
    }
    // A reshape whose result is its operand's bytes: no kernel.
    if (auto reshape = llvm::dyn_cast<fuse::SuperkernelOp>(op); reshape && fuse::isAlias(reshape)) {
      auto source = bufferFor(reshape.getInputs()[0]);
      if (failed(source))
        return failure();
      const size_t root = buffers[*source].root ? *buffers[*source].root : *source;
      const size_t id = addBuffer(names[reshape.getResult(0)], "arena", reshape.getResult(0).getType());
      buffers[id].firstStep = buffers[id].lastStep = kernels.size();
      buffers[id].root = root;
      buffers[id].alias = true;
      buffers[root].hasViews = true;
      bufferOfValue[reshape.getResult(0)] = id;
      continue;
    }
    if (failed(addKernel(&op)))
      return failure();
  }
  // A root's bytes are live while any of its views is.
  for (Buffer &buffer : buffers)
    if (buffer.root) {
      Buffer &root = buffers[*buffer.root];
      root.firstStep = std::min(root.firstStep, buffer.firstStep);
      root.lastStep = std::max(root.lastStep, buffer.lastStep);
    }
  // Graph outputs: a kernel result becomes the caller-visible buffer; a value
  // that is already another output, an input or a constant is copied.
  auto returnOp = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::DenseSet<size_t> claimed;
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    auto attr = func.getResultAttrOfType<StringAttr>(index, import::kTensorNameAttr);
    std::string name = attr ? attr.str() : "output" + std::to_string(index);
    auto existing = bufferOfValue.find(value);
    size_t id;
    if (existing != bufferOfValue.end() && buffers[existing->second].kind == "arena" &&
        !buffers[existing->second].root && !buffers[existing->second].hasViews && !claimed.count(existing->second)) {
      id = existing->second;
      buffers[id].kind = "output";
      buffers[id].name = name;
    } else {
      id = addBuffer(name, "output", value.getType());
      if (failed(addCopyKernel(value, id)))
        return failure();
    }
    claimed.insert(id);
    outputs.push_back({{"name", name},
                       {"dtype", dtypeOf(value.getType(), value.getLoc(), "output '" + name + "'")},
                       {"shape", shapeOf(value.getType(), value.getLoc())},
                       {"buffer", id}});
  }

  if (unsupportedType)
    return failure();

  std::vector<size_t> arenaIds;
  std::vector<BufferLifetime> lifetimes;
  // The planner never makes the arena larger than all arena buffers side by
  // side; bounding that sum by kMaxTensorBytes keeps every offset and size it
  // computes free of overflow.
  BatchLinear total;
  for (size_t id = 0; id < buffers.size(); ++id) {
    if (buffers[id].kind != "arena" || buffers[id].root)
      continue;
    FailureOr<BatchLinear> bytes = bytesOf(buffers[id].type, options.ranges);
    if (failed(bytes))
      return emitError(func.getLoc()) << "intermediate '" << buffers[id].name << "' of type " << buffers[id].type
                                      << " is implausibly large (more than " << kMaxTensorBytes << " bytes per sample)";
    // Each term is at most 2^52 and the sum stays below 2^53: no overflow.
    total.perBatch += int64_t(plan::alignTo(bytes->perBatch, plan::kBufferAlignment));
    total.fixed += int64_t(plan::alignTo(bytes->fixed, plan::kBufferAlignment));
    if (total.perBatch > kMaxTensorBytes || total.fixed > kMaxTensorBytes)
      return emitError(func.getLoc()) << "the intermediates up to '" << buffers[id].name << "' need more than "
                                      << kMaxTensorBytes
                                      << " bytes of arena per sample or in total, more than a plan may hold";
    arenaIds.push_back(id);
    lifetimes.push_back({*bytes, buffers[id].firstStep, buffers[id].lastStep});
  }
  MemoryPlan memory = planMemory(lifetimes, plan::kBufferAlignment);

  json bufferList = json::array();
  for (size_t id = 0; id < buffers.size(); ++id) {
    const Buffer &buffer = buffers[id];
    json entry = {{"id", id},
                  {"name", buffer.name},
                  {"kind", buffer.kind},
                  {"dtype", dtypeOf(buffer.type, func.getLoc(), "buffer '" + buffer.name + "'")},
                  {"shape", shapeOf(buffer.type, func.getLoc())}};
    if (buffer.kind == "weight")
      entry["offset"] = buffer.weightOffset;
    if (buffer.root && buffer.alias)
      entry["alias"] = *buffer.root;
    else if (buffer.root)
      entry["view"] = {{"of", *buffer.root}, {"axis", buffer.view.axis}, {"offset", buffer.view.offset}};
    bufferList.push_back(entry);
  }
  for (size_t i = 0; i < arenaIds.size(); ++i)
    bufferList[arenaIds[i]]["offset"] = {{"per_batch", memory.offsets[i].perBatch}, {"fixed", memory.offsets[i].fixed}};

  json manifest = {
      {"format_version", plan::formatVersionString()},
      {"compiler_version", FUSEC_VERSION_STRING},
      {"target", options.target},
      {"source_hash", toHex64(options.sourceHash)},
      {"batch_buckets", options.batchBuckets},
      {"inputs", inputs},
      {"outputs", outputs},
      {"buffers", bufferList},
      {"arena",
       {{"per_batch", memory.arenaSize.perBatch},
        {"fixed", memory.arenaSize.fixed},
        {"lower_bound", {{"per_batch", memory.lowerBound.perBatch}, {"fixed", memory.lowerBound.fixed}}}}},
      {"kernels", kernels},
  };
  if (!options.dims.empty())
    manifest["dims"] = options.dims;
  if (!options.ranges.empty()) {
    json ranges = json::array();
    for (const runtime::DimensionRange &range : options.ranges)
      ranges.push_back({{"name", range.name}, {"min", range.min}, {"opt", range.opt}, {"max", range.max}});
    manifest["ranges"] = std::move(ranges);
  }
  PlanContents contents;
  contents.manifest = std::move(manifest);
  contents.sections.push_back(std::move(weights));
  if (options.target != "cpu") {
    plan::SectionPieces section{std::string(plan::kKernelImagesSection), images.size()};
    section.pieces.push_back({0, {images.data(), images.size()}});
    section.storage.push_back(std::move(images));
    contents.sections.push_back(std::move(section));
  }
  return contents;
}

} // namespace

FailureOr<PlanContents> planContentsOf(ModuleOp module, const PlanOptions &options) {
  auto func = module.lookupSymbol<func::FuncOp>(import::kEntryFunction);
  if (!func)
    return emitError(module.getLoc()) << "the module has no @" << import::kEntryFunction << " function";
  return PlanBuilder(func, options).build();
}

FailureOr<plan::EncodedPlan> encodeVerifiedPlan(Location loc, PlanContents contents) {
  std::optional<plan::EncodedPlan> encoded;
  try {
    encoded = plan::encodePlanPieces(contents.manifest, std::move(contents.sections));
  } catch (const std::exception &error) {
    return emitError(loc) << "cannot encode the plan: " << error.what();
  }
  // The runtime's own verifier: fusec never writes a plan its runtime
  // rejects, whatever the model held. (The sections' checksums were just
  // computed from the bytes that are written.)
  try {
    runtime::Plan::verifyEncoded(*encoded, "plan");
  } catch (const std::exception &error) {
    return emitError(loc) << "the runtime would reject this plan, so it is not written: " << error.what();
  }
  return std::move(*encoded);
}

FailureOr<plan::EncodedPlan> encodePlanOf(ModuleOp module, const PlanOptions &options) {
  FailureOr<PlanContents> contents = planContentsOf(module, options);
  if (failed(contents))
    return failure();
  return encodeVerifiedPlan(module.getLoc(), std::move(*contents));
}

FailureOr<std::vector<uint8_t>> buildPlan(ModuleOp module, const PlanOptions &options) {
  FailureOr<plan::EncodedPlan> encoded = encodePlanOf(module, options);
  if (failed(encoded))
    return failure();
  return encoded->bytes();
}

} // namespace fusec
