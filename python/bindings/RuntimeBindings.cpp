//===- RuntimeBindings.cpp - fusec._fusec.Plan and Session ----------------===//
#include "Bindings.h"
#include "NumpyTensors.h"

#include "runtime/BackendRegistry.h"
#include "runtime/Error.h"
#include "runtime/PlanInfo.h"
#include "runtime/Session.h"
#include "runtime/plan/PlanFormat.h"
#include "support/FileIO.h"

#include <nlohmann/json.hpp>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

namespace py = pybind11;

namespace fusec::python {

namespace {

/// A loaded, verified plan, shared by every Session made from it (the
/// weights are loaded once).
struct LoadedPlan {
  std::shared_ptr<const runtime::Plan> plan;
  /// A shape variant of a plan (Plan.variant): its bytes are the whole
  /// plan's, so it is not saved on its own.
  bool variant = false;
};

/// A Session that Python threads may share: runs take turns. (Sessions
/// are not thread-safe; one per thread runs concurrently.)
struct SharedSession {
  /// The session's plan: the inputs' names and element types, the same in
  /// every shape variant, read without the session.
  std::shared_ptr<const runtime::Plan> plan;
  std::unique_ptr<runtime::Session> session;
  std::mutex mutex;
};

/// `read(session)` under the session's mutex, the GIL released first (as
/// runs take them), for state a run on another thread changes.
template <typename Read> auto locked(SharedSession &shared, Read read) {
  py::gil_scoped_release released;
  std::lock_guard<std::mutex> lock(shared.mutex);
  return read(*shared.session);
}

void refuseVariant(const LoadedPlan &plan, const char *what) {
  if (plan.variant)
    throw runtime::Error(std::string("a shape variant's ") + what +
                         " would be its whole plan's (every variant): use the plan it came from");
}

/// [{"name", "dtype", "shape"}], the batch dimension as None.
py::list describeTensors(const std::vector<runtime::TensorDesc> &tensors) {
  py::list list;
  for (const runtime::TensorDesc &tensor : tensors) {
    py::list shape;
    for (int64_t dim : tensor.shape)
      shape.append(dim == plan::kBatchDim ? py::object(py::none()) : py::object(py::int_(dim)));
    py::dict entry;
    entry["name"] = tensor.name;
    entry["dtype"] = runtime::elementTypeName(tensor.dtype);
    entry["numpy_dtype"] = numpyTypeFor(tensor.dtype);
    entry["shape"] = py::tuple(shape);
    list.append(entry);
  }
  return list;
}

std::map<std::string, py::array> runSession(SharedSession &shared, const py::dict &given, int64_t batch) {
  runtime::Session &session = *shared.session;
  std::map<std::string, runtime::Tensor> inputs;
  for (const runtime::TensorDesc &desc : shared.plan->inputs())
    if (given.contains(desc.name))
      inputs.emplace(desc.name, tensorFromArray(desc, given[py::str(desc.name)]));
  for (const auto &[key, value] : given) {
    const std::string name = py::str(key).cast<std::string>();
    if (!inputs.count(name))
      throw runtime::Error("'" + name + "' is not an input of the plan");
  }
  if (batch == 0)
    batch = session.inferBatch(inputs);
  std::map<std::string, runtime::Tensor> outputs;
  {
    // The run touches no Python object: other threads run meanwhile. The
    // GIL goes first, so a thread waiting for the session never holds it.
    py::gil_scoped_release released;
    std::lock_guard<std::mutex> lock(shared.mutex);
    outputs = session.run(batch, inputs);
  }
  std::map<std::string, py::array> arrays;
  for (const auto &[name, tensor] : outputs)
    arrays.emplace(name, arrayFromTensor(tensor));
  return arrays;
}

/// Session::runOnDevice on addresses the Python layer read from the arrays'
/// interfaces and checked (shapes, types, contiguity); `stream` 0 for none.
void runSessionOnDevice(SharedSession &shared, int64_t batch, const std::vector<uintptr_t> &inputs,
                        const std::vector<uintptr_t> &outputs, uintptr_t stream,
                        const std::map<std::string, int64_t> &dims) {
  std::vector<const void *> in;
  std::vector<void *> out;
  in.reserve(inputs.size());
  out.reserve(outputs.size());
  for (uintptr_t address : inputs)
    in.push_back(reinterpret_cast<const void *>(address)); // NOLINT(performance-no-int-to-ptr)
  for (uintptr_t address : outputs)
    out.push_back(reinterpret_cast<void *>(address)); // NOLINT(performance-no-int-to-ptr)
  py::gil_scoped_release released;
  std::lock_guard<std::mutex> lock(shared.mutex);
  // No dims: the plan's own variant, whatever an earlier run chose.
  shared.session->selectDims(dims.empty() ? shared.session->shapeVariants().front() : dims);
  shared.session->runOnDevice(batch, in, out, reinterpret_cast<void *>(stream)); // NOLINT(performance-no-int-to-ptr)
}

} // namespace

void bindRuntime(py::module_ &module) {
  py::class_<LoadedPlan>(module, "_Plan")
      .def_static(
          "from_bytes",
          [](const py::bytes &bytes, const std::string &name) {
            const std::string_view view = bytes;
            std::vector<uint8_t> data(view.begin(), view.end());
            return LoadedPlan{std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(std::move(data), name))};
          },
          py::arg("data"), py::arg("name"))
      .def_static(
          "load",
          [](const std::string &path) {
            return LoadedPlan{std::make_shared<const runtime::Plan>(runtime::Plan::load(path))};
          },
          py::arg("path"))
      .def("to_bytes",
           [](const LoadedPlan &self) {
             refuseVariant(self, "bytes");
             runtime::ByteRange bytes = self.plan->bytes();
             return py::bytes(reinterpret_cast<const char *>(bytes.data), bytes.size);
           })
      .def(
          "save",
          [](const LoadedPlan &self, const std::string &path) {
            refuseVariant(self, "file");
            runtime::writeRangesAtomically(path, {self.plan->bytes()});
          },
          py::arg("path"))
      .def_property_readonly("dims", [](const LoadedPlan &self) { return self.plan->dims(); })
      .def_property_readonly("shape_variants", [](const LoadedPlan &self) { return self.plan->shapeVariantDims(); })
      .def_property_readonly("ranges",
                             [](const LoadedPlan &self) {
                               std::map<std::string, std::tuple<int64_t, int64_t, int64_t>> ranges;
                               for (const runtime::DimensionRange &range : self.plan->ranges())
                                 ranges[range.name] = {range.min, range.opt, range.max};
                               return ranges;
                             })
      .def(
          "variant",
          [](const LoadedPlan &self, const std::map<std::string, int64_t> &dims) {
            if (!self.plan->ranges().empty() && !self.plan->findShapeVariant(dims)) {
              // The plan at these sizes of its ranges.
              return LoadedPlan{std::make_shared<const runtime::Plan>(self.plan->specializeAt(dims)), true};
            }
            const runtime::Plan *found = self.plan->findShapeVariant(dims);
            if (!found)
              throw runtime::Error("the plan has no shape variant for " + runtime::formatDims(dims) +
                                   " (it was compiled for " + self.plan->describeShapeVariants() + ")");
            // Aliasing: the variant keeps the whole plan alive.
            return LoadedPlan{std::shared_ptr<const runtime::Plan>(self.plan, found), found != self.plan.get()};
          },
          py::arg("dims"))
      .def_property_readonly("inputs", [](const LoadedPlan &self) { return describeTensors(self.plan->inputs()); })
      .def_property_readonly("outputs", [](const LoadedPlan &self) { return describeTensors(self.plan->outputs()); })
      .def(
          "describe",
          [](const LoadedPlan &self, int64_t batch) { return runtime::describePlan(*self.plan, batch).dump(); },
          py::arg("batch"));

