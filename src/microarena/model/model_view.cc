#include "microarena/model/model_view.h"

#include <cstdio>
#include <cstring>

#include "microarena/base/align.h"
#include "microarena/base/checked_math.h"
#include "microarena/model/call_graph.h"

namespace microarena {
namespace {

// The format's offset/size fields of Buffer are valid only when offset > 1.
bool HasExternalData(const tflite::Buffer* buffer) { return buffer->offset() > 1; }

template <typename T>
Span<const T> VectorSpan(const flatbuffers::Vector<T>* vector) {
  if (vector == nullptr) return {};
  return Span<const T>(vector->data(), vector->size());
}

const char* StringOr(const flatbuffers::String* text, const char* fallback) {
  return text == nullptr ? fallback : text->c_str();
}

// The builtin code of an operator code entry: the larger of the two fields,
// because old writers fill only the byte-sized deprecated field and new ones
// put 127 (PLACEHOLDER_FOR_GREATER_OP_CODES) there for codes above it.
int32_t ResolveBuiltinCode(const tflite::OperatorCode* code) {
  int32_t deprecated = code->deprecated_builtin_code();
  int32_t extended = code->builtin_code();
  return deprecated > extended ? deprecated : extended;
}

// Bytes of a tensor of `element_count` elements of `type`; false on overflow.
bool TensorBytes(size_t element_count, TensorType type, uint64_t* bytes) {
  uint64_t bits = 0;
  if (!CheckedMul64(element_count, TensorTypeBits(type), &bits)) return false;
  *bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
  return true;
}

class NullVisitor final : public CallGraphVisitor {};

class Verifier {
 public:
  Verifier(const tflite::Model* model, Span<const uint8_t> bytes) : model_(model), bytes_(bytes) {}

  Status Run() {
    if (model_->version() != 3) {
      return Status::Error(ErrorCode::kUnsupported,
                           "schema version %u is not supported (microarena reads version 3)",
                           model_->version());
    }
    MICROARENA_RETURN_IF_ERROR(CheckBuffers());
    MICROARENA_RETURN_IF_ERROR(CheckOperatorCodes());
    const auto* subgraphs = model_->subgraphs();
    if (subgraphs == nullptr || subgraphs->size() == 0) {
      return Status::Error(ErrorCode::kMalformedModel, "the model has no subgraph");
    }
    for (uint32_t s = 0; s < subgraphs->size(); ++s) {
      const tflite::SubGraph* subgraph = subgraphs->Get(s);
      if (subgraph == nullptr) {
        return Status::Error(ErrorCode::kMalformedModel, "subgraph %u is null", s);
      }
      MICROARENA_RETURN_IF_ERROR(CheckSubgraph(subgraph, s));
    }
    MICROARENA_RETURN_IF_ERROR(CheckCalls());
    return CheckMetadata();
  }

 private:
  // Control flow: every call stays within kMaxCallDepth and kMaxSteps (and so
  // has no cycle), so later walks and Invoke are bounded. Without control
  // flow the walk would only count subgraph 0's ops: done here instead, so
  // that loading a plain model does not carry the walk's frame.
  [[gnu::noinline]] Status CheckCalls() const {
    ModelView view(model_, bytes_);
    if (!HasControlFlow(view)) {
      const size_t ops = view.subgraph(0).operator_count();
      if (ops >= static_cast<size_t>(kMaxSteps)) {
        return Status::Error(ErrorCode::kUnsupported,
                             "the model's subgraphs unroll to more than %d steps (ops and subgraph calls)", kMaxSteps);
      }
      return OkStatus();
    }
    NullVisitor visitor;
    Result<int32_t> steps = WalkCallGraph(view, visitor);
    return steps.ok() ? OkStatus() : steps.status();
  }

  size_t buffer_count() const { return model_->buffers() == nullptr ? 0 : model_->buffers()->size(); }

