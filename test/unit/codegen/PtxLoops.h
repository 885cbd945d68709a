//===- PtxLoops.h - Instructions inside the loops of PTX text ----*- C++ -*-===//
//
// Test support: finds the loops of a PTX function by their back edges (a
// branch to a label earlier in the text: structured code compiles each loop
// to one) and returns the instructions inside them that match a pattern, so
// a test can say "no 64-bit division in any loop" about generated kernels.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_PTXLOOPS_H
#define FUSEC_TEST_UNIT_CODEGEN_PTXLOOPS_H

#include <string>
#include <vector>

namespace fusec::test {

/// The lines of `ptx` between a label and a later branch back to it that
/// contain any of `opcodes` (e.g. "div.s64"), each prefixed with its line
/// number.
std::vector<std::string> instructionsInLoops(const std::string &ptx, const std::vector<std::string> &opcodes);

/// The number of loops (back edges) in `ptx`.
size_t countLoops(const std::string &ptx);

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_PTXLOOPS_H
