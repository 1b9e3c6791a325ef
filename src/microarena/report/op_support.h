// What the runtime can run (host): the op table as text, Markdown and JSON
// (`microarena ops`, the README), and a model's ops checked against it
// (`microarena inspect`).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/op_types.h"
#include "microarena/model/model_view.h"

namespace microarena::report {

// "FLOAT32, INT8, INT16 (16x8)"; "-" for an entry whose types are unchecked.
std::string OpTypesText(const OpTypes& entry);
// "input 0", "input 1", "output 0" or "-".
const char* TypedOperandName(TypedOperand operand);
// The TFLM builtins with no OpTypeTable entry, by name.
std::vector<std::string> MissingTflmBuiltins();

// The table for a terminal, for the README (a Markdown table and the list of
// missing TFLM builtins) and as one JSON document.
std::string OpsTableText();
std::string OpsTableMarkdown();
nlohmann::json OpsTableJson();

// An op of the model that has no kernel.
struct MissingOp {
  int32_t subgraph = 0;
  int32_t op_index = 0;
  std::string op;  // "MIRROR_PAD", the custom op's name, or "BUILTIN_<code>"
  bool custom = false;
};

// An op whose kernel exists but refuses the type of one of its tensors.
struct RefusedOp {
  int32_t subgraph = 0;
  int32_t op_index = 0;
  std::string op;
  std::string operand;  // "input 0", ...
  int32_t tensor_index = 0;
  std::string type;     // the tensor's type, "UINT8"
  std::string accepts;  // OpTypesText of the entry, or the 16x8 rule
};

struct OpSupport {
  std::vector<MissingOp> missing;
  std::vector<RefusedOp> refused;
  bool ok() const { return missing.empty() && refused.empty(); }
};

// Checks every op of every subgraph of `model` against `resolver` (a kernel
// or not) and the op table (the types of the entry's operand). Prepare
// checks more (quantization, shapes, options), so an empty result does not
// promise AllocateTensors succeeds; a non-empty one says it cannot.
OpSupport CheckOpSupport(const ModelView& model, const OpResolver& resolver);

}  // namespace microarena::report
