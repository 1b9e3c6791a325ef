// Fuzz target: LoadModel (flatbuffers Verifier + semantic checks) on any
// bytes. When it accepts a model, every accessor of the views must be safe
// ("validate at the boundary, then trust"), so this walks all of them and
// reads every byte of every constant buffer and quantization array, plus the
// offline-plan metadata.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/analysis/offline_plan.h"
#include "microarena/model/model_view.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/fuzz_targets.h"

namespace microarena::fuzz {
namespace {

// Folds bytes into a sum so the reads cannot be optimised away.
uint32_t Touch(Span<const uint8_t> bytes) {
  uint32_t sum = 0;
  for (size_t i = 0; i < bytes.size(); ++i) sum += bytes[i];
  return sum;
}

uint32_t WalkTensor(const TensorView& tensor) {
  uint32_t sum = static_cast<uint32_t>(std::strlen(tensor.name()));
  Span<const int32_t> shape = tensor.shape();
  for (size_t d = 0; d < shape.size(); ++d) sum += static_cast<uint32_t>(shape[d]);
  sum += static_cast<uint32_t>(tensor.element_count() + tensor.byte_size());
  if (tensor.is_constant()) {
    Require(tensor.data().size() >= tensor.byte_size(), "constant buffer smaller than its tensor");
    sum += Touch(tensor.data());
  }
  QuantizationView quantization = tensor.quantization();
  if (quantization.is_quantized()) {
    for (size_t c = 0; c < quantization.channel_count(); ++c) {
      sum += static_cast<uint32_t>(quantization.zero_point(c));
      float scale = quantization.scale(c);
      uint32_t scale_bits = 0;
      std::memcpy(&scale_bits, &scale, sizeof(scale_bits));
      sum += scale_bits;
    }
    sum += static_cast<uint32_t>(quantization.quantized_dimension());
  }
  return sum + static_cast<uint32_t>(quantization.stored_bytes());
}

uint32_t WalkModel(const ModelView& model) {
  uint32_t sum = static_cast<uint32_t>(std::strlen(model.description()));
  for (size_t m = 0; m < model.metadata_count(); ++m) {
    const char* name = model.metadata_name(m);
    sum += Touch(model.metadata(name));
  }
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    sum += static_cast<uint32_t>(std::strlen(subgraph.name()));
    const auto tensor_count = static_cast<int32_t>(subgraph.tensor_count());
    for (size_t t = 0; t < subgraph.tensor_count(); ++t) sum += WalkTensor(subgraph.tensor(t));
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      sum += static_cast<uint32_t>(std::strlen(op.name())) + static_cast<uint32_t>(op.version());
      Span<const int32_t> lists[] = {op.inputs(), op.outputs(), op.intermediates()};
      for (Span<const int32_t> list : lists) {
        for (size_t i = 0; i < list.size(); ++i) {
          Require(list[i] >= -1 && list[i] < tensor_count, "op tensor index out of range after LoadModel");
        }
      }
    }
    for (Span<const int32_t> list : {subgraph.inputs(), subgraph.outputs()}) {
      for (size_t i = 0; i < list.size(); ++i) {
        Require(list[i] >= 0 && list[i] < tensor_count, "subgraph input/output out of range after LoadModel");
        sum += subgraph.IsInput(list[i]) ? 1u : 0u;
      }
    }
  }
  Result<Span<const int32_t>> offline = ReadOfflinePlan(model);
  if (offline.ok()) {
    for (size_t i = 0; i < offline->size(); ++i) sum += static_cast<uint32_t>((*offline)[i]);
  } else {
    RequireMessage(offline.status(), "ReadOfflinePlan error without a message");
  }
  return sum;
}

}  // namespace
}  // namespace microarena::fuzz

int microarena::fuzz::ModelLoadOneInput(const uint8_t* data, size_t size) {
  using namespace microarena;
  fuzz::AlignedBytes bytes(data, size);
  Result<ModelView> model = LoadModel(bytes.span());
  if (!model.ok()) {
    fuzz::RequireMessage(model.status(), "LoadModel error without a message");
    return 0;
  }
  volatile uint32_t sink = fuzz::WalkModel(*model);
  (void)sink;
  return 0;
}

MICROARENA_FUZZ_ENTRY_POINT(ModelLoadOneInput)
