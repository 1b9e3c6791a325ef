// The fast 16x8 paths (optimized/int16_kernels.h) against their oracle, case
// by case: random int16 activations, int8 weights, biases of each kind
// (none, int32, int64) and requantization for a given shape; the reference
// kernel and the fast path run on them and their outputs are compared byte
// for byte. Header-only and heap-free like self_check.h, whose Random,
// Window, shapes and placements it reuses, for the host's unit tests
// (optimized/int16_kernels_test.cc) and the Cortex-M firmware
// examples/cortex_m/kernel_check.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/eval_tensor.h"
#include "microarena/kernels/optimized/int16_kernels.h"
#include "microarena/kernels/optimized/self_check.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/reference/fully_connected.h"

namespace microarena::optimized::self_check {

// The bias tensor of a 16x8 case; it picks the reference's sums: int32
// ones that wrap for kInt32, int64 ones otherwise.
enum class BiasKind { kNone, kInt32, kInt64 };

// The operands: random over the whole int16 and int8 ranges, or every
// activation -32768 and every weight -128, whose products (2^22 each) make
// int32 sums wrap after 512 taps and int64 ones exceed 32 bits.
enum class Operands { kRandom, kExtreme };

struct Conv16Case {
  ConvCase shape;  // shape.bias is ignored: `bias` says
  BiasKind bias;
  Operands operands;
};

struct Depthwise16Case {
  DepthwiseCase shape;  // bias: none or int64, as TFLM's 16x8 kernel takes
  Operands operands;
};

struct FullyConnected16Case {
  FullyConnectedCase shape;
  BiasKind bias;
  Operands operands;
};

// Every buffer a 16x8 case uses, fixed-size. 29 KB, no more than Workspace,
// so a firmware can keep the two in one union.
struct Workspace16 {
  static constexpr size_t kValues = 3072;   // int16 values: input, each output
  static constexpr size_t kWeights = 6144;  // int8 weights
  static constexpr int32_t kChannels = 256;  // output channels (per-channel arrays)
  int16_t input[kValues];
  int16_t expected[kValues];
  int16_t actual[kValues];
  int8_t filter[kWeights];
  int64_t bias64[kChannels];
  int32_t bias32[kChannels];
  int32_t multipliers[kChannels];
  int8_t shifts[kChannels];
  int32_t unit_shifts[kChannels];  // `shifts` as FULLY_CONNECTED's per-channel arrays keep them
};

inline bool Fits16(size_t input, size_t filter, size_t output, int32_t channels) {
  return input <= Workspace16::kValues && filter <= Workspace16::kWeights && output <= Workspace16::kValues &&
         channels <= Workspace16::kChannels;
}

inline void FillOperands(Random& random, Operands operands, Workspace16& ws, size_t values, size_t weights) {
  for (size_t i = 0; i < values; ++i) {
    ws.input[i] = static_cast<int16_t>(operands == Operands::kExtreme ? -32768 : random.Uniform(-32768, 32767));
  }
  for (size_t i = 0; i < weights; ++i) {
    ws.filter[i] = static_cast<int8_t>(operands == Operands::kExtreme ? -128 : random.Uniform(-128, 127));
  }
}

// Random per-channel requantization and biases for `channels` outputs:
// shifts the 64-bit rescale accepts, clamps full, ReLU-like or narrow. The
// zero points are random too: TFLM's 16x8 convolutions ignore them.
inline reference::QuantizedConvParams RandomQuantization16(Random& random, Workspace16& ws, int32_t channels) {
  for (int32_t c = 0; c < channels; ++c) {
    ws.bias32[c] = random.Uniform(-(1 << 26), 1 << 26);
    ws.bias64[c] = int64_t{random.Uniform(-(1 << 30), 1 << 30)} * random.Uniform(1, 64);
    ws.multipliers[c] = random.Uniform(1 << 30, 0x7fffffff);
    ws.shifts[c] = static_cast<int8_t>(random.Uniform(-24, 1));
  }
  reference::QuantizedConvParams quant;
  quant.input_offset = random.Uniform(-3, 3);
  quant.output_offset = random.Uniform(-3, 3);
  const uint32_t clamp = random.Next() % 3;
  quant.activation_min = clamp == 0 ? -32768 : clamp == 1 ? 0 : random.Uniform(-2000, 0);
  quant.activation_max = clamp == 2 ? random.Uniform(1, 20000) : 32767;
  quant.output_multiplier = ws.multipliers;
  quant.output_shift = ws.shifts;
  return quant;
}

inline Outcome Compare16(const Workspace16& ws, size_t count) {
  return std::memcmp(ws.expected, ws.actual, count * sizeof(int16_t)) == 0 ? Outcome::kSame : Outcome::kDifferent;
}

// The fast path's input: ws.input itself, or a copy D bytes above the
// output's start in ws.actual (self_check.h's PlaceInput, in int16 values).
inline const int16_t* PlaceInput16(Placement placement, Workspace16& ws, size_t input_count, int32_t batches,
                                   int32_t out_height, size_t input_row, size_t output_row, int32_t stride,
                                   int32_t padding_top) {
  if (placement == Placement::kApart) return ws.input;
  size_t displacement = 0;
  if (batches != 1 ||
      !RowLagDisplacement(out_height, static_cast<int64_t>(input_row * sizeof(int16_t)),
                          static_cast<int64_t>(output_row * sizeof(int16_t)), stride, padding_top, &displacement) ||
      displacement % sizeof(int16_t) != 0 || displacement / sizeof(int16_t) + input_count > Workspace16::kValues) {
    return nullptr;
  }
  int16_t* placed = ws.actual + displacement / sizeof(int16_t);
  std::memcpy(placed, ws.input, input_count * sizeof(int16_t));
  return placed;
}

// CONV_2D 16x8.
inline Outcome CheckConv16(const Conv16Case& c16, Random& random, Workspace16& ws,
                           Placement placement = Placement::kApart) {
  const ConvCase& c = c16.shape;
  const Window& w = c.window;
  const int32_t out_h = OutputHeight(w, c.height);
  const int32_t out_w = OutputWidth(w, c.width);
  const int32_t group_depth = c.in_channels / c.groups;
  const auto input_count = Count(c.batches, c.height, c.width, c.in_channels);
  const auto filter_count = Count(c.out_channels, w.filter_height, w.filter_width, group_depth);
  const auto out_count = Count(c.batches, out_h, out_w, c.out_channels);
  if (out_h < 1 || out_w < 1 || !Fits16(input_count, filter_count, out_count, c.out_channels)) {
    return Outcome::kTooLarge;
  }
  FillOperands(random, c16.operands, ws, input_count, filter_count);
  const reference::QuantizedConvParams quant = RandomQuantization16(random, ws, c.out_channels);
  const reference::ConvParams params = ParamsOf(w);
  const reference::NhwcShape input_shape{c.batches, c.height, c.width, c.in_channels};
  const reference::ConvFilterShape filter_shape{c.out_channels, w.filter_height, w.filter_width, group_depth};
  const reference::NhwcShape output_shape{c.batches, out_h, out_w, c.out_channels};
  std::memset(ws.actual, 0x5a, out_count * sizeof(int16_t));
  if (c16.bias == BiasKind::kInt32) {
    reference::ConvPerChannelInt16(params, quant, input_shape, ws.input, filter_shape, ws.filter, ws.bias32,
                                   output_shape, ws.expected);
  } else {
    reference::ConvPerChannelInt16(params, quant, input_shape, ws.input, filter_shape, ws.filter,
                                   c16.bias == BiasKind::kInt64 ? ws.bias64 : nullptr, output_shape, ws.expected);
  }
  const int16_t* placed = PlaceInput16(placement, ws, input_count, c.batches, out_h, Count(c.width, c.in_channels),
                                       Count(out_w, c.out_channels), w.stride_h, w.pad_h);
  if (placed == nullptr) return Outcome::kTooLarge;
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.in_channels};
  const int32_t filter_dims[] = {c.out_channels, w.filter_height, w.filter_width, group_depth};
  const int32_t output_dims[] = {c.batches, out_h, out_w, c.out_channels};
  const int32_t bias_dims[] = {c.out_channels};
  const EvalTensor input = Tensor(const_cast<int16_t*>(placed), input_dims, 4, TensorType::kInt16);
  const EvalTensor filter = Tensor(ws.filter, filter_dims, 4, TensorType::kInt8);
  const EvalTensor bias = c16.bias == BiasKind::kInt32 ? Tensor(ws.bias32, bias_dims, 1, TensorType::kInt32)
                                                       : Tensor(ws.bias64, bias_dims, 1, TensorType::kInt64);
  EvalTensor output = Tensor(ws.actual, output_dims, 4, TensorType::kInt16);
  optimized::ConvInt16(params, quant, input, filter, c16.bias == BiasKind::kNone ? nullptr : &bias, output);
  return Compare16(ws, out_count);
}