  [[gnu::noinline]] Status CheckBuffers() {
    const auto* buffers = model_->buffers();
    if (buffers == nullptr || buffers->size() == 0) {
      return Status::Error(ErrorCode::kMalformedModel,
                           "the model has no buffers (buffer 0, the empty sentinel, is required)");
    }
    for (uint32_t b = 0; b < buffers->size(); ++b) {
      const tflite::Buffer* buffer = buffers->Get(b);
      if (buffer == nullptr) return Status::Error(ErrorCode::kMalformedModel, "buffer %u is null", b);
      if (!HasExternalData(buffer)) continue;
      if (buffer->data() != nullptr && buffer->data()->size() != 0) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "buffer %u has both inline data (%u bytes) and an external offset %llu",
                             b, buffer->data()->size(),
                             static_cast<unsigned long long>(buffer->offset()));
      }
      uint64_t end = 0;
      if (!CheckedAdd64(buffer->offset(), buffer->size(), &end) || end > bytes_.size()) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "buffer %u: external data at offset %llu, size %llu ends past the "
                             "end of the file (%zu bytes)",
                             b, static_cast<unsigned long long>(buffer->offset()),
                             static_cast<unsigned long long>(buffer->size()), bytes_.size());
      }
    }
    return OkStatus();
  }

  [[gnu::noinline]] Status CheckOperatorCodes() {
    const auto* codes = model_->operator_codes();
    if (codes == nullptr) return OkStatus();
    for (uint32_t c = 0; c < codes->size(); ++c) {
      const tflite::OperatorCode* code = codes->Get(c);
      if (code == nullptr) return Status::Error(ErrorCode::kMalformedModel, "operator code %u is null", c);
      int32_t builtin = ResolveBuiltinCode(code);
      if (builtin < 0 || BuiltinOpName(builtin) == nullptr) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "operator code %u: builtin code %d is not a known TFLite operator "
                             "(known: 0..%d)",
                             c, builtin, kMaxKnownBuiltinOp);
      }
      if (builtin == static_cast<int32_t>(BuiltinOp::kCustom) &&
          (code->custom_code() == nullptr || code->custom_code()->size() == 0)) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "operator code %u: a CUSTOM operator without a name", c);
      }
    }
    return OkStatus();
  }

  Status CheckTensorIndexList(const flatbuffers::Vector<int32_t>* list, size_t tensor_count,
                              bool allow_omitted, const char* what, uint32_t subgraph_index,
                              uint32_t op_index, const char* op_name) {
    if (list == nullptr) return OkStatus();
    for (uint32_t i = 0; i < list->size(); ++i) {
      int32_t t = list->Get(i);
      if (allow_omitted && t == -1) continue;
      if (t < 0 || static_cast<size_t>(t) >= tensor_count) {
        if (op_name != nullptr) {
          return Status::Error(ErrorCode::kMalformedModel,
                               "subgraph %u, op %u (%s): %s %u is tensor %d, outside [0, %zu)",
                               subgraph_index, op_index, op_name, what, i, t, tensor_count);
        }
        return Status::Error(ErrorCode::kMalformedModel,
                             "subgraph %u: %s %u is tensor %d, outside [0, %zu)", subgraph_index,
                             what, i, t, tensor_count);
      }
    }
    return OkStatus();
  }

  // Quantization arrays are not checked against each other or the shape:
  // TFLM loads and runs models whose zero points outnumber their scales, whose
  // per-channel scales do not match any axis, or whose axis lies outside the
  // rank (older converters write 3 on rank-1 biases). Nothing here indexes
  // them by the shape: QuantizationView bounds every read, and the kernels
  // that use per-channel scales check the count against their own channels.
  [[gnu::noinline]] Status CheckTensor(const tflite::Tensor* tensor, uint32_t s, uint32_t t) {
    const char* name = StringOr(tensor->name(), "");
    // Sparsity metadata is ignored, as TFLM ignores it: the tensor is read
    // as dense (and its buffer must hold the dense size, checked below).
    TensorType type = static_cast<TensorType>(tensor->type());
    if (TensorTypeBits(type) == 0) {
      return Status::Error(ErrorCode::kUnsupported,
                           "subgraph %u, tensor %u '%s': tensor type %s (%d) has no fixed element "
                           "size and is not supported",
                           s, t, name, TensorTypeName(type), static_cast<int>(tensor->type()));
    }
    Span<const int32_t> shape = VectorSpan(tensor->shape());
    if (shape.size() > kMaxRank) {
      return Status::Error(ErrorCode::kUnsupported,
                           "subgraph %u, tensor %u '%s': rank %zu exceeds the maximum rank %zu", s,
                           t, name, shape.size(), kMaxRank);
    }
    size_t elements = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] < 0) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "subgraph %u, tensor %u '%s': dimension %zu is %d (negative; dynamic "
                             "shapes are not supported)",
                             s, t, name, d, shape[d]);
      }
      if (!CheckedMul(elements, static_cast<size_t>(shape[d]), &elements)) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "subgraph %u, tensor %u '%s': element count overflows at dimension %zu",
                             s, t, name, d);
      }
    }
    uint64_t bytes = 0;
    if (!TensorBytes(elements, type, &bytes) || bytes > kMaxTensorBytes) {
      return Status::Error(ErrorCode::kMalformedModel,
                           "subgraph %u, tensor %u '%s': %zu elements of %s exceed the maximum "
                           "tensor size of %llu bytes",
                           s, t, name, elements, TensorTypeName(type),
                           static_cast<unsigned long long>(kMaxTensorBytes));
    }
    if (tensor->buffer() >= buffer_count()) {
      return Status::Error(ErrorCode::kMalformedModel,
                           "subgraph %u, tensor %u '%s': buffer index %u outside [0, %zu)", s, t,
                           name, tensor->buffer(), buffer_count());
    }
    const tflite::Buffer* buffer = model_->buffers()->Get(tensor->buffer());
    uint64_t data_bytes = HasExternalData(buffer) ? buffer->size()
                          : buffer->data() == nullptr ? 0
                                                      : buffer->data()->size();
    if (data_bytes != 0 && data_bytes < bytes) {
      return Status::Error(ErrorCode::kMalformedModel,
                           "subgraph %u, tensor %u '%s': constant buffer %u holds %llu bytes but "
                           "the tensor needs %llu",
                           s, t, name, tensor->buffer(), static_cast<unsigned long long>(data_bytes),
                           static_cast<unsigned long long>(bytes));
    }
    // A variable tensor with data loads: TFLM ignores the data (it gives
    // every variable fresh persistent memory and resets it), and so does
    // TensorView::is_constant.
    return OkStatus();
  }

  // IF, WHILE and CALL_ONCE name the subgraphs they call in their options,
  // which must be there (TFLM reads them unchecked) and in range.
  [[gnu::noinline]] Status CheckCalledSubgraphs(const tflite::Operator* op, int32_t builtin, uint32_t s, uint32_t o) {
    const size_t count = model_->subgraphs()->size();
    auto check = [&](bool present, int32_t index, const char* field) -> Status {
      if (!present) {
        return Status::Error(ErrorCode::kMalformedModel, "subgraph %u, op %u (%s): the op has no %s options", s,
                             o, BuiltinOpName(builtin), BuiltinOpName(builtin));
      }
      if (index < 0 || static_cast<size_t>(index) >= count) {
        return Status::Error(ErrorCode::kMalformedModel, "subgraph %u, op %u (%s): %s %d outside [0, %zu)", s, o,
                             BuiltinOpName(builtin), field, index, count);
      }
      return OkStatus();
    };
    switch (static_cast<BuiltinOp>(builtin)) {
      case BuiltinOp::kIf: {
        const auto* options = op->builtin_options_as_IfOptions();
        MICROARENA_RETURN_IF_ERROR(
            check(options != nullptr, options ? options->then_subgraph_index() : 0, "then_subgraph_index"));
        return check(true, options->else_subgraph_index(), "else_subgraph_index");
      }
      case BuiltinOp::kWhile: {
        const auto* options = op->builtin_options_as_WhileOptions();
        MICROARENA_RETURN_IF_ERROR(
            check(options != nullptr, options ? options->cond_subgraph_index() : 0, "cond_subgraph_index"));
        return check(true, options->body_subgraph_index(), "body_subgraph_index");
      }
      case BuiltinOp::kCallOnce: {
        const auto* options = op->builtin_options_as_CallOnceOptions();
        return check(options != nullptr, options ? options->init_subgraph_index() : 0, "init_subgraph_index");
      }
      default: return OkStatus();
    }
  }

  [[gnu::noinline]] Status CheckSubgraph(const tflite::SubGraph* subgraph, uint32_t s) {
    const auto* tensors = subgraph->tensors();
    size_t tensor_count = tensors == nullptr ? 0 : tensors->size();
    for (uint32_t t = 0; t < tensor_count; ++t) {
      const tflite::Tensor* tensor = tensors->Get(t);
      if (tensor == nullptr) return Status::Error(ErrorCode::kMalformedModel, "subgraph %u, tensor %u is null", s, t);
      MICROARENA_RETURN_IF_ERROR(CheckTensor(tensor, s, t));
    }
    MICROARENA_RETURN_IF_ERROR(
        CheckTensorIndexList(subgraph->inputs(), tensor_count, false, "input", s, 0, nullptr));
    MICROARENA_RETURN_IF_ERROR(
        CheckTensorIndexList(subgraph->outputs(), tensor_count, false, "output", s, 0, nullptr));
    const auto* ops = subgraph->operators();
    if (ops == nullptr) return OkStatus();
    size_t code_count = model_->operator_codes() == nullptr ? 0 : model_->operator_codes()->size();
    for (uint32_t o = 0; o < ops->size(); ++o) {
      const tflite::Operator* op = ops->Get(o);
      if (op == nullptr) return Status::Error(ErrorCode::kMalformedModel, "subgraph %u, op %u is null", s, o);
      if (op->opcode_index() >= code_count) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "subgraph %u, op %u: operator code index %u outside [0, %zu)", s, o,
                             op->opcode_index(), code_count);
      }
      // Name the op in errors: its code was checked above.
      const tflite::OperatorCode* code = model_->operator_codes()->Get(op->opcode_index());
      const int32_t builtin = ResolveBuiltinCode(code);
      const char* op_name = builtin == static_cast<int32_t>(BuiltinOp::kCustom) ? code->custom_code()->c_str()
                                                                               : BuiltinOpName(builtin);
      MICROARENA_RETURN_IF_ERROR(CheckCalledSubgraphs(op, builtin, s, o));
      MICROARENA_RETURN_IF_ERROR(CheckTensorIndexList(op->inputs(), tensor_count, true, "input", s, o, op_name));
      MICROARENA_RETURN_IF_ERROR(CheckTensorIndexList(op->outputs(), tensor_count, false, "output", s, o, op_name));
      MICROARENA_RETURN_IF_ERROR(
          CheckTensorIndexList(op->intermediates(), tensor_count, false, "intermediate", s, o, op_name));
      if (op->large_custom_options_offset() > 1) {
        uint64_t end = 0;
        if (!CheckedAdd64(op->large_custom_options_offset(), op->large_custom_options_size(), &end) ||
            end > bytes_.size()) {
          return Status::Error(ErrorCode::kMalformedModel,
                               "subgraph %u, op %u: external custom options end past the end of "
                               "the file (%zu bytes)",
                               s, o, bytes_.size());
        }
      }
    }
    return OkStatus();
  }

  [[gnu::noinline]] Status CheckMetadata() {
    const auto* metadata = model_->metadata();
    if (metadata == nullptr) return OkStatus();
    for (uint32_t m = 0; m < metadata->size(); ++m) {
      const tflite::Metadata* entry = metadata->Get(m);
      if (entry == nullptr) return Status::Error(ErrorCode::kMalformedModel, "metadata %u is null", m);
      if (entry->name() == nullptr) {
        return Status::Error(ErrorCode::kMalformedModel, "metadata %u has no name", m);
      }
      if (entry->buffer() >= buffer_count()) {
        return Status::Error(ErrorCode::kMalformedModel,
                             "metadata %u '%s': buffer index %u outside [0, %zu)", m,
                             entry->name()->c_str(), entry->buffer(), buffer_count());
      }
    }
    return OkStatus();
  }

  const tflite::Model* model_;
  Span<const uint8_t> bytes_;
};

