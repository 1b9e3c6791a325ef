// Differential tests of ELU, PRELU, LOG_SOFTMAX, L2_NORMALIZATION,
// L2_POOL_2D, CUMSUM and EMBEDDING_LOOKUP against TFLM itself
// (../shared/tools/tflm_oracle): one-op models over shapes, options,
// quantization parameters (extreme scales and zero points too) and every
// type TFLM's kernels accept, run by both; every output byte must be equal.
// Expected values come from the oracle only; models TFLM refuses are
// refused by both.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/support/op_oracle_util.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::Count;
using testing::ExpectBothRefuse;
using testing::ExpectSameAsOracle;
using testing::ExpectWeRefuse;
using testing::Operand;
using testing::OpModel;
using testing::Values;

using testing::kSmallArena;

const tflite::BuiltinOptionsUnion kNoOptions{};

// Every int8 value, repeated to fill `n` elements.
Bytes EveryInt8(size_t n) {
  Bytes bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i + 128);
  return bytes;
}

struct Quant {
  float in_scale;
  int64_t in_zp;
  float out_scale;
  int64_t out_zp;
};

// Ordinary, asymmetric, and extreme parameters: tiny and huge scales (the
// rescaled value leaves int32), zero points at both ends of the range.
const Quant kInt8Quants[] = {
    {0.1f, 0, 0.1f, 0},     {0.05f, -128, 0.02f, 127}, {0.02f, 127, 0.05f, -128}, {0.37f, 12, 0.0123f, -3},
    {1e-6f, 5, 1e3f, 0},    {100.0f, -7, 1e-6f, 3},    {1e-3f, 50, 1.0f, -100},   {3.0f, -128, 0.5f, 127},
    {1e-30f, 0, 1e-30f, 0}, {1e20f, 1, 1e-20f, -1},
};

// ---- ELU -----------------------------------------------------------------

TEST(ActivationNormOracleTest, EluFloat) {
  MICROARENA_REQUIRE_ORACLE();
  for (const std::vector<int32_t>& shape : std::vector<std::vector<int32_t>>{{300}, {2, 3, 4, 5}, {1}}) {
    Operand f{TensorType::kFloat32, shape};
    Bytes values = Values(TensorType::kFloat32, Count(shape), 11);
    ExpectSameAsOracle("elu_float_" + std::to_string(shape.size()), OpModel(BuiltinOp::kElu, kNoOptions, {f}, {f}),
                       {values}, kSmallArena);
  }
  // Small negatives, where expm1 and exp - 1 differ.
  std::vector<float> small;
  for (int i = 1; i <= 200; ++i) small.push_back(-1e-4f * static_cast<float>(i * i));
  Operand f{TensorType::kFloat32, {200}};
  ExpectSameAsOracle("elu_float_small", OpModel(BuiltinOp::kElu, kNoOptions, {f}, {f}), {BytesOf(small)}, kSmallArena);
}

TEST(ActivationNormOracleTest, EluInt8Table) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const Quant& q : kInt8Quants) {
    Operand in{TensorType::kInt8, {2, 128}, q.in_scale, q.in_zp};
    Operand out{TensorType::kInt8, {2, 128}, q.out_scale, q.out_zp};
    ExpectSameAsOracle("elu_int8_" + std::to_string(n++), OpModel(BuiltinOp::kElu, kNoOptions, {in}, {out}),
                       {EveryInt8(256)}, kSmallArena);
  }
}

TEST(ActivationNormOracleTest, EluRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  // INT16 (TFLM's eval refuses it) and a type change.
  Operand i16{TensorType::kInt16, {8}, 0.01f, 0};
  ExpectBothRefuse("elu_int16", OpModel(BuiltinOp::kElu, kNoOptions, {i16}, {i16}), {Values(TensorType::kInt16, 8, 1)},
                   "INT16", kSmallArena);
  Operand i8{TensorType::kInt8, {8}, 0.1f, 0};
  Operand f{TensorType::kFloat32, {8}};
  ExpectBothRefuse("elu_int8_to_float", OpModel(BuiltinOp::kElu, kNoOptions, {i8}, {f}),
                   {Values(TensorType::kInt8, 8, 1)}, "FLOAT32", kSmallArena);
}

