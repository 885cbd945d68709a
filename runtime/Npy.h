//===- Npy.h - Read and write NumPy .npy files ------------------------------===//
//
// Only what plans exchange: little-endian arrays in C order of the plan
// element types: '<f4' (f32), '<f2' (f16), '<i8' (i64), '<i4' (i32), '|b1'
// (i1) and, since numpy has no bfloat16, '<u2' holding bf16 bit patterns.
// Reading accepts format versions 1.0 and 2.0; writing produces 1.0 (2.0 only
// when the header would not fit), byte for byte what numpy.save writes.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_NPY_H
#define FUSEC_RUNTIME_NPY_H

#include "runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusec::runtime {

/// Throws Error naming `path` if the file is unreadable, malformed, of
/// another descr (naming it), or in Fortran order. A '<u2' array reads as
/// a bf16 tensor.
Tensor readNpy(const std::string &path);
/// Decodes in-memory .npy bytes; `sourceName` names them in errors.
Tensor decodeNpy(const std::vector<uint8_t> &bytes, const std::string &sourceName);

/// Writes atomically (see writeFileAtomically).
void writeNpy(const std::string &path, const Tensor &tensor);
std::vector<uint8_t> encodeNpy(const Tensor &tensor);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_NPY_H
