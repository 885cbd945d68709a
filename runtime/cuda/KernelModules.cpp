//===- KernelModules.cpp - Load a plan's kernel images onto the device ------===//

#include "runtime/cuda/KernelModules.h"

#include "runtime/cuda/DriverVersion.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace fusec::runtime::cuda {

namespace {

/// Loads a CUBIN or NUL-terminated PTX. The driver writes JIT errors (PTX
/// too new for the driver, an architecture it cannot target) into the log,
/// which goes into the error message.
CUmodule loadModule(const DriverApi &cu, const void *image, const std::string &where) {
  char log[8192] = {};
  CUjit_option options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  // The JIT API passes every option value, sizes included, as a pointer.
  void *logSize = reinterpret_cast<void *>(sizeof(log) - 1); // NOLINT(performance-no-int-to-ptr)
  void *values[] = {log, logSize};
  CUmodule module = nullptr;
  const CUresult result = cu.moduleLoadDataEx(&module, image, 2, options, values);
  if (result != kCudaSuccess)
    throw Error("cuModuleLoadDataEx failed " + where + ": " + cu.describe(result) +
                (log[0] ? std::string("\n") + log : std::string()));
  return module;
}

/// Throws "driver too old" if the driver cannot load `chosen`, the image of
/// `kernel` it will use (the PTX's `.version` says which toolkit built the
/// kernel's images; without PTX there is nothing to compare).
void checkDriverVersion(const CudaDevice &driver, const Plan &plan, const KernelDesc &kernel, size_t variant,
                        const KernelImage &chosen) {
  const KernelImage *ptx = kernel.findImage(plan::kPtxImageFormat, "", variant);
  if (!ptx)
    return;
  const ByteRange ptxBytes = plan.imageBytes(ptx->range);
  // The directive is in the first lines; no need to copy a large image.
  const std::string head(reinterpret_cast<const char *>(ptxBytes.data), std::min<size_t>(ptxBytes.size, 4096));
  const std::optional<int> toolkit = ptxToolkitVersion(head);
  if (!toolkit)
    return; // nothing to compare; the driver will say what it thinks
  const bool useCubin = chosen.format == plan::kCubinImageFormat;
  const int needed = requiredDriverVersion(*toolkit, useCubin);
  if (driver.driverVersion() >= needed)
    return;
  throw Error("driver too old: needs >= " + formatCudaVersion(needed) + " to load kernel '" + kernel.name + "' (" +
              (useCubin
                   ? "a CUBIN for " + chosen.target + " built by CUDA " + formatCudaVersion(*toolkit)
                   : "PTX of CUDA " + formatCudaVersion(*toolkit) + ", JIT-compiled for " + driver.describeDevice()) +
              "), but the CUDA driver '" + driver.api().library() + "' is version " +
              formatCudaVersion(driver.driverVersion()) + " (" + std::to_string(driver.driverVersion()) +
              "): update the driver, or compile the plan with an older toolkit");
}

/// The image CUDA loads for `kernel`'s `variant` on `driver`'s device: a
/// CUBIN built for its architecture, else PTX, which the driver
/// JIT-compiles. Throws Error naming the images the kernel has if there is
/// neither.
const KernelImage &chooseImage(const CudaDevice &driver, const KernelDesc &kernel, size_t variant) {
  for (const KernelImage &image : kernel.imagesOf(variant))
    if (image.format == plan::kCubinImageFormat && cubinMatchesDevice(image.target, driver.computeCapability()))
      return image;
  if (const KernelImage *ptx = kernel.findImage(plan::kPtxImageFormat, "", variant))
    return *ptx;
  std::string has;
  for (const KernelImage &image : kernel.imagesOf(variant))
    has += (has.empty() ? "" : ", ") + image.format + " for " + image.target;
  throw Error("kernel '" + kernel.name + "'" + (variant ? " variant " + std::to_string(variant) : std::string()) +
              " has no image CUDA can load on " + driver.describeDevice() +
              " (a CUBIN for its architecture, or PTX); it has " + has);
}

} // namespace

bool cubinMatchesDevice(const std::string &arch, int computeCapability) {
  const std::string exact = "sm_" + std::to_string(computeCapability);
  if (arch == exact)
    return true;
  return arch.size() == exact.size() + 1 && arch.compare(0, exact.size(), exact) == 0 &&
         std::isalpha(static_cast<unsigned char>(arch.back()));
}

