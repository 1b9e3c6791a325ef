// The `microarena inspect` report (host): human-readable text and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "microarena/report/model_summary.h"
#include "microarena/report/op_support.h"

namespace microarena::report {

struct InspectTextOptions {
  size_t name_width = 48;  // tensor names longer than this are cut ("..."); JSON keeps them whole
};

// `support` is CheckOpSupport of the same model: the ops the runtime lacks
// or refuses are listed after the summary.
std::string InspectText(const ModelSummary& summary, const OpSupport& support, const InspectTextOptions& options = {});

// One JSON document with the same content as the text. Keys are stable and
// documented in the README.
nlohmann::json InspectJson(const ModelSummary& summary, const OpSupport& support);

// The "read_only" block of inspect and plan reports: `layers` (op_index, op,
// weights_bytes, bias_bytes, quantization_bytes, total_bytes; with
// `with_subgraph` each layer's subgraph too), their `total` and the constants
// no op reads.
nlohmann::json ReadOnlyJson(const std::vector<LayerFlash>& layers, const LayerFlash& total,
                            uint64_t unreferenced_constant_bytes, bool with_subgraph);

}  // namespace microarena::report