// ---- PRELU ---------------------------------------------------------------

struct PreluShapes {
  std::vector<int32_t> input;
  std::vector<int32_t> alpha;
  std::vector<int32_t> output;
};

// Per-channel alpha (the usual model), alpha over more axes, equal shapes,
// an input broadcast against a larger alpha, and lower ranks.
const PreluShapes kPreluShapes[] = {
    {{1, 4, 4, 3}, {3}, {1, 4, 4, 3}},
    {{1, 4, 4, 3}, {1, 1, 3}, {1, 4, 4, 3}},
    {{2, 4, 5, 3}, {4, 1, 3}, {2, 4, 5, 3}},
    {{2, 3}, {2, 3}, {2, 3}},
    {{3}, {2, 3}, {2, 3}},
    {{2, 1, 5}, {3, 1}, {2, 3, 5}},
    {{40}, {1}, {40}},
};

Bytes PreluModel(const PreluShapes& s, Operand in, Operand alpha, Operand out, const Bytes& alpha_values,
                 bool alpha_constant) {
  in.shape = s.input;
  alpha.shape = s.alpha;
  out.shape = s.output;
  if (alpha_constant) alpha.constant = alpha_values;
  return OpModel(BuiltinOp::kPrelu, kNoOptions, {in, alpha}, {out});
}

TEST(ActivationNormOracleTest, PreluFloatBroadcasts) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const PreluShapes& s : kPreluShapes) {
    for (bool constant : {true, false}) {
      const Operand f{TensorType::kFloat32, {}};
      const Bytes alpha = Values(TensorType::kFloat32, Count(s.alpha), 21);
      std::vector<Bytes> inputs = {Values(TensorType::kFloat32, Count(s.input), 22)};
      if (!constant) inputs.push_back(alpha);
      ExpectSameAsOracle("prelu_float_" + std::to_string(n++), PreluModel(s, f, f, f, alpha, constant), inputs,
                         kSmallArena);
    }
  }
}

TEST(ActivationNormOracleTest, PreluInt8AndInt16Requantize) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    Quant q;
    float alpha_scale;
    int64_t alpha_zp;
  };
  const Case cases[] = {
      {{0.1f, 0, 0.1f, 0}, 0.01f, 0},         {{0.05f, -128, 0.02f, 127}, 0.004f, -128},
      {{0.02f, 127, 0.05f, -128}, 0.5f, 127}, {{0.37f, 12, 0.0123f, -3}, 0.003f, 7},
      {{1e-6f, 5, 1e3f, 0}, 1.0f, 0},         {{0.5f, -7, 1e-5f, 3}, 0.2f, -3},
      {{1e-3f, 50, 1.0f, -100}, 1e-4f, 100},  {{3.0f, -128, 0.5f, 127}, 2.0f, 1},
  };
  int n = 0;
  for (const Case& c : cases) {
    for (const PreluShapes& s : kPreluShapes) {
      const Bytes alpha = Values(TensorType::kInt8, Count(s.alpha), 23);
      // INT8 throughout.
      ExpectSameAsOracle("prelu_int8_" + std::to_string(n),
                         PreluModel(s, {TensorType::kInt8, {}, c.q.in_scale, c.q.in_zp},
                                    {TensorType::kInt8, {}, c.alpha_scale, c.alpha_zp},
                                    {TensorType::kInt8, {}, c.q.out_scale, c.q.out_zp}, alpha, true),
                         {Values(TensorType::kInt8, Count(s.input), 24)}, kSmallArena);
      // INT16 activations with an INT8 alpha (zero points of the int8 range
      // are valid int16 zero points).
      ExpectSameAsOracle("prelu_int16_" + std::to_string(n),
                         PreluModel(s, {TensorType::kInt16, {}, c.q.in_scale * 0.01f, c.q.in_zp},
                                    {TensorType::kInt8, {}, c.alpha_scale, c.alpha_zp},
                                    {TensorType::kInt16, {}, c.q.out_scale * 0.01f, c.q.out_zp}, alpha, true),
                         {Values(TensorType::kInt16, Count(s.input), 25)}, kSmallArena);
      ++n;
    }
  }
}

