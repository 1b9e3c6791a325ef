// Models with a stored plan that breaks the rules, for the tests that a plan
// is verified before it is used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "microarena/analysis/offline_plan.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/model/model_view.h"

namespace microarena::testing {

// The demo model with a plan under `metadata_name` (an offline or an overlap
// plan) that puts every planned tensor at offset 0, though their lifetimes
// overlap; empty when the model cannot be rewritten.
inline std::vector<uint8_t> DemoModelWithEveryTensorAtZero(const char* metadata_name) {
  const std::vector<uint8_t> demo = BuildDemoModel();
  Result<ModelView> model = LoadModel(Span<const uint8_t>(demo.data(), demo.size()));
  if (!model.ok()) return {};
  std::vector<int32_t> offsets(model->subgraph(0).tensor_count(), -1);
  for (size_t t = 0; t < offsets.size(); ++t) {
    const TensorView tensor = model->subgraph(0).tensor(t);
    if (!tensor.is_constant() && !tensor.is_variable()) offsets[t] = 0;
  }
  ModelEdits edits;
  edits.metadata.push_back({metadata_name, EncodeOfflinePlan(offsets)});
  Result<std::vector<uint8_t>> bad = RewriteModel(Span<const uint8_t>(demo.data(), demo.size()), edits);
  return bad.ok() ? std::move(*bad) : std::vector<uint8_t>();
}

}  // namespace microarena::testing