// DEPTHWISE_CONV_2D 16x8 (int64 bias or none).
inline Outcome CheckDepthwise16(const Depthwise16Case& c16, Random& random, Workspace16& ws,
                                Placement placement = Placement::kApart) {
  const DepthwiseCase& c = c16.shape;
  const Window& w = c.window;
  const int32_t out_h = OutputHeight(w, c.height);
  const int32_t out_w = OutputWidth(w, c.width);
  const int32_t out_channels = c.channels * c.multiplier;
  const auto input_count = Count(c.batches, c.height, c.width, c.channels);
  const auto filter_count = Count(w.filter_height, w.filter_width, out_channels);
  const auto out_count = Count(c.batches, out_h, out_w, out_channels);
  if (out_h < 1 || out_w < 1 || !Fits16(input_count, filter_count, out_count, out_channels)) {
    return Outcome::kTooLarge;
  }
  FillOperands(random, c16.operands, ws, input_count, filter_count);
  const reference::QuantizedConvParams quant = RandomQuantization16(random, ws, out_channels);
  const reference::ConvParams params = ParamsOf(w);
  const int64_t* bias = c.bias ? ws.bias64 : nullptr;
  std::memset(ws.actual, 0x5a, out_count * sizeof(int16_t));
  reference::DepthwiseConvPerChannelInt16(params, c.multiplier, quant, {c.batches, c.height, c.width, c.channels},
                                          ws.input, {1, w.filter_height, w.filter_width, out_channels}, ws.filter,
                                          bias, {c.batches, out_h, out_w, out_channels}, ws.expected);
  const int16_t* placed = PlaceInput16(placement, ws, input_count, c.batches, out_h, Count(c.width, c.channels),
                                       Count(out_w, out_channels), w.stride_h, w.pad_h);
  if (placed == nullptr) return Outcome::kTooLarge;
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.channels};
  const int32_t filter_dims[] = {1, w.filter_height, w.filter_width, out_channels};
  const int32_t output_dims[] = {c.batches, out_h, out_w, out_channels};
  const int32_t bias_dims[] = {out_channels};
  const EvalTensor input = Tensor(const_cast<int16_t*>(placed), input_dims, 4, TensorType::kInt16);
  const EvalTensor filter = Tensor(ws.filter, filter_dims, 4, TensorType::kInt8);
  const EvalTensor bias_tensor = Tensor(ws.bias64, bias_dims, 1, TensorType::kInt64);
  EvalTensor output = Tensor(ws.actual, output_dims, 4, TensorType::kInt16);
  optimized::DepthwiseConvInt16(params, c.multiplier, quant, input, filter, c.bias ? &bias_tensor : nullptr, output);
  return Compare16(ws, out_count);
}