TEST(ActivationNormOracleTest, PreluRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const PreluShapes s = {{2, 3}, {3}, {2, 3}};
  // INT16 input needs an INT8 alpha (TFLM's Prepare).
  ExpectBothRefuse("prelu_int16_alpha16",
                   PreluModel(s, {TensorType::kInt16, {}, 0.01f, 0}, {TensorType::kInt16, {}, 0.01f, 0},
                              {TensorType::kInt16, {}, 0.01f, 0}, Values(TensorType::kInt16, 3, 1), true),
                   {Values(TensorType::kInt16, 6, 2)}, "alpha INT16", kSmallArena);
  // INT32 (TFLM's eval refuses it).
  ExpectBothRefuse("prelu_int32",
                   PreluModel(s, {TensorType::kInt32, {}}, {TensorType::kInt32, {}}, {TensorType::kInt32, {}},
                              Values(TensorType::kInt32, 3, 1), true),
                   {Values(TensorType::kInt32, 6, 2)}, "INT32", kSmallArena);
  // Rank 5: TFLM's 4-D broadcast does not cover it.
  const PreluShapes rank5 = {{1, 2, 1, 2, 3}, {3}, {1, 2, 1, 2, 3}};
  const Operand f{TensorType::kFloat32, {}};
  ExpectWeRefuse(PreluModel(rank5, f, f, f, Values(TensorType::kFloat32, 3, 1), true),
                 {Values(TensorType::kFloat32, 12, 2)}, "at most 4");
}

// ---- LOG_SOFTMAX ---------------------------------------------------------

const std::vector<std::vector<int32_t>> kRowShapes = {{10}, {4, 37}, {2, 3, 300}, {3, 1}};

TEST(ActivationNormOracleTest, LogSoftmaxFloat) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const std::vector<int32_t>& shape : kRowShapes) {
    const Operand f{TensorType::kFloat32, shape};
    ExpectSameAsOracle("log_softmax_float_" + std::to_string(n++),
                       OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {f}, {f}),
                       {Values(TensorType::kFloat32, Count(shape), 31)}, kSmallArena);
  }
}

TEST(ActivationNormOracleTest, LogSoftmaxInt8) {
  MICROARENA_REQUIRE_ORACLE();
  // Input scales from just above TFLM's floor (2^-26) to ones that cap the
  // multiplier; the zero point does not enter (diffs only).
  const float scales[] = {1.6e-8f, 1e-6f, 1e-3f, 0.01f, 0.0625f, 0.1f, 0.37f, 1.0f, 10.0f, 1e6f};
  int n = 0;
  for (float scale : scales) {
    for (const std::vector<int32_t>& shape : kRowShapes) {
      for (int64_t zp : {int64_t{0}, int64_t{-128}, int64_t{127}}) {
        const Operand in{TensorType::kInt8, shape, scale, zp};
        const Operand out{TensorType::kInt8, shape, 16.0f / 256, 127};
        // Every value, then a row that sits close to its maximum.
        Bytes values = Values(TensorType::kInt8, Count(shape), static_cast<uint32_t>(32 + n));
        if (n % 2 == 1) {
          for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(120 + i % 8);
        }
        ExpectSameAsOracle("log_softmax_int8_" + std::to_string(n++),
                           OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {in}, {out}), {values}, kSmallArena);
      }
    }
  }
}