Span<const uint8_t> BufferData(const tflite::Model* model, Span<const uint8_t> bytes, uint32_t index) {
  const tflite::Buffer* buffer = model->buffers()->Get(index);
  if (HasExternalData(buffer)) {
    return Span<const uint8_t>(bytes.data() + buffer->offset(), static_cast<size_t>(buffer->size()));
  }
  return VectorSpan(buffer->data());
}

}  // namespace

// --- QuantizationView ---

bool QuantizationView::is_quantized() const {
  return raw_ != nullptr && raw_->scale() != nullptr && raw_->scale()->size() > 0;
}
bool QuantizationView::is_affine() const {
  return is_quantized() && raw_->zero_point() != nullptr && raw_->zero_point()->size() > 0;
}
size_t QuantizationView::channel_count() const { return is_quantized() ? raw_->scale()->size() : 0; }
float QuantizationView::scale(size_t channel) const {
  return raw_->scale()->Get(static_cast<flatbuffers::uoffset_t>(channel));
}
int64_t QuantizationView::zero_point(size_t channel) const {
  if (raw_ == nullptr || raw_->zero_point() == nullptr || channel >= raw_->zero_point()->size()) return 0;
  // Copied, not loaded: the verifier checks a vector's 4-byte length word but
  // not that its 8-byte elements are 8-byte aligned, and a misaligned 64-bit
  // load faults on Cortex-M (LDRD) and is undefined in C++.
  int64_t value = 0;
  std::memcpy(&value, raw_->zero_point()->Data() + channel * sizeof(int64_t), sizeof(value));
  return flatbuffers::EndianScalar(value);
}
int32_t QuantizationView::quantized_dimension() const {
  return raw_ == nullptr ? 0 : raw_->quantized_dimension();
}
size_t QuantizationView::stored_bytes() const {
  if (raw_ == nullptr) return 0;
  size_t bytes = 0;
  if (raw_->scale() != nullptr) bytes += raw_->scale()->size() * sizeof(float);
  if (raw_->zero_point() != nullptr) bytes += raw_->zero_point()->size() * sizeof(int64_t);
  if (raw_->min() != nullptr) bytes += raw_->min()->size() * sizeof(float);
  if (raw_->max() != nullptr) bytes += raw_->max()->size() * sizeof(float);
  return bytes;
}

