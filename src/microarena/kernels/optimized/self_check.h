// The fast int8 paths against their oracle, case by case: random operands
// and requantization for a given shape, the reference kernel and the fast
// path run on them, their outputs compared byte for byte. Header-only and
// heap-free, for two callers: the host's unit tests
// (optimized/int8_kernels_test.cc) and the Cortex-M firmware
// examples/cortex_m/kernel_check.cc, which runs the DSP-instruction paths
// on shapes the shared models never reach (odd channel counts, depth
// tails, dilation, groups, depth multipliers, clipped windows, batches).
// Linked into neither the runtime nor the kernels.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "microarena/kernels/eval_tensor.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/overlap.h"
#include "microarena/kernels/reference/add.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/reference/fully_connected.h"
#include "microarena/kernels/reference/mul.h"
#include "microarena/kernels/reference/pooling.h"
#include "microarena/kernels/reference/softmax.h"

namespace microarena::optimized::self_check {

// xorshift32: the same sequence on every target and standard library.
struct Random {
  uint32_t state;
  uint32_t Next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  // Uniform enough in [low, high] for test shapes and operands.
  // The span is taken unsigned: high - low may exceed INT32_MAX (a span of
  // the whole int32 range wraps to 0 and takes every value).
  int32_t Uniform(int32_t low, int32_t high) {
    const uint32_t span = static_cast<uint32_t>(high) - static_cast<uint32_t>(low) + 1U;
    const uint32_t step = span == 0 ? Next() : Next() % span;
    return static_cast<int32_t>(static_cast<uint32_t>(low) + step);
  }
};

// A window's geometry: filter size, stride, dilation, padding before (rows,
// columns) and after (both axes).
struct Window {
  int32_t filter_height, filter_width, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, pad_after;
};

inline reference::ConvParams ParamsOf(const Window& w) {
  reference::ConvParams params;
  params.stride_height = w.stride_h;
  params.stride_width = w.stride_w;
  params.dilation_height = w.dilation_h;
  params.dilation_width = w.dilation_w;
  params.padding_height = w.pad_h;
  params.padding_width = w.pad_w;
  return params;
}

// Outputs along one axis of `in` positions with `pad_before` + `pad_after`
// padding under `taps` taps dilated by `dilation` (0: none fit).
inline int32_t OutputSize(int32_t in, int32_t taps, int32_t stride, int32_t dilation, int32_t pad_before,
                          int32_t pad_after) {
  const int32_t span = in + pad_before + pad_after - ((taps - 1) * dilation + 1);
  return span < 0 ? 0 : span / stride + 1;
}
inline int32_t OutputHeight(const Window& w, int32_t height) {
  return OutputSize(height, w.filter_height, w.stride_h, w.dilation_h, w.pad_h, w.pad_after);
}
inline int32_t OutputWidth(const Window& w, int32_t width) {
  return OutputSize(width, w.filter_width, w.stride_w, w.dilation_w, w.pad_w, w.pad_after);
}

struct ConvCase {
  int32_t batches, height, width, in_channels, out_channels, groups;
  Window window;
  bool bias;
};

struct DepthwiseCase {
  int32_t batches, height, width, channels, multiplier;
  Window window;
  bool bias;
};

struct FullyConnectedCase {
  int32_t batches, depth, units;
  bool bias;
  bool per_channel = false;  // one multiplier per unit (per-channel weights)
};

struct AddCase {
  int32_t count;
  bool subtract;
};

struct PoolCase {
  int32_t batches, height, width, channels;
  reference::PoolParams params;
};

// SOFTMAX of `rows` rows of `depth` int8 values to int8 or int16; `flat`
// rows hold one value (every diff 0: the largest sums of exps).
struct SoftmaxCase {
  int32_t rows, depth;
  bool int16_output, flat;
};

// MUL of `count` elements; a scalar operand has one element.
struct MulCase {
  int32_t count;
  bool scalar1, scalar2;
};

// Every buffer a case uses, fixed-size (a firmware keeps it static).
struct Workspace {
  static constexpr size_t kBytes = 8192;    // input, filter, each output
  static constexpr int32_t kChannels = 256;  // output channels (per-channel arrays)
  int8_t input[kBytes];
  int8_t filter[kBytes];
  alignas(4) int8_t expected[kBytes];  // aligned: int16 outputs use them too
  alignas(4) int8_t actual[kBytes];
  int32_t bias[kChannels];
  int32_t multipliers[kChannels];
  int8_t shifts[kChannels];
  int32_t unit_shifts[kChannels];  // `shifts` as FULLY_CONNECTED's per-channel arrays keep them
};

// Fills `count` bytes with random int8 values.
inline void RandomBytes(Random& random, int8_t* bytes, size_t count) {
  for (size_t i = 0; i < count; ++i) bytes[i] = static_cast<int8_t>(random.Uniform(-128, 127));
}

// Random per-channel requantization for `channels` outputs, zero points at
// both ends of int8 and between, clamps full or ReLU-like.
inline reference::QuantizedConvParams RandomQuantization(Random& random, Workspace& ws, int32_t channels) {
  for (int32_t c = 0; c < channels; ++c) {
    ws.bias[c] = random.Uniform(-40000, 40000);
    ws.multipliers[c] = random.Uniform(1 << 30, 0x7fffffff);
    ws.shifts[c] = static_cast<int8_t>(random.Uniform(-12, 1));
  }
  constexpr int32_t kZeroPoints[] = {-128, 127, 0, -5, 17};
  reference::QuantizedConvParams quant;
  quant.input_offset = -kZeroPoints[random.Next() % 5];
  quant.output_offset = kZeroPoints[random.Next() % 5];
  quant.activation_min = random.Next() % 2 == 0 ? -128 : quant.output_offset;
  quant.activation_max = random.Next() % 3 == 0 ? 100 : 127;
  quant.output_multiplier = ws.multipliers;
  quant.output_shift = ws.shifts;
  return quant;
}

inline EvalTensor Tensor(void* data, const int32_t* dims, uint8_t rank, TensorType type) {
  EvalTensor tensor;
  tensor.data = static_cast<uint8_t*>(data);
  tensor.dims = dims;
  tensor.rank = rank;
  tensor.type = type;
  return tensor;
}

// A case's result. kTooLarge: its buffers exceed the workspace (or its
// window has no output, or it cannot overlap); nothing ran.
enum class Outcome { kSame, kDifferent, kTooLarge };

// Where the fast path's output goes: apart from its input, or starting the
// row-lag displacement D below it (kernels/overlap.h), as an overlap plan
// places them (batch 1 only): the fast path then reads an input its own
// writes may already have overrun, and must not.
enum class Placement { kApart, kOverlapped };

// Whether `count` outputs of the two runs agree; the fast run's buffer
// starts as a pattern the reference never leaves, so an output the fast
// path misses shows too.
inline Outcome Compare(const Workspace& ws, size_t count) {
  return std::memcmp(ws.expected, ws.actual, count) == 0 ? Outcome::kSame : Outcome::kDifferent;
}

// The product of tensor dimensions, as a byte count.
inline size_t Count(int32_t a, int32_t b, int32_t c = 1, int32_t d = 1) {
  return static_cast<size_t>(a) * static_cast<size_t>(b) * static_cast<size_t>(c) * static_cast<size_t>(d);
}

// The case's sizes fit the workspace.
inline bool Fits(size_t input, size_t filter, size_t output, int32_t channels) {
  return input <= Workspace::kBytes && filter <= Workspace::kBytes && output <= Workspace::kBytes &&
         channels <= Workspace::kChannels;
}

// The fast path's input: ws.input itself, or a copy D bytes above the
// output's start in ws.actual; nullptr when the placement cannot be had.
inline const int8_t* PlaceInput(Placement placement, Workspace& ws, size_t input_count, int32_t batches,
                                int32_t out_height, size_t input_row, size_t output_row, int32_t stride,
                                int32_t padding_top) {
  if (placement == Placement::kApart) return ws.input;
  size_t displacement = 0;
  if (batches != 1 ||
      !RowLagDisplacement(out_height, static_cast<int64_t>(input_row), static_cast<int64_t>(output_row), stride,
                          padding_top, &displacement) ||
      displacement + input_count > Workspace::kBytes) {
    return nullptr;
  }
  std::memcpy(ws.actual + displacement, ws.input, input_count);
  return ws.actual + displacement;
}

// CONV_2D.
inline Outcome CheckConv(const ConvCase& c, Random& random, Workspace& ws, Placement placement = Placement::kApart) {
  const Window& w = c.window;
  const int32_t out_h = OutputHeight(w, c.height);
  const int32_t out_w = OutputWidth(w, c.width);
  const int32_t group_depth = c.in_channels / c.groups;
  const auto input_count = Count(c.batches, c.height, c.width, c.in_channels);
  const auto filter_count = Count(c.out_channels, w.filter_height, w.filter_width, group_depth);
  const auto out_count = Count(c.batches, out_h, out_w, c.out_channels);
  if (out_h < 1 || out_w < 1 || !Fits(input_count, filter_count, out_count, c.out_channels)) return Outcome::kTooLarge;
  RandomBytes(random, ws.input, input_count);
  RandomBytes(random, ws.filter, filter_count);
  const reference::QuantizedConvParams quant = RandomQuantization(random, ws, c.out_channels);
  const reference::ConvParams params = ParamsOf(w);
  std::memset(ws.actual, 0x5a, out_count);
  reference::ConvPerChannelInt8(params, quant, {c.batches, c.height, c.width, c.in_channels}, ws.input,
                                {c.out_channels, w.filter_height, w.filter_width, group_depth}, ws.filter,
                                c.bias ? ws.bias : nullptr, {c.batches, out_h, out_w, c.out_channels}, ws.expected);
  const int8_t* placed = PlaceInput(placement, ws, input_count, c.batches, out_h, Count(c.width, c.in_channels),
                                    Count(out_w, c.out_channels), w.stride_h, w.pad_h);
  if (placed == nullptr) return Outcome::kTooLarge;
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.in_channels};
  const int32_t filter_dims[] = {c.out_channels, w.filter_height, w.filter_width, group_depth};
  const int32_t output_dims[] = {c.batches, out_h, out_w, c.out_channels};
  const int32_t bias_dims[] = {c.out_channels};
  const EvalTensor input = Tensor(const_cast<int8_t*>(placed), input_dims, 4, TensorType::kInt8);
  const EvalTensor filter = Tensor(ws.filter, filter_dims, 4, TensorType::kInt8);
  const EvalTensor bias = Tensor(ws.bias, bias_dims, 1, TensorType::kInt32);
  EvalTensor output = Tensor(ws.actual, output_dims, 4, TensorType::kInt8);
  optimized::ConvInt8(params, quant, input, filter, c.bias ? &bias : nullptr, output);
  return Compare(ws, out_count);
}

