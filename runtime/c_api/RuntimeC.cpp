//===- RuntimeC.cpp - fusec's runtime C API -------------------------------===//
#include "runtime/c_api/runtime_c.h"

#include "runtime/RuntimeApi.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>

using namespace fusec::runtime;

struct fusec_plan {
  std::shared_ptr<const Plan> plan;
};

struct fusec_session {
  std::unique_ptr<Session> session;
};

namespace {

thread_local std::string lastError;

/// Runs `body`, turning any exception into lastError and `failure`.
template <typename Result, typename Body> Result guarded(Result failure, Body body) {
  try {
    lastError.clear();
    return body();
  } catch (const std::exception &error) {
    lastError = error.what();
  } catch (...) {
    lastError = "unknown error";
  }
  return failure;
}

size_t copyShape(const std::vector<TensorDesc> &tensors, size_t index, int64_t *dims, size_t capacity) {
  if (index >= tensors.size())
    return 0;
  const auto &shape = tensors[index].shape;
  for (size_t d = 0; d < shape.size() && d < capacity; ++d)
    dims[d] = shape[d];
  return shape.size();
}

const char *dtypeOf(const std::vector<TensorDesc> &tensors, size_t index) {
  return index < tensors.size() ? elementTypeName(tensors[index].dtype) : nullptr;
}

void requireF32(const std::vector<TensorDesc> &tensors, const char *role) {
  for (const TensorDesc &tensor : tensors)
    if (tensor.dtype != ElementType::F32)
      throw Error(std::string("fusec_session_run: ") + role + " '" + tensor.name + "' is " +
                  elementTypeName(tensor.dtype) + ", not f32; use fusec_session_run_typed");
}

/// Runs with `inputs` and `outputs` of any pointer type (float or void).
template <typename In, typename Out>
int runWith(fusec_session *session, int64_t batch, In inputs, Out outputs, bool requireFloat32, bool onDevice = false,
            void *stream = nullptr) {
  return guarded<int>(1, [&] {
    if (!session || !inputs || !outputs)
      throw Error("fusec_session_run: session, inputs and outputs must not be NULL");
    const Plan &plan = session->session->plan();
    if (requireFloat32) {
      requireF32(plan.inputs(), "input");
      requireF32(plan.outputs(), "output");
    }
    std::vector<const void *> in(inputs, inputs + plan.inputs().size());
    std::vector<void *> out(outputs, outputs + plan.outputs().size());
    if (onDevice)
      session->session->runOnDevice(batch, in, out, stream);
    else
      session->session->run(batch, in, out);
    return 0;
  });
}

} // namespace

