//===- RuntimeApi.h - fusec's runtime C++ API (umbrella) --------*- C++ -*-===//
//
// Installed as <fusec/runtime.h>. Load a plan, open a session on a device,
// run it:
//
//   auto plan = std::make_shared<const fusec::runtime::Plan>(
//       fusec::runtime::Plan::load("model.plan"));
//   fusec::runtime::Session session(plan, fusec::runtime::Device::Auto);
//   auto outputs = session.run(batch, {{"input", tensor}});
//
// A session runs on a backend chosen by name (BackendRegistry.h): "cpu",
// "cuda", "auto", or one the program registers over a GpuDevice of its own.
//
// Errors are thrown as fusec::runtime::Error with a complete message.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_RUNTIMEAPI_H
#define FUSEC_RUNTIME_RUNTIMEAPI_H

#include "runtime/BackendRegistry.h"
#include "runtime/Device.h"
#include "runtime/Error.h"
#include "runtime/Npy.h"
#include "runtime/Session.h"
#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#endif // FUSEC_RUNTIME_RUNTIMEAPI_H