// DEPTHWISE_CONV_2D.
inline Outcome CheckDepthwise(const DepthwiseCase& c, Random& random, Workspace& ws,
                              Placement placement = Placement::kApart) {
  const Window& w = c.window;
  const int32_t out_h = OutputHeight(w, c.height);
  const int32_t out_w = OutputWidth(w, c.width);
  const int32_t out_channels = c.channels * c.multiplier;
  const auto input_count = Count(c.batches, c.height, c.width, c.channels);
  const auto filter_count = Count(w.filter_height, w.filter_width, out_channels);
  const auto out_count = Count(c.batches, out_h, out_w, out_channels);
  if (out_h < 1 || out_w < 1 || !Fits(input_count, filter_count, out_count, out_channels)) return Outcome::kTooLarge;
  RandomBytes(random, ws.input, input_count);
  RandomBytes(random, ws.filter, filter_count);
  const reference::QuantizedConvParams quant = RandomQuantization(random, ws, out_channels);
  const reference::ConvParams params = ParamsOf(w);
  std::memset(ws.actual, 0x5a, out_count);
  reference::DepthwiseConvPerChannelInt8(params, c.multiplier, quant, {c.batches, c.height, c.width, c.channels},
                                         ws.input, {1, w.filter_height, w.filter_width, out_channels}, ws.filter,
                                         c.bias ? ws.bias : nullptr, {c.batches, out_h, out_w, out_channels},
                                         ws.expected);
  const int8_t* placed = PlaceInput(placement, ws, input_count, c.batches, out_h, Count(c.width, c.channels),
                                    Count(out_w, out_channels), w.stride_h, w.pad_h);
  if (placed == nullptr) return Outcome::kTooLarge;
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.channels};
  const int32_t filter_dims[] = {1, w.filter_height, w.filter_width, out_channels};
  const int32_t output_dims[] = {c.batches, out_h, out_w, out_channels};
  const int32_t bias_dims[] = {out_channels};
  const EvalTensor input = Tensor(const_cast<int8_t*>(placed), input_dims, 4, TensorType::kInt8);
  const EvalTensor filter = Tensor(ws.filter, filter_dims, 4, TensorType::kInt8);
  const EvalTensor bias = Tensor(ws.bias, bias_dims, 1, TensorType::kInt32);
  EvalTensor output = Tensor(ws.actual, output_dims, 4, TensorType::kInt8);
  optimized::DepthwiseConvInt8(params, c.multiplier, quant, input, filter, c.bias ? &bias : nullptr, output);
  return Compare(ws, out_count);
}

