#include "microarena/analysis/overlaps.h"

namespace microarena {
namespace {

constexpr uint32_t kNotPlanned = UINT32_MAX;

uint32_t FindTensorBuffer(Span<const BufferRequest> buffers, int32_t tensor_index) {
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (buffers[b].kind == BufferKind::kTensor && buffers[b].owner_index == tensor_index) {
      return static_cast<uint32_t>(b);
    }
  }
  return kNotPlanned;
}

}  // namespace

Result<size_t> ResolveOverlaps(const ModelView& model, Span<const BufferRequest> buffers,
                               Span<const OverlapDeclaration> declarations, Span<const int32_t> order,
                               Span<OverlapPermission> permissions) {
  if (model.subgraph_count() == 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "overlaps: the model has no subgraph");
  }
  const SubgraphView subgraph = model.subgraph(0);
  const size_t op_count = subgraph.operator_count();
  const size_t tensor_count = subgraph.tensor_count();
  if (permissions.size() < declarations.size()) {
    return Status::Error(ErrorCode::kInvalidArgument, "overlaps: room for %zu permissions but %zu declarations",
                         permissions.size(), declarations.size());
  }
  if (!order.empty() && order.size() != op_count) {
    return Status::Error(ErrorCode::kInvalidArgument, "overlaps: the order lists %zu ops but the subgraph has %zu",
                         order.size(), op_count);
  }
  size_t count = 0;
  for (const OverlapDeclaration& declaration : declarations) {
    if (declaration.op_index < 0 || static_cast<size_t>(declaration.op_index) >= op_count ||
        declaration.input_tensor < 0 || static_cast<size_t>(declaration.input_tensor) >= tensor_count ||
        declaration.output_tensor < 0 || static_cast<size_t>(declaration.output_tensor) >= tensor_count) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "overlaps: declaration of op %d names tensors %d and %d (%zu ops, %zu tensors)",
                           declaration.op_index, declaration.input_tensor, declaration.output_tensor, op_count,
                           tensor_count);
    }
    if (declaration.input_tensor == declaration.output_tensor) continue;
    int32_t step = declaration.op_index;
    if (!order.empty()) {
      for (size_t s = 0; s < op_count; ++s) {
        if (order[s] == declaration.op_index) step = static_cast<int32_t>(s);
      }
    }
    bool is_model_output = false;
    for (int32_t t : subgraph.outputs()) is_model_output |= t == declaration.input_tensor;
    if (is_model_output) continue;  // rule 3
    const uint32_t input = FindTensorBuffer(buffers, declaration.input_tensor);
    const uint32_t output = FindTensorBuffer(buffers, declaration.output_tensor);
    if (input == kNotPlanned || output == kNotPlanned) continue;  // rule 1
    if (buffers[input].lifetime.end_op != step + 1) continue;     // rule 2
    if (buffers[output].lifetime.first_op != step) continue;      // rule 4
    bool merged = false;
    for (size_t p = 0; p < count && !merged; ++p) {
      if (permissions[p].input_buffer == input && permissions[p].output_buffer == output) {
        if (declaration.min_displacement_bytes > permissions[p].min_displacement_bytes) {
          permissions[p].min_displacement_bytes = declaration.min_displacement_bytes;
        }
        merged = true;
      }
    }
    if (!merged) permissions[count++] = OverlapPermission{input, output, declaration.min_displacement_bytes};
  }
  return count;
}

}  // namespace microarena
