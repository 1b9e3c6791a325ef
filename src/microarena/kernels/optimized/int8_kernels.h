// Fast int8 paths of CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
// AVERAGE_POOL_2D, MAX_POOL_2D, same-shape ADD/SUB, MUL and SOFTMAX, with the
// reference kernels' arguments and bytes (kernels/reference/ is their oracle:
// tests/fast_kernels_test.cc compares them on every shape class, and the
// shared models' goldens and the TFLM oracle compare the whole models).
//
// What makes them fast, and why they stay exact:
//   - the inner loops are dot products over contiguous runs of the input
//     and the filter (a filter row of a convolution is filter_width x
//     input_channels consecutive bytes in both), blocked two pixels by two
//     output channels (optimized/int8_dot.h: DSP instructions on Cortex-M,
//     vectorisable loops elsewhere);
//   - the window is clipped once per output pixel instead of per tap, so
//     padding costs nothing inside the loops;
//   - sums are taken modulo 2^32 as the reference's WrappingAdd, so the
//     order of the terms does not change a bit; requantization is the
//     reference's, once per output.
// No scratch and no op data beyond the reference's: the fast paths use the
// same arena. They write output rows in ascending order and finish reading
// the input rows of output row y before writing row y + 1, the order that
// the row-lag overlap (kernels/overlap.h) relies on.
//
// They take every case the int8 kernels' Prepare accepts (strides,
// dilations, padding, groups, depth multipliers), so the reference int8
// loops are not linked into a firmware: they remain as the tests' oracle.
// Dilation, groups and depth multipliers above 1 run slower forms (runs of
// one tap's channels) of the same loops. Built with
// MICROARENA_REFERENCE_INT8_KERNELS (a CMake option), each calls its
// reference kernel instead: the baseline of bench/cortex_m_invoke.sh. FULLY_CONNECTED's filter offset is
// always 0 (Prepare requires symmetric int8 filters).
#pragma once

#include <cstdint>

#include "microarena/kernels/eval_tensor.h"
#include "microarena/kernels/reference/add.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/fully_connected.h"
#include "microarena/kernels/reference/mul.h"
#include "microarena/kernels/reference/nhwc.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/reference/softmax.h"

namespace microarena::optimized {

// The tensors are the op's (shapes checked at Prepare); bias may be nullptr.
void ConvInt8(const reference::ConvParams& params, const reference::QuantizedConvParams& quant,
              const EvalTensor& input, const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output);

void DepthwiseConvInt8(const reference::ConvParams& params, int32_t depth_multiplier,
                       const reference::QuantizedConvParams& quant, const EvalTensor& input,
                       const EvalTensor& filter, const EvalTensor* bias, EvalTensor& output);

void FullyConnectedInt8(const reference::QuantizedFullyConnectedParams& params,
                        const reference::FullyConnectedShape& shape, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output);

// The same with per-channel weights: unit o requantizes with
// unit_scales.multiplier[o] and shift[o]. One unit at a time (Dot1x1): a
// loop of its own, so the per-tensor one above keeps its code and speed.
void FullyConnectedInt8PerChannel(const reference::QuantizedFullyConnectedParams& params,
                                  const reference::FullyConnectedShape& shape, const int8_t* input,
                                  const int8_t* filter, const int32_t* bias, int8_t* output,
                                  const reference::UnitScales& unit_scales);

// The same with INT4 weights packed two per byte (per tensor): each unit's
// row is unpacked 64 values at a time on the stack, so no arena scratch
// holds the unpacked weights (TFLM keeps all of them in one).
void FullyConnectedInt8PackedInt4(const reference::QuantizedFullyConnectedParams& params,
                                  const reference::FullyConnectedShape& shape, const int8_t* input,
                                  const uint8_t* packed, const int32_t* bias, int8_t* output);

// AVERAGE_POOL_2D int8: the reference's sums, rounding and clamp, with
// channels innermost (contiguous bytes) and the window clipped once per
// output pixel. false, with the output incomplete, for an empty window (as
// the reference; valid padding never makes one).
bool AveragePoolInt8(const reference::PoolParams& params, const EvalTensor& input, EvalTensor& output);

// ADD or SUB (kSubtract) of two int8 tensors of the same shape, `count`
// elements: the reference's per-element arithmetic with the parameters in
// registers and the requantization shortcut of optimized/requantize.h.
// Element i is read before it is written, in ascending order, as the
// elementwise overlap needs.
// MAX_POOL_2D int8: the reference's max and clamp, channels innermost (four
// per word with SSUB8/SEL on Cortex-M, chunks of 16 elsewhere), the window
// clipped once per output pixel. Always complete (an empty window gives the
// clamped lowest value, as the reference); bool for AveragePoolInt8's form.
bool MaxPoolInt8(const reference::PoolParams& params, const EvalTensor& input, EvalTensor& output);

// MUL of two int8 tensors, `count` outputs: each operand has `count`
// elements, or one (`inputN_scalar`: broadcast to all). The reference's
// per-element arithmetic with the requantization shortcut; element i is
// read before it is written, in ascending order, as the elementwise
// overlap needs, and a scalar operand is read before any write.
void MulInt8(const reference::MulQuantizedParams& params, const int8_t* input1, bool input1_scalar,
             const int8_t* input2, bool input2_scalar, int8_t* output, size_t count);

// SOFTMAX of int8 input to int8 or int16 output (OutputT), `rows` rows of
// `depth`: reference::SoftmaxQuantized's bytes, its fixed-point multiplies
// without their branches (optimized/softmax_int8.cc says why that is
// exact), and the exps of a row's first 16 elements kept for the second
// pass. Input and output do not overlap.
template <typename OutputT>
void SoftmaxInt8(const reference::SoftmaxQuantizedParams& params, size_t rows, size_t depth, const int8_t* input,
                 OutputT* output);

template <bool kSubtract>
void AddInt8(const reference::AddQuantizedParams& params, const int8_t* input1, const int8_t* input2,
             int8_t* output, size_t count);

}  // namespace microarena::optimized