TEST(ActivationNormOracleTest, LogSoftmaxRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Operand in{TensorType::kInt8, {2, 5}, 0.1f, 0};
  // Output quantization other than 16/256 and 127.
  ExpectBothRefuse("log_softmax_out_scale",
                   OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {in}, {{TensorType::kInt8, {2, 5}, 1.0f / 256, -128}}),
                   {Values(TensorType::kInt8, 10, 1)}, "16/256", kSmallArena);
  ExpectBothRefuse("log_softmax_out_zp",
                   OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {in}, {{TensorType::kInt8, {2, 5}, 16.0f / 256, 0}}),
                   {Values(TensorType::kInt8, 10, 1)}, "16/256", kSmallArena);
  // An input scale at or below 2^-26 (TFLM's multiplier check aborts).
  ExpectBothRefuse("log_softmax_tiny_scale",
                   OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {{TensorType::kInt8, {2, 5}, 1e-9f, 0}},
                           {{TensorType::kInt8, {2, 5}, 16.0f / 256, 127}}),
                   {Values(TensorType::kInt8, 10, 1)}, "diff multiplier", kSmallArena);
  // INT16 (TFLM's eval refuses it) and a shape change.
  const Operand i16{TensorType::kInt16, {2, 5}, 0.01f, 0};
  ExpectBothRefuse("log_softmax_int16", OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {i16}, {i16}),
                   {Values(TensorType::kInt16, 10, 1)}, "INT16", kSmallArena);
  const Operand f{TensorType::kFloat32, {2, 5}};
  ExpectBothRefuse("log_softmax_shape",
                   OpModel(BuiltinOp::kLogSoftmax, kNoOptions, {f}, {{TensorType::kFloat32, {5, 2}}}),
                   {Values(TensorType::kFloat32, 10, 1)}, "differ in shape", kSmallArena);
}

// ---- L2_NORMALIZATION ----------------------------------------------------

tflite::BuiltinOptionsUnion L2NormOptions(tflite::ActivationFunctionType activation) {
  tflite::L2NormOptionsT options;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

TEST(ActivationNormOracleTest, L2NormalizationFloat) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const std::vector<int32_t>& shape : kRowShapes) {
    const Operand f{TensorType::kFloat32, shape};
    ExpectSameAsOracle(
        "l2norm_float_" + std::to_string(n++),
        OpModel(BuiltinOp::kL2Normalization, L2NormOptions(tflite::ActivationFunctionType::NONE), {f}, {f}),
        {Values(TensorType::kFloat32, Count(shape), 41)}, kSmallArena);
  }
  // All-zero and tiny rows (the epsilon), without options.
  std::vector<float> rows = {0, 0, 0, 0, 1e-8f, -1e-8f, 0, 0, 3, 4, 0, 0, 1e-20f, 0, 0, 0};
  const Operand f{TensorType::kFloat32, {4, 4}};
  ExpectSameAsOracle("l2norm_float_eps", OpModel(BuiltinOp::kL2Normalization, kNoOptions, {f}, {f}), {BytesOf(rows)},
                     kSmallArena);
}

TEST(ActivationNormOracleTest, L2NormalizationInt8) {
  MICROARENA_REQUIRE_ORACLE();
  // Rows of one value, of zeros (sum 0 and 1), and long rows (large sums).
  const std::vector<std::vector<int32_t>> shapes = {{10}, {4, 37}, {2, 3, 300}, {3, 1}, {1, 2, 2, 5000}, {2, 2}};
  int n = 0;
  for (const std::vector<int32_t>& shape : shapes) {
    for (int64_t zp : {int64_t{0}, int64_t{-128}, int64_t{127}, int64_t{-3}}) {
      // The output's parameters do not matter to TFLM; they vary here.
      const Operand in{TensorType::kInt8, shape, 0.05f, zp};
      const Operand out{TensorType::kInt8, shape, n % 2 == 0 ? 1.0f / 128 : 0.3f, n % 3 == 0 ? 0 : 5};
      Bytes values = Values(TensorType::kInt8, Count(shape), static_cast<uint32_t>(42 + n));
      if (shape == std::vector<int32_t>{2, 2})
        values = {static_cast<uint8_t>(zp), static_cast<uint8_t>(zp), static_cast<uint8_t>(zp + 1),
                  static_cast<uint8_t>(zp)};
      ExpectSameAsOracle("l2norm_int8_" + std::to_string(n++),
                         OpModel(BuiltinOp::kL2Normalization, kNoOptions, {in}, {out}), {values}, kSmallArena);
    }
  }
}

