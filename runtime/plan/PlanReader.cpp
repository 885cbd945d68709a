//===- PlanReader.cpp - Parse a plan manifest into plain structs ------------===//

#include "runtime/plan/PlanReader.h"

#include "runtime/plan/JsonFieldReader.h"
#include "runtime/plan/LibraryCallJson.h"
#include "support/CheckedMath.h"

namespace fusec::runtime {

namespace {

BatchLinear readBatchLinear(const JsonFieldReader &object) {
  return BatchLinear{object.getInt("per_batch"), object.getInt("fixed")};
}

BufferKind readBufferKind(const JsonFieldReader &buffer) {
  const std::string kind = buffer.getString("kind");
  for (BufferKind candidate : {BufferKind::Input, BufferKind::Output, BufferKind::Weight, BufferKind::Arena})
    if (kind == bufferKindName(candidate))
      return candidate;
  buffer.fail("unknown buffer kind '" + kind + "' (expected input, output, weight or arena)");
}

/// A required "dtype" field; `what` names its owner in the message.
ElementType readDtype(const JsonFieldReader &object, const std::string &what) {
  const std::string name = object.getString("dtype");
  if (std::optional<ElementType> type = parseElementType(name))
    return *type;
  object.fail(what + " has unknown dtype '" + name + "' (expected f32, f16, bf16, i64, i32 or i1)");
}

TensorDesc readTensor(const JsonFieldReader &tensor) {
  TensorDesc desc;
  desc.name = tensor.getString("name");
  desc.dtype = readDtype(tensor, "'" + desc.name + "'");
  desc.shape = tensor.getIntArray("shape");
  desc.buffer = static_cast<size_t>(tensor.getUnsigned("buffer"));
  return desc;
}

BufferDesc readBuffer(const JsonFieldReader &buffer) {
  BufferDesc desc;
  desc.id = static_cast<size_t>(buffer.getUnsigned("id"));
  desc.name = buffer.getString("name");
  desc.kind = readBufferKind(buffer);
  desc.dtype = readDtype(buffer, std::string(bufferKindName(desc.kind)) + " buffer " + std::to_string(desc.id) + " '" +
                                     desc.name + "'");
  desc.shape = buffer.getIntArray("shape");
  if (desc.kind == BufferKind::Weight)
    desc.weightOffset = buffer.getUnsigned("offset");
  if (desc.kind == BufferKind::Arena && buffer.has("alias")) {
    desc.view = BufferDesc::View{static_cast<size_t>(buffer.getUnsigned("alias")), 0, 0, 0, 0, /*alias=*/true};
  } else if (desc.kind == BufferKind::Arena && buffer.has("view")) {
    const JsonFieldReader view = buffer.getObject("view");
    desc.view =
        BufferDesc::View{static_cast<size_t>(view.getUnsigned("of")), view.getInt("axis"), view.getInt("offset")};
  } else if (desc.kind == BufferKind::Arena) {
    desc.arenaOffset = readBatchLinear(buffer.getObject("offset"));
  }
  return desc;
}

/// Checks a view against its root and computes its layout: the root is
/// another arena buffer, not a view, of the same element type and rank,
/// whose dimensions are the view's except along the axis; dimensions from
/// the axis on are static and the slice lies inside the root's.
void resolveView(BufferDesc &buffer, const std::vector<BufferDesc> &buffers, const JsonFieldReader &entry) {
  BufferDesc::View &view = *buffer.view;
  const std::string what = "view buffer " + std::to_string(buffer.id) + " '" + buffer.name + "'";
  if (view.of >= buffers.size() || view.of == buffer.id)
    entry.fail(what + " is a view of buffer " + std::to_string(view.of) + ", which is not another buffer of the plan");
  const BufferDesc &root = buffers[view.of];
  if (root.kind != BufferKind::Arena || root.view)
    entry.fail(what + " is a view of buffer " + std::to_string(view.of) + " '" + root.name +
               "', which is not an arena buffer with bytes of its own");
  if (view.alias) {
    // Its size is compared with the root's by the verifier, once every
    // shape is known to be plausible.
    if (root.dtype != buffer.dtype)
      entry.fail("alias buffer " + std::to_string(buffer.id) + " '" + buffer.name + "' is " +
                 elementTypeName(buffer.dtype) + ", its root '" + root.name + "' " + elementTypeName(root.dtype));
    buffer.arenaOffset = root.arenaOffset;
    return;
  }
  if (root.dtype != buffer.dtype || root.shape.size() != buffer.shape.size())
    entry.fail(what + " and its root '" + root.name + "' differ in element type or rank");
  const int64_t rank = static_cast<int64_t>(buffer.shape.size());
  if (view.axis < 0 || view.axis >= rank)
    entry.fail(what + " has axis " + std::to_string(view.axis) + ", not an axis of its rank-" + std::to_string(rank) +
               " shape");
  std::optional<int64_t> inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t dim = buffer.shape[d], rootDim = root.shape[d];
    if (d >= view.axis && (dim < 0 || rootDim < 0))
      entry.fail(what + " has a run-time dimension at or after its axis " + std::to_string(view.axis));
    if (d != view.axis && dim != rootDim)
      entry.fail(what + " has shape " + formatShape(buffer.shape) + ", which differs from its root '" + root.name +
                 "' (" + formatShape(root.shape) + ") outside axis " + std::to_string(view.axis));
    if (d > view.axis && inner)
      inner = checkedMul(*inner, dim);
  }
  const int64_t rootExtent = root.shape[view.axis];
  if (view.offset < 0 || view.offset > rootExtent - buffer.shape[view.axis])
    entry.fail(what + " takes " + std::to_string(buffer.shape[view.axis]) + " elements from " +
               std::to_string(view.offset) + " on along axis " + std::to_string(view.axis) + ", outside its root '" +
               root.name + "' (" + std::to_string(rootExtent) + ")");
  const std::optional<int64_t> chunk = inner ? checkedMul(buffer.shape[view.axis], *inner) : std::nullopt;
  const std::optional<int64_t> pitch = inner ? checkedMul(rootExtent, *inner) : std::nullopt;
  const std::optional<int64_t> offsetElements = inner ? checkedMul(view.offset, *inner) : std::nullopt;
  const std::optional<int64_t> offsetBytes =
      offsetElements ? checkedMul(*offsetElements, static_cast<int64_t>(elementSize(buffer.dtype))) : std::nullopt;
  const std::optional<int64_t> fixed = offsetBytes ? checkedAdd(root.arenaOffset.fixed, *offsetBytes) : std::nullopt;
  if (!chunk || !pitch || !fixed)
    entry.fail(what + " has sizes whose products overflow");
  view.chunk = *chunk;
  view.pitch = *pitch;
  // The root's offset is checked with the other arena buffers; the view
  // lies inside it.
  buffer.arenaOffset = BatchLinear{root.arenaOffset.perBatch, *fixed};
}

std::vector<BufferDesc> readBuffers(const JsonFieldReader &root) {
  const size_t count = root.getArray("buffers").size();
  std::vector<BufferDesc> buffers(count);
  std::vector<bool> seen(count, false);
  for (size_t i = 0; i < count; ++i) {
    JsonFieldReader entry = root.element("buffers", i);
    BufferDesc desc = readBuffer(entry);
    if (desc.id >= count)
      entry.fail("buffer id " + std::to_string(desc.id) + " is out of range (the plan has " + std::to_string(count) +
                 " buffers, so ids are 0.." + std::to_string(count - 1) + ")");
    if (seen[desc.id])
      entry.fail("duplicate buffer id " + std::to_string(desc.id));
    seen[desc.id] = true;
    buffers[desc.id] = std::move(desc);
  }
  for (size_t i = 0; i < count; ++i)
    if (buffers[i].view)
      resolveView(buffers[i], buffers, root.element("buffers", i));
  return buffers;
}

OpDesc readOp(const JsonFieldReader &op) {
  OpDesc desc;
  desc.op = op.getString("op");
  desc.name = op.getString("name");
  desc.operands = op.getIndexArray("operands");
  desc.results = op.getIndexArray("results");
  // Ops without attributes may omit "attrs".
  if (op.has("attrs"))
    desc.attrs = op.getObject("attrs").value();
  return desc;
}

/// Exactly three integers (x, y, z).
std::array<int64_t, 3> readDim3(const JsonFieldReader &object, const char *key) {
  const std::vector<int64_t> dims = object.getIntArray(key);
  if (dims.size() != 3)
    object.fail(std::string("'") + key +
                "' must have 3 entries (x, y, z), "
                "found " +
                std::to_string(dims.size()));
  return {dims[0], dims[1], dims[2]};
}

LaunchDesc readLaunch(const JsonFieldReader &launch) {
  LaunchDesc desc;
  desc.block = readDim3(launch, "block");
  if (launch.getArray("grid").size() != 3)
    launch.fail("'grid' must have 3 entries (x, y, z), found " + std::to_string(launch.getArray("grid").size()));
  for (size_t i = 0; i < 3; ++i) {
    JsonFieldReader dim = launch.element("grid", i);
    desc.grid[i] = GridDim{{dim.getInt("per_batch"), dim.getInt("fixed")}, dim.getInt("divisor")};
    if (dim.has("ranges"))
      desc.gridRanges[i] = dim.getIntArray("ranges");
  }
  if (launch.has("range_arguments"))
    for (size_t i = 0; i < launch.getArray("range_arguments").size(); ++i) {
      const JsonFieldReader argument = launch.element("range_arguments", i);
      const int64_t position = argument.getInt("argument");
      if (position < 0)
        argument.fail("'argument' is " + std::to_string(position) + ", not an argument position");
      desc.rangeArguments.push_back({static_cast<size_t>(position), argument.getInt("range")});
    }
  if (launch.has("shared_bytes"))
    desc.sharedBytes = launch.getInt("shared_bytes");
  if (launch.has("split_k")) {
    const JsonFieldReader split = launch.getObject("split_k");
    desc.splitMaxSlices = split.getInt("max_slices");
    desc.splitKTiles = split.getInt("k_tiles");
    desc.splitPartialFloats = split.getInt("partial_floats");
  }
  if (launch.has("arguments"))
    for (int64_t value : launch.getIntArray("arguments")) {
      if (value < 0 || value > int64_t{UINT32_MAX})
        launch.fail("'arguments' holds " + std::to_string(value) + "; a kernel argument is a 32-bit unsigned value");
      desc.arguments.push_back(static_cast<uint32_t>(value));
    }
  if (launch.has("tensor_maps"))
    for (size_t i = 0; i < launch.getArray("tensor_maps").size(); ++i) {
      const JsonFieldReader map = launch.element("tensor_maps", i);
      TensorMapDesc tensorMap;
      const int64_t buffer = map.getInt("buffer");
      if (buffer < 0 || buffer > int64_t{UINT32_MAX})
        map.fail("'buffer' is " + std::to_string(buffer) + ", not a buffer position");
      tensorMap.buffer = static_cast<uint32_t>(buffer);
      const std::string element = map.getString("element");
      if (element != "f16" && element != "bf16")
        map.fail("'element' is '" + element + "'; a tensor map reads f16 or bf16");
      tensorMap.bf16 = element == "bf16";
      const JsonFieldReader rows = map.getObject("rows");
      tensorMap.rows = BatchLinear{rows.getInt("per_batch"), rows.getInt("fixed")};
      tensorMap.columns = map.getInt("columns");
      if (map.has("middle"))
        tensorMap.middle = map.getIntArray("middle");
      if (tensorMap.rank() > TensorMapDesc::kMaxRank)
        map.fail("'middle' has " + std::to_string(tensorMap.middle.size()) + " dimensions; a map has at most " +
                 std::to_string(TensorMapDesc::kMaxRank - 2));
      const std::vector<int64_t> box = map.getIntArray("box");
      if (box.size() != tensorMap.rank())
        map.fail("'box' has " + std::to_string(box.size()) + " sizes for a map of rank " +
                 std::to_string(tensorMap.rank()));
      tensorMap.box.clear();
      for (int64_t size : box) {
        if (size < 1 || size > 256)
          map.fail("'box' sizes must lie in [1, 256], not " + std::to_string(size));
        tensorMap.box.push_back(static_cast<uint32_t>(size));
      }
      if (map.has("swizzle")) {
        const int64_t swizzle = map.getInt("swizzle");
        if (swizzle != 0 && swizzle != int64_t{TensorMapDesc::kSwizzleBytes})
          map.fail("'swizzle' is " + std::to_string(swizzle) + "; a tensor map swizzles 128 bytes or nothing (0)");
        tensorMap.swizzleBytes = static_cast<uint32_t>(swizzle);
      }
      if (map.has("element_strides")) {
        const std::vector<int64_t> strides = map.getIntArray("element_strides");
        if (strides.size() != tensorMap.rank())
          map.fail("'element_strides' has " + std::to_string(strides.size()) + " entries for a map of rank " +
                   std::to_string(tensorMap.rank()));
        for (int64_t stride : strides) {
          if (stride < 1 || stride > 8)
            map.fail("'element_strides' must lie in [1, 8], not " + std::to_string(stride));
          tensorMap.elementStrides.push_back(static_cast<uint32_t>(stride));
        }
      }
      desc.tensorMaps.push_back(tensorMap);
    }
  return desc;
}

ImageRange readImageRange(const JsonFieldReader &range) {
  return ImageRange{range.getUnsigned("offset"), range.getUnsigned("size")};
}

/// A 3.x "images" entry.
KernelImage readImage(const JsonFieldReader &image) {
  KernelImage desc;
  desc.format = image.getString("format");
  desc.target = image.getString("target");
  desc.entry = image.getString("entry");
  desc.range = readImageRange(image);
  return desc;
}

/// A 3.1 "variants" entry: config, launch and images.
KernelVariant readVariant(const JsonFieldReader &variant) {
  KernelVariant desc;
  desc.config = variant.getString("config");
  desc.launch = readLaunch(variant.getObject("launch"));
  for (size_t i = 0; i < variant.getArray("images").size(); ++i)
    desc.images.push_back(readImage(variant.element("images", i)));
  return desc;
}

/// A 2.x kernel's one "image": PTX and an optional CUBIN for "arch".
std::vector<KernelImage> readLegacyImage(const JsonFieldReader &image) {
  const std::string entry = image.getString("entry");
  const std::string arch = image.getString("arch");
  std::vector<KernelImage> images;
  if (image.has("cubin"))
    images.push_back({plan::kCubinImageFormat, arch, entry, readImageRange(image.getObject("cubin"))});
  images.push_back({plan::kPtxImageFormat, arch, entry, readImageRange(image.getObject("ptx"))});
  return images;
}

KernelDesc readKernel(const JsonFieldReader &kernel, bool legacyImage) {
  KernelDesc desc;
  desc.name = kernel.getString("name");
  desc.kind = kernel.getString("kind");
  desc.inputs = kernel.getIndexArray("inputs");
  desc.outputs = kernel.getIndexArray("outputs");
  for (size_t i = 0; i < kernel.getArray("values").size(); ++i) {
    JsonFieldReader value = kernel.element("values", i);
    desc.values.push_back(value.getIntArray("shape"));
    desc.valueTypes.push_back(readDtype(value, "kernel '" + desc.name + "' value " + std::to_string(i)));
  }
  for (size_t i = 0; i < kernel.getArray("ops").size(); ++i)
    desc.ops.push_back(readOp(kernel.element("ops", i)));
  desc.yields = kernel.getIndexArray("yields");
  if (kernel.has("launch"))
    desc.launch = readLaunch(kernel.getObject("launch"));
  if (legacyImage && kernel.has("image"))
    desc.images = readLegacyImage(kernel.getObject("image"));
  if (!legacyImage && kernel.has("images"))
    for (size_t i = 0; i < kernel.getArray("images").size(); ++i)
      desc.images.push_back(readImage(kernel.element("images", i)));
  if (kernel.has("config"))
    desc.config = kernel.getString("config");
  if (!legacyImage && kernel.has("variants"))
    for (size_t i = 0; i < kernel.getArray("variants").size(); ++i)
      desc.variants.push_back(readVariant(kernel.element("variants", i)));
  // 5.2: library variants follow the compiled ones; their config is the
  // library's name.
  if (!legacyImage && kernel.has("library_variants"))
    for (size_t i = 0; i < kernel.getArray("library_variants").size(); ++i) {
      KernelVariant variant;
      variant.library = readLibraryCall(kernel.element("library_variants", i));
      variant.config = variant.library->library;
      desc.variants.push_back(std::move(variant));
    }
  if (kernel.has("default_variant"))
    desc.defaultVariant = static_cast<size_t>(kernel.getUnsigned("default_variant"));
  if (kernel.has("no_library_variant"))
    desc.noLibraryVariant = kernel.getString("no_library_variant");
  return desc;
}

/// "dims": {"seq": 128, ...}, each a size of at least 1.
std::map<std::string, int64_t> readDims(const JsonFieldReader &dims) {
  std::map<std::string, int64_t> sizes;
  for (const auto &[name, size] : dims.value().items()) {
    if (name.empty())
      dims.fail("a named dimension has an empty name");
    if (!size.is_number_integer() || size.get<int64_t>() < 1)
      dims.fail("dimension '" + name + "' must be a size of at least 1, got " + size.dump());
    sizes[name] = size.get<int64_t>();
  }
  return sizes;
}

/// "ranges": [{"name": "seq", "min": 1, "opt": 128, "max": 512}, ...].
std::vector<DimensionRange> readRanges(const JsonFieldReader &root) {
  std::vector<DimensionRange> ranges;
  for (size_t i = 0; i < root.getArray("ranges").size(); ++i) {
    JsonFieldReader entry = root.element("ranges", i);
    DimensionRange range;
    range.name = entry.getString("name");
    range.min = entry.getInt("min");
    range.opt = entry.getInt("opt");
    range.max = entry.getInt("max");
    ranges.push_back(std::move(range));
  }
  return ranges;
}

} // namespace

