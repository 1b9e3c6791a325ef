// Differential tests of the kernels' integer paths at their edges: small
// models built here drive each kernel to the values where TFLite's int32
// arithmetic wraps (bias near INT32_MIN/MAX, zero points at the type's
// limits, the largest and smallest multipliers, long accumulations), run in
// microarena and in TFLM itself (../shared/tools/tflm_oracle), and the output
// bytes must be equal. Every expected value comes from the oracle; nothing
// here is copied from microarena's own output.
//
// The kernels do these sums with defined wrap-around (kernels/wrapping_math.h);
// the asan preset runs this file under UBSan too, which is the other half of
// the point: same bytes as TFLM, and no undefined behaviour on the way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/host_runner.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

using testing::Bytes;
using testing::ExpectSameAsOracle;
using testing::OneOp;
using testing::Outcome;
using testing::RunOracleOn;
using testing::RunOursOn;

template <typename T>
Bytes BytesOfValues(const std::vector<T>& values) {
  return BytesOf(values);
}

// n int8 values cycling through all 256 (-128, -127, ..., 127, -128, ...).
Bytes EveryInt8(size_t n) {
  Bytes bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i + 128);
  return bytes;
}

Bytes Repeat(size_t n, int8_t value) { return Bytes(n, static_cast<uint8_t>(value)); }

// The output scales that give the extreme multipliers for an input x filter
// scale of 1: 1 (M = 1), 1 / (1.5 * 2^30) (M = 1.5 * 2^30 = 0.75 * 2^31, the
// largest shift TFLite defines: 31, so x * 2^31 wraps to (x & 1) << 31) and
// 2^40 (M below 2^-31, flushed to 0).
const float kOutputScales[] = {1.0f, 1.0f / (1.5f * 1073741824.0f), 1099511627776.0f};
const int64_t kInt8ZeroPoints[] = {-128, 127};

// One requantization edge: an output scale of kOutputScales and input and
// output zero points of kInt8ZeroPoints, with a case name for the temp files.
struct Edge {
  float out_scale;
  int64_t in_zp;
  int64_t out_zp;
  std::string name;
};

// All 12 edges, named prefix_0 ... prefix_11.
std::vector<Edge> Edges(const std::string& prefix) {
  std::vector<Edge> edges;
  for (float out_scale : kOutputScales) {
    for (int64_t in_zp : kInt8ZeroPoints) {
      for (int64_t out_zp : kInt8ZeroPoints) {
        edges.push_back({out_scale, in_zp, out_zp, prefix + "_" + std::to_string(edges.size())});
      }
    }
  }
  return edges;
}

// ---------------------------------------------------------------------------
// CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: bias near INT32_MIN/MAX and
// output zero points at -128/127, so acc + bias and rescaled + zero point wrap
// (the fuzzer's "-2147483647 + -128" in RequantizeToInt8).

std::vector<int32_t> ExtremeBiases() { return {kInt32Max - 300, kInt32Min + 300, kInt32Max, kInt32Min}; }

// Per-channel filter with 4 output channels (127, -128, 1 and -1 at each of
// `taps` positions), channels first (CONV_2D) or last (DEPTHWISE_CONV_2D),
// and the ExtremeBiases bias; all scales 1.
void AddConvWeights(OneOp* m, std::vector<int32_t> filter_shape, int32_t taps, bool channel_last) {
  Bytes filter;
  const int8_t values[] = {127, -128, 1, -1};
  for (int32_t i = 0; i < 4 * taps; ++i) {
    filter.push_back(static_cast<uint8_t>(channel_last ? values[i % 4] : values[i / taps]));
  }
  const QuantizationSpec ones = QuantizationSpec::PerChannel({1.0f, 1.0f, 1.0f, 1.0f}, {0, 0, 0, 0}, 0);
  QuantizationSpec filter_quantization = ones;
  filter_quantization.quantized_dimension = channel_last ? 3 : 0;
  m->Constant("filter", TensorType::kInt8, std::move(filter_shape), filter, filter_quantization);
  m->Constant("bias", TensorType::kInt32, {4}, BytesOf(ExtremeBiases()), ones);
}

TEST(KernelEdgeOracleTest, ConvBiasAndZeroPointWrap) {
  MICROARENA_REQUIRE_ORACLE();
  for (const Edge& e : Edges("conv")) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, 4, 4, 3}, 1.0f, e.in_zp);
    AddConvWeights(&m, {4, 2, 2, 3}, 2 * 2 * 3, /*channel_last=*/false);  // 4 channels, 2x2 window
    tflite::Conv2DOptionsT options;
    options.padding = tflite::Padding::SAME;
    options.stride_w = 1;
    options.stride_h = 1;
    ExpectSameAsOracle(e.name,
                       m.Finish(BuiltinOp::kConv2d, MakeBuiltinOptions(options), TensorType::kInt8, {1, 4, 4, 4},
                                e.out_scale, e.out_zp),
                       {EveryInt8(48)});
  }
}