extern "C" {

const char *fusec_last_error(void) { return lastError.c_str(); }

fusec_plan *fusec_plan_load(const char *path) {
  return guarded<fusec_plan *>(nullptr, [&] {
    if (!path)
      throw Error("fusec_plan_load: path is NULL");
    return new fusec_plan{std::make_shared<const Plan>(Plan::load(path))};
  });
}

void fusec_plan_free(fusec_plan *plan) { delete plan; }

size_t fusec_plan_num_inputs(const fusec_plan *plan) { return plan ? plan->plan->inputs().size() : 0; }
size_t fusec_plan_num_outputs(const fusec_plan *plan) { return plan ? plan->plan->outputs().size() : 0; }

const char *fusec_plan_input_name(const fusec_plan *plan, size_t index) {
  return plan && index < plan->plan->inputs().size() ? plan->plan->inputs()[index].name.c_str() : nullptr;
}
const char *fusec_plan_output_name(const fusec_plan *plan, size_t index) {
  return plan && index < plan->plan->outputs().size() ? plan->plan->outputs()[index].name.c_str() : nullptr;
}

const char *fusec_plan_input_dtype(const fusec_plan *plan, size_t index) {
  return plan ? dtypeOf(plan->plan->inputs(), index) : nullptr;
}
const char *fusec_plan_output_dtype(const fusec_plan *plan, size_t index) {
  return plan ? dtypeOf(plan->plan->outputs(), index) : nullptr;
}

size_t fusec_plan_input_shape(const fusec_plan *plan, size_t index, int64_t *dims, size_t capacity) {
  return plan ? copyShape(plan->plan->inputs(), index, dims, capacity) : 0;
}
size_t fusec_plan_output_shape(const fusec_plan *plan, size_t index, int64_t *dims, size_t capacity) {
  return plan ? copyShape(plan->plan->outputs(), index, dims, capacity) : 0;
}

fusec_session *fusec_session_create(const fusec_plan *plan, const char *device) {
  return guarded<fusec_session *>(nullptr, [&] {
    if (!plan)
      throw Error("fusec_session_create: plan is NULL");
    const std::string name = device ? device : "auto";
    if (!isDeviceName(name))
      throw Error("fusec_session_create: unknown device '" + name + "' (" + describeDeviceNames() + ")");
    return new fusec_session{std::make_unique<Session>(plan->plan, name)};
  });
}

void fusec_session_free(fusec_session *session) { delete session; }

int64_t fusec_session_max_batch(const fusec_session *session) { return session ? session->session->maxBatch() : 0; }

size_t fusec_plan_num_shape_variants(const fusec_plan *plan) {
  return plan ? 1 + plan->plan->shapeVariants().size() : 0;
}

size_t fusec_plan_shape_variant_dims(const fusec_plan *plan, size_t variant, const char **names, int64_t *sizes,
                                     size_t capacity) {
  if (!plan || variant > plan->plan->shapeVariants().size())
    return 0;
  const Plan &chosen = variant == 0 ? *plan->plan : plan->plan->shapeVariants()[variant - 1];
  size_t i = 0;
  for (const auto &[name, size] : chosen.dims()) {
    if (i < capacity) {
      if (names)
        names[i] = name.c_str();
      if (sizes)
        sizes[i] = size;
    }
    ++i;
  }
  return i;
}

size_t fusec_plan_num_ranges(const fusec_plan *plan) { return plan ? plan->plan->ranges().size() : 0; }

int fusec_plan_range(const fusec_plan *plan, size_t index, const char **name, int64_t *min, int64_t *opt,
                     int64_t *max) {
  if (!plan || index >= plan->plan->ranges().size())
    return 0;
  const DimensionRange &range = plan->plan->ranges()[index];
  if (name)
    *name = range.name.c_str();
  if (min)
    *min = range.min;
  if (opt)
    *opt = range.opt;
  if (max)
    *max = range.max;
  return 1;
}

int fusec_session_select_dims(fusec_session *session, const char *const *names, const int64_t *sizes, size_t count) {
  return guarded<int>(1, [&] {
    if (!session || (count && (!names || !sizes)))
      throw Error("fusec_session_select_dims: session, names and sizes must not be NULL");
    std::map<std::string, int64_t> dims;
    for (size_t i = 0; i < count; ++i) {
      if (!names[i])
        throw Error("fusec_session_select_dims: names[" + std::to_string(i) + "] is NULL");
      if (!dims.emplace(names[i], sizes[i]).second)
        throw Error(std::string("fusec_session_select_dims: '") + names[i] + "' is given twice");
    }
    session->session->selectDims(dims);
    return 0;
  });
}

size_t fusec_session_input_shape(const fusec_session *session, size_t index, int64_t *dims, size_t capacity) {
  return session ? copyShape(session->session->inputs(), index, dims, capacity) : 0;
}
size_t fusec_session_output_shape(const fusec_session *session, size_t index, int64_t *dims, size_t capacity) {
  return session ? copyShape(session->session->outputs(), index, dims, capacity) : 0;
}

int fusec_session_run(fusec_session *session, int64_t batch, const float *const *inputs, float *const *outputs) {
  return runWith(session, batch, inputs, outputs, /*requireFloat32=*/true);
}

int fusec_session_run_typed(fusec_session *session, int64_t batch, const void *const *inputs, void *const *outputs) {
  return runWith(session, batch, inputs, outputs, /*requireFloat32=*/false);
}

int fusec_session_run_device(fusec_session *session, int64_t batch, const void *const *inputs, void *const *outputs,
                             void *stream) {
  return runWith(session, batch, inputs, outputs, /*requireFloat32=*/false, /*onDevice=*/true, stream);
}

} // extern "C"
