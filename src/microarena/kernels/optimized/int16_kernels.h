// Fast 16x8 paths (int16 activations, int8 weights) of CONV_2D,
// DEPTHWISE_CONV_2D and FULLY_CONNECTED, with the reference kernels'
// arguments and bytes (kernels/reference/ is their oracle:
// optimized/int16_kernels_test.cc and examples/cortex_m/kernel_check.cc
// compare them case by case, optimized/self_check_int16.h).
//
// Why they stay exact:
//   - the reference accumulates in int32 (CONV_2D and FULLY_CONNECTED with
//     an int32 bias) and wraps its sums, or in int64 (int64 bias or none),
//     where the sum never comes near a wrap. The fast paths sum modulo 2^32
//     or 2^64 to match, so the order of the terms does not change a bit;
//   - a product is at most 2^22 in magnitude (|x| <= 2^15, |w| <= 2^7), so
//     runs of up to kInt16DotBlock = 256 products are summed exactly in
//     int32 first, then added to the wide sum;
//   - requantization is the reference's (the 32-bit rescale of
//     optimized/requantize.h, the 64-bit one of fixed_point), once per output.
// The loops are the int8 paths' (optimized/int8_kernels.cc): windows clipped
// once per output pixel, runs of filter_width x channels values, two pixels
// by two output channels per block; on Cortex-M with DSP, PKHBT/PKHTB pair
// the activations as SXTB16 unpacks the weights, and SMLAD multiplies.
//
// No scratch and no op data beyond the reference's. Output rows are written
// in ascending order and the input rows of output row y are read before row
// y + 1 is written, the order the row-lag overlap (kernels/overlap.h)
// relies on. Built with MICROARENA_REFERENCE_INT8_KERNELS, each calls its
// reference kernel instead.
#pragma once

#include <cstdint>

#include "microarena/kernels/eval_tensor.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/fully_connected.h"

namespace microarena::optimized {

// Products summed in int32 before they join the wide sum: 256 x 2^22 = 2^30.
constexpr int32_t kInt16DotBlock = 256;

// CONV_2D 16x8. The tensors are the op's (shapes checked at Prepare); bias
// is nullptr, an int32 tensor (int32 sums that wrap, the 32-bit rescale) or
// an int64 one (int64 sums, the 64-bit rescale, as without a bias).
void ConvInt16(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
               const EvalTensor& input, const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output);

// DEPTHWISE_CONV_2D 16x8: int64 sums; bias is nullptr or an int64 tensor.
void DepthwiseConvInt16(const reference::ConvParams& params, int32_t depth_multiplier,
                        const reference::QuantizedConvParams& quant, const EvalTensor& input,
                        const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output);

// FULLY_CONNECTED 16x8, `Bias` int32_t (int32 sums that wrap) or int64_t
// (int64 sums); bias may be nullptr and may sit at any 4-byte offset.
// `unit_scales`: per-channel weights' multipliers (none: params' one).
template <typename Bias>
void FullyConnectedInt16(const reference::QuantizedFullyConnectedParams& params,
                         const reference::FullyConnectedShape& shape, const int16_t* input, const int8_t* filter,
                         const Bias* bias, int16_t* output, const reference::UnitScales& unit_scales = {});

}  // namespace microarena::optimized