TEST(KernelEdgeOracleTest, DepthwiseConvBiasAndZeroPointWrap) {
  MICROARENA_REQUIRE_ORACLE();
  for (const Edge& e : Edges("depthwise")) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, 4, 4, 2}, 1.0f, e.in_zp);
    AddConvWeights(&m, {1, 3, 3, 4}, 9, /*channel_last=*/true);  // depth multiplier 2, 3x3 window
    tflite::DepthwiseConv2DOptionsT options;
    options.padding = tflite::Padding::SAME;
    options.stride_w = 1;
    options.stride_h = 1;
    options.depth_multiplier = 2;
    ExpectSameAsOracle(e.name,
                       m.Finish(BuiltinOp::kDepthwiseConv2d, MakeBuiltinOptions(options), TensorType::kInt8,
                                {1, 4, 4, 4}, e.out_scale, e.out_zp),
                       {EveryInt8(32)});
  }
}

Bytes FullyConnectedModel(int32_t depth, const Bytes& filter, const std::vector<int32_t>& bias, int64_t in_zp,
                          float out_scale, int64_t out_zp) {
  OneOp m;
  const auto units = static_cast<int32_t>(bias.size());
  m.Input(TensorType::kInt8, {1, depth}, 1.0f, in_zp);
  m.Constant("filter", TensorType::kInt8, {units, depth}, filter, QuantizationSpec::PerTensor(1.0f, 0));
  m.Constant("bias", TensorType::kInt32, {units}, BytesOf(bias), QuantizationSpec::PerTensor(1.0f, 0));
  return m.Finish(BuiltinOp::kFullyConnected, MakeBuiltinOptions(tflite::FullyConnectedOptionsT{}), TensorType::kInt8,
                  {1, units}, out_scale, out_zp);
}

TEST(KernelEdgeOracleTest, FullyConnectedBiasAndZeroPointWrap) {
  MICROARENA_REQUIRE_ORACLE();
  Bytes filter;
  for (int8_t v : {int8_t{127}, int8_t{-128}, int8_t{1}, int8_t{-1}}) {
    for (int i = 0; i < 16; ++i) filter.push_back(static_cast<uint8_t>(v));
  }
  for (const Edge& e : Edges("fc")) {
    ExpectSameAsOracle(e.name, FullyConnectedModel(16, filter, ExtremeBiases(), e.in_zp, e.out_scale, e.out_zp),
                       {EveryInt8(16)});
  }
}

TEST(KernelEdgeOracleTest, FullyConnectedAccumulatorWraps) {
  MICROARENA_REQUIRE_ORACLE();
  // Input -128 with zero point 127 is -255; filter -128: each product is
  // +32640, and 70000 of them are 2,284,800,000 > INT32_MAX = 2,147,483,647,
  // so the int32 sum wraps (to 2,284,800,000 - 2^32 = -2,010,167,296) before
  // the bias and the requantization, in TFLite as here.
  constexpr int32_t kDepth = 70000;
  const Bytes filter = Repeat(kDepth, -128);
  for (float out_scale : {1.0f, 1e6f}) {
    ExpectSameAsOracle("fc_accumulator_" + std::to_string(static_cast<int>(out_scale)),
                       FullyConnectedModel(kDepth, filter, {0}, 127, out_scale, 0), {Repeat(kDepth, -128)});
  }
}

// ---------------------------------------------------------------------------
// Elementwise ops: extreme zero points and scale ratios.

Bytes BinaryModel(BuiltinOp op, tflite::BuiltinOptionsUnion options, float s1, int64_t zp1, float s2, int64_t zp2,
                  float out_scale, int64_t out_zp) {
  OneOp m;
  m.Input(TensorType::kInt8, {1, 256}, s1, zp1);
  m.Input(TensorType::kInt8, {1, 256}, s2, zp2);
  return m.Finish(op, std::move(options), TensorType::kInt8, {1, 256}, out_scale, out_zp);
}

// The second input walks the 256 values in another order, so every pair of
// extremes meets somewhere.
Bytes EveryInt8Reversed() {
  Bytes bytes = EveryInt8(256);
  return Bytes(bytes.rbegin(), bytes.rend());
}

