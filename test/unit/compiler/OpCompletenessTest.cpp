//===- OpCompletenessTest.cpp - Every op the importers build is complete --===//
//
// An op of the fuse dialect is usable when the compiler knows its facts
// (FuseOps.td: the kernel it needs, its FLOPs, its mixed-precision rule),
// infers its shapes, the CPU backend runs it (the reference every plan is
// checked against), and codegen has a kernel kind for it. This walks every
// registered op, so an op added to the dialect without one of them fails
// here by name rather than in a user's model.
//
//===----------------------------------------------------------------------===//
#include "compiler/Driver.h"
#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "runtime/cpu/OpRegistry.h"
#include "runtime/plan/OpTypeVerifier.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace fusec;

namespace {

/// The fuse ops that are not ONNX operators: structure, not computation.
bool isStructural(llvm::StringRef name) {
  return name == "fuse.constant" || name == "fuse.superkernel" || name == "fuse.yield";
}

} // namespace

TEST_CASE("every fuse op has facts, shape inference, a CPU implementation and a kernel kind", "[ops]") {
  auto context = createContext();
  mlir::Dialect *dialect = context->getLoadedDialect<fuse::FuseDialect>();
  REQUIRE(dialect);
  int ops = 0;
  for (mlir::RegisteredOperationName name : context->getRegisteredOperations()) {
    if (&name.getDialect() != dialect || isStructural(name.getStringRef()))
      continue;
    ++ops;
    INFO(name.getStringRef().str());
    REQUIRE(name.hasInterface<fuse::OnnxOpInterface>());
    CHECK(name.hasInterface<fuse::ShapeInferenceOpInterface>());
    REQUIRE(name.hasInterface<fuse::OpFactsInterface>());
    const auto *facts = name.getInterface<fuse::OpFactsInterface>();
    const auto *onnx = name.getInterface<fuse::OnnxOpInterface>();
    const std::string onnxName = onnx->getOnnxName().str();
    INFO(onnxName);
    // Codegen emits a kernel per class; Other has none.
    CHECK(facts->getKernelClass() != fuse::OpClass::Other);
    CHECK(facts->getFlopsPerElement() >= 0);
    // Plans name ops by their ONNX operator; the CPU backend runs each
    // through its registry, and Cast (which changes the element type of the
    // values it holds) in the kernel interpreter itself.
    CHECK((runtime::cpu::OpRegistry::builtin().lookup(onnxName) != nullptr || onnxName == runtime::kCastOp));
  }
  // The dialect's ONNX operators (a floor, so that an empty walk fails).
  CHECK(ops >= 80);
}

TEST_CASE("the facts each stage reads are the ones the ops declare", "[ops]") {
  auto context = createContext();
  auto factsOf = [&](llvm::StringRef op) {
    auto name = mlir::RegisteredOperationName::lookup(op, context.get());
    REQUIRE(name);
    const auto *facts = name->getInterface<fuse::OpFactsInterface>();
    REQUIRE(facts);
    return facts;
  };
  CHECK(factsOf("fuse.conv")->getKernelClass() == fuse::OpClass::Conv);
  CHECK(factsOf("fuse.matmul")->getAmpPrecision() == fuse::AmpPrecision::Half);
  CHECK(factsOf("fuse.softmax")->getAmpPrecision() == fuse::AmpPrecision::F32);
  CHECK(factsOf("fuse.softmax")->getFlopsPerElement() == 5);
  CHECK(factsOf("fuse.reduce_max")->getAmpPrecision() == fuse::AmpPrecision::Follow);
  CHECK(factsOf("fuse.relu")->isEpilogueActivation());
  CHECK(factsOf("fuse.gelu")->isEpilogueActivation());
  CHECK_FALSE(factsOf("fuse.add")->isEpilogueActivation());
  CHECK(factsOf("fuse.exp")->getFlopsPerElement() == 4);
  CHECK(factsOf("fuse.transpose")->getKernelClass() == fuse::OpClass::DataMovement);
  CHECK(factsOf("fuse.transpose")->getFlopsPerElement() == 0);
}
