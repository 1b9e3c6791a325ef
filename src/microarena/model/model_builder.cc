#include "microarena/model/model_builder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace microarena {
namespace {

// The .tflite schema version the builder writes.
constexpr uint32_t kSchemaVersion = 3;
// deprecated_builtin_code is an int8: codes above it are written as this placeholder
// (BuiltinOp::kPlaceholderForGreaterOpCodes) with the real code in builtin_code.
constexpr int32_t kMaxDeprecatedBuiltinCode = 127;

std::unique_ptr<tflite::QuantizationParametersT> ToQuantization(const QuantizationSpec& spec) {
  if (spec.empty()) return nullptr;
  auto quantization = std::make_unique<tflite::QuantizationParametersT>();
  quantization->scale = spec.scales;
  quantization->zero_point = spec.zero_points;
  quantization->quantized_dimension = spec.quantized_dimension;
  quantization->min = spec.min;
  quantization->max = spec.max;
  return quantization;
}

}  // namespace

QuantizationSpec QuantizationSpec::PerTensor(float scale, int64_t zero_point) {
  QuantizationSpec spec;
  spec.scales = {scale};
  spec.zero_points = {zero_point};
  return spec;
}

QuantizationSpec QuantizationSpec::PerChannel(std::vector<float> channel_scales,
                                              std::vector<int64_t> channel_zero_points,
                                              int32_t channel_dimension) {
  QuantizationSpec spec;
  spec.scales = std::move(channel_scales);
  spec.zero_points = std::move(channel_zero_points);
  spec.quantized_dimension = channel_dimension;
  return spec;
}

ModelBuilder::ModelBuilder() {
  model_.version = kSchemaVersion;
  model_.buffers.push_back(std::make_unique<tflite::BufferT>());  // buffer 0: empty
  AddSubgraph("main");
}

uint32_t ModelBuilder::AddBuffer(std::vector<uint8_t> data) {
  auto buffer = std::make_unique<tflite::BufferT>();
  buffer->data = std::move(data);
  model_.buffers.push_back(std::move(buffer));
  return static_cast<uint32_t>(model_.buffers.size() - 1);
}

size_t ModelBuilder::AddSubgraph(std::string name) {
  auto subgraph = std::make_unique<tflite::SubGraphT>();
  subgraph->name = std::move(name);
  model_.subgraphs.push_back(std::move(subgraph));
  return model_.subgraphs.size() - 1;
}

tflite::SubGraphT& ModelBuilder::Subgraph(size_t subgraph_index) {
  return const_cast<tflite::SubGraphT&>(static_cast<const ModelBuilder*>(this)->Subgraph(subgraph_index));
}

const tflite::SubGraphT& ModelBuilder::Subgraph(size_t subgraph_index) const {
  if (subgraph_index >= model_.subgraphs.size() || model_.subgraphs[subgraph_index] == nullptr) {
    std::fprintf(stderr, "ModelBuilder: subgraph %zu does not exist (the model has %zu)\n", subgraph_index,
                 model_.subgraphs.size());
    std::abort();
  }
  return *model_.subgraphs[subgraph_index];
}

int32_t ModelBuilder::AddTensor(const TensorSpec& spec, size_t subgraph_index) {
  tflite::SubGraphT& subgraph = Subgraph(subgraph_index);
  auto tensor = std::make_unique<tflite::TensorT>();
  tensor->name = spec.name;
  tensor->type = static_cast<tflite::TensorType>(spec.type);
  tensor->shape = spec.shape;
  tensor->buffer = spec.buffer_index;
  tensor->quantization = ToQuantization(spec.quantization);
  tensor->is_variable = spec.is_variable;
  subgraph.tensors.push_back(std::move(tensor));
  return static_cast<int32_t>(subgraph.tensors.size() - 1);
}

int32_t ModelBuilder::AddConstantTensor(TensorSpec spec, std::vector<uint8_t> data, size_t subgraph_index) {
  Subgraph(subgraph_index);  // check before adding the buffer
  spec.buffer_index = AddBuffer(std::move(data));
  return AddTensor(spec, subgraph_index);
}

size_t ModelBuilder::tensor_count(size_t subgraph_index) const { return Subgraph(subgraph_index).tensors.size(); }