TEST(KernelEdgeOracleTest, MulExtremeMultipliersAndZeroPoints) {
  MICROARENA_REQUIRE_ORACLE();
  // Output scales of kOutputScales: M = 1; M = 1.5 * 2^30 (the product, up
  // to 255 * 255, shifted left by 31 wraps to 0 or INT32_MIN, and the
  // rescaled value plus the zero point wraps too); M flushed to 0.
  for (const Edge& e : Edges("mul")) {
    ExpectSameAsOracle(e.name,
                       BinaryModel(BuiltinOp::kMul, MakeBuiltinOptions(tflite::MulOptionsT{}), 1.0f, e.in_zp, 1.0f,
                                   -e.in_zp - 1, e.out_scale, e.out_zp),
                       {EveryInt8(256), EveryInt8Reversed()});
  }
}

TEST(KernelEdgeOracleTest, AddSubExtremeScalesAndZeroPoints) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  // Input scales 2^-20 apart (one input multiplier 1/2, the other 2^-21)
  // and an output scale just above the largest TFLM accepts (output
  // multiplier 2 * max / (2^20 * s_out) just below 1).
  const float s_big = 1.0f;
  const float s_small = 9.536743e-07f;  // 2^-20
  for (float out_scale : {1.9073488e-06f, 1.0f, 1e6f}) {
    for (int64_t zp : kInt8ZeroPoints) {
      ExpectSameAsOracle("add_" + std::to_string(cases),
                         BinaryModel(BuiltinOp::kAdd, MakeBuiltinOptions(tflite::AddOptionsT{}), s_big, zp, s_small,
                                     -zp - 1, out_scale, -zp - 1),
                         {EveryInt8(256), EveryInt8Reversed()});
      ExpectSameAsOracle("sub_" + std::to_string(cases),
                         BinaryModel(BuiltinOp::kSub, MakeBuiltinOptions(tflite::SubOptionsT{}), s_small, zp, s_big,
                                     -zp - 1, out_scale, zp),
                         {EveryInt8(256), EveryInt8Reversed()});
      ++cases;
    }
  }
}

Bytes UnaryModel(BuiltinOp op, tflite::BuiltinOptionsUnion options, TensorType type, float in_scale, int64_t in_zp,
                 float out_scale, int64_t out_zp) {
  OneOp m;
  m.Input(type, {1, 256}, in_scale, in_zp);
  return m.Finish(op, std::move(options), type, {1, 256}, out_scale, out_zp);
}

// Scale ratios that float and double divide differently: 0.5f / 0.4f is
// exactly 1.25 in float, 1.2499999814 from the doubles, so input 50 (x 1.25
// = 62.5, a tie) rounds to 63 or 62. TFLM divides in float; with an input
// scale of 1 (the other cases) both agree, which hid a double division.
TEST(KernelEdgeOracleTest, ReluScaleRatioDividedInFloat) {
  MICROARENA_REQUIRE_ORACLE();
  const struct {
    float in_scale;
    float out_scale;
    int64_t out_zp;
  } ratios[] = {{0.5f, 0.4f, -3}, {0.03f, 0.024f, -10}, {0.25f, 0.2f, 0}, {0.1f, 0.3f, 5}};
  int n = 0;
  for (const auto& r : ratios) {
    ExpectSameAsOracle("relu_ratio_" + std::to_string(n++),
                       UnaryModel(BuiltinOp::kRelu, {}, TensorType::kInt8, r.in_scale, 0, r.out_scale, r.out_zp),
                       {EveryInt8(256)});
  }
  // A ratio beyond float's range is infinite in float (1e40 in double, which
  // the multiplier's shift refused): refused, not run with multiplier 0.
  const Outcome ours = RunOursOn(UnaryModel(BuiltinOp::kRelu, {}, TensorType::kInt8, 1e30f, 0, 1e-10f, 0),
                                 {EveryInt8(256)});
  EXPECT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("their ratio overflows float"), std::string::npos) << ours.error;
}

TEST(KernelEdgeOracleTest, ReluAndLeakyReluExtremeScales) {
  MICROARENA_REQUIRE_ORACLE();
  for (const Edge& e : Edges("relu")) {
    ExpectSameAsOracle(e.name, UnaryModel(BuiltinOp::kRelu, {}, TensorType::kInt8, 1.0f, e.in_zp, e.out_scale, e.out_zp),
                       {EveryInt8(256)});
    for (float alpha : {-3.0f, -1.0f, 0.2f, 1e5f}) {
      // |alpha| / out_scale >= 2^31 needs a shift above 31, refused (see
      // MultiplierShiftAbove31IsRefused).
      if (std::fabs(alpha) / e.out_scale >= 2147483648.0f) continue;
      tflite::LeakyReluOptionsT options;
      options.alpha = alpha;
      ExpectSameAsOracle("leaky_" + e.name + "_" + std::to_string(alpha),
                         UnaryModel(BuiltinOp::kLeakyRelu, MakeBuiltinOptions(options), TensorType::kInt8, 1.0f,
                                    e.in_zp, e.out_scale, e.out_zp),
                         {EveryInt8(256)});
    }
  }
}

