//===- ModelReference.h - A shared model and its reference data -*- C++ -*-===//
#ifndef FUSEC_TEST_MODELS_MODELREFERENCE_H
#define FUSEC_TEST_MODELS_MODELREFERENCE_H

#include "runtime/Tensor.h"

#include <map>
#include <string>
#include <vector>

namespace fusec::test {

/// One batch size of a model: its inputs and PyTorch's outputs by name.
struct ReferenceBatch {
  int64_t batch = 0;
  /// The sizes of the model's ranged dimensions in this run ({} for most).
  std::map<std::string, int64_t> dims;
  std::map<std::string, runtime::Tensor> inputs;
  std::map<std::string, runtime::Tensor> outputs;
};

/// A model folder (model.onnx, meta.json, *.npy) as exported by PyTorch, or
/// quantized by ONNX Runtime (test/data/quantized).
struct ModelReference {
  std::string name;
  std::string onnxPath;
  double rtol = 0, atol = 0;
  std::vector<ReferenceBatch> batches;
  /// The ranges the model's named dimensions run over (meta.json `range`:
  /// {"seq": [1, 16]}), for `fusec --dim seq=1:16`; the runs of `batches`
  /// (meta.json `runs`) give each its size.
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;
  /// A QDQ model (meta.json `quantization`): a sum in another order can
  /// move an activation across a rounding boundary, one quantization step,
  /// so comparisons between backends take the model's tolerance.
  bool quantized = false;
};

/// The model folders under `modelsDir`, sorted by name.
std::vector<std::string> listModels(const std::string &modelsDir);
ModelReference loadModelReference(const std::string &modelDir);

/// np.allclose(actual, expected, rtol, atol) with a report of the worst
/// element; `report` is empty on success.
bool allClose(const runtime::Tensor &actual, const runtime::Tensor &expected, double rtol, double atol,
              std::string &report);

} // namespace fusec::test

#endif // FUSEC_TEST_MODELS_MODELREFERENCE_H