// FULLY_CONNECTED: one scale for the whole layer, or one per unit.
inline Outcome CheckFullyConnected(const FullyConnectedCase& c, Random& random, Workspace& ws) {
  const auto input_count = Count(c.batches, c.depth);
  const auto filter_count = Count(c.depth, c.units);
  const auto out_count = Count(c.batches, c.units);
  if (!Fits(input_count, filter_count, out_count, c.units)) return Outcome::kTooLarge;
  RandomBytes(random, ws.input, input_count);
  RandomBytes(random, ws.filter, filter_count);
  const reference::QuantizedConvParams quant = RandomQuantization(random, ws, c.units);
  reference::QuantizedFullyConnectedParams params;
  params.input_offset = quant.input_offset;
  params.output_offset = quant.output_offset;
  params.output_multiplier = ws.multipliers[0];
  params.output_shift = ws.shifts[0];
  params.activation_min = quant.activation_min;
  params.activation_max = quant.activation_max;
  reference::FullyConnectedShape shape;
  shape.batches = c.batches;
  shape.accum_depth = c.depth;
  shape.output_depth = c.units;
  std::memset(ws.actual, 0x5a, out_count);
  const int32_t* bias = c.bias ? ws.bias : nullptr;
  reference::UnitScales unit_scales;
  if (c.per_channel) {
    for (int32_t u = 0; u < c.units; ++u) ws.unit_shifts[u] = ws.shifts[u];
    unit_scales = {ws.multipliers, ws.unit_shifts};
  }
  reference::FullyConnectedInt8(params, shape, ws.input, ws.filter, bias, ws.expected, unit_scales);
  if (c.per_channel) {
    optimized::FullyConnectedInt8PerChannel(params, shape, ws.input, ws.filter, bias, ws.actual, unit_scales);
  } else {
    optimized::FullyConnectedInt8(params, shape, ws.input, ws.filter, bias, ws.actual);
  }
  return Compare(ws, out_count);
}