TEST(KernelEdgeOracleTest, LogisticTanhHardSwishExtremeInputScales) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  // Logistic and tanh fix their output quantization (1/256, -128 and 1/128,
  // 0); the input scale sets the multiplier s_in * 2^27: 2^-20 (tiny),
  // 1/16, and 3.9 (shift 30, the largest microarena accepts there; from 4 on
  // it refuses, as the shift leaves the range TFLM handles).
  for (float in_scale : {9.536743e-07f, 0.0625f, 3.9f}) {
    for (int64_t in_zp : kInt8ZeroPoints) {
      const std::string suffix = std::to_string(cases++);
      ExpectSameAsOracle("logistic_" + suffix,
                         UnaryModel(BuiltinOp::kLogistic, {}, TensorType::kInt8, in_scale, in_zp, 1.0f / 256, -128),
                         {EveryInt8(256)});
      ExpectSameAsOracle("tanh_" + suffix,
                         UnaryModel(BuiltinOp::kTanh, {}, TensorType::kInt8, in_scale, in_zp, 1.0f / 128, 0),
                         {EveryInt8(256)});
      for (int64_t out_zp : kInt8ZeroPoints) {
        ExpectSameAsOracle("hard_swish_" + suffix + "_" + std::to_string(out_zp),
                           UnaryModel(BuiltinOp::kHardSwish, {}, TensorType::kInt8, in_scale, in_zp, in_scale * 0.5f,
                                      out_zp),
                           {EveryInt8(256)});
      }
    }
  }
}

TEST(KernelEdgeOracleTest, SoftmaxExtremeInputScales) {
  MICROARENA_REQUIRE_ORACLE();
  int cases = 0;
  // beta * input scale sets the Q5.26 diff multiplier; 2^-20 is near the
  // smallest TFLM accepts, 1000 saturates it.
  for (float in_scale : {1.5e-6f, 0.1f, 1000.0f}) {
    for (int64_t in_zp : kInt8ZeroPoints) {
      tflite::SoftmaxOptionsT options;
      options.beta = 1.0f;
      ExpectSameAsOracle("softmax_" + std::to_string(cases++),
                         UnaryModel(BuiltinOp::kSoftmax, MakeBuiltinOptions(options), TensorType::kInt8, in_scale,
                                    in_zp, 1.0f / 256, -128),
                         {EveryInt8(256)});
    }
  }
}

Bytes SoftmaxRowModel(int32_t depth) {
  OneOp m;
  m.Input(TensorType::kInt8, {1, depth}, 0.1f, 0);
  tflite::SoftmaxOptionsT options;
  options.beta = 1.0f;
  return m.Finish(BuiltinOp::kSoftmax, MakeBuiltinOptions(options), TensorType::kInt8, {1, depth}, 1.0f / 256, -128);
}

TEST(KernelEdgeOracleTest, SoftmaxLongRowsOfEqualValues) {
  MICROARENA_REQUIRE_ORACLE();
  // n equal inputs: each exp is 1.0 = 2^19 in Q12, the sum n * 2^19.
  // n = 256: sum 2^27, exponent 35 - clz(2^27) = 31, defined; each output
  // round(256 / 256) - 128 = -127 in the formula; compared with TFLM.
  ExpectSameAsOracle("softmax_256_equal", SoftmaxRowModel(256), {Repeat(256, 5)});
  // n = 8192: the int32 sum wraps to exactly 0 (8192 * 2^19 = 2^32), a
  // defined wrap in TFLite too; the reciprocal of 0 and an exponent of 3
  // follow, same bytes as TFLM.
  ExpectSameAsOracle("softmax_8192_equal", SoftmaxRowModel(8192), {Repeat(8192, 5)});
  // n = 1024: sum 2^29, exponent 35 - 2 = 33. TFLite shifts an int32 by 33
  // bits (undefined; x86-64 shifts by 1 and gives garbage), so no oracle
  // comparison: microarena rounds TFLite's formula exactly, x / 2^33 < 1/2
  // -> 0, and every output is the minimum, -128.
  const Outcome ours = RunOursOn(SoftmaxRowModel(1024), {Repeat(1024, 5)});
  ASSERT_TRUE(ours.ok) << ours.error;
  ASSERT_EQ(ours.outputs.size(), 1u);
  EXPECT_EQ(ours.outputs[0], Repeat(1024, -128));
}