TEST(ActivationNormOracleTest, L2NormalizationRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Operand f5{TensorType::kFloat32, {1, 1, 2, 2, 3}};
  ExpectBothRefuse("l2norm_rank5", OpModel(BuiltinOp::kL2Normalization, kNoOptions, {f5}, {f5}),
                   {Values(TensorType::kFloat32, 12, 1)}, "rank 5", kSmallArena);
  const Operand f{TensorType::kFloat32, {2, 6}};
  ExpectBothRefuse("l2norm_relu",
                   OpModel(BuiltinOp::kL2Normalization, L2NormOptions(tflite::ActivationFunctionType::RELU), {f}, {f}),
                   {Values(TensorType::kFloat32, 12, 1)}, "RELU", kSmallArena);
  const Operand i16{TensorType::kInt16, {2, 6}, 0.01f, 0};
  ExpectBothRefuse("l2norm_int16", OpModel(BuiltinOp::kL2Normalization, kNoOptions, {i16}, {i16}),
                   {Values(TensorType::kInt16, 12, 1)}, "INT16", kSmallArena);
}

// ---- L2_POOL_2D ----------------------------------------------------------

struct PoolCase {
  std::vector<int32_t> input;  // NHWC
  int32_t filter_h, filter_w, stride_h, stride_w;
  tflite::Padding padding;
  tflite::ActivationFunctionType activation;
};

// TFLite's output extent for one axis.
int32_t PoolOut(int32_t in, int32_t filter, int32_t stride, tflite::Padding padding) {
  return padding == tflite::Padding::SAME ? (in + stride - 1) / stride : (in - filter + stride) / stride;
}

Bytes L2PoolModel(const PoolCase& c, TensorType type) {
  tflite::Pool2DOptionsT options;
  options.padding = c.padding;
  options.filter_height = c.filter_h;
  options.filter_width = c.filter_w;
  options.stride_h = c.stride_h;
  options.stride_w = c.stride_w;
  options.fused_activation_function = c.activation;
  const std::vector<int32_t> out = {c.input[0], PoolOut(c.input[1], c.filter_h, c.stride_h, c.padding),
                                    PoolOut(c.input[2], c.filter_w, c.stride_w, c.padding), c.input[3]};
  const float scale = type == TensorType::kFloat32 ? 0.0f : 0.1f;
  return OpModel(BuiltinOp::kL2Pool2d, MakeBuiltinOptions(options), {{type, c.input, scale, 0}},
                 {{type, out, scale, 0}});
}

TEST(ActivationNormOracleTest, L2Pool2dFloat) {
  MICROARENA_REQUIRE_ORACLE();
  using A = tflite::ActivationFunctionType;
  using P = tflite::Padding;
  const PoolCase cases[] = {
      {{1, 4, 4, 1}, 2, 2, 2, 2, P::VALID, A::NONE}, {{1, 5, 7, 3}, 3, 3, 1, 1, P::SAME, A::NONE},
      {{2, 6, 5, 2}, 2, 3, 2, 1, P::SAME, A::RELU6}, {{1, 7, 7, 4}, 3, 2, 2, 3, P::VALID, A::RELU_N1_TO_1},
      {{1, 3, 3, 2}, 5, 5, 1, 1, P::SAME, A::RELU},  {{3, 8, 1, 5}, 4, 1, 3, 1, P::SAME, A::NONE},
      {{1, 1, 1, 6}, 1, 1, 1, 1, P::VALID, A::NONE},
  };
  int n = 0;
  for (const PoolCase& c : cases) {
    ExpectSameAsOracle("l2pool_float_" + std::to_string(n++), L2PoolModel(c, TensorType::kFloat32),
                       {Values(TensorType::kFloat32, Count(c.input), static_cast<uint32_t>(50 + n))}, kSmallArena);
  }
}