// ADD or SUB of same-shape tensors, with random parameters in the ranges
// Prepare produces (multipliers below one, shifts <= 0, left shift 20).
inline Outcome CheckAdd(const AddCase& c, Random& random, Workspace& ws) {
  const auto count = static_cast<size_t>(c.count);
  if (2 * count > Workspace::kBytes || count > Workspace::kBytes) return Outcome::kTooLarge;
  int8_t* input1 = ws.input;
  int8_t* input2 = ws.input + count;
  RandomBytes(random, ws.input, 2 * count);
  constexpr int32_t kZeroPoints[] = {-128, 127, 0, -5, 17};
  reference::AddQuantizedParams p;
  p.input1_offset = -kZeroPoints[random.Next() % 5];
  p.input2_offset = -kZeroPoints[random.Next() % 5];
  p.output_offset = kZeroPoints[random.Next() % 5];
  p.left_shift = 20;
  p.input1_multiplier = random.Uniform(1 << 30, 0x7fffffff);
  p.input1_shift = random.Uniform(-8, 0);
  p.input2_multiplier = random.Uniform(1 << 30, 0x7fffffff);
  p.input2_shift = random.Uniform(-8, 0);
  p.output_multiplier = random.Uniform(1 << 30, 0x7fffffff);
  p.output_shift = random.Uniform(-31, -12);
  p.activation_min = random.Next() % 2 == 0 ? -128 : p.output_offset;
  p.activation_max = random.Next() % 3 == 0 ? 100 : 127;
  std::memset(ws.actual, 0x5a, count);
  for (size_t i = 0; i < count; ++i) {
    ws.expected[i] = c.subtract ? reference::AddQuantizedElement<true>(input1[i], input2[i], p)
                                : reference::AddQuantizedElement<false>(input1[i], input2[i], p);
  }
  if (c.subtract) {
    optimized::AddInt8<true>(p, input1, input2, ws.actual, count);
  } else {
    optimized::AddInt8<false>(p, input1, input2, ws.actual, count);
  }
  return Compare(ws, count);
}