TEST(KernelEdgeOracleTest, AveragePoolAndMeanExtremes) {
  MICROARENA_REQUIRE_ORACLE();
  // A 64x64 window of -128s and of 127s: sums of +-2^19 and the rounding
  // division of TFLite's average pool; MEAN with scale ratios that give the
  // extreme multipliers and zero points at the limits.
  for (int8_t value : {int8_t{-128}, int8_t{127}, int8_t{-1}}) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, 64, 64, 1}, 1.0f, 0);
    tflite::Pool2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_w = 1;
    options.stride_h = 1;
    options.filter_width = 64;
    options.filter_height = 64;
    const Bytes model =
        m.Finish(BuiltinOp::kAveragePool2d, MakeBuiltinOptions(options), TensorType::kInt8, {1, 1, 1, 1}, 1.0f, 0);
    ExpectSameAsOracle("average_pool_" + std::to_string(value), model, {Repeat(64 * 64, value)});
  }
  for (const Edge& e : Edges("mean")) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, 16, 16, 4}, 1.0f, e.in_zp);
    m.Constant("axis", TensorType::kInt32, {2}, BytesOf(std::vector<int32_t>{1, 2}), {});
    tflite::ReducerOptionsT options;
    options.keep_dims = true;
    ExpectSameAsOracle(e.name,
                       m.Finish(BuiltinOp::kMean, MakeBuiltinOptions(options), TensorType::kInt8, {1, 1, 1, 4},
                                e.out_scale, e.out_zp),
                       {EveryInt8(16 * 16 * 4)});
  }
}

TEST(KernelEdgeOracleTest, AveragePoolAndMeanSumsWrap) {
  MICROARENA_REQUIRE_ORACLE();
  // 4097 x 4097 = 16,785,409 values of -128 sum to -2,148,532,352, below
  // INT32_MIN: TFLite's int32 sum wraps to +2,146,434,944. Average pool then
  // adds count / 2 = 8,392,704, which wraps again (to -2,140,139,648), and
  // divides: -127.5 truncated, -127. MEAN with the same scale and zero point
  // rescales the wrapped sum by 1/count: 127.87, which rounds and clamps to
  // 127. (The true mean, -128, is not what TFLite computes; the oracle gives
  // -127 and 127, and so do we.)
  constexpr int32_t kSide = 4097;
  const Bytes input = Repeat(static_cast<size_t>(kSide) * kSide, -128);
  {
    OneOp m;
    m.Input(TensorType::kInt8, {1, kSide, kSide, 1}, 1.0f, 0);
    tflite::Pool2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_w = 1;
    options.stride_h = 1;
    options.filter_width = kSide;
    options.filter_height = kSide;
    ExpectSameAsOracle(
        "average_pool_wrap",
        m.Finish(BuiltinOp::kAveragePool2d, MakeBuiltinOptions(options), TensorType::kInt8, {1, 1, 1, 1}, 1.0f, 0),
        {input});
  }
  for (float out_scale : {1.0f, 0.5f}) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, kSide, kSide, 1}, 1.0f, 0);
    m.Constant("axis", TensorType::kInt32, {2}, BytesOf(std::vector<int32_t>{1, 2}), {});
    tflite::ReducerOptionsT options;
    options.keep_dims = true;
    ExpectSameAsOracle(
        "mean_wrap_" + std::to_string(out_scale),
        m.Finish(BuiltinOp::kMean, MakeBuiltinOptions(options), TensorType::kInt8, {1, 1, 1, 1}, out_scale, 0),
        {input});
  }
}

// MEAN with the input's scale and zero point on the output, as a global
// average pool of MobileNetV2 converted from PyTorch has (axes [1, 2],
// keep_dims). TFLM at the pinned commit has no shortcut for that case: it
// requantizes with 1/count folded into the multiplier, so the mean is
// rounded, where a plain sum / count would truncate: a 7 x 7 window of
// values whose sums fall between multiples of 49 tells the two apart. Spread
// input patterns over 1,280 channels (7 x 7 x 1280, as the model has), in
// three zero points and two scales; every output byte must be TFLM's.
TEST(KernelEdgeOracleTest, MeanWithTheInputsScaleRoundsAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  constexpr int32_t kChannels = 1280;
  Bytes input(7 * 7 * kChannels);
  uint32_t x = 7;
  for (uint8_t& byte : input) {
    x = x * 1664525u + 1013904223u;
    byte = static_cast<uint8_t>(x >> 24);
  }
  for (int32_t zero_point : {-128, -3, 127}) {
    for (float scale : {0.0235294f, 1.0f}) {
      OneOp m;
      m.Input(TensorType::kInt8, {1, 7, 7, kChannels}, scale, zero_point);
      m.Constant("axis", TensorType::kInt32, {2}, BytesOf(std::vector<int32_t>{1, 2}), {});
      tflite::ReducerOptionsT options;
      options.keep_dims = true;
      ExpectSameAsOracle("mean_same_scale_" + std::to_string(zero_point) + "_" + std::to_string(scale),
                         m.Finish(BuiltinOp::kMean, MakeBuiltinOptions(options), TensorType::kInt8,
                                  {1, 1, 1, kChannels}, scale, zero_point),
                         {input});
    }
  }
}