TEST(ActivationNormOracleTest, L2Pool2dRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const PoolCase c = {{1, 4, 4, 1}, 2, 2, 2, 2, tflite::Padding::VALID, tflite::ActivationFunctionType::NONE};
  // TFLM has no quantized L2 pool.
  ExpectBothRefuse("l2pool_int8", L2PoolModel(c, TensorType::kInt8), {Values(TensorType::kInt8, 16, 1)},
                   "supports FLOAT32", kSmallArena);
  const PoolCase rank3 = {{4, 4, 1}, 2, 2, 2, 2, tflite::Padding::VALID, tflite::ActivationFunctionType::NONE};
  tflite::Pool2DOptionsT options;
  options.padding = tflite::Padding::VALID;
  options.filter_height = options.filter_width = options.stride_h = options.stride_w = 2;
  ExpectBothRefuse("l2pool_rank3",
                   OpModel(BuiltinOp::kL2Pool2d, MakeBuiltinOptions(options), {{TensorType::kFloat32, rank3.input}},
                           {{TensorType::kFloat32, {2, 2, 1}}}),
                   {Values(TensorType::kFloat32, 16, 1)}, "rank", kSmallArena);
}

// ---- CUMSUM --------------------------------------------------------------

tflite::BuiltinOptionsUnion CumsumOptions(bool exclusive, bool reverse) {
  tflite::CumsumOptionsT options;
  options.exclusive = exclusive;
  options.reverse = reverse;
  return MakeBuiltinOptions(options);
}

// Inputs without NaN: which of two NaNs an add keeps is the compiler's
// choice (see reduce_oracle_test.cc); infinities stay.
Bytes FloatsWithoutNans(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  const Bytes raw = Values(TensorType::kFloat32, n, seed);
  std::memcpy(v.data(), raw.data(), raw.size());
  for (float& f : v) {
    if (f != f) f = 1.25f;
  }
  return BytesOf(v);
}

struct CumsumCase {
  std::vector<int32_t> shape;
  int32_t axis;
};

const CumsumCase kCumsumCases[] = {
    {{10}, 0}, {{4, 6}, 1}, {{4, 6}, 0}, {{4, 6}, -1}, {{2, 3, 4}, 1}, {{2, 3, 4}, -3}, {{2, 3, 4, 5}, 2}, {{1, 40}, 1},
};

TEST(ActivationNormOracleTest, CumsumFloatFlagsAndAxes) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (const CumsumCase& c : kCumsumCases) {
    for (int flags = 0; flags < 4; ++flags) {
      for (bool constant_axis : {true, false}) {
        const Operand f{TensorType::kFloat32, c.shape};
        Operand axis{TensorType::kInt32, {1}};
        std::vector<Bytes> inputs = {FloatsWithoutNans(Count(c.shape), static_cast<uint32_t>(60 + n))};
        if (constant_axis) {
          axis.constant = BytesOf(std::vector<int32_t>{c.axis});
        } else {
          inputs.push_back(BytesOf(std::vector<int32_t>{c.axis}));
        }
        ExpectSameAsOracle(
            "cumsum_float_" + std::to_string(n++),
            OpModel(BuiltinOp::kCumsum, CumsumOptions((flags & 1) != 0, (flags & 2) != 0), {f, axis}, {f}), inputs,
            kSmallArena);
      }
    }
  }
  // No options: inclusive and forward.
  const Operand f{TensorType::kFloat32, {3, 5}};
  const Operand axis{TensorType::kInt32, {1}, 0, 0, BytesOf(std::vector<int32_t>{1})};
  ExpectSameAsOracle("cumsum_float_no_options", OpModel(BuiltinOp::kCumsum, kNoOptions, {f, axis}, {f}),
                     {FloatsWithoutNans(15, 3)}, kSmallArena);
}

TEST(ActivationNormOracleTest, CumsumInt8Requantizes) {
  MICROARENA_REQUIRE_ORACLE();
  // The output multiplier 2 s_in / (2^20 s_out) must stay below 1.
  const Quant quants[] = {
      {0.1f, 0, 0.1f, 0},  {0.05f, -128, 0.5f, 127}, {0.02f, 127, 0.3f, -128}, {0.37f, 12, 4.0f, -3},
      {1e-6f, 5, 1e3f, 0}, {1.0f, -7, 1e-5f, 3},     {1e-3f, 50, 0.01f, -100}, {3.0f, -128, 6.0f, 127},
  };
  int n = 0;
  for (const Quant& q : quants) {
    for (const CumsumCase& c : kCumsumCases) {
      const Operand in{TensorType::kInt8, c.shape, q.in_scale, q.in_zp};
      const Operand out{TensorType::kInt8, c.shape, q.out_scale, q.out_zp};
      const Operand axis{TensorType::kInt32, {1}, 0, 0, BytesOf(std::vector<int32_t>{c.axis})};
      const int flags = n % 4;
      ExpectSameAsOracle(
          "cumsum_int8_" + std::to_string(n),
          OpModel(BuiltinOp::kCumsum, CumsumOptions((flags & 1) != 0, (flags & 2) != 0), {in, axis}, {out}),
          {Values(TensorType::kInt8, Count(c.shape), static_cast<uint32_t>(70 + n))}, kSmallArena);
      ++n;
    }
  }
}

