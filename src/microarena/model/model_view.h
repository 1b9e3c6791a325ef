// ModelView: a verified, read-only view of a .tflite model.
//
//   Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes, size));
//   if (!model.ok()) { printf("%s\n", model.status().message()); return; }
//   SubgraphView main = model->subgraph(0);
//   for (size_t i = 0; i < main.operator_count(); ++i) printf("%s\n", main.op(i).name());
//
// LoadModel runs the flatbuffers Verifier and then the semantic checks below;
// once it succeeds every accessor here is safe without further checks
// ("validate at the boundary, then trust"). Nothing is copied: every view
// points into the caller's bytes, which must stay alive and unchanged while
// any view is used. No heap is used.
//
// Semantic checks (each failure names the subgraph, op or tensor and the numbers):
//  - schema version 3; at least one subgraph; buffer 0 exists
//  - every tensor/buffer/opcode/subgraph index in range; optional op inputs may be -1
//  - shapes: rank <= kMaxRank, every dimension >= 0; element count and byte size
//    computed with overflow checks and at most kMaxTensorBytes
//  - tensor types with a fixed element size only (STRING, VARIANT rejected;
//    RESOURCE holds a 4-byte resource variable id)
//  - sparsity metadata ignored (read as dense, as TFLM does)
//  - constant buffers at least as large as their tensors
//  - quantization: scale and zero_point of equal length; per-channel arrays match
//    the size of quantized_dimension, which must be < rank
//  - operator codes: max(deprecated_builtin_code, builtin_code) is a known builtin;
//    CUSTOM ops carry a name
//  - subgraph inputs/outputs in range; IF, WHILE and CALL_ONCE carry their
//    options and call subgraphs in range, nested at most kMaxCallDepth deep
//    (no cycles) and unrolling to at most kMaxSteps steps (model/call_graph.h)
//  - buffers stored after the flatbuffer (Buffer.offset/size) lie inside the bytes
//  - metadata names present and their buffers in range
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/model/builtin_op.h"
#include "microarena/model/tensor_type.h"
#include "microarena/schema/tflite_schema_generated.h"

namespace microarena {

// Largest tensor rank accepted. TFLite kernels use at most 6; 8 leaves room.
constexpr size_t kMaxRank = 8;
// Largest byte size of one tensor: 2 GiB - 1, so sizes fit a 32-bit size_t.
constexpr uint64_t kMaxTensorBytes = 0x7FFFFFFFu;

// Per-tensor or per-channel affine quantization: real = scale * (q - zero_point).
class QuantizationView {
 public:
  QuantizationView() = default;
  explicit QuantizationView(const tflite::QuantizationParameters* raw) : raw_(raw) {}

  // True when scales are present.
  bool is_quantized() const;
  // True when scales and zero points are both present: what TFLM's loader
  // calls quantized (without both it records no quantization at all). Kernels
  // that run "plain" tensors decide with this, as TFLM does.
  bool is_affine() const;
  size_t channel_count() const;  // number of scales (1 for per-tensor)
  float scale(size_t channel) const;
  int64_t zero_point(size_t channel) const;  // 0 when the model omits zero points
  int32_t quantized_dimension() const;
  // Bytes of quantization parameters stored in the model (scales + zero points + min/max).
  size_t stored_bytes() const;

 private:
  const tflite::QuantizationParameters* raw_ = nullptr;
};

class TensorView {
 public:
  TensorView(const tflite::Tensor* raw, const tflite::Model* model, Span<const uint8_t> bytes, int32_t index)
      : raw_(raw), model_(model), bytes_(bytes), index_(index) {}

  int32_t index() const { return index_; }
  const char* name() const;  // never null; "" when unnamed
  TensorType type() const { return static_cast<TensorType>(raw_->type()); }
  Span<const int32_t> shape() const;
  size_t rank() const { return shape().size(); }
  size_t element_count() const;
  size_t byte_size() const;  // checked at load
  bool is_variable() const { return raw_->is_variable(); }
  // A constant tensor has data in the model (a non-empty buffer) and is not
  // a variable: a variable's data is ignored, as TFLM ignores it.
  bool is_constant() const { return !is_variable() && !data().empty(); }
  uint32_t buffer_index() const { return raw_->buffer(); }
  // The constant data (empty for non-constant tensors). Points into the model bytes.
  Span<const uint8_t> data() const;
  QuantizationView quantization() const { return QuantizationView(raw_->quantization()); }
  const tflite::Tensor* raw() const { return raw_; }

