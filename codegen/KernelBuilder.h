//===- KernelBuilder.h - Shared pieces of kernel emission ------*- C++ -*-===//
//
// Internal to codegen: the kernel signature and emulation thunk, and the
// scalar emitter that turns a superkernel's elementwise ops into C
// expressions evaluated at one element's coordinates (used for plain
// elementwise kernels and for the prologues/epilogues of the templates).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_KERNELBUILDER_H
#define FUSEC_CODEGEN_KERNELBUILDER_H

#include "codegen/KernelSource.h"
#include "codegen/TensorIndexing.h"

#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "ir/OpClassification.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusec::codegen {

/// The C type a tensor of element type `type` is stored as in a kernel's
/// memory: float, fusec_f16, fusec_bf16, long long, int or bool
/// (fusec_cuda_prelude.h).
std::string storageType(mlir::Type elementType);
/// The C type a value of element type `type` is computed in: float for f32,
/// f16 and bf16 (16-bit floats are widened), the storage type for integers.
std::string registerType(mlir::Type elementType);
/// `expression` (of `elementType`'s register type) as stored in memory.
std::string storeExpression(mlir::Type elementType, const std::string &expression);

/// `expression`, computed in float, rounded to what a value of element type
/// `elementType` holds (f16 and bf16; others are returned as they are). A
/// template binds its core op's result through this.
std::string roundedTo(mlir::Type elementType, const std::string &expression);

/// A tile description: the named constants (and types) a device template
/// reads from its one description parameter, `Tile::kBlockM` and so on
/// (docs/codegen.md#tile-descriptions). Host and device agree on each value
/// by its name, never by its position in an argument list.
class TileDescription {
public:
  /// One member: `static constexpr int kBlockM = 64;`, `static constexpr
  /// bool kBNMajor = true;`, `static constexpr const char *kTemplate =
  /// "...";` or `using Element = float;`.
  struct Member {
    enum class Kind { Int, Bool, Text, Type };
    Kind kind;
    std::string name, value;
  };

  /// Every field of `config`, each under its name: the one place a
  /// KernelConfig field becomes a device constant (a new field is added
  /// here, and TileDescriptionTest fails until it is).
  explicit TileDescription(const fuse::KernelConfig &config);
  /// The description of `config`'s attention loop: the config's fields and
  /// the head dimensions, kHeadDim (Q, K) and kValueDim (V).
  static TileDescription attention(const fuse::KernelConfig &config, int64_t headDim, int64_t valueDim);
  /// The Hopper GEMM's (FusecGemmSm90): the config's fields and B's layout,
  /// kBNMajor (B stored K x N).
  static TileDescription hopperGemm(const fuse::KernelConfig &config, bool bNMajor);
  /// The few-row template's (FusecGemv): the config's fields, B's layout
  /// kTransB (B stored N x K) and the tensors' element type `Storage`
  /// (`storage`; the config's Element is its arithmetic, float).
  static TileDescription gemv(const fuse::KernelConfig &config, bool transB, const std::string &storage);
  /// A convolution's groups and window, what the SIMT convolutions
  /// (FusecSimtConv, FusecDirectConv) read beside the config's fields.
  struct ConvWindow {
    int64_t group, strideH, strideW, padTop, padLeft, dilationH, dilationW;
    bool channelsLast;
  };
  /// What the Hopper conv reads beside the window: the filter's taps, the
  /// channels, the output image and a block's tile of it.
  struct HopperConvGeometry {
    ConvWindow window;
    int64_t tapsH, tapsW, channels, outHeight, outWidth, tileHeight, tileWidth;
  };
  /// The Hopper conv's (FusecConvSm90): the Hopper GEMM's description
  /// (kBNMajor false: OHWI weights are K-major), the window (kStrideH,
  /// kStrideW, kPadTop, kPadLeft, kDilationH, kDilationW), kTapsH, kTapsW,
  /// kChannels, the output image (kOutHeight, kOutWidth) and a block's tile
  /// of it (kTileHeight, kTileWidth).
  static TileDescription hopperConv(const fuse::KernelConfig &config, const HopperConvGeometry &geometry);
  /// The SIMT convolutions': the config's fields, kGroup, the window
  /// (kStrideH, kStrideW, kPadTop, kPadLeft, kDilationH, kDilationW) and
  /// kChannelsLast.
  static TileDescription convolution(const fuse::KernelConfig &config, const ConvWindow &window);