TEST(ActivationNormOracleTest, CumsumRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Operand axis{TensorType::kInt32, {1}, 0, 0, BytesOf(std::vector<int32_t>{1})};
  // TFLM's kernel takes FLOAT32 and INT8 only.
  for (TensorType type : {TensorType::kInt32, TensorType::kInt64, TensorType::kInt16}) {
    const Operand t{type, {2, 3}, type == TensorType::kInt16 ? 0.1f : 0.0f, 0};
    ExpectBothRefuse(std::string("cumsum_") + TensorTypeName(type),
                     OpModel(BuiltinOp::kCumsum, CumsumOptions(false, false), {t, axis}, {t}), {Values(type, 6, 1)},
                     TensorTypeName(type), kSmallArena);
  }
  const Operand f{TensorType::kFloat32, {2, 3}};
  // Axis out of range, constant or not.
  for (int32_t bad : {2, -3}) {
    ExpectBothRefuse("cumsum_axis_" + std::to_string(bad),
                     OpModel(BuiltinOp::kCumsum, kNoOptions,
                             {f, {TensorType::kInt32, {1}, 0, 0, BytesOf(std::vector<int32_t>{bad})}}, {f}),
                     {FloatsWithoutNans(6, 1)}, "out of range", kSmallArena);
    ExpectBothRefuse("cumsum_axis_input_" + std::to_string(bad),
                     OpModel(BuiltinOp::kCumsum, kNoOptions, {f, {TensorType::kInt32, {1}}}, {f}),
                     {FloatsWithoutNans(6, 1), BytesOf(std::vector<int32_t>{bad})}, "out of range", kSmallArena);
  }
  // An INT64 axis.
  ExpectBothRefuse("cumsum_axis_int64",
                   OpModel(BuiltinOp::kCumsum, kNoOptions,
                           {f, {TensorType::kInt64, {1}, 0, 0, BytesOf(std::vector<int64_t>{1})}}, {f}),
                   {FloatsWithoutNans(6, 1)}, "expected one INT32", kSmallArena);
  // An int8 output scale so fine that 2 s_in / (2^20 s_out) >= 1.
  ExpectBothRefuse("cumsum_int8_multiplier",
                   OpModel(BuiltinOp::kCumsum, kNoOptions, {{TensorType::kInt8, {2, 3}, 1.0f, 0}, axis},
                           {{TensorType::kInt8, {2, 3}, 1e-7f, 0}}),
                   {Values(TensorType::kInt8, 6, 1)}, "below 1", kSmallArena);
}

// ---- EMBEDDING_LOOKUP ----------------------------------------------------

Bytes Rows(std::vector<int32_t> rows) { return BytesOf(rows); }

TEST(ActivationNormOracleTest, EmbeddingLookupCopiesRows) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> table;
    std::vector<int32_t> rows;
  };
  // Repeated, reversed and single lookups; 2-D and higher tables.
  const Case cases[] = {
      {{5, 3}, {0, 4, 2, 2}},
      {{7, 2, 3}, {6, 0, 3}},
      {{4, 1, 2, 5}, {1}},
      {{3, 8}, {2, 1, 0, 1, 2, 0}},
  };
  int n = 0;
  for (const Case& c : cases) {
    std::vector<int32_t> out_shape = c.table;
    out_shape[0] = static_cast<int32_t>(c.rows.size());
    const Operand lookup{TensorType::kInt32, {static_cast<int32_t>(c.rows.size())}};
    for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
      const float scale = type == TensorType::kInt8 ? 0.1f : 0.0f;
      Operand table{type, c.table, scale, type == TensorType::kInt8 ? 3 : 0};
      const Operand out{type, out_shape, scale, type == TensorType::kInt8 ? -5 : 0};
      const Bytes values = Values(type, Count(c.table), static_cast<uint32_t>(80 + n));
      // Table constant (the usual model) or a graph input; lookup an input.
      ExpectSameAsOracle("embedding_" + std::to_string(n) + "_input",
                         OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, table}, {out}),
                         {Rows(c.rows), values}, kSmallArena);
      table.constant = values;
      ExpectSameAsOracle("embedding_" + std::to_string(n) + "_const",
                         OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, table}, {out}), {Rows(c.rows)},
                         kSmallArena);
      ++n;
    }
  }
}

