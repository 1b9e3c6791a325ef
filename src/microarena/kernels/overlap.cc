#include "microarena/kernels/overlap.h"

#include "microarena/base/checked_math.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {

bool ElementwiseDisplacement(size_t element_count, size_t input_element_bytes, size_t output_element_bytes,
                             size_t* displacement_bytes) {
  if (output_element_bytes <= input_element_bytes || element_count == 0) {
    *displacement_bytes = 0;
    return true;
  }
  return CheckedMul(element_count - 1, output_element_bytes - input_element_bytes, displacement_bytes);
}

bool RowLagDisplacement(int64_t output_height, int64_t input_row_bytes, int64_t output_row_bytes, int64_t stride,
                        int64_t padding_top, size_t* displacement_bytes) {
  if (output_height < 1 || input_row_bytes < 0 || output_row_bytes < 0 || stride < 1 || padding_top < 0) {
    return false;
  }
  // Keep every product far from int64 overflow (tensor sizes are far smaller).
  constexpr int64_t kLimit = int64_t{1} << 40;
  if (output_height > kLimit / (output_row_bytes + 1) || output_height * stride > kLimit / (input_row_bytes + 1)) {
    return false;
  }
  int64_t most = 0;
  for (int64_t y = 0; y < output_height; ++y) {
    const int64_t first_row = y * stride - padding_top > 0 ? y * stride - padding_top : 0;
    const int64_t need = (y + 1) * output_row_bytes - first_row * input_row_bytes;
    if (need > most) most = need;
  }
  *displacement_bytes = static_cast<size_t>(most);
  return true;
}

Status DeclareElementwiseOverlap(PrepareContext& context, size_t input) {
  const TensorView in = context.input(input);
  const TensorView out = context.output(0);
  size_t displacement = 0;
  if (!ElementwiseDisplacement(out.element_count(), TensorTypeBits(in.type()) / 8, TensorTypeBits(out.type()) / 8,
                               &displacement)) {
    return OkStatus();  // too large to reason about: no overlap
  }
  return context.AllowOutputOverlap(input, 0, displacement);
}

namespace {

// The row lag displacement of `out` behind `in` (false: none). Its own frame:
// the int64 arguments it passes on the stack stay off the frame that calls
// the context, which is on AllocateTensors' stack.
[[gnu::noinline]] bool RowLagDisplacementOf(const TensorView& in, const TensorView& out, int32_t stride_height,
                                            int32_t padding_top, size_t* displacement) {
  if (Dim(in, 0) != 1 || Dim(out, 0) != 1 || in.type() != out.type()) return false;
  const auto element_bytes = static_cast<int64_t>(TensorTypeBits(in.type()) / 8);
  const int64_t input_row_bytes = int64_t{Dim(in, 2)} * Dim(in, 3) * element_bytes;
  const int64_t output_row_bytes = int64_t{Dim(out, 2)} * Dim(out, 3) * element_bytes;
  return RowLagDisplacement(Dim(out, 1), input_row_bytes, output_row_bytes, stride_height, padding_top, displacement);
}

}  // namespace

Status DeclareRowLagOverlap(PrepareContext& context, int32_t stride_height, int32_t padding_top) {
  const TensorView in = context.input(0);
  const TensorView out = context.output(0);
  size_t displacement = 0;
  if (!RowLagDisplacementOf(in, out, stride_height, padding_top, &displacement)) return OkStatus();
  return context.AllowOutputOverlap(0, 0, displacement);
}

}  // namespace microarena