  /// Adds a constant that is not a config field (the op's geometry: head
  /// dimensions, B's layout, a convolution's window).
  TileDescription &add(const std::string &name, int64_t value);
  TileDescription &add(const std::string &name, bool value);
  /// Adds a type that is not a config field (`using name = type;`).
  TileDescription &addType(const std::string &name, const std::string &type);

  const std::vector<Member> &members() const { return memberList; }
  /// `struct <name> { ... };`, one member a line.
  std::string render(const std::string &name) const;

private:
  TileDescription() = default;
  void append(Member::Kind kind, const std::string &name, std::string value);
  /// kStrideH, kStrideW, kPadTop, kPadLeft, kDilationH, kDilationW.
  void addWindow(const ConvWindow &window);
  std::vector<Member> memberList;
};

/// The C type of a tensor-core config's operands: float, fusec_f16 or
/// fusec_bf16.
std::string operandElementType(fuse::OperandType operands);

class KernelBuilder {
public:
  /// Emits `kernel` with its own config and name, or, for one of its
  /// variants, with `variantConfig` as the function `variantName`.
  explicit KernelBuilder(fuse::SuperkernelOp kernel, fuse::KernelConfigAttr variantConfig = {},
                         std::string variantName = "");

  fuse::SuperkernelOp getKernel() const { return kernel; }
  /// The config the kernel is emitted with: the variant's, else the
  /// superkernel's (null when it has none).
  fuse::KernelConfigAttr config() const { return variantConfig ? variantConfig : kernel.getConfigAttr(); }
  /// The kernel function's name.
  std::string functionName() const { return variantName.empty() ? kernel.getSymName().str() : variantName; }
  mlir::Block &body() const { return kernel.getBody().front(); }
  /// Body ops without the terminator, in order.
  std::vector<mlir::Operation *> bodyOps() const;
  /// The values the kernel writes, in output order.
  std::vector<mlir::Value> yields() const;

  /// "in3" for the kernel's 4th input.
  std::string inputName(mlir::Value blockArgument) const;
  /// `fusec_ld(&in3[offset])`: an element of a kernel input in its register
  /// type (`offset` its dense index, mapped into the buffer of an input that
  /// is a slice view, ir/SliceViews.h).
  std::string load(mlir::Value blockArgument, const std::string &offset) const;
  /// Whether an input or result is a slice view of a concatenation: its
  /// loads and stores must go through load() and emitStores().
  bool hasSliceViews() const;

  /// Evaluates `ops` (elementwise ops, in order) at `coords` of the
  /// iteration shape, appending `float vN = ...;` lines to `code` (the
  /// result's register type; a 16-bit float result is rounded to its type,
  /// as the plan's semantics say). Values already bound (bind()) are used
  /// as they are; kernel inputs are loaded with broadcasting. Fails on an op
  /// it cannot express.
  mlir::LogicalResult emitElementwise(std::string &code, const std::string &indent,
                                      llvm::ArrayRef<mlir::Operation *> ops, const std::vector<std::string> &coords);
  /// The C expression of `value` at `coords` (bound variable or a load), in
  /// its register type.
  std::string valueAt(mlir::Value value, const std::vector<std::string> &coords);
  void bind(mlir::Value value, std::string expression) { bound[value] = std::move(expression); }
  void unbind(mlir::Value value) { bound.erase(value); }

  /// Stores every yielded value whose shape is `shape` at `linear` (its
  /// dense index, mapped into the buffer of a result that is a slice view),
  /// reading it at `coords`.
  void emitStores(std::string &code, const std::string &indent, llvm::ArrayRef<int64_t> shape,
                  const std::string &linear, const std::vector<std::string> &coords);
  /// Stores every yielded Transpose of a value of `shape` (computed at
  /// `coords`) at the transposed position: a conv's epilogue-transpose.
  void emitTransposedStores(std::string &code, const std::string &indent, llvm::ArrayRef<int64_t> shape,
                            const std::vector<std::string> &coords);

