//===- NumpyTensors.cpp - numpy arrays <-> runtime tensors ----------------===//
#include "NumpyTensors.h"

#include "runtime/ElementConversion.h"
#include "runtime/Error.h"

#include <cstring>

namespace py = pybind11;

namespace fusec::python {

using runtime::ElementType;

const char *numpyTypeFor(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::BF16:
    return "float32";
  case ElementType::F16:
    return "float16";
  case ElementType::I64:
    return "int64";
  case ElementType::I32:
    return "int32";
  case ElementType::I1:
    return "bool";
  case ElementType::I8:
    return "int8";
  case ElementType::U8:
    return "uint8";
  }
  return "float32";
}

runtime::Tensor tensorFromArray(const runtime::TensorDesc &desc, py::handle value) {
  py::array array = py::array::ensure(value);
  if (!array)
    throw runtime::Error("input '" + desc.name + "' is not an array numpy can read");
  const py::dtype expected(numpyTypeFor(desc.dtype));
  if (!array.dtype().equal(expected))
    throw runtime::Error("input '" + desc.name + "' is " + py::str(array.dtype()).cast<std::string>() +
                         ", the plan takes " + runtime::elementTypeName(desc.dtype) + ": pass it as numpy." +
                         numpyTypeFor(desc.dtype) + " (e.g. array.astype(numpy." + numpyTypeFor(desc.dtype) +
                         ")); inputs are not converted");
  // C order, as the runtime wants it; a copy only when the array is not.
  py::array contiguous = py::array::ensure(array, py::array::c_style);
  runtime::Shape shape(contiguous.shape(), contiguous.shape() + contiguous.ndim());
  if (desc.dtype != ElementType::BF16)
    return runtime::Tensor::fromBytes(shape, desc.dtype, contiguous.data(), static_cast<size_t>(contiguous.nbytes()));
  const size_t count = static_cast<size_t>(contiguous.size());
  std::vector<uint16_t> bits(count);
  runtime::storeFloats(static_cast<const float *>(contiguous.data()), count, ElementType::BF16, bits.data());
  return runtime::Tensor::fromBytes(shape, ElementType::BF16, bits.data(), bits.size() * sizeof(uint16_t));
}

py::array arrayFromTensor(const runtime::Tensor &tensor) {
  const std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  py::array array(py::dtype(numpyTypeFor(tensor.elementType())), shape);
  if (tensor.elementType() == ElementType::BF16)
    runtime::loadFloats(tensor.rawData(), ElementType::BF16, static_cast<size_t>(tensor.numElements()),
                        static_cast<float *>(array.mutable_data()));
  else if (tensor.byteSize() > 0)
    std::memcpy(array.mutable_data(), tensor.rawData(), tensor.byteSize());
  return array;
}

} // namespace fusec::python
