//===- Greedy.h - Greedy merging, shared with other strategies -*- C++ -*-===//
#ifndef FUSEC_PASSES_STRATEGIES_GREEDY_H
#define FUSEC_PASSES_STRATEGIES_GREEDY_H

#include "passes/FusionGraph.h"

namespace fusec {
/// Repeatedly merges the legal pair (producer/consumer or siblings) with the
/// largest positive benefit; records every rejected candidate.
void runGreedy(FusionGraph &graph);
} // namespace fusec

#endif // FUSEC_PASSES_STRATEGIES_GREEDY_H