  /// Wraps `bodyCode` into a complete translation unit that includes the
  /// prelude and then `headers` (device headers of codegen/include/).
  GeneratedKernel finish(const std::string &bodyCode, KernelLaunch launch,
                         llvm::ArrayRef<std::string> headers = {}) const;

  /// Defines `description` at namespace scope before the kernel, as the
  /// struct `<function name>_tile`, and returns that name: what the
  /// kernel's template is instantiated with.
  std::string declareTile(const TileDescription &description);

  /// Declares the kernel with __launch_bounds__(threads, minBlocks): the
  /// register budget ptxas must keep to (templates whose blocks are large).
  void setLaunchBounds(int64_t threads, int64_t minBlocks) { launchBounds = {threads, minBlocks}; }

  /// The range dimensions (TensorIndexing's isRangeDim) the kernel's
  /// tensors have, ordered by name: finish() declares each one's size.
  std::vector<int64_t> rangeDims() const;

  /// A fresh C identifier with `prefix`.
  std::string fresh(const std::string &prefix) { return prefix + std::to_string(counter++); }

  /// Passes `value` to the kernel as its next scalar argument and returns
  /// the C expression that reads it (unsigned). A size read this way, not
  /// compiled in, lets kernels that differ only in it share one program
  /// (KernelCompiler compiles identical code once).
  std::string scalarArgument(uint32_t value);
  /// A FusecDivisor of `divisor` (1 to 2^31 - 1) from three scalar
  /// arguments, as a C braced initializer.
  std::string divisorArgument(uint32_t divisor);

  /// emitCoordinates of the dense index `linear` into `shape`, remembered:
  /// valueAt reads a kernel input of exactly `shape` at these coordinates
  /// at `linear` itself (the same element: same shape, same dense layout),
  /// so the coordinates' divisions are left to those that broadcast.
  std::vector<std::string> emitLinearCoordinates(std::string &code, const std::string &indent,
                                                 llvm::ArrayRef<int64_t> shape, const std::string &linear,
                                                 const std::string &prefix);

  /// Makes kernel inputs read at the coordinates of an iteration space of
  /// `shape` address it through `dims`, C expressions of its sizes (the
  /// scalar arguments of a shape-generic kernel), instead of the constants:
  /// valueAt uses them for every input whose shape broadcasts to `shape`.
  void setIterationDims(llvm::ArrayRef<int64_t> shape, std::vector<std::string> dims);

private:
  // Op accessors are not const; the builder never changes the kernel.
  mutable fuse::SuperkernelOp kernel;
  fuse::KernelConfigAttr variantConfig;
  std::string variantName;
  llvm::DenseMap<mlir::Value, std::string> bound;
  unsigned counter = 0;
  std::vector<uint32_t> arguments;
  std::optional<std::pair<int64_t, int64_t>> launchBounds;
  /// Namespace-scope definitions before the kernel (tile descriptions).
  std::string declarations;
  std::vector<int64_t> iterationShape;
  std::vector<std::string> iterationDims;
  /// emitLinearCoordinates' coordinates, shape and dense index.
  struct LinearCoordinates {
    std::vector<std::string> coords;
    std::vector<int64_t> shape;
    std::string linear;
  };
  std::vector<LinearCoordinates> linearCoordinates;
};

/// n / d = (umulhi(n, multiplier) + n) >> shift for 0 <= n < 2^31
/// (FusecDivisor of fusec_cuda_prelude.h).
struct FastDivisor {
  uint32_t multiplier = 0;
  uint32_t shift = 0;
};
/// The FastDivisor of `divisor`, 1 to 2^31 - 1.
FastDivisor fastDivisor(uint32_t divisor);

