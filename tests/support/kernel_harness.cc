#include "tests/support/kernel_harness.h"

#include <cstring>
#include <stdexcept>

namespace microarena::testing {

class KernelHarness::Eval_ final : public EvalContext {
 public:
  explicit Eval_(KernelHarness& h) : h_(h), op_(h.model_.subgraph(0).op(static_cast<size_t>(h.op_index_))) {}
  size_t input_count() const override { return op_.inputs().size(); }
  size_t output_count() const override { return op_.outputs().size(); }
  EvalTensor* input(size_t i) override {
    int32_t t = op_.inputs()[i];
    return t < 0 ? nullptr : &h_.tensors_[static_cast<size_t>(t)];
  }
  EvalTensor* output(size_t i) override { return &h_.tensors_[static_cast<size_t>(op_.outputs()[i])]; }
  void* scratch(int32_t scratch_index) override { return h_.scratch_[static_cast<size_t>(scratch_index)].get(); }

 private:
  KernelHarness& h_;
  OperatorView op_;
};

KernelHarness::KernelHarness(const ModelView& model, int32_t op_index, const OpResolver& resolver)
    : model_(model), op_index_(op_index), kernel_(nullptr) {
  SubgraphView subgraph = model.subgraph(0);
  kernel_ = resolver.Find(subgraph.op(static_cast<size_t>(op_index)));
  tensors_.resize(subgraph.tensor_count());
  storage_.resize(subgraph.tensor_count());
  for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
    TensorView view = subgraph.tensor(t);
    EvalTensor& eval = tensors_[t];
    eval.dims = view.shape().data();
    eval.rank = static_cast<uint8_t>(view.rank());
    eval.type = view.type();
    if (view.is_constant()) {
      eval.data = const_cast<uint8_t*>(view.data().data());
      continue;
    }
    storage_[t].reset(new uint64_t[view.byte_size() / 8 + 1]());
    eval.data = reinterpret_cast<uint8_t*>(storage_[t].get());
    if (view.is_variable() && view.type() == TensorType::kInt8 && view.quantization().is_quantized()) {
      std::memset(eval.data, static_cast<int>(static_cast<int8_t>(view.quantization().zero_point(0))),
                  view.byte_size());
    }
  }
}

KernelHarness::~KernelHarness() = default;

void KernelHarness::SetTensorBytes(int32_t tensor_index, const std::vector<uint8_t>& bytes) {
  TensorView view = model_.subgraph(0).tensor(static_cast<size_t>(tensor_index));
  if (view.is_constant() || bytes.size() != view.byte_size()) {
    throw std::invalid_argument("SetTensorBytes: constant tensor or wrong size for tensor " +
                                std::to_string(tensor_index));
  }
  std::memcpy(tensors_[static_cast<size_t>(tensor_index)].data, bytes.data(), bytes.size());
}

Status KernelHarness::Prepare() {
  if (kernel_ == nullptr) return Status::Error(ErrorCode::kUnsupported, "no kernel for op %d", op_index_);
  prepared_ = std::make_unique<RecordingPrepareContext>(model_, op_index_);
  const Status status = kernel_->prepare(*prepared_, &op_data_);
  // Eval's scratch: a heap buffer per request.
  scratch_.clear();
  for (size_t bytes : prepared_->scratch_sizes()) scratch_.emplace_back(new uint64_t[bytes / sizeof(uint64_t) + 1]());
  return status;
}

Status KernelHarness::Eval() {
  Eval_ context(*this);
  return kernel_->eval(context, op_data_);
}

std::vector<uint8_t> KernelHarness::TensorBytes(int32_t tensor_index) const {
  TensorView view = model_.subgraph(0).tensor(static_cast<size_t>(tensor_index));
  const uint8_t* data = tensors_[static_cast<size_t>(tensor_index)].data;
  return std::vector<uint8_t>(data, data + view.byte_size());
}

size_t KernelHarness::persistent_bytes() const { return prepared_ ? prepared_->persistent_bytes() : 0; }

size_t KernelHarness::scratch_bytes() const {
  size_t total = 0;
  if (prepared_) {
    for (size_t bytes : prepared_->scratch_sizes()) total += bytes;
  }
  return total;
}

}  // namespace microarena::testing
