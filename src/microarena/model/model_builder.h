// ModelBuilder: writes .tflite files from C++ (host only).
//
//   ModelBuilder builder;                                   // buffer 0 empty, subgraph 0 "main"
//   int32_t in = builder.AddTensor({"input", TensorType::kInt8, {1, 4},
//                                   0, QuantizationSpec::PerTensor(0.5f, -3)});
//   int32_t out = builder.AddTensor({"output", TensorType::kInt8, {1, 4},
//                                    0, QuantizationSpec::PerTensor(0.5f, -3)});
//   OperatorSpec relu;
//   relu.op = BuiltinOp::kRelu;
//   relu.inputs = {in};
//   relu.outputs = {out};
//   builder.AddOperator(std::move(relu));
//   builder.SetInputs({in});
//   builder.SetOutputs({out});
//   std::vector<uint8_t> file = builder.Build();            // "TFL3", schema version 3
//
// What it writes is what the TFLite converter writes: file identifier "TFL3",
// schema version 3, buffer 0 empty (tensors without data point at it), operator
// codes deduplicated with both `deprecated_builtin_code` (min(code, 127)) and
// `builtin_code` filled, constant data 16-byte aligned.
//
// Why it does not validate: tests need files that are wrong on purpose (indices out
// of range, negative or huge dimensions, buffers shorter than their tensors,
// quantization arrays of mismatched length), and LoadModel is the one place that
// decides what is valid. Everything the convenience methods cannot express is
// reachable through mutable_model(), the flatbuffers object tree that Build() packs.
//
// Cost: the model lives as a flatbuffers object tree until Build(), which packs it
// once (time and memory linear in the model size). Not for microcontrollers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "microarena/model/builtin_op.h"
#include "microarena/model/tensor_type.h"
#include "microarena/schema/tflite_schema_generated.h"

namespace microarena {

// Affine quantization of one tensor: real = scale * (q - zero_point), per tensor
// (one scale) or per channel along `quantized_dimension`. Written as given, so the
// arrays may disagree in length on purpose.
struct QuantizationSpec {
  std::vector<float> scales;         // empty: the tensor is not quantized
  std::vector<int64_t> zero_points;  // one per scale in a valid model
  int32_t quantized_dimension = 0;   // the channel axis of a per-channel tensor
  std::vector<float> min;            // optional calibration range (real units)
  std::vector<float> max;

  static QuantizationSpec PerTensor(float scale, int64_t zero_point);
  static QuantizationSpec PerChannel(std::vector<float> channel_scales,
                                     std::vector<int64_t> channel_zero_points,
                                     int32_t channel_dimension);
  bool empty() const { return scales.empty() && zero_points.empty() && min.empty() && max.empty(); }
};

// One tensor of a subgraph.
struct TensorSpec {
  std::string name;
  TensorType type = TensorType::kInt8;
  std::vector<int32_t> shape;          // written as given: negative or huge dims allowed
  uint32_t buffer_index = 0;           // 0 = no constant data
  QuantizationSpec quantization;       // empty: no quantization table is written
  bool is_variable = false;            // state that lives across invocations (RNN/LSTM)
};

// One operator of a subgraph. The operator code is added (deduplicated) from
// `op`, `custom_name` and `version`.
struct OperatorSpec {
  BuiltinOp op = BuiltinOp::kAdd;
  int32_t version = 1;                 // the operator code's version
  std::string custom_name;             // for BuiltinOp::kCustom only
  std::vector<int32_t> inputs;         // tensor indices; -1 = omitted optional input
  std::vector<int32_t> outputs;
  std::vector<int32_t> intermediates;
  tflite::BuiltinOptionsUnion options; // e.g. MakeBuiltinOptions(tflite::Conv2DOptionsT{...})
  std::vector<uint8_t> custom_options; // opaque bytes for custom ops
};

// Wraps a generated object-API options value (tflite::Conv2DOptionsT, ...) in the union.
template <typename OptionsT>
tflite::BuiltinOptionsUnion MakeBuiltinOptions(OptionsT options) {
  tflite::BuiltinOptionsUnion wrapped;
  wrapped.Set(std::move(options));
  return wrapped;
}

// The little-endian bytes of `values` (the .tflite byte order; microarena hosts are
// little-endian).
template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

class ModelBuilder {
 public:
  // An empty model: schema version 3, buffer 0 (empty), one subgraph named "main".
  ModelBuilder();
  // Starts from an existing model to edit it, e.g. a file read back with
  // tflite::UnPackModel (tests break real models this way, one field at a time).
  explicit ModelBuilder(tflite::ModelT model) : model_(std::move(model)) {}

