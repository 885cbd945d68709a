//===- DriverVersion.h - Which CUDA driver a plan's kernel images need ------===//
//
// A driver older than the toolkit that built a kernel image cannot load it,
// and says so only as a raw cuModuleLoadDataEx error (or a JIT log about an
// unsupported PTX version). The runtime compares cuDriverGetVersion with
// what each image needs before loading any, and names both versions.
//
// Versions are cuDriverGetVersion's integers: 1000 * major + 10 * minor
// (13000 for CUDA 13.0, 12040 for 12.4).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_DRIVERVERSION_H
#define FUSEC_RUNTIME_CUDA_DRIVERVERSION_H

#include <optional>
#include <string>

namespace fusec::runtime::cuda {

/// The CUDA release of the PTX ISA that `ptx` declares (".version 9.0" ->
/// 13000), or nullopt if the text declares none. ISA versions newer than
/// this runtime knows map to the release after the newest it knows.
std::optional<int> ptxToolkitVersion(const std::string &ptx);

/// The oldest driver that can load an image of a toolkit of version
/// `toolkit`: the PTX JIT needs a driver at least that new; a CUBIN needs
/// one of the same major release (CUDA's minor version compatibility).
int requiredDriverVersion(int toolkit, bool cubin);

/// "13.0" for 13000, "12.4" for 12040.
std::string formatCudaVersion(int version);

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_DRIVERVERSION_H
