//===- Npy.h - Read and write NumPy .npy files ------------------------------===//
//
// Only what plans exchange: little-endian float32 ('<f4') arrays in C order.
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

/// Throws Error naming `path` if the file is unreadable, malformed, not
/// '<f4', or in Fortran order.
Tensor readNpy(const std::string &path);
/// Decodes in-memory .npy bytes; `sourceName` names them in errors.
Tensor decodeNpy(const std::vector<uint8_t> &bytes, const std::string &sourceName);

/// Writes atomically (see writeFileAtomically).
void writeNpy(const std::string &path, const Tensor &tensor);
std::vector<uint8_t> encodeNpy(const Tensor &tensor);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_NPY_H