/// Per-kind emitters (one file each).
mlir::FailureOr<GeneratedKernel> emitElementwiseKernel(KernelBuilder &builder);
mlir::FailureOr<GeneratedKernel> emitDataMovementKernel(KernelBuilder &builder);
mlir::FailureOr<GeneratedKernel> emitConvKernel(KernelBuilder &builder);
mlir::FailureOr<GeneratedKernel> emitGemmKernel(KernelBuilder &builder);
mlir::FailureOr<GeneratedKernel> emitReductionKernel(KernelBuilder &builder);
mlir::FailureOr<GeneratedKernel> emitPoolKernel(KernelBuilder &builder);
mlir::FailureOr<GeneratedKernel> emitAttentionKernel(KernelBuilder &builder);

/// Ops of the body other than `core`, split into those `core` depends on
/// (prologue) and the rest (epilogue), each in order.
void splitAroundCore(KernelBuilder &builder, mlir::Operation *core, std::vector<mlir::Operation *> &prologue,
                     std::vector<mlir::Operation *> &epilogue);

/// The template op of a kernel whose inputs are read directly from memory
/// (conv, gemm, pool): the body's core op of class `coreClass`, with every
/// operand a kernel input and only an epilogue fused after it.
mlir::FailureOr<mlir::Operation *> findTemplateCore(KernelBuilder &builder, fuse::OpClass coreClass,
                                                    std::vector<mlir::Operation *> &epilogue);

/// The config `core` (the conv or matrix product of the builder's kernel) is
/// emitted with: the builder's config (KernelBuilder::config), checked
/// against the op, or when it has none, the one fuse-select-kernel-configs
/// would choose.
mlir::FailureOr<fuse::KernelConfig> kernelConfigFor(KernelBuilder &builder, mlir::Operation *core);

/// For a split-capable `config` (split_k > 1) of a reduction of `kTiles`
/// k-tiles, declares `split`, the FusecSplitK the tensor-core main loop
/// takes (slices = gridDim.z, which the runtime sets per launch; `launch`
/// records what it needs to), and returns the main loop's trailing
/// argument ", split"; "" otherwise. The grid's z stays 1 in the plan.
/// `partialFloats`: a block's partial results (0: the BM x BN accumulator
/// tile of a conv or product; an attention loop's kSplitFloats).
std::string emitSplitK(std::string &code, const fuse::KernelConfig &config, int64_t kTiles, KernelLaunch &launch,
                       int64_t partialFloats = 0);

/// `FusecGemmTf32<Tile, B>` of fusec_gemm.h, or `FusecGemmHalf<Tile, B>` of
/// fusec_gemm_half.h for f16/bf16 operands: the main loop of a tensor-core
/// config, with `tile` the name of its description (KernelBuilder::declareTile)
/// and B operand type `bOperand`.
std::string tensorCoreGemmType(const fuse::KernelConfig &config, const std::string &tile, const std::string &bOperand);

/// The element type argument a B operand (FusecDenseB, FusecIm2colB) takes
/// for `config`'s operands: "" for f32 (the default), ", fusec_f16" or
/// ", fusec_bf16".
std::string operandElementArgument(const fuse::KernelConfig &config);

/// The device header that defines `config`'s main loop.
std::string tensorCoreGemmHeader(const fuse::KernelConfig &config);

/// Declares `array`, the shared memory of `owner`'s main loop (a type alias
/// already emitted, with kSmemFloats and kSmemBytes): a static array up to
/// 48 KiB, else dynamic shared memory, which `launch` then asks for (the
/// emulation has no such limit and keeps the static array).
void emitPipelineSharedMemory(std::string &code, int64_t bytes, KernelLaunch &launch, llvm::StringRef owner = "Gemm",
                              llvm::StringRef array = "gemmShared");

/// A grid dimension covering `count` (linear in batch) in steps of `step`.
GridDim gridFor(BatchLinear count, int64_t step);
/// Sets grid dimension `axis` of `launch` to cover the elements of `shape`
/// in steps of `step`: the batch and the constants (linearNumel), and the
/// sizes of its range dimensions (rangeFactorsOf), which the plan
/// multiplies in when it is specialized to a size.
void setGrid(KernelLaunch &launch, size_t axis, llvm::ArrayRef<int64_t> shape, int64_t step);

} // namespace fusec::codegen

#endif // FUSEC_CODEGEN_KERNELBUILDER_H
