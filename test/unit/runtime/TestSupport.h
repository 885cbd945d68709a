//===- TestSupport.h - Helpers shared by the runtime unit tests -------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_TESTSUPPORT_H
#define FUSEC_TEST_UNIT_RUNTIME_TESTSUPPORT_H

#include "runtime/Session.h"
#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanContainer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace fusec::test {

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  /// Names of the entries in the directory, sorted.
  std::vector<std::string> entries() const;

private:
  std::string path_;
};

/// start, start + 1, ... in C order.
runtime::Tensor iota(const runtime::Shape &shape, float start = 0.0f);

/// Checks shape and every element of `actual` against `expected`.
void requireTensor(const runtime::Tensor &actual, const runtime::Shape &expectedShape,
                   const std::vector<float> &expected, float tolerance = 1e-6f);

/// Runs one op of the CPU reference backend on host tensors.
runtime::Tensor runOp(const std::string &op, const nlohmann::json &attrs, const std::vector<runtime::Tensor> &operands,
                      const runtime::Shape &resultShape);

/// A host value of any element type for the typed ops: floats, or int64
/// (bool as 0/1).
struct Typed {
  runtime::Shape shape;
  runtime::ElementType type = runtime::ElementType::F32;
  std::vector<float> floats;
  std::vector<int64_t> integers;
};
Typed typedFloats(runtime::Shape shape, std::vector<float> values);
Typed typedInts(runtime::Shape shape, std::vector<int64_t> values,
                runtime::ElementType type = runtime::ElementType::I64);
Typed typedBools(runtime::Shape shape, std::vector<int64_t> values);

/// Runs one op of the CPU reference backend on typed host values; the
/// result has `shape` and `type`.
Typed runTypedOp(const std::string &op, const nlohmann::json &attrs, const std::vector<Typed> &operands,
                 const runtime::Shape &shape, runtime::ElementType type);

/// A hand-built plan of three kernels, two arena buffers and three weights
/// (see TestSupport.cpp for the numbers). x: [batch, 2], y: [batch, 3].
nlohmann::json smallPlanManifest();
std::vector<plan::Section> smallPlanSections();
std::vector<uint8_t> smallPlanBytes();
/// The small plan, loaded.
std::shared_ptr<const runtime::Plan> smallPlan();
/// A plan of one kernel running `op` (with `attrs`) on x: [batch, 1, 4, 4]
/// into the output y of shape `resultShape`; for window and padding ops.
std::vector<uint8_t> windowPlanBytes(const std::string &op, const nlohmann::json &attrs,
                                     const nlohmann::json &resultShape);
/// x rows and the y rows the small plan computes for them.
extern const std::vector<std::vector<float>> kSmallPlanInputRows;
extern const std::vector<std::vector<float>> kSmallPlanOutputRows;

/// A GPU plan (target sm_75, PTX only, so any newer GPU JIT-compiles it)
/// with a host step and a copy, over x, y, z: [batch, 4] and w: [4]:
///   k0_mul      device  t0 = x * w                (PTX fusec_test_mul)
///   k1_softmax  host    t1 = Softmax(t0, axis 1)
///   k2_add      device  y = t1 + t0               (PTX fusec_test_add)
///   k3_copy_z   copy    z = t0
/// Buffers: 0 x, 1 w, 2 t0 (arena at 0), 3 t1 (arena at 64 * batch), 4 y,
/// 5 z. Both device kernels point at the same PTX module.
nlohmann::json hostStepPlanManifest();
std::vector<plan::Section> hostStepPlanSections();
/// The PTX text of the host step plan's two kernels (its kernel_images section).
extern const char *const kHostStepPlanPtx;
std::vector<uint8_t> hostStepPlanBytes();
/// The host step plan, loaded.
std::shared_ptr<const runtime::Plan> hostStepPlan();
extern const std::vector<float> kHostStepPlanWeight;
/// y and z of the host step plan, computed directly for `x` rows of 4.
std::vector<float> hostStepPlanY(const std::vector<float> &x);
std::vector<float> hostStepPlanZ(const std::vector<float> &x);
/// An input x of the host step plan at `batch`: distinct, sign-mixed rows,
/// so that a misplaced row or stale padding shows.
runtime::Tensor hostStepInputRows(int64_t batch, float seed);
/// Runs `session` (of the host step plan) at `batch` on hostStepInputRows
/// and checks y and z against hostStepPlanY and hostStepPlanZ.
void requireHostStepOutputs(runtime::Session &session, int64_t batch, float seed);

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_RUNTIME_TESTSUPPORT_H