enum class PoolKind { kAverage, kMax };

// AVERAGE_POOL_2D or MAX_POOL_2D, with the output apart from the input or D
// bytes below it: kDifferent also when only one of the two completes.
inline Outcome CheckPool(PoolKind kind, const PoolCase& c, Random& random, Workspace& ws, Placement placement) {
  const reference::PoolParams& p = c.params;
  const int32_t out_h = OutputSize(c.height, p.filter_height, p.stride_height, 1, p.padding_height, 0);
  const int32_t out_w = OutputSize(c.width, p.filter_width, p.stride_width, 1, p.padding_width, 0);
  const auto input_count = Count(c.batches, c.height, c.width, c.channels);
  const auto out_count = Count(c.batches, out_h, out_w, c.channels);
  if (out_h < 1 || out_w < 1 || !Fits(input_count, 0, out_count, 0)) return Outcome::kTooLarge;
  RandomBytes(random, ws.input, input_count);
  std::memset(ws.actual, 0x5a, out_count);
  const reference::NhwcShape input_shape{c.batches, c.height, c.width, c.channels};
  const reference::NhwcShape output_shape{c.batches, out_h, out_w, c.channels};
  bool reference_complete = true;
  if (kind == PoolKind::kAverage) {
    reference_complete = reference::AveragePoolInt8(p, input_shape, ws.input, output_shape, ws.expected);
  } else {
    reference::MaxPoolInt8(p, input_shape, ws.input, output_shape, ws.expected);
  }
  const int8_t* placed = PlaceInput(placement, ws, input_count, c.batches, out_h, Count(c.width, c.channels),
                                    Count(out_w, c.channels), p.stride_height, p.padding_height);
  if (placed == nullptr) return Outcome::kTooLarge;
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.channels};
  const int32_t output_dims[] = {c.batches, out_h, out_w, c.channels};
  const EvalTensor input = Tensor(const_cast<int8_t*>(placed), input_dims, 4, TensorType::kInt8);
  EvalTensor output = Tensor(ws.actual, output_dims, 4, TensorType::kInt8);
  const bool fast_complete = kind == PoolKind::kAverage ? optimized::AveragePoolInt8(p, input, output)
                                                        : optimized::MaxPoolInt8(p, input, output);
  if (fast_complete != reference_complete) return Outcome::kDifferent;
  return fast_complete ? Compare(ws, out_count) : Outcome::kSame;
}

inline Outcome CheckAveragePool(const PoolCase& c, Random& random, Workspace& ws,
                                Placement placement = Placement::kApart) {
  return CheckPool(PoolKind::kAverage, c, random, ws, placement);
}

inline Outcome CheckMaxPool(const PoolCase& c, Random& random, Workspace& ws, Placement placement = Placement::kApart) {
  return CheckPool(PoolKind::kMax, c, random, ws, placement);
}

// MUL with random parameters in the ranges Prepare produces (multipliers
// in [2^30, 2^31), shifts of either sign); kOverlapped writes the output
// over input 1 (a whole operand: the elementwise overlap).
inline Outcome CheckMul(const MulCase& c, Random& random, Workspace& ws, Placement placement = Placement::kApart) {
  const auto count = static_cast<size_t>(c.count);
  if (2 * count > Workspace::kBytes) return Outcome::kTooLarge;
  if (placement == Placement::kOverlapped && c.scalar1) return Outcome::kTooLarge;
  int8_t* input1 = ws.input;
  int8_t* input2 = ws.input + count;
  RandomBytes(random, ws.input, 2 * count);
  constexpr int32_t kZeroPoints[] = {-128, 127, 0, -5, 17};
  reference::MulQuantizedParams p;
  p.input1_offset = -kZeroPoints[random.Next() % 5];
  p.input2_offset = -kZeroPoints[random.Next() % 5];
  p.output_offset = kZeroPoints[random.Next() % 5];
  p.output_multiplier = random.Uniform(1 << 30, 0x7fffffff);
  p.output_shift = random.Uniform(-20, 3);
  p.activation_min = random.Next() % 2 == 0 ? -128 : p.output_offset;
  p.activation_max = random.Next() % 3 == 0 ? 100 : 127;
  for (size_t i = 0; i < count; ++i) {
    ws.expected[i] = reference::MulQuantizedElement(input1[c.scalar1 ? 0 : i], input2[c.scalar2 ? 0 : i], p);
  }
  std::memset(ws.actual, 0x5a, count);
  const int8_t* fast_input1 = input1;
  if (placement == Placement::kOverlapped) {
    std::memcpy(ws.actual, input1, count);
    fast_input1 = ws.actual;
  }
  optimized::MulInt8(p, fast_input1, c.scalar1, input2, c.scalar2, ws.actual, count);
  return Compare(ws, count);
}