TEST(KernelEdgeOracleTest, BatchMatmulAccumulatorAndZeroPointWrap) {
  MICROARENA_REQUIRE_ORACLE();
  // lhs [1, 2, K] and rhs [1, K, 2], K = 70000, zero points 127: every
  // product is (-128 - 127)^2 = 65025, and K of them pass INT32_MAX, so
  // the int32 sum wraps; then the extreme multipliers and zero points.
  constexpr int32_t kDepth = 70000;
  for (const Edge& e : Edges("batch_matmul")) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, 2, kDepth}, 1.0f, 127);
    m.Input(TensorType::kInt8, {1, kDepth, 2}, 1.0f, e.in_zp);
    Bytes lhs = Repeat(2 * kDepth, -128);
    Bytes rhs = EveryInt8(2 * kDepth);
    ExpectSameAsOracle(e.name,
                       m.Finish(BuiltinOp::kBatchMatmul, MakeBuiltinOptions(tflite::BatchMatMulOptionsT{}),
                                TensorType::kInt8, {1, 2, 2}, e.out_scale, e.out_zp),
                       {lhs, rhs});
  }
}

TEST(KernelEdgeOracleTest, SvdfBiasAndZeroPointWrap) {
  MICROARENA_REQUIRE_ORACLE();
  // Rank 1, 4 units, 16 inputs, memory 4, int16 state (zero point 0) and
  // weights_time of +-32767: the feature dot lands in the newest state slot
  // (clamped to int16; the older slots are still 0 on the first Invoke), the
  // time dot (up to 32767^2) plus ExtremeBiases wraps in int32, then the
  // output multiplier and zero point of the edge.
  constexpr int32_t kUnits = 4, kInputs = 16, kMemory = 4;
  for (const Edge& e : Edges("svdf")) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, kInputs}, 1.0f, e.in_zp);
    Bytes feature;
    for (int8_t v : {int8_t{127}, int8_t{-128}, int8_t{1}, int8_t{-1}}) {
      for (int32_t i = 0; i < kInputs; ++i) feature.push_back(static_cast<uint8_t>(v));
    }
    m.Constant("weights_feature", TensorType::kInt8, {kUnits, kInputs}, feature, QuantizationSpec::PerTensor(1.0f, 0));
    std::vector<int16_t> time;
    for (int32_t u = 0; u < kUnits; ++u) {
      for (int32_t t = 0; t < kMemory; ++t) time.push_back(u % 2 == 0 ? 32767 : -32767);
    }
    m.Constant("weights_time", TensorType::kInt16, {kUnits, kMemory}, BytesOf(time),
               QuantizationSpec::PerTensor(1.0f, 0));
    m.Constant("bias", TensorType::kInt32, {kUnits}, BytesOf(ExtremeBiases()), QuantizationSpec::PerTensor(1.0f, 0));
    TensorSpec state{"state", TensorType::kInt16, {1, kUnits * kMemory}, 0, QuantizationSpec::PerTensor(1.0f, 0)};
    state.is_variable = true;
    m.op_inputs.push_back(m.builder.AddTensor(state));
    tflite::SVDFOptionsT options;
    options.rank = 1;
    ExpectSameAsOracle(e.name,
                       m.Finish(BuiltinOp::kSvdf, MakeBuiltinOptions(options), TensorType::kInt8, {1, kUnits},
                                e.out_scale, e.out_zp),
                       {EveryInt8(kInputs)});
  }
}

TEST(KernelEdgeOracleTest, QuantizeZeroPointWraps) {
  MICROARENA_REQUIRE_ORACLE();
  // FLOAT32 -> INT16, scale 1, zero point 32767: 2147483520 (the largest
  // float below 2^31) + 32767 passes INT32_MAX and wraps to a negative
  // value in TFLite's int32 add, which then clamps to -32768. The other
  // values stay in range: 1.5 -> 2 + 32767 -> 32767 (clamped), -40000.0 ->
  // -7233.
  {
    OneOp m;
    m.FloatInput({4});
    const Bytes model = m.Finish(BuiltinOp::kQuantize, {}, TensorType::kInt16, {4}, 1.0f, 32767);
    ExpectSameAsOracle("quantize_float_int16",
                       model, {BytesOf(std::vector<float>{2147483520.0f, 1.5f, -40000.0f, -2147483520.0f})});
  }
  // INT8 -> INT8 with scale ratios that give the extreme multipliers and
  // zero points at the limits: the rescaled value plus the zero point wraps.
  for (const Edge& e : Edges("requantize")) {
    ExpectSameAsOracle(e.name,
                       UnaryModel(BuiltinOp::kQuantize, {}, TensorType::kInt8, 1.0f, e.in_zp, e.out_scale, e.out_zp),
                       {EveryInt8(256)});
  }
}

