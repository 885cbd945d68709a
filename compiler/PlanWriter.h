//===- PlanWriter.h - Lower a fused module to a model.plan -----*- C++ -*-===//
#ifndef FUSEC_COMPILER_PLANWRITER_H
#define FUSEC_COMPILER_PLANWRITER_H

#include "codegen/KernelCompiler.h"
#include "codegen/KernelSource.h"
#include "runtime/plan/DimensionRanges.h"
#include "runtime/plan/PlanContainer.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>

#include <cstdint>
#include <string>
#include <vector>

namespace fusec {

/// A superkernel's generated and compiled code, for GPU targets.
struct KernelArtifact {
  codegen::GeneratedKernel generated;
  codegen::CompiledKernel compiled;
  /// The same kernel compiled with its other configs (`variants`), which
  /// the plan carries for the runtime to choose among; none of their own.
  std::vector<KernelArtifact> variants;
};

struct PlanOptions {
  std::vector<int64_t> batchBuckets = {1, 2, 4, 8, 16};
  /// "cpu" (no kernel images) or an NVIDIA architecture such as "sm_90".
  std::string target = "cpu";
  /// Kernel images by superkernel name (GPU targets): launch geometry and
  /// config go into the manifest, PTX and CUBIN into the kernel_images
  /// section; each variant likewise under the kernel's `variants`.
  std::map<std::string, KernelArtifact> kernels;
  /// FNV-1a 64 of the source model's bytes.
  uint64_t sourceHash = 0;
  /// The sizes the named input dimensions were compiled at (the manifest's
  /// `dims`; none if empty).
  std::map<std::string, int64_t> dims;
  /// The named dimensions the plan runs over a range (the manifest's
  /// `ranges`, format 7.1); a type's symbol named ranges[i].name is written
  /// as plan::rangeDimCode(i), and buffers are planned at each maximum.
  std::vector<runtime::DimensionRange> ranges;
};

/// Builds the plan bytes for `module`'s `@main`: one kernel per top-level op
/// or `fuse.superkernel`, in program order; weights in the weights section;
/// intermediates placed in an arena by liveness. Deterministic: the same
/// module and options give the same bytes.
mlir::FailureOr<std::vector<uint8_t>> buildPlan(mlir::ModuleOp module, const PlanOptions &options);

/// A plan before it is encoded: its manifest (without "sections") and its
/// sections as pieces, which view the module's constants (weights) or the
/// contents' own storage (kernel images), so it must not outlive the module.
struct PlanContents {
  nlohmann::json manifest;
  std::vector<plan::SectionPieces> sections;
};

/// buildPlan's manifest and sections, not encoded (shape variants merge
/// several before encoding once, compiler/ShapeVariants.h).
mlir::FailureOr<PlanContents> planContentsOf(mlir::ModuleOp module, const PlanOptions &options);

/// `contents` encoded, and verified as the runtime verifies a plan it loads
/// (an error at `loc` if it would be rejected: fusec never writes such a
/// plan).
mlir::FailureOr<plan::EncodedPlan> encodeVerifiedPlan(mlir::Location loc, PlanContents contents);

/// buildPlan's plan, not assembled: its weights stay in `module`'s constants
/// (see plan::EncodedPlan), so it must not outlive the module. The driver
/// writes it to a file from there.
mlir::FailureOr<plan::EncodedPlan> encodePlanOf(mlir::ModuleOp module, const PlanOptions &options);

} // namespace fusec

#endif // FUSEC_COMPILER_PLANWRITER_H