// SOFTMAX with the diff scaling Prepare makes from a random beta x input
// scale, log-uniform over 2^-14 to 2^7: small ones let every diff count,
// large ones (left shifts up to 31, the multiplier's cap) leave few above
// diff_min.
inline Outcome CheckSoftmax(const SoftmaxCase& c, Random& random, Workspace& ws) {
  const size_t count = Count(c.rows, c.depth);
  const size_t out_bytes = count * (c.int16_output ? 2 : 1);
  if (count > Workspace::kBytes || out_bytes > Workspace::kBytes) return Outcome::kTooLarge;
  reference::SoftmaxQuantizedParams p;
  int left_shift = 0;
  double real_multiplier = 0.0;
  const double beta_times_scale =
      std::ldexp(1.0 + static_cast<double>(random.Uniform(0, 1023)) / 1024.0, random.Uniform(-14, 6));
  if (!reference::PrepareSoftmaxDiffScaling(beta_times_scale, 1.0, &p.input_multiplier, &left_shift, &p.diff_min,
                                            &real_multiplier)) {
    return Outcome::kTooLarge;
  }
  p.input_left_shift = left_shift;
  RandomBytes(random, ws.input, count);
  if (c.flat) std::memset(ws.input, ws.input[0], count);
  std::memset(ws.actual, 0x5a, out_bytes);
  if (c.int16_output) {
    reference::SoftmaxQuantized(p, static_cast<size_t>(c.rows), static_cast<size_t>(c.depth), ws.input,
                                static_cast<int16_t*>(static_cast<void*>(ws.expected)));
    optimized::SoftmaxInt8(p, static_cast<size_t>(c.rows), static_cast<size_t>(c.depth), ws.input,
                           static_cast<int16_t*>(static_cast<void*>(ws.actual)));
  } else {
    reference::SoftmaxQuantized(p, static_cast<size_t>(c.rows), static_cast<size_t>(c.depth), ws.input, ws.expected);
    optimized::SoftmaxInt8(p, static_cast<size_t>(c.rows), static_cast<size_t>(c.depth), ws.input, ws.actual);
  }
  return Compare(ws, out_bytes);
}

// A random window over height x width; false when it has no output.
inline bool RandomWindow(Random& random, int32_t height, int32_t width, Window* w) {
  w->filter_height = random.Uniform(1, 4);
  w->filter_width = random.Uniform(1, 4);
  w->stride_h = random.Uniform(1, 3);
  w->stride_w = random.Uniform(1, 3);
  w->dilation_h = random.Uniform(1, 4) == 4 ? 2 : 1;
  w->dilation_w = random.Uniform(1, 4) == 4 ? 2 : 1;
  w->pad_h = random.Uniform(0, w->filter_height - 1);
  w->pad_w = random.Uniform(0, w->filter_width - 1);
  w->pad_after = random.Uniform(0, 2);
  return OutputHeight(*w, height) >= 1 && OutputWidth(*w, width) >= 1;
}

