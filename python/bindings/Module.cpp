//===- Module.cpp - The fusec._fusec extension module ---------------------===//
//
// Errors keep their messages: the runtime's Error becomes fusec.Error (a
// RuntimeError), a model that does not compile fusec.CompileError (an
// Error too), so `except fusec.Error` catches both.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"

#include "compiler/ModelCompiler.h"
#include "runtime/Error.h"

namespace py = pybind11;

PYBIND11_MODULE(_fusec, module) {
  module.doc() = "fusec: compile a model into a fused plan and run it";
  static py::exception<fusec::runtime::Error> error(module, "Error", PyExc_RuntimeError);
  static py::exception<fusec::CompileError> compileError(module, "CompileError", error.ptr());
  // pybind11's translator type takes the exception_ptr by value.
  py::register_exception_translator([](std::exception_ptr thrown) { // NOLINT(performance-unnecessary-value-param)
    try {
      if (thrown)
        std::rethrow_exception(thrown);
    } catch (const fusec::CompileError &caught) {
      compileError(caught.what());
    } catch (const fusec::runtime::Error &caught) {
      error(caught.what());
    }
  });
  fusec::python::bindCompiler(module);
  fusec::python::bindRuntime(module);
  fusec::python::bindDlpack(module);
}
