//===- CompilerBindings.cpp - fusec._fusec.compile ------------------------===//
#include "Bindings.h"

#include "compiler/ModelCompiler.h"

#include <pybind11/stl.h>

#include <mutex>

namespace py = pybind11;

namespace fusec::python {

void bindCompiler(py::module_ &module) {
  module.attr("_compiler_version") = compilerVersion();
  // Keyword names and defaults are fusec.compile's; this layer takes a
  // path only (the Python layer writes model bytes to a file first).
  module.def(
      "_compile_file",
      [](const std::string &path, const std::string &target, const std::string &precision,
         const std::string &ioPrecision, const std::string &fusionStrategy, const std::vector<std::string> &disable,
         const std::vector<int64_t> &batchBuckets, int64_t costBatch, int64_t kernelVariants,
         const std::string &deviceProfile, const std::string &kernelCache,
         const std::map<std::string, std::vector<std::vector<int64_t>>> &dims, const std::string &layout) {
        ModelCompileOptions options;
        // Each entry of a name: [size], or [min, opt, max] for a range.
        for (const auto &[name, entries] : dims)
          for (const std::vector<int64_t> &entry : entries) {
            if (entry.size() != 1 && entry.size() != 3)
              throw py::value_error("dims['" + name + "'] entries are a size or (min, max) or (min, opt, max)");
            options.dimensionSizes[name].push_back(entry.size() == 1
                                                       ? import::DimensionSize(entry[0])
                                                       : import::DimensionSize::range(entry[0], entry[1], entry[2]));
          }
        options.target = target;
        options.precision = precision;
        options.ioPrecision = ioPrecision;
        options.fusionStrategy = fusionStrategy;
        options.disabledRules = disable;
        options.batchBuckets = batchBuckets;
        options.costBatch = costBatch;
        options.kernelVariants = kernelVariants;
        options.layout = layout;
        options.deviceProfile = deviceProfile;
        options.kernelCacheDir = kernelCache;
        CompiledModel compiled;
        {
          // Compiling takes seconds and touches no Python object, so other
          // Python threads run meanwhile; compiles themselves take turns
          // (the compiler's registries are process-wide).
          py::gil_scoped_release released;
          static std::mutex compiling;
          std::lock_guard<std::mutex> lock(compiling);
          compiled = compileModelFile(path, options);
        }
        return py::make_tuple(py::bytes(reinterpret_cast<const char *>(compiled.plan.data()), compiled.plan.size()),
                              compiled.fusionReport);
      },
      py::arg("path"), py::arg("target"), py::arg("precision"), py::arg("io_precision"), py::arg("fusion_strategy"),
      py::arg("disable"), py::arg("batch_buckets"), py::arg("cost_batch"), py::arg("kernel_variants"),
      py::arg("device_profile"), py::arg("kernel_cache"), py::arg("dims"), py::arg("layout"),
      "Compiles the model file at `path`; returns (plan bytes, fusion report JSON text). Raises CompileError.");
}

} // namespace fusec::python
