// The fast int8 paths against their oracle, the reference kernels: the same
// bytes on every shape class the int8 Prepare accepts (1x1 and larger
// filters, strides, SAME-style padding on every side, dilation, groups,
// depth multipliers, odd channel counts, batches, no bias, clamps, input
// zero points at both ends of int8), drawn from a fixed seed so the suite is
// the same on every run. The requantization shortcut is checked against
// fixed_point on its edge values and on random ones.
#include "microarena/kernels/optimized/int8_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/optimized/requantize.h"
#include "microarena/kernels/reference/conv.h"
#include "microarena/kernels/reference/depthwise_conv.h"
#include "microarena/kernels/reference/fully_connected.h"

namespace microarena {
namespace {

using reference::NhwcShape;

// Random operands and requantization for one op, from `rng`.
struct Operands {
  std::vector<int8_t> input, filter;
  std::vector<int32_t> bias, multipliers;
  std::vector<int8_t> shifts;
  reference::QuantizedConvParams quant;
};

std::vector<int8_t> RandomBytes(std::mt19937& rng, size_t count) {
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> values(count);
  for (int8_t& value : values) value = static_cast<int8_t>(byte(rng));
  return values;
}

Operands RandomOperands(std::mt19937& rng, size_t input_count, size_t filter_count, int32_t channels) {
  Operands ops;
  ops.input = RandomBytes(rng, input_count);
  ops.filter = RandomBytes(rng, filter_count);
  std::uniform_int_distribution<int32_t> bias(-40000, 40000);
  std::uniform_int_distribution<int32_t> mantissa(1 << 30, std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int> shift(-12, 1);
  for (int32_t c = 0; c < channels; ++c) {
    ops.bias.push_back(bias(rng));
    ops.multipliers.push_back(mantissa(rng));
    ops.shifts.push_back(static_cast<int8_t>(shift(rng)));
  }
  // Zero points at both ends of int8 and between; clamps full or ReLU-like.
  const int32_t zero_points[] = {-128, 127, 0, -5, 17};
  ops.quant.input_offset = -zero_points[rng() % 5];
  ops.quant.output_offset = zero_points[rng() % 5];
  ops.quant.activation_min = rng() % 2 == 0 ? -128 : ops.quant.output_offset;
  ops.quant.activation_max = rng() % 3 == 0 ? 100 : 127;
  ops.quant.output_multiplier = ops.multipliers.data();
  ops.quant.output_shift = ops.shifts.data();
  return ops;
}

EvalTensor Tensor(std::vector<int8_t>& data, const int32_t* dims, uint8_t rank) {
  EvalTensor tensor;
  tensor.data = reinterpret_cast<uint8_t*>(data.data());
  tensor.dims = dims;
  tensor.rank = rank;
  tensor.type = TensorType::kInt8;
  return tensor;
}

EvalTensor BiasTensor(std::vector<int32_t>& data, const int32_t* dims) {
  EvalTensor tensor;
  tensor.data = reinterpret_cast<uint8_t*>(data.data());
  tensor.dims = dims;
  tensor.rank = 1;
  tensor.type = TensorType::kInt32;
  return tensor;
}

// The output size along one axis for `pad_before` rows of padding and some
// padding after (`pad_after`), as a window of `taps` dilated by `dilation`.
int32_t OutputSize(int32_t in, int32_t taps, int32_t stride, int32_t dilation, int32_t pad_before,
                   int32_t pad_after) {
  const int32_t effective = (taps - 1) * dilation + 1;
  const int32_t span = in + pad_before + pad_after - effective;
  return span < 0 ? 0 : span / stride + 1;
}

// A window's geometry: filter size, stride, dilation, padding before
// (rows, columns) and after (both axes).
struct Window {
  int32_t filter_height, filter_width, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, pad_after;
};

reference::ConvParams ParamsOf(const Window& w) {
  reference::ConvParams params;
  params.stride_height = w.stride_h;
  params.stride_width = w.stride_w;
  params.dilation_height = w.dilation_h;
  params.dilation_width = w.dilation_w;
  params.padding_height = w.pad_h;
  params.padding_width = w.pad_w;
  return params;
}

int32_t OutputHeight(const Window& w, int32_t height) {
  return OutputSize(height, w.filter_height, w.stride_h, w.dilation_h, w.pad_h, w.pad_after);
}
int32_t OutputWidth(const Window& w, int32_t width) {
  return OutputSize(width, w.filter_width, w.stride_w, w.dilation_w, w.pad_w, w.pad_after);
}

// A random window for an input of height x width; false when it has no output.
bool RandomWindow(std::mt19937& rng, int32_t height, int32_t width, Window* w) {
  auto pick = [&rng](int32_t low, int32_t high) { return std::uniform_int_distribution<int32_t>(low, high)(rng); };
  w->filter_height = pick(1, 4);
  w->filter_width = pick(1, 4);
  w->stride_h = pick(1, 3);
  w->stride_w = pick(1, 3);
  w->dilation_h = pick(1, 4) == 4 ? 2 : 1;
  w->dilation_w = pick(1, 4) == 4 ? 2 : 1;
  w->pad_h = pick(0, w->filter_height - 1);
  w->pad_w = pick(0, w->filter_width - 1);
  w->pad_after = pick(0, 2);
  return OutputHeight(*w, height) >= 1 && OutputWidth(*w, width) >= 1;
}

std::string Describe(const Window& w) {
  return "filter " + std::to_string(w.filter_height) + "x" + std::to_string(w.filter_width) + " stride " +
         std::to_string(w.stride_h) + "x" + std::to_string(w.stride_w) + " dilation " + std::to_string(w.dilation_h) +
         "x" + std::to_string(w.dilation_w) + " pad " + std::to_string(w.pad_h) + "," + std::to_string(w.pad_w) + "+" +
         std::to_string(w.pad_after);
}

struct ConvCase {
  int32_t batches, height, width, in_channels, out_channels, groups;
  Window window;
  bool bias;
};

// Runs both convolutions of `c` on random operands; true when they agree.
void ExpectConvMatches(const ConvCase& c, std::mt19937& rng) {
  const Window& w = c.window;
  const int32_t out_h = OutputHeight(w, c.height);
  const int32_t out_w = OutputWidth(w, c.width);
  ASSERT_GT(out_h, 0);
  ASSERT_GT(out_w, 0);
  const int32_t group_depth = c.in_channels / c.groups;
  const NhwcShape input_shape{c.batches, c.height, c.width, c.in_channels};
  const NhwcShape output_shape{c.batches, out_h, out_w, c.out_channels};
  const reference::ConvFilterShape filter_shape{c.out_channels, w.filter_height, w.filter_width, group_depth};
  Operands ops = RandomOperands(rng, static_cast<size_t>(c.batches) * c.height * c.width * c.in_channels,
                                static_cast<size_t>(c.out_channels) * w.filter_height * w.filter_width * group_depth,
                                c.out_channels);
  const reference::ConvParams params = ParamsOf(w);
  const size_t out_count = static_cast<size_t>(c.batches) * out_h * out_w * c.out_channels;
  std::vector<int8_t> expected(out_count, 0);
  std::vector<int8_t> actual(out_count, 0x5a);
  reference::ConvPerChannelInt8(params, ops.quant, input_shape, ops.input.data(), filter_shape, ops.filter.data(),
                                c.bias ? ops.bias.data() : nullptr, output_shape, expected.data());
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.in_channels};
  const int32_t filter_dims[] = {c.out_channels, w.filter_height, w.filter_width, group_depth};
  const int32_t output_dims[] = {c.batches, out_h, out_w, c.out_channels};
  const int32_t bias_dims[] = {c.out_channels};
  const EvalTensor input = Tensor(ops.input, input_dims, 4);
  const EvalTensor filter = Tensor(ops.filter, filter_dims, 4);
  const EvalTensor bias = BiasTensor(ops.bias, bias_dims);
  EvalTensor output = Tensor(actual, output_dims, 4);
  optimized::ConvInt8(params, ops.quant, input, filter, c.bias ? &bias : nullptr, output);
  EXPECT_EQ(actual, expected) << "batches " << c.batches << " input " << c.height << "x" << c.width << "x"
                              << c.in_channels << " -> " << c.out_channels << " groups " << c.groups << " "
                              << Describe(w);
}

TEST(FastConvInt8Test, MatchesTheReferenceOnEveryShapeClass) {
  std::mt19937 rng(20261203);
  const ConvCase cases[] = {
      // 1x1 (pointwise), even and odd channel counts and widths.
      {1, 5, 5, 64, 64, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 3, 7, 13, 9, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, true},
      {1, 4, 3, 3, 1, 1, {1, 1, 1, 1, 1, 1, 0, 0, 0}, false},
      // 3x3 SAME, stride 1 and 2 (kws/resnet-like), padding on all sides.
      {1, 8, 8, 16, 16, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 9, 7, 3, 8, 1, {3, 3, 2, 2, 1, 1, 1, 1, 1}, true},
      {1, 6, 6, 5, 7, 1, {3, 3, 2, 2, 1, 1, 0, 0, 1}, true},
      // kws's first layer: 10x4 over one channel, stride 2, uneven padding.
      {1, 49, 10, 1, 64, 1, {10, 4, 2, 2, 1, 1, 4, 1, 1}, true},
      // Windows larger than the input, so some clip on both sides or miss entirely.
      {1, 3, 3, 4, 6, 1, {5, 5, 1, 1, 1, 1, 3, 3, 3}, true},
      {1, 2, 2, 2, 3, 1, {3, 3, 3, 3, 1, 1, 2, 2, 2}, false},
      // Dilation, alone and with padding.
      {1, 9, 9, 6, 5, 1, {3, 3, 1, 1, 2, 2, 2, 2, 2}, true},
      {1, 7, 8, 4, 4, 1, {2, 3, 1, 2, 3, 1, 0, 1, 1}, true},
      // Groups: 2 and 4 groups, odd outputs per group.
      {1, 5, 5, 8, 6, 2, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 4, 6, 12, 12, 4, {1, 3, 1, 1, 1, 1, 0, 1, 1}, true},
      {1, 5, 4, 6, 9, 3, {2, 2, 1, 1, 1, 1, 0, 0, 1}, false},
      // Batches.
      {3, 4, 4, 5, 4, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
  };
  for (const ConvCase& c : cases) ExpectConvMatches(c, rng);
}

// Many small random convolutions of every kind.
TEST(FastConvInt8Test, MatchesTheReferenceOnRandomShapes) {
  std::mt19937 rng(7);
  auto pick = [&rng](int32_t low, int32_t high) {
    return std::uniform_int_distribution<int32_t>(low, high)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    ConvCase c{};
    c.groups = pick(1, 3) == 3 ? pick(2, 3) : 1;
    c.in_channels = c.groups * pick(1, 9);
    c.out_channels = c.groups * pick(1, 5);
    c.batches = pick(1, 2);
    c.height = pick(1, 9);
    c.width = pick(1, 9);
    c.bias = pick(0, 3) != 0;
    if (!RandomWindow(rng, c.height, c.width, &c.window)) continue;
    ExpectConvMatches(c, rng);
    if (HasFailure()) return;
  }
}

struct DepthwiseCase {
  int32_t batches, height, width, channels, multiplier;
  Window window;
  bool bias;
};

void ExpectDepthwiseMatches(const DepthwiseCase& c, std::mt19937& rng) {
  const Window& w = c.window;
  const int32_t out_h = OutputHeight(w, c.height);
  const int32_t out_w = OutputWidth(w, c.width);
  ASSERT_GT(out_h, 0);
  ASSERT_GT(out_w, 0);
  const int32_t out_channels = c.channels * c.multiplier;
  const NhwcShape input_shape{c.batches, c.height, c.width, c.channels};
  const NhwcShape filter_shape{1, w.filter_height, w.filter_width, out_channels};
  const NhwcShape output_shape{c.batches, out_h, out_w, out_channels};
  Operands ops = RandomOperands(rng, static_cast<size_t>(c.batches) * c.height * c.width * c.channels,
                                static_cast<size_t>(w.filter_height) * w.filter_width * out_channels, out_channels);
  const reference::ConvParams params = ParamsOf(w);
  const size_t out_count = static_cast<size_t>(c.batches) * out_h * out_w * out_channels;
  std::vector<int8_t> expected(out_count, 0);
  std::vector<int8_t> actual(out_count, 0x5a);
  reference::DepthwiseConvPerChannelInt8(params, c.multiplier, ops.quant, input_shape, ops.input.data(), filter_shape,
                                         ops.filter.data(), c.bias ? ops.bias.data() : nullptr, output_shape,
                                         expected.data());
  const int32_t input_dims[] = {c.batches, c.height, c.width, c.channels};
  const int32_t filter_dims[] = {1, w.filter_height, w.filter_width, out_channels};
  const int32_t output_dims[] = {c.batches, out_h, out_w, out_channels};
  const int32_t bias_dims[] = {out_channels};
  const EvalTensor input = Tensor(ops.input, input_dims, 4);
  const EvalTensor filter = Tensor(ops.filter, filter_dims, 4);
  const EvalTensor bias = BiasTensor(ops.bias, bias_dims);
  EvalTensor output = Tensor(actual, output_dims, 4);
  optimized::DepthwiseConvInt8(params, c.multiplier, ops.quant, input, filter, c.bias ? &bias : nullptr, output);
  EXPECT_EQ(actual, expected) << "batches " << c.batches << " input " << c.height << "x" << c.width << "x"
                              << c.channels << " multiplier " << c.multiplier << " " << Describe(w);
}

TEST(FastDepthwiseConvInt8Test, MatchesTheReferenceOnEveryShapeClass) {
  std::mt19937 rng(1203);
  const DepthwiseCase cases[] = {
      // 3x3 SAME, stride 1 and 2, channel counts around the 4- and 16-channel blocks.
      {1, 25, 5, 64, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 12, 12, 8, 1, {3, 3, 2, 2, 1, 1, 0, 0, 1}, true},
      {1, 7, 6, 19, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 5, 5, 3, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, false},
      {1, 6, 5, 33, 1, {5, 3, 2, 1, 1, 1, 2, 1, 2}, true},
      // Windows clipped on both sides or missing the input.
      {1, 2, 3, 4, 1, {5, 5, 2, 2, 1, 1, 3, 3, 3}, true},
      // Dilation, depth multipliers, batches.
      {1, 9, 9, 5, 1, {3, 3, 1, 1, 2, 3, 2, 3, 2}, true},
      {1, 6, 6, 3, 2, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
      {1, 5, 7, 4, 3, {2, 2, 2, 1, 1, 2, 0, 1, 1}, false},
      {2, 4, 4, 8, 1, {3, 3, 1, 1, 1, 1, 1, 1, 1}, true},
  };
  for (const DepthwiseCase& c : cases) ExpectDepthwiseMatches(c, rng);
}

TEST(FastDepthwiseConvInt8Test, MatchesTheReferenceOnRandomShapes) {
  std::mt19937 rng(11);
  auto pick = [&rng](int32_t low, int32_t high) {
    return std::uniform_int_distribution<int32_t>(low, high)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    DepthwiseCase c{};
    c.batches = pick(1, 2);
    c.height = pick(1, 8);
    c.width = pick(1, 8);
    c.channels = pick(1, 21);
    c.multiplier = pick(1, 4) == 4 ? pick(2, 3) : 1;
    c.bias = pick(0, 3) != 0;
    if (!RandomWindow(rng, c.height, c.width, &c.window)) continue;
    ExpectDepthwiseMatches(c, rng);
    if (HasFailure()) return;
  }
}

TEST(FastFullyConnectedInt8Test, MatchesTheReference) {
  std::mt19937 rng(5);
  // (batches, depth, units): ad01-like, odd depths (the 4-byte loop's tail), odd units, batches.
  const int32_t shapes[][3] = {{1, 640, 128}, {1, 128, 8}, {1, 7, 5}, {1, 1, 1}, {3, 33, 10}, {2, 250, 3}};
  for (const auto& s : shapes) {
    reference::FullyConnectedShape shape;
    shape.batches = s[0];
    shape.accum_depth = s[1];
    shape.output_depth = s[2];
    Operands ops = RandomOperands(rng, static_cast<size_t>(s[0]) * s[1], static_cast<size_t>(s[1]) * s[2], s[2]);
    for (const bool with_bias : {true, false}) {
      reference::QuantizedFullyConnectedParams params;
      params.input_offset = ops.quant.input_offset;
      params.output_offset = ops.quant.output_offset;
      params.output_multiplier = ops.multipliers[0];
      params.output_shift = ops.shifts[0];
      params.activation_min = ops.quant.activation_min;
      params.activation_max = ops.quant.activation_max;
      const size_t out_count = static_cast<size_t>(s[0]) * s[2];
      std::vector<int8_t> expected(out_count, 0);
      std::vector<int8_t> actual(out_count, 0x5a);
      const int32_t* bias = with_bias ? ops.bias.data() : nullptr;
      reference::FullyConnectedInt8(params, shape, ops.input.data(), ops.filter.data(), bias, expected.data());
      optimized::FullyConnectedInt8(params, shape, ops.input.data(), ops.filter.data(), bias, actual.data());
      EXPECT_EQ(actual, expected) << s[0] << "x" << s[1] << " -> " << s[2] << (with_bias ? " with" : " without")
                                  << " bias";
    }
  }
}

// Long runs of the extreme products wrap the int32 sum as the reference's
// WrappingAdd does: 70,000 x (-128 x 255) is below INT32_MIN.
TEST(FastDotTest, WrapsLongSumsAsTheReference) {
  const int32_t count = 70000;
  std::vector<int8_t> x(count, 127);
  std::vector<int8_t> w(count, -128);
  const int32_t offset = 128;  // input zero point -128: every value becomes 255
  int32_t expected = 0;
  for (int32_t k = 0; k < count; ++k) expected = fixed_point::WrappingAdd(expected, 255 * -128);
  EXPECT_EQ(static_cast<int32_t>(optimized::Dot1x1(x.data(), w.data(), count, offset, 0)), expected);
  uint32_t acc[4] = {0, 0, 0, 0};
  optimized::Dot2x2(x.data(), x.data(), w.data(), w.data(), count, offset, acc);
  for (const uint32_t value : acc) EXPECT_EQ(static_cast<int32_t>(value), expected);
}

// The requantization shortcut (optimized/requantize.h) against fixed_point.
TEST(FastRequantizeTest, MatchesFixedPointOnEdgesAndRandomValues) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> values = {kMin, kMin + 1, -1, 0, 1, kMax - 1, kMax};
  for (int bit = 0; bit < 31; ++bit) {
    const int32_t power = int32_t{1} << bit;
    for (const int32_t v : {power, power - 1, power + 1, -power, -power - 1, -power + 1}) values.push_back(v);
  }
  const int32_t multipliers[] = {0, 1, 1 << 30, (1 << 30) + 1, kMax, kMax - 1, 1518500250};
  int checked = 0;
  for (const int32_t x : values) {
    for (const int32_t m : multipliers) {
      for (int shift = -31; shift <= 31; ++shift) {
        ASSERT_EQ(optimized::MultiplyByQuantizedMultiplier(x, m, shift),
                  fixed_point::MultiplyByQuantizedMultiplier(x, m, shift))
            << "x " << x << " multiplier " << m << " shift " << shift;
        ++checked;
      }
    }
  }
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> mantissa(1 << 30, kMax);
  std::uniform_int_distribution<int> shift(-31, 31);
  for (int trial = 0; trial < 200000; ++trial) {
    const int32_t x = trial % 2 == 0 ? any(rng) : any(rng) >> (trial % 31);  // small values too
    const int32_t m = mantissa(rng);
    const int s = shift(rng);
    ASSERT_EQ(optimized::MultiplyByQuantizedMultiplier(x, m, s), fixed_point::MultiplyByQuantizedMultiplier(x, m, s))
        << "x " << x << " multiplier " << m << " shift " << s;
    ++checked;
  }
  EXPECT_GT(checked, 200000);
}

}  // namespace
}  // namespace microarena