TEST(KernelEdgeOracleTest, QuantizeInt16AndInt32Edges) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<int16_t> int16_edges = {-32768, -32767, -129, -128, -1, 0, 1, 127, 128, 32766, 32767};
  const std::vector<int32_t> int32_edges = {kInt32Min, kInt32Min + 1, -32769, -1, 0, 1, 32768, kInt32Max - 1,
                                            kInt32Max};
  // The three output scales of kOutputScales (M = 1, M = 1.5 * 2^30 with
  // shift 31, M flushed to 0) against input scale 1.
  int cases = 0;
  for (float out_scale : kOutputScales) {
    for (int64_t zp : {int64_t{-32768}, int64_t{32767}}) {
      const std::string n = std::to_string(cases++);
      // INT16 -> INT16 and INT16 -> INT8 with zero points at the limits.
      std::vector<int16_t> row;  // UnaryModel's 256 values: the edges, repeated
      while (row.size() < 256) row.push_back(int16_edges[row.size() % int16_edges.size()]);
      ExpectSameAsOracle("requantize_i16_i16_" + n,
                         UnaryModel(BuiltinOp::kQuantize, {}, TensorType::kInt16, 1.0f, zp, out_scale, -zp - 1),
                         {BytesOf(row)});
      OneOp to_int8;
      to_int8.Input(TensorType::kInt16, {static_cast<int32_t>(int16_edges.size())}, 1.0f, zp);
      ExpectSameAsOracle("requantize_i16_i8_" + n,
                         to_int8.Finish(BuiltinOp::kQuantize, {}, TensorType::kInt8,
                                        {static_cast<int32_t>(int16_edges.size())}, out_scale, zp < 0 ? 127 : -128),
                         {BytesOf(int16_edges)});
    }
    // INT32 -> INT8 with input zero points INT32_MIN and INT32_MAX: the
    // input minus its zero point wraps in TFLite's int32 subtraction.
    for (int64_t zp : {int64_t{kInt32Min}, int64_t{kInt32Max}, int64_t{0}}) {
      OneOp m;
      m.Input(TensorType::kInt32, {static_cast<int32_t>(int32_edges.size())}, 1.0f, zp);
      ExpectSameAsOracle("requantize_i32_i8_" + std::to_string(cases++),
                         m.Finish(BuiltinOp::kQuantize, {}, TensorType::kInt8,
                                  {static_cast<int32_t>(int32_edges.size())}, out_scale, 0),
                         {BytesOf(int32_edges)});
    }
    // INT8 -> INT32 with output zero points INT32_MAX and INT32_MIN: the
    // rescaled value plus the zero point wraps before the (int32) clamp.
    for (int64_t zp : {int64_t{kInt32Min}, int64_t{kInt32Max}}) {
      OneOp m;
      m.Input(TensorType::kInt8, {256}, 1.0f, 0);
      ExpectSameAsOracle("requantize_i8_i32_" + std::to_string(cases++),
                         m.Finish(BuiltinOp::kQuantize, {}, TensorType::kInt32, {256}, out_scale, zp),
                         {EveryInt8(256)});
    }
  }
  // SOFTMAX INT8 -> INT16 (scale 1/65536, zero point -32768).
  for (float in_scale : {1.5e-6f, 0.1f, 1000.0f}) {
    OneOp m;
    m.Input(TensorType::kInt8, {1, 256}, in_scale, 0);
    tflite::SoftmaxOptionsT options;
    options.beta = 1.0f;
    ExpectSameAsOracle("softmax_int16_" + std::to_string(cases++),
                       m.Finish(BuiltinOp::kSoftmax, MakeBuiltinOptions(options), TensorType::kInt16, {1, 256},
                                1.0f / 65536, -32768),
                       {EveryInt8(256)});
  }
}

// ---------------------------------------------------------------------------
// A multiplier of 2^31 or more needs a left shift of 32 bits or more, which
// is undefined in TFLite (x86-64 shifts by the amount modulo 32, so the
// oracle runs these models and gives that machine's answer). microarena
// refuses them in Prepare with a message naming the op, the tensor and the
// shift. Output scale 2^-40 with input x filter scale 1: M = 2^40 =
// 0.5 * 2^41, shift 41.

