// ModelSummary (host): what `microarena inspect` reports about a model — tensor
// kinds, op counts, MAC estimates and the read-only (flash) bytes per layer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "microarena/model/model_view.h"

namespace microarena::report {

// What a tensor is, from the planner's point of view.
enum class TensorKind {
  kConstant,    // data in the model (flash); never planned
  kInput,       // a subgraph input
  kOutput,      // a subgraph output
  kVariable,    // state kept across invocations (persistent area)
  kActivation,  // produced and consumed by ops (planned in the head)
  kIntermediate,  // listed only as an op's intermediate (LSTM quantization bookkeeping)
  kUnused,      // referenced by no op and not an input or output
};
const char* TensorKindName(TensorKind kind);

struct TensorSummary {
  int32_t index = 0;
  std::string name;
  std::string type;        // "INT8", ...
  std::vector<int32_t> shape;
  uint64_t size_bytes = 0;
  TensorKind kind = TensorKind::kActivation;
  size_t quantization_channels = 0;  // 0: not quantized; 1: per tensor; >1: per channel
  uint64_t quantization_bytes = 0;   // scales, zero points, min/max stored in the model
};

// Read-only bytes an op brings into flash. Every constant tensor counts once,
// for the first op that reads it; every tensor's quantization parameters
// count once, for the first op that reads or writes it.
struct LayerFlash {
  int32_t op_index = 0;
  int32_t subgraph = 0;
  std::string op;
  // "3", or "s1:3" for op 3 of subgraph 1.
  std::string label() const { return subgraph == 0 ? std::to_string(op_index) : "s" + std::to_string(subgraph) + ":" + std::to_string(op_index); }
  uint64_t weights_bytes = 0;       // constant inputs other than biases
  uint64_t bias_bytes = 0;          // constant bias inputs
  uint64_t quantization_bytes = 0;  // quantization parameters
  uint64_t total_bytes() const { return weights_bytes + bias_bytes + quantization_bytes; }
};

struct OpSummary {
  int32_t index = 0;
  std::string op;
  int32_t version = 1;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<int32_t> intermediates;
  // Multiply-accumulates for CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
  // TRANSPOSE_CONV; -1 where no estimate is made.
  int64_t macs = -1;
};

struct SubgraphSummary {
  int32_t index = 0;
  std::string name;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<TensorSummary> tensors;
  std::vector<OpSummary> ops;
  std::map<std::string, int> op_counts;        // op name -> count
  std::map<std::string, int> tensor_counts;    // kind name -> count
  std::vector<LayerFlash> layers;              // one per op, in op order
  LayerFlash flash_total;                      // sum over layers (op_index -1)
  uint64_t unreferenced_constant_bytes = 0;    // constants no op reads
  int64_t total_macs = 0;
};

struct ModelSummary {
  std::string path;
  uint64_t file_size_bytes = 0;
  uint32_t schema_version = 0;
  std::string description;
  std::vector<SubgraphSummary> subgraphs;
  std::vector<std::pair<std::string, uint64_t>> metadata;  // name, size in bytes
};

ModelSummary Summarize(const ModelView& model, const std::string& path, uint64_t file_size_bytes);

}  // namespace microarena::report