uint32_t ModelBuilder::AddOperatorCode(BuiltinOp op, int32_t version) {
  const int32_t code = static_cast<int32_t>(op);
  for (size_t i = 0; i < model_.operator_codes.size(); ++i) {
    const tflite::OperatorCodeT& existing = *model_.operator_codes[i];
    if (existing.builtin_code == code && existing.version == version && existing.custom_code.empty()) {
      return static_cast<uint32_t>(i);
    }
  }
  return AddRawOperatorCode(static_cast<int8_t>(std::min(code, kMaxDeprecatedBuiltinCode)), code, std::string(),
                            version);
}

uint32_t ModelBuilder::AddCustomOperatorCode(const std::string& custom_name, int32_t version) {
  const int32_t code = static_cast<int32_t>(BuiltinOp::kCustom);
  for (size_t i = 0; i < model_.operator_codes.size(); ++i) {
    const tflite::OperatorCodeT& existing = *model_.operator_codes[i];
    if (existing.builtin_code == code && existing.version == version && existing.custom_code == custom_name) {
      return static_cast<uint32_t>(i);
    }
  }
  return AddRawOperatorCode(static_cast<int8_t>(code), code, custom_name, version);
}

uint32_t ModelBuilder::AddRawOperatorCode(int8_t deprecated_builtin_code, int32_t builtin_code,
                                          std::string custom_code, int32_t version) {
  auto operator_code = std::make_unique<tflite::OperatorCodeT>();
  operator_code->deprecated_builtin_code = deprecated_builtin_code;
  operator_code->builtin_code = builtin_code;
  operator_code->custom_code = std::move(custom_code);
  operator_code->version = version;
  model_.operator_codes.push_back(std::move(operator_code));
  return static_cast<uint32_t>(model_.operator_codes.size() - 1);
}

int32_t ModelBuilder::AddOperator(OperatorSpec spec, size_t subgraph_index) {
  tflite::SubGraphT& subgraph = Subgraph(subgraph_index);
  auto op = std::make_unique<tflite::OperatorT>();
  op->opcode_index = spec.op == BuiltinOp::kCustom ? AddCustomOperatorCode(spec.custom_name, spec.version)
                                                   : AddOperatorCode(spec.op, spec.version);
  op->inputs = std::move(spec.inputs);
  op->outputs = std::move(spec.outputs);
  op->intermediates = std::move(spec.intermediates);
  op->builtin_options = std::move(spec.options);
  op->custom_options = std::move(spec.custom_options);
  subgraph.operators.push_back(std::move(op));
  return static_cast<int32_t>(subgraph.operators.size() - 1);
}

int32_t ModelBuilder::AddOperatorWithOpcodeIndex(uint32_t opcode_index, std::vector<int32_t> inputs,
                                                 std::vector<int32_t> outputs, size_t subgraph_index) {
  tflite::SubGraphT& subgraph = Subgraph(subgraph_index);
  auto op = std::make_unique<tflite::OperatorT>();
  op->opcode_index = opcode_index;
  op->inputs = std::move(inputs);
  op->outputs = std::move(outputs);
  subgraph.operators.push_back(std::move(op));
  return static_cast<int32_t>(subgraph.operators.size() - 1);
}

size_t ModelBuilder::operator_count(size_t subgraph_index) const {
  return Subgraph(subgraph_index).operators.size();
}

void ModelBuilder::SetInputs(std::vector<int32_t> tensor_indices, size_t subgraph_index) {
  Subgraph(subgraph_index).inputs = std::move(tensor_indices);
}

void ModelBuilder::SetOutputs(std::vector<int32_t> tensor_indices, size_t subgraph_index) {
  Subgraph(subgraph_index).outputs = std::move(tensor_indices);
}

uint32_t ModelBuilder::AddMetadata(std::string name, std::vector<uint8_t> data) {
  const uint32_t buffer_index = AddBuffer(std::move(data));
  AddMetadataEntry(std::move(name), buffer_index);
  return buffer_index;
}

void ModelBuilder::AddMetadataEntry(std::string name, uint32_t buffer_index) {
  auto metadata = std::make_unique<tflite::MetadataT>();
  metadata->name = std::move(name);
  metadata->buffer = buffer_index;
  model_.metadata.push_back(std::move(metadata));
}

std::vector<uint8_t> ModelBuilder::Build() const {
  flatbuffers::FlatBufferBuilder fbb;
  tflite::FinishModelBuffer(fbb, tflite::Model::Pack(fbb, &model_));
  const uint8_t* begin = fbb.GetBufferPointer();
  return std::vector<uint8_t>(begin, begin + fbb.GetSize());
}

}  // namespace microarena