TEST(ActivationNormOracleTest, EmbeddingLookupHybridDequantizes) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (float scale : {0.1f, 1e-6f, 0.37f, 3e4f, 1e-38f, 1.0f}) {
    const Operand lookup{TensorType::kInt32, {5}};
    const Operand table{TensorType::kInt8, {4, 64}, scale, 0, EveryInt8(256)};
    const Operand out{TensorType::kFloat32, {5, 64}};
    ExpectSameAsOracle("embedding_hybrid_" + std::to_string(n++),
                       OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, table}, {out}),
                       {Rows({3, 0, 1, 2, 3})}, kSmallArena);
  }
}

TEST(ActivationNormOracleTest, EmbeddingLookupRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Operand lookup{TensorType::kInt32, {2}};
  const Operand table{TensorType::kFloat32, {3, 4}};
  const Operand out{TensorType::kFloat32, {2, 4}};
  // Indices outside the table, from a graph input (TFLM fails at eval).
  for (int32_t bad : {3, -1}) {
    ExpectBothRefuse("embedding_index_" + std::to_string(bad),
                     OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, table}, {out}),
                     {Rows({0, bad}), Values(TensorType::kFloat32, 12, 1)}, "outside", kSmallArena);
  }
  // The hybrid form needs a zero point of 0.
  ExpectBothRefuse("embedding_hybrid_zp",
                   OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions,
                           {lookup, {TensorType::kInt8, {3, 4}, 0.1f, 2, Values(TensorType::kInt8, 12, 1)}}, {out}),
                   {Rows({0, 1})}, "zero point", kSmallArena);
  // FLOAT32 table to INT8 output, INT16 table, INT64 lookup, rank-2 lookup.
  ExpectBothRefuse(
      "embedding_float_to_int8",
      OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, table}, {{TensorType::kInt8, {2, 4}, 0.1f, 0}}),
      {Rows({0, 1}), Values(TensorType::kFloat32, 12, 1)}, "not supported", kSmallArena);
  ExpectBothRefuse("embedding_int16",
                   OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, {TensorType::kInt16, {3, 4}, 0.1f, 0}},
                           {{TensorType::kInt16, {2, 4}, 0.1f, 0}}),
                   {Rows({0, 1}), Values(TensorType::kInt16, 12, 1)}, "not supported", kSmallArena);
  ExpectBothRefuse("embedding_lookup_int64",
                   OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {{TensorType::kInt64, {2}}, table}, {out}),
                   {BytesOf(std::vector<int64_t>{0, 1}), Values(TensorType::kFloat32, 12, 1)}, "expected INT32",
                   kSmallArena);
  ExpectBothRefuse("embedding_lookup_rank2",
                   OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {{TensorType::kInt32, {2, 1}}, table}, {out}),
                   {Rows({0, 1}), Values(TensorType::kFloat32, 12, 1)}, "expected INT32", kSmallArena);
  // A 1-D table.
  ExpectBothRefuse("embedding_table_rank1",
                   OpModel(BuiltinOp::kEmbeddingLookup, kNoOptions, {lookup, {TensorType::kFloat32, {3}}},
                           {{TensorType::kFloat32, {2}}}),
                   {Rows({0, 1}), Values(TensorType::kFloat32, 3, 1)}, "rank", kSmallArena);
}

}  // namespace
}  // namespace microarena
