//===- NumpyTensors.h - numpy arrays <-> runtime tensors --------*- C++ -*-===//
//
// The runtime never converts an input's element type, and neither does the
// Python API, with one exception: numpy has no bfloat16, so a bf16 input is
// given as float32 (rounded to nearest even) and a bf16 output comes back
// as float32 (exact).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PYTHON_BINDINGS_NUMPYTENSORS_H
#define FUSEC_PYTHON_BINDINGS_NUMPYTENSORS_H

#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#include <pybind11/numpy.h>

namespace fusec::python {

/// The numpy dtype name an input of element type `type` is given in.
const char *numpyTypeFor(runtime::ElementType type);

/// A tensor holding `value` (a numpy array or anything numpy.asarray
/// accepts) for the plan input `desc`. Throws runtime::Error naming the
/// input when the array's dtype is not the input's.
runtime::Tensor tensorFromArray(const runtime::TensorDesc &desc, pybind11::handle value);

/// A numpy array holding a copy of `tensor`.
pybind11::array arrayFromTensor(const runtime::Tensor &tensor);

} // namespace fusec::python

#endif // FUSEC_PYTHON_BINDINGS_NUMPYTENSORS_H
