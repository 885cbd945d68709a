//===- Bindings.h - The pieces of the fusec Python module -------*- C++ -*-===//
//
// The module `fusec._fusec` is defined in Module.cpp; each file adds one
// part of it. The Python-facing API (argument defaults, model bytes, the
// report as Python data) is python/fusec/__init__.py.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PYTHON_BINDINGS_BINDINGS_H
#define FUSEC_PYTHON_BINDINGS_BINDINGS_H

#include <pybind11/pybind11.h>

namespace fusec::python {

/// compile(): the compiler behind fusec.compile.
void bindCompiler(pybind11::module_ &module);
/// Plan and Session: the runtime.
void bindRuntime(pybind11::module_ &module);
/// _dlpack_interface: DLPack capsules read like the array interfaces.
void bindDlpack(pybind11::module_ &module);

} // namespace fusec::python

#endif // FUSEC_PYTHON_BINDINGS_BINDINGS_H
