// The models the fault tests go through: every shared model plus the
// generated demo model (which needs no shared data), each with the exact
// minimum arena it needs at a 16-byte aligned start.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/test_support.h"

namespace microarena::testing {

struct FaultModel {
  std::string name;
  ModelFile file;
};

// The demo model, then the shared models by name (none when shared data is absent).
inline std::vector<FaultModel> LoadFaultModels() {
  std::vector<FaultModel> models;
  Result<ModelFile> demo = ModelFile::FromBytes(BuildDemoModel(), "demo");
  EXPECT_TRUE(demo.ok()) << demo.status().message();
  if (demo.ok()) models.push_back({"demo", std::move(*demo)});
  if (SharedDir().empty()) return models;
  for (const std::string& name : SharedModelNames()) {
    Result<ModelFile> file = ModelFile::Open(SharedDir() + "/models/" + name + ".tflite");
    EXPECT_TRUE(file.ok()) << file.status().message();
    if (file.ok()) models.push_back({name, std::move(*file)});
  }
  return models;
}

}  // namespace microarena::testing