  py::class_<SharedSession>(module, "_Session")
      .def(py::init([](const LoadedPlan &plan, const std::string &device, bool tune, const std::string &tuningCache) {
             if (!runtime::isDeviceName(device))
               throw py::value_error("device must be " + runtime::describeDeviceNames() + ", got '" + device + "'");
             runtime::DeviceOptions options;
             options.tune = tune;
             options.tuningCache = tuningCache;
             auto shared = std::make_unique<SharedSession>();
             shared->plan = plan.plan;
             shared->session = std::make_unique<runtime::Session>(plan.plan, device, options);
             return shared;
           }),
           py::arg("plan"), py::arg("device"), py::arg("tune"), py::arg("tuning_cache"))
      .def_property_readonly("tuning",
                             [](SharedSession &self) {
                               std::lock_guard<std::mutex> lock(self.mutex);
                               py::list choices;
                               for (const runtime::KernelTuning &kernel : self.session->tuning()) {
                                 py::dict entry;
                                 entry["kernel"] = kernel.kernel;
                                 entry["batch"] = kernel.batch;
                                 entry["configs"] = kernel.configs;
                                 entry["milliseconds"] = kernel.milliseconds;
                                 entry["chosen"] = kernel.chosen;
                                 entry["from_cache"] = kernel.fromCache;
                                 choices.append(entry);
                               }
                               return choices;
                             })
      .def_property_readonly(
          "device",
          [](SharedSession &self) { return locked(self, [](runtime::Session &session) { return session.device(); }); })
      .def_property_readonly("max_batch",
                             [](SharedSession &self) {
                               return locked(self, [](runtime::Session &session) { return session.maxBatch(); });
                             })
      .def("run_device", &runSessionOnDevice, py::arg("batch"), py::arg("inputs"), py::arg("outputs"),
           py::arg("stream"), py::arg("dims"),
           "Runs on device addresses (plan order) ordered on `stream` (0: none); see Session.run_device.")
      .def("run", &runSession, py::arg("inputs"), py::arg("batch"),
           "Runs the plan on a dict of arrays at `batch` (0: inferred from the inputs); returns a dict of arrays.");
}

} // namespace fusec::python