PlanManifest readManifest(const nlohmann::json &manifest, const std::string &sourceName) {
  JsonFieldReader root(manifest, sourceName, "");
  PlanManifest result;
  result.formatVersion = root.getString("format_version");
  result.compilerVersion = root.getString("compiler_version");
  result.target = root.getString("target");
  result.sourceHash = root.getString("source_hash");
  result.batchBuckets = root.getIntArray("batch_buckets");
  if (root.has("dims"))
    result.dims = readDims(root.getObject("dims"));
  if (root.has("ranges"))
    result.ranges = readRanges(root);
  for (size_t i = 0; i < root.getArray("inputs").size(); ++i)
    result.inputs.push_back(readTensor(root.element("inputs", i)));
  for (size_t i = 0; i < root.getArray("outputs").size(); ++i)
    result.outputs.push_back(readTensor(root.element("outputs", i)));
  result.buffers = readBuffers(root);
  JsonFieldReader arena = root.getObject("arena");
  result.arena.size = readBatchLinear(arena);
  result.arena.lowerBound = readBatchLinear(arena.getObject("lower_bound"));
  // The container checked that the major version is one this reader knows.
  const bool legacyImage = result.formatVersion.rfind("2.", 0) == 0;
  for (size_t i = 0; i < root.getArray("kernels").size(); ++i)
    result.kernels.push_back(readKernel(root.element("kernels", i), legacyImage));
  return result;
}

} // namespace fusec::runtime
