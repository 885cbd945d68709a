//===- FuserunRun.h - What fuserun does with its parsed options --*- C++ -*-===//
//
// The body of fuserun after its command line is parsed: load the plan, run
// it on the chosen backend, check it against the CPU backend (--check),
// time it, write or summarize the outputs. The backend comes from a factory
// so that tests can put a double of it under --check; the tool passes
// runtime::createBackend.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TOOLS_FUSERUN_FUSERUNRUN_H
#define FUSEC_TOOLS_FUSERUN_FUSERUNRUN_H

#include "runtime/Backend.h"
#include "tools/fuserun/FuserunOptions.h"

#include <functional>
#include <memory>
#include <ostream>

namespace fusec::fuserun {

/// Makes the backend the plan runs on (not the --check reference, which is
/// always the CPU backend); runtime::createBackend when none is given.
using BackendFactory = std::function<std::unique_ptr<runtime::Backend>(
    const std::string &, std::shared_ptr<const runtime::Plan>, const runtime::DeviceOptions &)>;

/// Runs fuserun with parsed `options`, writing what the tool prints to `out`
/// and its errors to `err`. Returns the exit code: 0, or 1 when --check finds
/// an output that differs from the CPU backend beyond tolerance. Throws
/// std::exception for a plan, input or device that cannot be used.
int runFuserun(const FuserunOptions &options, std::ostream &out, std::ostream &err,
               const BackendFactory &makeBackend = {});

} // namespace fusec::fuserun

#endif // FUSEC_TOOLS_FUSERUN_FUSERUNRUN_H