// --- TensorView ---

const char* TensorView::name() const { return StringOr(raw_->name(), ""); }
Span<const int32_t> TensorView::shape() const { return VectorSpan(raw_->shape()); }
size_t TensorView::element_count() const {
  size_t elements = 1;
  for (int32_t dim : shape()) elements *= static_cast<size_t>(dim);  // checked at load
  return elements;
}
size_t TensorView::byte_size() const {
  size_t bits = element_count() * TensorTypeBits(type());  // checked at load
  return bits / 8 + (bits % 8 != 0 ? 1 : 0);
}
Span<const uint8_t> TensorView::data() const { return BufferData(model_, bytes_, raw_->buffer()); }

// --- OperatorView ---

BuiltinOp OperatorView::code() const {
  return static_cast<BuiltinOp>(ResolveBuiltinCode(model_->operator_codes()->Get(raw_->opcode_index())));
}
const char* OperatorView::name() const {
  const tflite::OperatorCode* code = model_->operator_codes()->Get(raw_->opcode_index());
  int32_t builtin = ResolveBuiltinCode(code);
  if (builtin == static_cast<int32_t>(BuiltinOp::kCustom)) return code->custom_code()->c_str();
  return BuiltinOpName(builtin);
}
int32_t OperatorView::version() const {
  return model_->operator_codes()->Get(raw_->opcode_index())->version();
}
Span<const int32_t> OperatorView::inputs() const { return VectorSpan(raw_->inputs()); }
Span<const int32_t> OperatorView::outputs() const { return VectorSpan(raw_->outputs()); }
Span<const int32_t> OperatorView::intermediates() const { return VectorSpan(raw_->intermediates()); }
Span<const uint8_t> OperatorView::custom_options() const {
  const flatbuffers::Vector<uint8_t>* options = raw_->custom_options();
  return options == nullptr ? Span<const uint8_t>() : Span<const uint8_t>(options->data(), options->size());
}

