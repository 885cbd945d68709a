//===- DlpackTensors.cpp - DLPack capsules as array interfaces -------------===//
//
// `__dlpack__()` hands over a tensor as a PyCapsule named "dltensor" holding
// a DLManagedTensor (DLPack 0.6, dlpack/dlpack.h). The consumer renames the
// capsule "used_dltensor", so its producer-side destructor leaves the tensor
// alone, and calls the tensor's deleter once done with it: here when the
// returned holder is collected. The description returned is shaped like
// __cuda_array_interface__ (data, shape, strides in bytes, typestr), so
// python/fusec/__init__.py checks DLPack tensors with the same code as the
// array interfaces.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"

#include "runtime/Error.h"

#include <dlpack/dlpack.h>
#include <pybind11/stl.h>

#include <string>

namespace py = pybind11;

namespace fusec::python {

namespace {

/// Owns a consumed DLManagedTensor: its deleter runs with the holder.
class ConsumedDlpackTensor {
public:
  explicit ConsumedDlpackTensor(DLManagedTensor *tensor) : tensor(tensor) {}
  ConsumedDlpackTensor(const ConsumedDlpackTensor &) = delete;
  ConsumedDlpackTensor &operator=(const ConsumedDlpackTensor &) = delete;
  ~ConsumedDlpackTensor() {
    if (tensor->deleter)
      tensor->deleter(tensor);
  }
  const DLTensor &view() const { return tensor->dl_tensor; }

private:
  DLManagedTensor *tensor;
};

/// DLPack 0.8's kDLBool (dlpack/dlpack.h 0.6 predates it); PyTorch writes it
/// for torch.bool.
constexpr uint8_t kDlpackBoolCode = 6;

/// The array-interface typestr of a DLPack element type ("" for a type no
/// plan takes: the caller's dtype check then names it).
std::string typestrOf(DLDataType type) {
  if (type.lanes != 1)
    return "";
  switch (type.code) {
  case kDLFloat:
    return type.bits == 32 ? "<f4" : type.bits == 16 ? "<f2" : type.bits == 64 ? "<f8" : "";
  case kDLBfloat:
    return type.bits == 16 ? "<V2" : "";
  case kDLInt:
    return type.bits == 64 ? "<i8" : type.bits == 32 ? "<i4" : type.bits == 16 ? "<i2" : type.bits == 8 ? "|i1" : "";
  case kDLUInt:
    return type.bits == 16 ? "<u2" : type.bits == 8 ? "|u1" : "";
  case kDlpackBoolCode:
    return type.bits == 8 ? "|b1" : "";
  default:
    return "";
  }
}

std::string dtypeName(DLDataType type) {
  return "DLPack type (code " + std::to_string(type.code) + ", " + std::to_string(type.bits) + " bits, " +
         std::to_string(type.lanes) + " lanes)";
}

} // namespace

void bindDlpack(py::module_ &module) {
  // Registered for the holders _dlpack_interface returns; Python only keeps them.
  py::class_<ConsumedDlpackTensor> holderClass(
      module, "_DlpackTensor",
      "A tensor taken from a DLPack capsule; its producer's deleter runs when this "
      "object is collected");
  module.def(
      "_dlpack_interface",
      [](const py::capsule &capsule, const std::string &name) {
        if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
          throw runtime::Error("'" + name + "': __dlpack__() gave a capsule named '" +
                               (capsule.name() ? capsule.name() : "") +
                               "', not an unused 'dltensor' (a capsule can be consumed once)");
        auto *managed = static_cast<DLManagedTensor *>(capsule.get_pointer());
        if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0)
          throw py::error_already_set();
        auto holder = std::make_unique<ConsumedDlpackTensor>(managed);
        const DLTensor &tensor = holder->view();
        py::list shape;
        py::list strides;
        std::string typestr = typestrOf(tensor.dtype);
        int64_t itemsize = (tensor.dtype.bits * tensor.dtype.lanes + 7) / 8;
        for (int32_t axis = 0; axis < tensor.ndim; ++axis) {
          shape.append(tensor.shape[axis]);
          if (tensor.strides)
            strides.append(tensor.strides[axis] * itemsize);
        }
        py::dict description;
        auto address = reinterpret_cast<uintptr_t>(tensor.data) + static_cast<uintptr_t>(tensor.byte_offset);
        description["data"] = py::make_tuple(address, false);
        description["shape"] = py::tuple(shape);
        description["strides"] = tensor.strides ? py::object(py::tuple(strides)) : py::object(py::none());
        description["typestr"] = typestr.empty() ? dtypeName(tensor.dtype) : typestr;
        description["device"] = py::make_tuple(static_cast<int>(tensor.device.device_type), tensor.device.device_id);
        return py::make_tuple(description, py::cast(std::move(holder)));
      },
      py::arg("capsule"), py::arg("name"),
      "Consumes a DLPack capsule: (a description shaped like __cuda_array_interface__ plus 'device' = "
      "(DLDeviceType, id), the holder that keeps the tensor alive)");
}

} // namespace fusec::python