 private:
  const tflite::Tensor* raw_;
  const tflite::Model* model_;
  Span<const uint8_t> bytes_;
  int32_t index_;
};

class OperatorView {
 public:
  OperatorView(const tflite::Operator* raw, const tflite::Model* model, int32_t index)
      : raw_(raw), model_(model), index_(index) {}

  int32_t index() const { return index_; }
  BuiltinOp code() const;
  // "CONV_2D", or the custom op's name for CUSTOM.
  const char* name() const;
  bool is_custom() const { return code() == BuiltinOp::kCustom; }
  int32_t version() const;
  // Tensor indices; inputs may hold -1 for an omitted optional input.
  Span<const int32_t> inputs() const;
  Span<const int32_t> outputs() const;
  Span<const int32_t> intermediates() const;
  // The opaque custom_options bytes (e.g. a custom op's flexbuffer); empty
  // when absent.
  Span<const uint8_t> custom_options() const;
  // Builtin options, e.g. raw()->builtin_options_as_Conv2DOptions(); null when absent.
  const tflite::Operator* raw() const { return raw_; }

 private:
  const tflite::Operator* raw_;
  const tflite::Model* model_;
  int32_t index_;
};

class SubgraphView {
 public:
  SubgraphView(const tflite::SubGraph* raw, const tflite::Model* model, Span<const uint8_t> bytes, int32_t index)
      : raw_(raw), model_(model), bytes_(bytes), index_(index) {}

  int32_t index() const { return index_; }
  const char* name() const;
  size_t tensor_count() const;
  TensorView tensor(size_t tensor_index) const;
  size_t operator_count() const;
  OperatorView op(size_t op_index) const;
  Span<const int32_t> inputs() const;
  Span<const int32_t> outputs() const;
  bool IsInput(int32_t tensor_index) const;
  bool IsOutput(int32_t tensor_index) const;

 private:
  const tflite::SubGraph* raw_;
  const tflite::Model* model_;
  Span<const uint8_t> bytes_;
  int32_t index_;
};

class ModelView {
 public:
  ModelView(const tflite::Model* raw, Span<const uint8_t> bytes) : raw_(raw), bytes_(bytes) {}

  Span<const uint8_t> bytes() const { return bytes_; }
  uint32_t schema_version() const { return raw_->version(); }
  const char* description() const;
  size_t subgraph_count() const;
  SubgraphView subgraph(size_t subgraph_index) const;
  size_t buffer_count() const;
  size_t operator_code_count() const;
  // Bytes of the metadata entry `name`; empty when there is none.
  Span<const uint8_t> metadata(const char* name) const;
  bool has_metadata(const char* name) const;
  size_t metadata_count() const;
  const char* metadata_name(size_t metadata_index) const;
  const tflite::Model* raw() const { return raw_; }

 private:
  const tflite::Model* raw_;
  Span<const uint8_t> bytes_;
};

// Verifies `bytes` and returns a view into them. The bytes must stay alive and
// unchanged while the view is used, and must start 4-byte aligned.
Result<ModelView> LoadModel(Span<const uint8_t> bytes);

// A view into bytes that already passed LoadModel, without verifying them
// again: a firmware whose model matches the SHA-256 the arena header
// recorded (`microarena plan` loaded and verified those exact bytes on the
// host) needs no flatbuffers verifier on the device, nor its flash and
// stack. Only the cheap checks run (not empty, 4-byte aligned, the "TFL3"
// identifier); bytes no LoadModel has accepted may crash the runtime, so
// anything from outside the firmware's own image goes through LoadModel.
Result<ModelView> LoadVerifiedModel(Span<const uint8_t> bytes);

}  // namespace microarena