// --- SubgraphView ---

const char* SubgraphView::name() const { return StringOr(raw_->name(), ""); }
size_t SubgraphView::tensor_count() const { return raw_->tensors() == nullptr ? 0 : raw_->tensors()->size(); }
TensorView SubgraphView::tensor(size_t tensor_index) const {
  return TensorView(raw_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(tensor_index)), model_,
                    bytes_, static_cast<int32_t>(tensor_index));
}
size_t SubgraphView::operator_count() const {
  return raw_->operators() == nullptr ? 0 : raw_->operators()->size();
}
OperatorView SubgraphView::op(size_t op_index) const {
  return OperatorView(raw_->operators()->Get(static_cast<flatbuffers::uoffset_t>(op_index)), model_,
                      static_cast<int32_t>(op_index));
}
Span<const int32_t> SubgraphView::inputs() const { return VectorSpan(raw_->inputs()); }
Span<const int32_t> SubgraphView::outputs() const { return VectorSpan(raw_->outputs()); }
bool SubgraphView::IsInput(int32_t tensor_index) const {
  for (int32_t t : inputs()) {
    if (t == tensor_index) return true;
  }
  return false;
}
bool SubgraphView::IsOutput(int32_t tensor_index) const {
  for (int32_t t : outputs()) {
    if (t == tensor_index) return true;
  }
  return false;
}