  // --- buffers ---
  // Appends a buffer holding `data` and returns its index.
  uint32_t AddBuffer(std::vector<uint8_t> data);
  size_t buffer_count() const { return model_.buffers.size(); }

  // --- subgraphs ---
  // Appends an empty subgraph and returns its index.
  size_t AddSubgraph(std::string name);
  size_t subgraph_count() const { return model_.subgraphs.size(); }

  // --- tensors ---
  // Appends a tensor to subgraph `subgraph_index` and returns its index there.
  // Every `subgraph_index` argument must be < subgraph_count(): naming a subgraph
  // that was never added is a bug in the calling code, and the builder aborts with a
  // message (like std::vector::at, but without exceptions).
  int32_t AddTensor(const TensorSpec& spec, size_t subgraph_index = 0);
  // Appends a buffer holding `data` and a tensor that points at it (spec.buffer_index
  // is ignored).
  int32_t AddConstantTensor(TensorSpec spec, std::vector<uint8_t> data, size_t subgraph_index = 0);
  size_t tensor_count(size_t subgraph_index = 0) const;

  // --- operator codes ---
  // The index of the operator code (op, version), added if new. Deduplicated.
  uint32_t AddOperatorCode(BuiltinOp op, int32_t version = 1);
  // The index of the CUSTOM operator code named `custom_name`, added if new.
  uint32_t AddCustomOperatorCode(const std::string& custom_name, int32_t version = 1);
  // Appends an operator code with the fields exactly as given (no deduplication), for
  // files whose codes are wrong on purpose (unknown codes, codes that disagree).
  uint32_t AddRawOperatorCode(int8_t deprecated_builtin_code, int32_t builtin_code,
                              std::string custom_code, int32_t version);
  size_t operator_code_count() const { return model_.operator_codes.size(); }

  // --- operators ---
  // Appends an operator (in execution order) and returns its index in the subgraph.
  int32_t AddOperator(OperatorSpec spec, size_t subgraph_index = 0);
  // Appends an operator whose opcode_index is written verbatim (may be out of range).
  int32_t AddOperatorWithOpcodeIndex(uint32_t opcode_index, std::vector<int32_t> inputs,
                                     std::vector<int32_t> outputs, size_t subgraph_index = 0);
  size_t operator_count(size_t subgraph_index = 0) const;

  // --- subgraph inputs and outputs (written verbatim) ---
  void SetInputs(std::vector<int32_t> tensor_indices, size_t subgraph_index = 0);
  void SetOutputs(std::vector<int32_t> tensor_indices, size_t subgraph_index = 0);

  // --- model-level fields ---
  void SetDescription(std::string description) { model_.description = std::move(description); }
  // Appends a buffer holding `data` and a metadata entry `name` pointing at it;
  // returns the buffer index. E.g. "OfflineMemoryAllocation" with int32 words.
  uint32_t AddMetadata(std::string name, std::vector<uint8_t> data);
  // Appends a metadata entry pointing at `buffer_index` as given (may be out of range).
  void AddMetadataEntry(std::string name, uint32_t buffer_index);

  // The object tree Build() packs, for edits the methods above do not offer
  // (e.g. a schema version other than 3, an opcode_index out of range).
  tflite::ModelT& mutable_model() { return model_; }
  const tflite::ModelT& model() const { return model_; }

  // Packs the model into a finished .tflite file (identifier "TFL3").
  std::vector<uint8_t> Build() const;

 private:
  tflite::SubGraphT& Subgraph(size_t subgraph_index);
  const tflite::SubGraphT& Subgraph(size_t subgraph_index) const;

  tflite::ModelT model_;
};

}  // namespace microarena