// FULLY_CONNECTED 16x8: one scale for the layer or one per unit, the input
// and output zero points applied (TFLM's general kernel), the weights
// symmetric.
inline Outcome CheckFullyConnected16(const FullyConnected16Case& c16, Random& random, Workspace16& ws) {
  const FullyConnectedCase& c = c16.shape;
  const auto input_count = Count(c.batches, c.depth);
  const auto filter_count = Count(c.depth, c.units);
  const auto out_count = Count(c.batches, c.units);
  if (!Fits16(input_count, filter_count, out_count, c.units)) return Outcome::kTooLarge;
  FillOperands(random, c16.operands, ws, input_count, filter_count);
  const reference::QuantizedConvParams quant = RandomQuantization16(random, ws, c.units);
  constexpr int32_t kZeroPoints[] = {0, 0, -7, 1000, -32768, 32767};
  reference::QuantizedFullyConnectedParams params;
  params.input_offset = -kZeroPoints[random.Next() % 6];
  params.output_offset = kZeroPoints[random.Next() % 6];
  params.output_multiplier = ws.multipliers[0];
  params.output_shift = ws.shifts[0];
  params.activation_min = quant.activation_min;
  params.activation_max = quant.activation_max;
  reference::FullyConnectedShape shape;
  shape.batches = c.batches;
  shape.accum_depth = c.depth;
  shape.output_depth = c.units;
  std::memset(ws.actual, 0x5a, out_count * sizeof(int16_t));
  reference::UnitScales unit_scales;
  if (c.per_channel) {
    for (int32_t u = 0; u < c.units; ++u) ws.unit_shifts[u] = ws.shifts[u];
    unit_scales = {ws.multipliers, ws.unit_shifts};
  }
  if (c16.bias == BiasKind::kInt32) {
    reference::FullyConnectedInt16(params, shape, ws.input, ws.filter, ws.bias32, ws.expected, unit_scales);
    optimized::FullyConnectedInt16(params, shape, ws.input, ws.filter, ws.bias32, ws.actual, unit_scales);
  } else {
    const int64_t* bias = c16.bias == BiasKind::kInt64 ? ws.bias64 : nullptr;
    reference::FullyConnectedInt16(params, shape, ws.input, ws.filter, bias, ws.expected, unit_scales);
    optimized::FullyConnectedInt16(params, shape, ws.input, ws.filter, bias, ws.actual, unit_scales);
  }
  return Compare16(ws, out_count);
}