// --- ModelView ---

const char* ModelView::description() const { return StringOr(raw_->description(), ""); }
size_t ModelView::subgraph_count() const { return raw_->subgraphs()->size(); }
SubgraphView ModelView::subgraph(size_t subgraph_index) const {
  return SubgraphView(raw_->subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(subgraph_index)), raw_,
                      bytes_, static_cast<int32_t>(subgraph_index));
}
size_t ModelView::buffer_count() const { return raw_->buffers()->size(); }
size_t ModelView::operator_code_count() const {
  return raw_->operator_codes() == nullptr ? 0 : raw_->operator_codes()->size();
}
size_t ModelView::metadata_count() const { return raw_->metadata() == nullptr ? 0 : raw_->metadata()->size(); }
const char* ModelView::metadata_name(size_t metadata_index) const {
  return raw_->metadata()->Get(static_cast<flatbuffers::uoffset_t>(metadata_index))->name()->c_str();
}
Span<const uint8_t> ModelView::metadata(const char* name) const {
  for (size_t m = 0; m < metadata_count(); ++m) {
    if (std::strcmp(metadata_name(m), name) != 0) continue;
    return BufferData(raw_, bytes_, raw_->metadata()->Get(static_cast<flatbuffers::uoffset_t>(m))->buffer());
  }
  return {};
}
bool ModelView::has_metadata(const char* name) const {
  for (size_t m = 0; m < metadata_count(); ++m) {
    if (std::strcmp(metadata_name(m), name) == 0) return true;
  }
  return false;
}

// --- LoadModel ---

namespace {

// The two checks in frames of their own, one after the other: LoadModel's
// frame does not hold both at once.
[[gnu::noinline]] bool VerifyFlatbuffer(const uint8_t* data, size_t bytes) {
  flatbuffers::Verifier verifier(data, bytes);
  return tflite::VerifyModelBuffer(verifier);
}

[[gnu::noinline]] Status VerifySemantics(const tflite::Model* model, Span<const uint8_t> bytes) {
  Verifier semantic(model, bytes);
  return semantic.Run();
}

// The checks LoadModel and LoadVerifiedModel share.
Status CheckModelBytes(Span<const uint8_t> bytes) {
  if (bytes.data() == nullptr || bytes.empty()) {
    return Status::Error(ErrorCode::kMalformedModel, "the model is empty (0 bytes)");
  }
  if (!IsAligned(bytes.data(), 4)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "the model bytes must start 4-byte aligned (address ends in 0x%x)",
                         static_cast<unsigned>(reinterpret_cast<uintptr_t>(bytes.data()) & 0xF));
  }
  if (bytes.size() < 8) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "%zu bytes is too short for a .tflite file (at least 8 are needed)", bytes.size());
  }
  if (!flatbuffers::BufferHasIdentifier(bytes.data(), tflite::ModelIdentifier())) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "not a .tflite file: bytes 4..7 are not the identifier \"TFL3\"");
  }
  return OkStatus();
}

}  // namespace

Result<ModelView> LoadVerifiedModel(Span<const uint8_t> bytes) {
  MICROARENA_RETURN_IF_ERROR(CheckModelBytes(bytes));
  return ModelView(tflite::GetModel(bytes.data()), bytes);
}

Result<ModelView> LoadModel(Span<const uint8_t> bytes) {
  MICROARENA_RETURN_IF_ERROR(CheckModelBytes(bytes));
  // The verifier can address at most FLATBUFFERS_MAX_BUFFER_SIZE bytes; larger
  // files keep their data after the flatbuffer, which we bound-check ourselves.
  size_t verify_bytes = bytes.size();
  if (verify_bytes >= FLATBUFFERS_MAX_BUFFER_SIZE) verify_bytes = FLATBUFFERS_MAX_BUFFER_SIZE - 1;
  if (!VerifyFlatbuffer(bytes.data(), verify_bytes)) {
    return Status::Error(ErrorCode::kMalformedModel,
                         "the flatbuffer failed verification (truncated or corrupted; %zu bytes)",
                         bytes.size());
  }
  const tflite::Model* model = tflite::GetModel(bytes.data());
  MICROARENA_RETURN_IF_ERROR(VerifySemantics(model, bytes));
  return ModelView(model, bytes);
}

}  // namespace microarena