KernelModules::KernelModules(const CudaDevice &driver, const Plan &plan, const std::string &cublasLt,
                             const std::string &cudnn)
    : driver_(driver), plan_(plan), functions_(plan.kernels().size()) {
  const DriverApi &cu = driver_.api();
  // By (offset, size, is CUBIN) of the image in the kernel_images section.
  std::map<std::tuple<uint64_t, uint64_t, bool>, CUmodule> loaded;
  // Every image chosen first, so that an old driver is named before any
  // loads: (kernel, variant, image).
  std::vector<std::tuple<size_t, size_t, const KernelImage *>> chosen;
  for (size_t k = 0; k < plan.kernels().size(); ++k) {
    const KernelDesc &kernel = plan.kernels()[k];
    if (kernel.images.empty())
      continue;
    functions_[k].assign(kernel.variantCount(), nullptr);
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant) {
      if (kernel.libraryOf(variant))
        continue;
      const KernelImage &image = chooseImage(driver_, kernel, variant);
      checkDriverVersion(driver_, plan, kernel, variant, image);
      chosen.emplace_back(k, variant, &image);
    }
  }
  try {
    for (auto [k, variant, chosenImage] : chosen) {
      const KernelDesc &kernel = plan.kernels()[k];
      const KernelImage &image = *chosenImage;
      const bool useCubin = image.format == plan::kCubinImageFormat;
      const std::string where =
          "for kernel '" + kernel.name + "'" + (variant ? " variant " + std::to_string(variant) : std::string()) +
          " (" +
          (useCubin ? "CUBIN for " + image.target
                    : "PTX for " + image.target + ", JIT-compiled for " + driver_.describeDevice()) +
          ")";
      auto key = std::make_tuple(image.range.offset, image.range.size, useCubin);
      auto it = loaded.find(key);
      if (it == loaded.end()) {
        const ByteRange bytes = plan.imageBytes(image.range);
        // PTX is text the JIT reads up to a NUL, which the plan need not
        // store; std::string adds one.
        const std::string ptx =
            useCubin ? std::string() : std::string(reinterpret_cast<const char *>(bytes.data), bytes.size);
        CUmodule module = loadModule(cu, useCubin ? static_cast<const void *>(bytes.data) : ptx.c_str(), where);
        modules_.push_back(module);
        it = loaded.emplace(key, module).first;
      }
      if (!useCubin && variant == 0)
        ++jitCompiled_;
      CUfunction &function = functions_[k][variant];
      cu.check(cu.moduleGetFunction(&function, it->second, image.entry.c_str()), "cuModuleGetFunction",
               where + " (entry '" + image.entry + "')");
      // Above 48 KiB of dynamic shared memory a launch fails unless the
      // kernel opts in; a device with less than the kernel needs says so here.
      const int64_t shared = kernel.launchOf(variant).sharedBytes;
      if (shared > int64_t{48} * 1024)
        cu.check(cu.funcSetAttribute(function, kFunctionAttributeMaxDynamicSharedBytes, static_cast<int>(shared)),
                 "cuFuncSetAttribute", where + " (" + std::to_string(shared) + " bytes of dynamic shared memory)");
    }
  } catch (...) {
    for (CUmodule module : modules_)
      cu.moduleUnload(module);
    throw;
  }
  loadLibraries(cublasLt, cudnn);
}

void KernelModules::loadLibraries(const std::string &cublasLt, const std::string &cudnn) {
  bool wantsCublasLt = false, wantsCudnn = false;
  for (const KernelDesc &kernel : plan_.kernels())
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant)
      if (const LibraryCall *call = kernel.libraryOf(variant)) {
        wantsCublasLt |= call->matmul.has_value();
        wantsCudnn |= call->conv.has_value();
      }
  // A library that does not load (or whose workspace cannot be had) leaves
  // its variants to the compiled ones; so does a convolution cuDNN has no
  // engine for. Other failures are errors.
  if (wantsCublasLt) {
    try {
      matmuls_ = std::make_unique<CublasLtMatmuls>(driver_, plan_, cublasLt);
    } catch (const Error &error) {
      unloaded_.push_back(error.what());
    }
  }
  if (!wantsCudnn)
    return;
  try {
    convs_ = std::make_unique<CudnnConvs>(driver_, plan_, cudnn);
  } catch (const Error &error) {
    unloaded_.push_back(error.what());
    return;
  }
  for (size_t k = 0; k < plan_.kernels().size(); ++k) {
    const KernelDesc &kernel = plan_.kernels()[k];
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant) {
      const LibraryCall *call = kernel.libraryOf(variant);
      if (!call || !call->conv)
        continue;
      const std::string reason = convs_->unsupported(k, variant);
      if (reason.empty())
        continue;
      if (noEngine_.empty())
        firstNoEngine_ = kernel.name + ": " + reason;
      noEngine_.emplace(k, variant);
    }
  }
}

bool KernelModules::runsLibraryVariant(size_t kernel, size_t variant) const {
  const LibraryCall *call = plan_.kernels()[kernel].libraryOf(variant);
  if (!call)
    return false;
  if (call->matmul)
    return matmuls_ != nullptr;
  return convs_ && !noEngine_.count({kernel, variant});
}

