// BATCH_MATMUL reference math: out[..., a, c] = sum_k L[..., a, k] * R[..., k, c]
// over batch dimensions that broadcast (a dimension of 1 repeats).
//
// Shapes are right-aligned to kBatchMatmulMaxRank dimensions: three batch
// dimensions, then the two matrix dimensions as stored. With adj_x the LHS is
// stored [B, A] (read transposed), else [A, B]; with adj_y the RHS is stored
// [C, B], else [B, C]. Reading through strides instead of transposing into a
// buffer gives the same sums in the same order (k ascending) as TFLite's
// reference kernel, which transposes first; no scratch is needed.
//
//   int8:  acc = sum_k (L - zp_lhs) * (R - zp_rhs)  (int32)
//          out = clamp(MultiplyByQuantizedMultiplier(acc, M, shift) + zp_out)
//   int16: zero points 0 (TFLM requires them); acc in int64,
//          out = clamp(MultiplyByQuantizedMultiplier64(acc, M, shift))
//   float: acc = sum_k L * R  (float, k ascending)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "microarena/kernels/fixed_point.h"

namespace microarena::reference {

constexpr size_t kBatchMatmulMaxRank = 5;

struct BatchMatmulShape {
  int32_t lhs_dims[kBatchMatmulMaxRank] = {1, 1, 1, 1, 1};  // as stored
  int32_t rhs_dims[kBatchMatmulMaxRank] = {1, 1, 1, 1, 1};  // as stored
  bool adj_x = false;
  bool adj_y = false;
};

struct BatchMatmulQuantization {
  int32_t lhs_zero_point = 0;
  int32_t rhs_zero_point = 0;
  int32_t output_zero_point = 0;
  int32_t multiplier = 0;  // lhs_scale * rhs_scale / output_scale
  int shift = 0;
};

// Visits every (output matrix, lhs matrix, rhs matrix) triple and calls
// `matmul(lhs, rhs, out, rows, depth, cols, lhs_row_step, lhs_depth_step,
// rhs_depth_step, rhs_col_step)`.
template <typename T, typename Out, typename MatMul>
void BatchMatmulForEachMatrix(const BatchMatmulShape& s, const T* lhs, const T* rhs, Out* output, MatMul matmul) {
  const size_t rows = static_cast<size_t>(s.adj_x ? s.lhs_dims[4] : s.lhs_dims[3]);
  const size_t depth = static_cast<size_t>(s.adj_x ? s.lhs_dims[3] : s.lhs_dims[4]);
  const size_t cols = static_cast<size_t>(s.adj_y ? s.rhs_dims[3] : s.rhs_dims[4]);
  const size_t lhs_row_step = s.adj_x ? 1 : depth;
  const size_t lhs_depth_step = s.adj_x ? rows : 1;
  const size_t rhs_depth_step = s.adj_y ? 1 : cols;
  const size_t rhs_col_step = s.adj_y ? depth : 1;
  const size_t lhs_matrix = rows * depth;
  const size_t rhs_matrix = depth * cols;
  // Element stride of each batch dimension; 0 where the dimension broadcasts.
  size_t lhs_step[3];
  size_t rhs_step[3];
  size_t batch[3];
  size_t lhs_stride = lhs_matrix;
  size_t rhs_stride = rhs_matrix;
  for (size_t d = 3; d-- > 0;) {
    lhs_step[d] = s.lhs_dims[d] == 1 ? 0 : lhs_stride;
    rhs_step[d] = s.rhs_dims[d] == 1 ? 0 : rhs_stride;
    batch[d] = static_cast<size_t>(std::max(s.lhs_dims[d], s.rhs_dims[d]));
    lhs_stride *= static_cast<size_t>(s.lhs_dims[d]);
    rhs_stride *= static_cast<size_t>(s.rhs_dims[d]);
  }
  Out* out = output;
  for (size_t b0 = 0; b0 < batch[0]; ++b0) {
    for (size_t b1 = 0; b1 < batch[1]; ++b1) {
      for (size_t b2 = 0; b2 < batch[2]; ++b2) {
        const T* l = lhs + b0 * lhs_step[0] + b1 * lhs_step[1] + b2 * lhs_step[2];
        const T* r = rhs + b0 * rhs_step[0] + b1 * rhs_step[1] + b2 * rhs_step[2];
        matmul(l, r, out, rows, depth, cols, lhs_row_step, lhs_depth_step, rhs_depth_step, rhs_col_step);
        out += rows * cols;
      }
    }
  }
}

inline void BatchMatmulFloat(const BatchMatmulShape& shape, const float* lhs, const float* rhs, float* output) {
  BatchMatmulForEachMatrix(shape, lhs, rhs, output,
                           [](const float* l, const float* r, float* out, size_t rows, size_t depth, size_t cols,
                              size_t l_row, size_t l_k, size_t r_k, size_t r_col) {
                             for (size_t a = 0; a < rows; ++a) {
                               for (size_t c = 0; c < cols; ++c) {
                                 float total = 0.0f;
                                 for (size_t k = 0; k < depth; ++k) {
                                   total += r[k * r_k + c * r_col] * l[a * l_row + k * l_k];
                                 }
                                 out[a * cols + c] = total;
                               }
                             }
                           });
}

inline void BatchMatmulInt8(const BatchMatmulShape& shape, const BatchMatmulQuantization& q, const int8_t* lhs,
                            const int8_t* rhs, int8_t* output) {
  BatchMatmulForEachMatrix(
      shape, lhs, rhs, output,
      [&q](const int8_t* l, const int8_t* r, int8_t* out, size_t rows, size_t depth, size_t cols, size_t l_row,
           size_t l_k, size_t r_k, size_t r_col) {
        for (size_t a = 0; a < rows; ++a) {
          for (size_t c = 0; c < cols; ++c) {
            int32_t total = 0;
            for (size_t k = 0; k < depth; ++k) {
              const int32_t rhs_value = r[k * r_k + c * r_col];
              const int32_t lhs_value = l[a * l_row + k * l_k];
              total = fixed_point::WrappingAdd(
                  total, (rhs_value - q.rhs_zero_point) * (lhs_value - q.lhs_zero_point));
            }
            // Long sums and the zero point add wrap in TFLite, as WrappingAdd does.
            int32_t value = fixed_point::MultiplyByQuantizedMultiplier(total, q.multiplier, q.shift);
            value = fixed_point::WrappingAdd(value, q.output_zero_point);
            value = std::min<int32_t>(127, std::max<int32_t>(-128, value));
            out[a * cols + c] = static_cast<int8_t>(value);
          }
        }
      });
}

inline void BatchMatmulInt16(const BatchMatmulShape& shape, const BatchMatmulQuantization& q, const int16_t* lhs,
                             const int16_t* rhs, int16_t* output) {
  BatchMatmulForEachMatrix(
      shape, lhs, rhs, output,
      [&q](const int16_t* l, const int16_t* r, int16_t* out, size_t rows, size_t depth, size_t cols, size_t l_row,
           size_t l_k, size_t r_k, size_t r_col) {
        for (size_t a = 0; a < rows; ++a) {
          for (size_t c = 0; c < cols; ++c) {
            // Each product is below 2^31 in magnitude; the int64 sum wraps
            // only past 2^32 of them.
            int64_t total = 0;
            for (size_t k = 0; k < depth; ++k) {
              total = fixed_point::WrappingAdd64(
                  total, int64_t{r[k * r_k + c * r_col]} * int64_t{l[a * l_row + k * l_k]});
            }
            const int32_t value = fixed_point::MultiplyByQuantizedMultiplier64(total, q.multiplier, q.shift);
            out[a * cols + c] = static_cast<int16_t>(std::min<int32_t>(32767, std::max<int32_t>(-32768, value)));
          }
        }
      });
}

}  // namespace microarena::reference
