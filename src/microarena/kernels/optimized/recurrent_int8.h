// Fast integer paths of the recurrent ops: SVDF (int8 input, int8 or int16
// state) and the integer LSTM's gate matmuls (8x8->16 and 16x8->16), with the reference
// kernels' arguments and bytes (kernels/reference/svdf.h and lstm.h are
// their oracle: optimized/recurrent_int8_test.cc and the Cortex-M firmware
// kernel_check compare them case by case, the shared models' goldens
// compare whole models).
//
// Why they stay exact:
//   - every sum is taken modulo 2^32 as the reference's WrappingAdd, so
//     blocking, reordering and starting from the bias change no bit;
//   - requantization is the reference's MultiplyByQuantizedMultiplier
//     (optimized/requantize.h), once per output, then the same saturation
//     and zero point in the same order.
//
// SVDF, per step:
//   1. the state shift is one memmove of the whole block;
//   2. the feature matmul is a fully connected layer (one input row against
//      four weight rows, optimized/int8_dot.h), each sum requantized into
//      the newest state column;
//   3-5. each unit's rank time-weight dot products (over the filter's
//      memory), the bias and the output requantization in one pass: the
//      reference's two int32 scratch arrays are not written (they stay
//      requested, so the arena is the same for both paths).
// An int16 state's dot product on Cortex-M takes SMLAD on pairs of halves:
// w * (s - zp) = w * s - zp * w term by term, so the sum is
// sum(w * s) - zp * sum(w) modulo 2^32.
//
// No heap, no scratch and no op data beyond the reference's. Built with
// MICROARENA_REFERENCE_INT8_KERNELS (a CMake option), each calls its
// reference kernel instead.
#pragma once

#include <cstdint>

#include "microarena/kernels/reference/lstm.h"
#include "microarena/kernels/reference/svdf.h"

namespace microarena::optimized {

// reference::SvdfInteger<StateT>'s contract and bytes (StateT: int8_t or
// int16_t). `scratch` and `scratch_output` are the reference's (batches x
// filters and batches x units int32); only the reference build writes them.
template <typename StateT>
void SvdfInteger(const reference::SvdfIntegerParams& params, const reference::SvdfShape& shape, const int8_t* input,
                 const int8_t* weights_feature, const StateT* weights_time, const int32_t* bias, StateT* state,
                 int32_t* scratch, int32_t* scratch_output, int8_t* output);

// reference::FullyConnectedInt8ToInt16's contract and bytes: output[b][o] =
// saturate_int16(M * (bias[o] + sum_i W[o][i] * (x[b][i] + input_offset))).
// `bias` may be null; the weights are symmetric.
void FullyConnectedInt8ToInt16(reference::LstmMultiplier scale, int32_t input_offset, int rows, int input_size,
                               int output_size, const int8_t* input, const int8_t* weights, const int32_t* bias,
                               int16_t* output);

// reference::FullyConnectedInt16ToInt16's contract and bytes (the 16x8
// LSTM's gate matmul): int16 input, int64 bias (may be null), the int64 sum
// taken as int32 runs of 255 products, the 64-bit rescale.
void FullyConnectedInt16ToInt16(reference::LstmMultiplier scale, int32_t input_offset, int rows, int input_size,
                                int output_size, const int16_t* input, const int8_t* weights, const int64_t* bias,
                                int16_t* output);

// The integer LSTM's gate matmuls for reference::LstmInteger, both forms.
struct LstmGateFullyConnected {
  void operator()(reference::LstmMultiplier scale, int32_t input_offset, int rows, int input_size, int output_size,
                  const int8_t* input, const int8_t* weights, const int32_t* bias, int16_t* output) const {
    optimized::FullyConnectedInt8ToInt16(scale, input_offset, rows, input_size, output_size, input, weights, bias,
                                         output);
  }
  void operator()(reference::LstmMultiplier scale, int32_t input_offset, int rows, int input_size, int output_size,
                  const int16_t* input, const int8_t* weights, const int64_t* bias, int16_t* output) const {
    optimized::FullyConnectedInt16ToInt16(scale, input_offset, rows, input_size, output_size, input, weights, bias,
                                          output);
  }
};

}  // namespace microarena::optimized