TEST(KernelEdgeOracleTest, MultiplierShiftAbove31IsRefused) {
  MICROARENA_REQUIRE_ORACLE();
  const float tiny = 1.0f / 1099511627776.0f;  // 2^-40
  Bytes filter = Repeat(16, 1);
  struct Case {
    std::string name;
    Bytes model;
    const char* op;
  };
  const std::vector<Case> cases = {
      {"fc_shift_41", FullyConnectedModel(16, filter, {0}, 0, tiny, 0), "FULLY_CONNECTED"},
      {"mul_shift_41",
       BinaryModel(BuiltinOp::kMul, MakeBuiltinOptions(tflite::MulOptionsT{}), 1.0f, 0, 1.0f, 0, tiny, 0), "MUL"},
      {"relu_shift_41", UnaryModel(BuiltinOp::kRelu, {}, TensorType::kInt8, 1.0f, 0, tiny, 0), "RELU"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Outcome theirs = RunOracleOn(c.name, c.model, {});
    EXPECT_TRUE(theirs.ok) << "TFLM now refuses it too: " << theirs.error;
    const Outcome ours = RunOursOn(c.model, {});
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find(c.op), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find("'out'"), std::string::npos) << ours.error;
    EXPECT_NE(ours.error.find("left shift of 41 bits"), std::string::npos) << ours.error;
  }
}

// ---------------------------------------------------------------------------
// The fuzzer's reproducer: a mutated demo model. One filter channel of op 2
// has a mutated scale that makes its multiplier about 6e35 (shift 119):
// TFLM runs it (x86-64 shifts by 119 % 32 = 23); microarena refuses it.
// Repaired (that channel's scale set to the tensor's channel 0 scale) it
// still drives conv requantization through the int32 wrap the fuzzer found,
// and both runtimes must give the same bytes. The input is given explicitly:
// with its default seed-1 input the oracle's output for this file differs
// between its own greedy and linear runs, so that input is not a fixed point
// of comparison.

// The model with every per-channel filter scale of a CONV_2D or
// DEPTHWISE_CONV_2D whose multiplier in x filter / out is 2^31 or more
// replaced by the scale of the filter's channel 0. Returns how many changed.
int RepairHugeMultipliers(tflite::ModelT* model) {
  int repaired = 0;
  for (auto& subgraph : model->subgraphs) {
    for (auto& op : subgraph->operators) {
      const auto code = static_cast<BuiltinOp>(model->operator_codes[op->opcode_index]->builtin_code);
      if (code != BuiltinOp::kConv2d && code != BuiltinOp::kDepthwiseConv2d) continue;
      const auto& input = subgraph->tensors[static_cast<size_t>(op->inputs[0])]->quantization;
      auto& filter = subgraph->tensors[static_cast<size_t>(op->inputs[1])]->quantization;
      const auto& output = subgraph->tensors[static_cast<size_t>(op->outputs[0])]->quantization;
      for (float& scale : filter->scale) {
        const double multiplier =
            static_cast<double>(input->scale[0]) * static_cast<double>(scale) / static_cast<double>(output->scale[0]);
        if (multiplier >= 2147483648.0) {
          scale = filter->scale[0];
          ++repaired;
        }
      }
    }
  }
  return repaired;
}

TEST(KernelEdgeOracleTest, ConvRequantizeOverflowRegression) {
  MICROARENA_REQUIRE_ORACLE();
  const std::string path = testing::SharedDir() + "/regressions/interpreter_fuzz-conv-requantize-overflow.bin";
  const Bytes model = testing::ReadFileBytes(path);
  ASSERT_FALSE(model.empty()) << "cannot read " << path;

  const Outcome theirs = RunOracleOn("regression_as_found", model, {});
  EXPECT_TRUE(theirs.ok) << theirs.error;
  const Outcome ours = RunOursOn(model, {});
  ASSERT_FALSE(ours.ok) << "microarena ran a model whose requantization needs a shift of 119 bits";
  EXPECT_NE(ours.error.find("op 2 (CONV_2D)"), std::string::npos) << ours.error;
  EXPECT_NE(ours.error.find("'pw1/output'"), std::string::npos) << ours.error;
  EXPECT_NE(ours.error.find("left shift of 119 bits"), std::string::npos) << ours.error;

  const std::unique_ptr<tflite::ModelT> unpacked = tflite::UnPackModel(model.data());
  ASSERT_NE(unpacked, nullptr);
  ModelBuilder repaired(std::move(*unpacked));
  EXPECT_GE(RepairHugeMultipliers(&repaired.mutable_model()), 1);
  ExpectSameAsOracle("regression_repaired", repaired.Build(), {EveryInt8(49 * 10)});
}

}  // namespace
}  // namespace microarena