// Random cases of each kind, every path and tail reached within a few
// hundred: pointwise (1x1 windows), small windows (<= 40 values) and
// larger ones, groups, dilation; depth multipliers and 3x3 windows clipped
// at every edge; depths that are not multiples of 4, unit counts around
// the blocks of 4; global and strided pools. false when the window has no
// output (the caller draws again).
inline bool RandomConvCase(Random& random, ConvCase* c) {
  c->groups = random.Uniform(1, 3) == 3 ? random.Uniform(2, 3) : 1;
  c->in_channels = c->groups * random.Uniform(1, 9);
  c->out_channels = c->groups * random.Uniform(1, 5);
  c->batches = random.Uniform(1, 2);
  c->height = random.Uniform(1, 9);
  c->width = random.Uniform(1, 9);
  c->bias = random.Uniform(0, 3) != 0;
  if (!RandomWindow(random, c->height, c->width, &c->window)) return false;
  if (random.Uniform(0, 3) == 0) c->window = {1, 1, 1, 1, 1, 1, 0, 0, 0};  // pointwise
  return true;
}

inline bool RandomDepthwiseCase(Random& random, DepthwiseCase* c) {
  c->batches = random.Uniform(1, 2);
  c->height = random.Uniform(1, 8);
  c->width = random.Uniform(1, 8);
  c->channels = random.Uniform(1, 21);
  c->multiplier = random.Uniform(1, 4) == 4 ? random.Uniform(2, 3) : 1;
  c->bias = random.Uniform(0, 3) != 0;
  if (!RandomWindow(random, c->height, c->width, &c->window)) return false;
  if (random.Uniform(0, 2) == 0) {  // 3x3, stride 1 or 2, SAME-like: the DSP loops' windows
    const int32_t stride = random.Uniform(1, 2);
    c->window = {3, 3, stride, stride, 1, 1, 1, 1, 1};
  }
  return OutputHeight(c->window, c->height) >= 1 && OutputWidth(c->window, c->width) >= 1;
}

inline void RandomFullyConnectedCase(Random& random, FullyConnectedCase* c) {
  c->batches = random.Uniform(1, 3);
  c->depth = random.Uniform(1, 300);
  c->units = random.Uniform(1, 20);
  c->bias = random.Uniform(0, 3) != 0;
  c->per_channel = random.Uniform(0, 1) == 1;
}

inline bool RandomAddCase(Random& random, AddCase* c) {
  c->count = random.Uniform(1, 4000);
  c->subtract = random.Uniform(0, 1) == 1;
  return true;
}

// Depths around the 16 cached exps and long rows (past 512 elements near
// the maximum, an int8 output's sum overflows its format).
inline bool RandomSoftmaxCase(Random& random, SoftmaxCase* c) {
  const bool long_row = random.Uniform(0, 5) == 0;
  c->depth = long_row ? random.Uniform(100, 1500) : random.Uniform(1, 40);
  c->rows = long_row ? random.Uniform(1, 2) : random.Uniform(1, 6);
  c->int16_output = random.Uniform(0, 2) == 0;
  c->flat = random.Uniform(0, 4) == 0;
  return true;
}

inline bool RandomMulCase(Random& random, MulCase* c) {
  c->count = random.Uniform(1, 3000);
  const int32_t kind = random.Uniform(0, 5);  // mostly same shapes
  c->scalar1 = kind == 4;
  c->scalar2 = kind == 5;
  return true;
}

inline bool RandomPoolCase(Random& random, PoolCase* c) {
  c->batches = random.Uniform(1, 2);
  c->height = random.Uniform(1, 12);
  c->width = random.Uniform(1, 12);
  c->channels = random.Uniform(1, 40);
  reference::PoolParams& p = c->params;
  const bool global = random.Uniform(0, 4) == 0;
  p.filter_height = global ? c->height : random.Uniform(1, 4);
  p.filter_width = global ? c->width : random.Uniform(1, 4);
  p.stride_height = global ? 1 : random.Uniform(1, 3);
  p.stride_width = global ? 1 : random.Uniform(1, 3);
  p.padding_height = global ? 0 : random.Uniform(0, p.filter_height - 1);
  p.padding_width = global ? 0 : random.Uniform(0, p.filter_width - 1);
  p.activation_min = random.Uniform(0, 1) == 0 ? -128 : random.Uniform(-20, 10);
  p.activation_max = random.Uniform(0, 1) == 0 ? 127 : random.Uniform(11, 100);
  return OutputSize(c->height, p.filter_height, p.stride_height, 1, p.padding_height, 0) >= 1 &&
         OutputSize(c->width, p.filter_width, p.stride_width, 1, p.padding_width, 0) >= 1;
}

}  // namespace microarena::optimized::self_check
