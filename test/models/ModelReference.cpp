//===- ModelReference.cpp - A shared model and its reference data ---------===//
#include "ModelReference.h"

#include "runtime/Npy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fusec::test {

std::vector<std::string> listModels(const std::string &modelsDir) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(modelsDir.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name[0] != '.' && std::ifstream(modelsDir + "/" + name + "/meta.json"))
        names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

ModelReference loadModelReference(const std::string &modelDir) {
  std::ifstream metaFile(modelDir + "/meta.json");
  if (!metaFile)
    throw std::runtime_error("cannot read " + modelDir + "/meta.json");
  nlohmann::json meta = nlohmann::json::parse(metaFile);
  ModelReference model;
  model.name = meta.at("name");
  model.onnxPath = modelDir + "/model.onnx";
  model.rtol = meta.at("tolerance").at("rtol");
  model.atol = meta.at("tolerance").at("atol");
  model.quantized = meta.contains("quantization");
  auto readRun = [&](int64_t batchSize, const nlohmann::json &files) {
    ReferenceBatch batch;
    batch.batch = batchSize;
    if (files.contains("dims"))
      batch.dims = files.at("dims").get<std::map<std::string, int64_t>>();
    for (auto &[name, file] : files.at("inputs").items())
      batch.inputs[name] = runtime::readNpy(modelDir + "/" + file.get<std::string>());
    for (auto &[name, output] : files.at("outputs").items())
      batch.outputs[name] = runtime::readNpy(modelDir + "/" + output.at("file").get<std::string>());
    model.batches.push_back(std::move(batch));
  };
  if (meta.contains("batches"))
    for (auto &[batchText, files] : meta.at("batches").items())
      readRun(std::stoll(batchText), files);
  if (meta.contains("runs"))
    for (const nlohmann::json &run : meta.at("runs"))
      readRun(run.at("batch").get<int64_t>(), run);
  if (meta.contains("range"))
    for (auto &[name, bounds] : meta.at("range").items())
      model.ranges[name] = {bounds.at(0).get<int64_t>(), bounds.at(1).get<int64_t>()};
  return model;
}

bool allClose(const runtime::Tensor &actual, const runtime::Tensor &expected, double rtol, double atol,
              std::string &report) {
  std::ostringstream out;
  if (actual.shape() != expected.shape()) {
    out << "shape " << runtime::formatShape(actual.shape()) << " differs from the reference "
        << runtime::formatShape(expected.shape());
    report = out.str();
    return false;
  }
  if (actual.elementType() != expected.elementType()) {
    out << "dtype " << runtime::elementTypeName(actual.elementType()) << " differs from the reference "
        << runtime::elementTypeName(expected.elementType());
    report = out.str();
    return false;
  }
  // Every dtype compares as doubles (exact for all but huge i64 values).
  const std::vector<double> actualValues = actual.toDoubles(), expectedValues = expected.toDoubles();
  double maxAbs = 0, maxRel = 0;
  int64_t violations = 0, worst = -1;
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    double a = actualValues[i], e = expectedValues[i];
    double diff = std::fabs(a - e);
    if (!(diff <= atol + rtol * std::fabs(e))) { // NaN fails too
      ++violations;
      if (worst < 0 || diff > std::fabs(actualValues[worst] - expectedValues[worst]))
        worst = i;
    }
    maxAbs = std::max(maxAbs, diff);
    if (e != 0)
      maxRel = std::max(maxRel, diff / std::fabs(e));
  }
  if (violations == 0)
    return true;
  out << violations << " of " << expected.numElements() << " elements differ; max abs error " << maxAbs
      << ", max rel error " << maxRel << "; worst at flat index " << worst << ": got " << actualValues[worst]
      << ", expected " << expectedValues[worst] << " (rtol " << rtol << ", atol " << atol << ")";
  report = out.str();
  return false;
}

} // namespace fusec::test