std::string KernelModules::libraryUnavailable() const {
  std::string reasons;
  for (const std::string &reason : unloaded_)
    reasons += (reasons.empty() ? "" : "; ") + reason;
  if (!noEngine_.empty())
    reasons += std::string(reasons.empty() ? "" : "; ") + "cuDNN has no engine for " +
               std::to_string(noEngine_.size()) + " convolution kernel" + (noEngine_.size() == 1 ? "" : "s") + " (" +
               firstNoEngine_ + ")";
  return reasons;
}

void KernelModules::launch(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream,
                           gpu::Where where) const {
  if (const LibraryCall *call = plan_.kernels()[step.kernel].libraryOf(step.variant)) {
    if (!runsLibraryVariant(step.kernel, step.variant))
      throw Error("internal error: a library variant was launched " + where.str() + ", but " + libraryUnavailable());
    if (call->matmul)
      matmuls_->run(step, args, stream, where);
    else
      convs_->run(step, args, stream, where);
    return;
  }
  // cuLaunchKernel reads each parameter through a pointer to its value and
  // copies the values before returning (a captured launch keeps the copy).
  constexpr size_t kInline = 16;
  void *inlineParams[kInline + 2];
  std::vector<void *> heapParams;
  void **params = inlineParams;
  const size_t pointers = step.pointerCount(), maps = step.tensorMaps.size();
  if (pointers + maps > kInline) {
    heapParams.resize(pointers + maps + 2);
    params = heapParams.data();
  }
  for (size_t i = 0; i < pointers; ++i)
    params[i] = const_cast<gpu::DevicePtr *>(&args[i]);
  int batch = step.batch;
  params[pointers] = &batch;
  // The scalar arguments are one parameter, a struct of unsigned ints laid
  // out as the array is.
  size_t next = pointers + 1;
  if (!step.arguments.empty())
    params[next++] = const_cast<uint32_t *>(step.arguments.data());
  // The tensor maps, encoded for this launch's buffers and batch.
  struct alignas(kTensorMapAlignment) EncodedMap {
    unsigned char bytes[kTensorMapBytes];
  };
  std::vector<EncodedMap> encoded(maps);
  for (size_t i = 0; i < maps; ++i) {
    encodeTensorMap(step.tensorMaps[i], args[step.tensorMaps[i].buffer], step.batch, encoded[i].bytes, where);
    params[next++] = encoded[i].bytes;
  }
  const DriverApi &cu = driver_.api();
  const CUresult result = cu.launchKernel(functions_[step.kernel][step.variant], step.grid.x, step.grid.y, step.grid.z,
                                          step.block.x, step.block.y, step.block.z, step.sharedBytes,
                                          static_cast<CUstream>(stream), params, /*extra=*/nullptr);
  if (result != kCudaSuccess)
    cu.fail(result, "cuLaunchKernel", where.str());
}

void KernelModules::encodeTensorMap(const TensorMapDesc &map, gpu::DevicePtr buffer, int32_t batch, void *encoded,
                                    gpu::Where where) const {
  const DriverApi &cu = driver_.api();
  if (!cu.tensorMapEncodeTiled)
    throw Error("the CUDA driver '" + cu.library() + "' has no cuTensorMapEncodeTiled (CUDA 12.0 or newer needed), " +
                "which the Hopper kernel " + where.str() + " reads its operands through");
  const TensorMapDesc::Encoding encoding = map.encodingAt(batch);
  unsigned long long dims[TensorMapDesc::kMaxRank], strides[TensorMapDesc::kMaxRank - 1];
  for (uint32_t d = 0; d < encoding.rank; ++d) {
    dims[d] = encoding.dims[d];
    if (d > 0)
      strides[d - 1] = encoding.strides[d - 1];
  }
  // The driver takes the device address as a pointer.
  void *address = reinterpret_cast<void *>(static_cast<uintptr_t>(buffer)); // NOLINT(performance-no-int-to-ptr)
  const CUresult result = cu.tensorMapEncodeTiled(
      static_cast<CUtensorMap_st *>(encoded), map.bf16 ? kTensorMapBfloat16 : kTensorMapFloat16, encoding.rank, address,
      dims, strides, encoding.box, encoding.elementStrides, kTensorMapInterleaveNone,
      map.swizzleBytes == 0 ? kTensorMapSwizzleNone : kTensorMapSwizzle128B, kTensorMapL2Promotion128B,
      kTensorMapOobFillNone);
  if (result != kCudaSuccess)
    cu.fail(result, "cuTensorMapEncodeTiled", where.str());
}

KernelModules::~KernelModules() {
  matmuls_.reset();
  for (CUmodule module : modules_)
    driver_.api().moduleUnload(module);
}

} // namespace fusec::runtime::cuda