// Random 16x8 cases: self_check.h's shapes, every bias kind, and one case
// in eight with extreme operands. Convolutions with more channels than the
// int8 draws, so that runs pass the 4-value words and the blocks of
// kInt16DotBlock; false when the window has no output.
inline BiasKind RandomBiasKind(Random& random) {
  const uint32_t kind = random.Next() % 3;
  return kind == 0 ? BiasKind::kNone : kind == 1 ? BiasKind::kInt32 : BiasKind::kInt64;
}
inline Operands RandomOperands(Random& random) {
  return random.Next() % 8 == 0 ? Operands::kExtreme : Operands::kRandom;
}

inline bool RandomConv16Case(Random& random, Conv16Case* c) {
  if (!RandomConvCase(random, &c->shape)) return false;
  const uint32_t kind = random.Next() % 8;
  if (kind < 2) {  // deeper: runs of 4-value words
    c->shape.in_channels = c->shape.groups * random.Uniform(8, 40);
    c->shape.height = random.Uniform(1, 5);
    c->shape.width = random.Uniform(1, 5);
    const Window& w = c->shape.window;
    if (OutputHeight(w, c->shape.height) < 1 || OutputWidth(w, c->shape.width) < 1) return false;
  } else if (kind == 2) {  // window rows longer than a block of 256 values
    c->shape.groups = 1;
    c->shape.in_channels = random.Uniform(257, 500);
    c->shape.out_channels = random.Uniform(1, 5);
    c->shape.height = random.Uniform(1, 2);
    c->shape.width = random.Uniform(1, 3);
    c->shape.window = {1, random.Uniform(1, 2), 1, 1, 1, 1, 0, 0, 0};
    if (OutputWidth(c->shape.window, c->shape.width) < 1) return false;
  }
  c->bias = RandomBiasKind(random);
  c->operands = RandomOperands(random);
  return true;
}

inline bool RandomDepthwise16Case(Random& random, Depthwise16Case* c) {
  if (!RandomDepthwiseCase(random, &c->shape)) return false;
  if (random.Next() % 8 == 0) {  // a window of more than 256 taps: summed product by product
    const int32_t size = random.Uniform(16, 17);
    c->shape.batches = 1;
    c->shape.height = size;
    c->shape.width = size;
    c->shape.channels = random.Uniform(1, 8);
    c->shape.multiplier = 1;
    c->shape.window = {size, size, 1, 1, 1, 1, 0, 0, 0};
  }
  c->operands = RandomOperands(random);
  return true;
}

inline bool RandomFullyConnected16Case(Random& random, FullyConnected16Case* c) {
  RandomFullyConnectedCase(random, &c->shape);
  if (random.Next() % 6 == 0) {  // long sums: past 512 extreme products an int32 sum wraps
    c->shape.batches = 1;
    c->shape.depth = random.Uniform(513, 3000);
    c->shape.units = random.Uniform(1, 2);
  }
  c->bias = RandomBiasKind(random);
  c->operands = RandomOperands(random);
  return true;
}

}  // namespace microarena::optimized::self_check
