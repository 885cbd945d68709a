//===- ShapeVariants.h - One plan for several sizes of named dimensions -*- C++ -*-===//
//
// A plan has one dynamic dimension, the batch: the runtime pads a batch up
// to a bucket, which is safe because samples never mix. Other named
// dimensions (a transformer's sequence length) are compiled in: padding a
// sequence would change what attention and softmax compute. So `fusec --dim
// seq=64,128` compiles the model once per size, every kernel specialized
// to its exact shapes, and stores the results in one plan as shape variants
// (format 5.1, docs/plan-format.md). The variants share the plan's
// sections, where a weight or kernel image that several compiled alike is
// stored once; the runtime picks the variant by its inputs' shapes. The
// variants are merged in memory and the plan is encoded and verified once.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_SHAPEVARIANTS_H
#define FUSEC_COMPILER_SHAPEVARIANTS_H

#include "compiler/PlanWriter.h"
#include "compiler/import/SymbolicDimensions.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusec {

/// Sizes for named dimensions as fusec --dim gives them: one or more per
/// name, each a static size or a range (one variant runs every size in it).
using DimensionChoices = std::map<std::string, std::vector<import::DimensionSize>>;

/// The most shape variants one plan may hold; each is a whole compile.
inline constexpr size_t kMaxShapeVariants = 64;

/// Every combination of `choices`, the first size of each name first and
/// the last name's sizes varying fastest ({} gives one empty combination).
/// The caller checks the count against kMaxShapeVariants.
std::vector<import::DimensionSizes> dimensionCombinations(const DimensionChoices &choices);

/// The number of combinations, saturating at kMaxShapeVariants + 1.
size_t countDimensionCombinations(const DimensionChoices &choices);

/// Builds one plan of shape variants from complete plans of one model
/// compiled for the sizes in their manifests' `dims`, one variant at a
/// time and in memory: add() copies a variant's weights and kernel images
/// into the merged sections (each distinct content once), so the variant's
/// module can be dropped before the next is compiled; finish() gives the
/// first variant's manifest with the others as its shape variants, to be
/// encoded once (encodeVerifiedPlan).
class ShapeVariantMerger {
public:
  ShapeVariantMerger();
  ~ShapeVariantMerger();

  /// Throws runtime::Error if `variant` disagrees with the first on what
  /// variants share (target, batch buckets, source, versions), or its
  /// manifest and sections do not agree.
  void add(const PlanContents &variant);
  /// Throws runtime::Error if no variant was added.
  PlanContents finish();

private:
  struct Shared;
  std::unique_ptr<Shared> shared;
  nlohmann::json root;
  nlohmann::json variants = nlohmann::json::array();
  size_t count = 0;
  bool hasImages = false;
};

} // namespace fusec

#endif // FUSEC_COMPILER_SHAPEVARIANTS_H
