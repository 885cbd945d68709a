//===- DriverVersion.cpp - Which CUDA driver a plan's kernel images need ----===//

#include "runtime/cuda/DriverVersion.h"

#include <cstdio>
#include <utility>

namespace fusec::runtime::cuda {

namespace {

/// PTX ISA version -> the CUDA release that introduced it (the PTX ISA
/// manual's release notes), newest last.
constexpr std::pair<int, int> kPtxIsaReleases[] = {
    {70, 11000}, {71, 11010}, {72, 11020}, {73, 11030}, {74, 11040}, {75, 11050}, {76, 11060},
    {77, 11070}, {78, 11080}, {80, 12000}, {81, 12010}, {82, 12020}, {83, 12030}, {84, 12040},
    {85, 12050}, {86, 12070}, {87, 12080}, {88, 12090}, {90, 13000},
};

} // namespace

std::optional<int> ptxToolkitVersion(const std::string &ptx) {
  // The directive comes first after comments: ".version 9.0".
  for (size_t at = ptx.find(".version"); at != std::string::npos; at = ptx.find(".version", at + 1)) {
    if (at > 0 && ptx[at - 1] != '\n' && ptx[at - 1] != ' ' && ptx[at - 1] != '\t')
      continue;
    int major = 0, minor = 0;
    if (std::sscanf(ptx.c_str() + at, ".version %d.%d", &major, &minor) != 2 || major < 1 || minor < 0 || minor > 9)
      continue;
    const int isa = major * 10 + minor;
    int release = 0;
    for (const auto &[known, cuda] : kPtxIsaReleases)
      if (known <= isa)
        release = cuda;
    // An ISA newer than the table: at least one release newer than the
    // newest one listed.
    if (isa > kPtxIsaReleases[std::size(kPtxIsaReleases) - 1].first)
      release += 10 * (isa - kPtxIsaReleases[std::size(kPtxIsaReleases) - 1].first);
    return release ? std::optional<int>(release) : std::nullopt;
  }
  return std::nullopt;
}

int requiredDriverVersion(int toolkit, bool cubin) { return cubin ? toolkit / 1000 * 1000 : toolkit; }

std::string formatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

} // namespace fusec::runtime::cuda
