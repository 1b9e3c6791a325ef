// Differential tests of the unary math kernels (ABS, NEG, SQRT, RSQRT,
// SQUARE, EXP, LOG, SIN, COS, CEIL, FLOOR, ROUND), int8 ABS and the logical
// ops (LOGICAL_NOT/AND/OR, with broadcasting): one-op models run by TFLM
// (../shared/tools/tflm_oracle) and by microarena, output bytes compared.
// Inputs cover signed zeros, halves (rounding), negatives (NaN from LOG and
// SQRT), infinities, NaN, denormals and random bit patterns, so the libm
// calls must match TFLM's bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/support/op_oracle_util.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::Bytes;
using testing::ExpectSameAsOracle;

using testing::kSmallArena;
using testing::OneOp;
using testing::Outcome;
using testing::RunOracleOn;
using testing::RunOursOn;


// Special values, then a sweep, then random bit patterns (NaN payloads too).
std::vector<float> FloatInputs() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f,   -0.0f,   1.0f,    -1.0f,   0.5f,     1.5f,     2.5f,     3.5f,    -0.5f,
                          -1.5f,  -2.5f,   -3.5f,   0.49999997f, -0.49999997f, 3.7f, -3.7f, 2.0f,   -2.0f,
                          1e-40f, -1e-40f, 1e-30f,  1e30f,   -1e30f,   88.72f,   89.0f,    -87.3f,  -104.0f,
                          100.0f, -100.0f, 1e10f,   -1e10f,  3.14159265f, 1000.0f, 1e6f,   8388607.5f,
                          -8388607.5f, 8388608.0f, 16777217.0f, inf, -inf,
                          std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                          std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min()};
  for (int i = -400; i <= 400; ++i) v.push_back(static_cast<float>(i) * 0.0625f + 0.001f * static_cast<float>(i % 7));
  uint32_t state = 12345;
  for (int i = 0; i < 2048; ++i) {
    state = state * 1664525u + 1013904223u;
    float f = 0.0f;
    std::memcpy(&f, &state, sizeof(f));
    v.push_back(f);
  }
  return v;
}

Bytes FloatBytes(const std::vector<float>& values) { return BytesOf(values); }

Bytes UnaryFloatModel(BuiltinOp op, std::vector<int32_t> shape) {
  OneOp m;
  m.FloatInput(shape);
  return m.Finish(op, tflite::BuiltinOptionsUnion{}, TensorType::kFloat32, shape, 0.0f, 0);
}

struct NamedOp {
  BuiltinOp op;
  const char* name;
};

const NamedOp kFloatOps[] = {
    {BuiltinOp::kAbs, "abs"},   {BuiltinOp::kNeg, "neg"},     {BuiltinOp::kSqrt, "sqrt"},
    {BuiltinOp::kRsqrt, "rsqrt"}, {BuiltinOp::kSquare, "square"}, {BuiltinOp::kExp, "exp"},
    {BuiltinOp::kLog, "log"},   {BuiltinOp::kSin, "sin"},     {BuiltinOp::kCos, "cos"},
    {BuiltinOp::kCeil, "ceil"}, {BuiltinOp::kFloor, "floor"}, {BuiltinOp::kRound, "round"},
};

TEST(UnaryMathOracleTest, FloatOpsMatchTflmOnSpecialAndRandomValues) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<float> values = FloatInputs();
  for (const NamedOp& op : kFloatOps) {
    ExpectSameAsOracle(std::string("unary_") + op.name, UnaryFloatModel(op.op, {static_cast<int32_t>(values.size())}),
                       {FloatBytes(values)}, kSmallArena);
  }
}

TEST(UnaryMathOracleTest, FloatOpsMatchTflmOnRank4) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<float> values;
  for (int i = 0; i < 2 * 3 * 4 * 5; ++i) values.push_back(static_cast<float>(i - 60) * 0.25f);
  for (const NamedOp& op : kFloatOps) {
    ExpectSameAsOracle(std::string("unary4d_") + op.name, UnaryFloatModel(op.op, {2, 3, 4, 5}), {FloatBytes(values)},
                       kSmallArena);
  }
}

TEST(UnaryMathOracleTest, RoundIsHalfToEvenWithTflmSigns) {
  MICROARENA_REQUIRE_ORACLE();
  // Known answers too, so a change in both runtimes would still be caught.
  const std::vector<float> in = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, -0.0f, 0.49999997f};
  const std::vector<float> want = {0.0f, 2.0f, 2.0f, 0.0f, -2.0f, -2.0f, -0.0f, 0.0f};
  const Bytes model = UnaryFloatModel(BuiltinOp::kRound, {8});
  ExpectSameAsOracle("round_halves", model, {FloatBytes(in)}, kSmallArena);
  const Outcome ours = RunOursOn(model, {FloatBytes(in)});
  ASSERT_TRUE(ours.ok) << ours.error;
  EXPECT_EQ(ours.outputs[0], FloatBytes(want));  // -0.5 -> +0, as TFLite's RoundToNearest
}

Bytes EveryInt8() {
  Bytes bytes(256);
  for (size_t i = 0; i < 256; ++i) bytes[i] = static_cast<uint8_t>(i + 128);
  return bytes;
}

void ExpectWeRefuse(const Bytes& model, const std::vector<Bytes>& inputs, const std::string& fragment) {
  const Outcome ours = RunOursOn(model, inputs);
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find(fragment), std::string::npos) << ours.error;
}

// Every 97th int16 value from INT16_MIN, the ends and the small ones.
Bytes SpreadInt16() {
  std::vector<int16_t> values;
  for (int32_t v = INT16_MIN; v <= INT16_MAX; v += 97) values.push_back(static_cast<int16_t>(v));
  for (int32_t v = -40; v <= 40; ++v) values.push_back(static_cast<int16_t>(v));
  values.push_back(INT16_MAX);
  return BytesOf(values);
}

Bytes Int16UnaryModel(BuiltinOp op, float in_scale, int64_t in_zp, float out_scale, int64_t out_zp) {
  OneOp m;
  const int32_t count = static_cast<int32_t>(SpreadInt16().size() / 2);
  m.Input(TensorType::kInt16, {count}, in_scale, in_zp);
  return m.Finish(op, tflite::BuiltinOptionsUnion{}, TensorType::kInt16, {count}, out_scale, out_zp);
}

// int16 ABS, RELU and RELU6, which TFLM runs: ABS and RELU rescale by the
// scales' ratio (divided in float) with both zero points 0 (TFLM refuses
// others, as here); RELU6 clamps to the input's quantized [0, 6] whatever
// the output's quantization.
TEST(UnaryMathOracleTest, Int16AbsReluRelu6AsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const float ratios[][2] = {{0.5f, 0.4f}, {0.1f, 0.1f}, {0.03f, 0.024f}, {1e-3f, 0.5f}, {0.25f, 0.01f}};
  int n = 0;
  for (const auto& r : ratios) {
    for (BuiltinOp op : {BuiltinOp::kAbs, BuiltinOp::kRelu}) {
      ExpectSameAsOracle("int16_unary_" + std::to_string(n++), Int16UnaryModel(op, r[0], 0, r[1], 0),
                         {SpreadInt16()}, kSmallArena);
    }
    for (int64_t zp : {int64_t{0}, int64_t{3}, int64_t{-100}}) {
      ExpectSameAsOracle("int16_relu6_" + std::to_string(n++), Int16UnaryModel(BuiltinOp::kRelu6, r[0], zp, r[1], -zp),
                         {SpreadInt16()}, kSmallArena);
    }
  }
  // Without quantization: int16 ABS is |x| cast back (INT16_MIN stays), and
  // RELU6 never reads the output's quantization (int8 and int16).
  const auto plain = [](TensorType type, BuiltinOp op, float in_scale, int32_t count) {
    return testing::OpModel(op, {}, {{type, {count}, in_scale, 0}}, {{type, {count}, 0.0f, 0}});
  };
  const int32_t count = static_cast<int32_t>(SpreadInt16().size() / 2);
  ExpectSameAsOracle("int16_abs_plain", plain(TensorType::kInt16, BuiltinOp::kAbs, 0.0f, count), {SpreadInt16()},
                     kSmallArena);
  ExpectSameAsOracle("int16_relu6_plain_out", plain(TensorType::kInt16, BuiltinOp::kRelu6, 0.05f, count),
                     {SpreadInt16()}, kSmallArena);
  ExpectSameAsOracle("int8_relu6_plain_out", plain(TensorType::kInt8, BuiltinOp::kRelu6, 0.05f, 256), {EveryInt8()},
                     kSmallArena);
  // A scale without a zero point is no quantization to TFLM's loader, so
  // ABS is |x| here too (rescaling by 0.5 / 0.2 would change every output).
  testing::Operand scale_only_in{TensorType::kInt16, {count}, 0.5f, 0};
  scale_only_in.scale_only = true;
  ExpectSameAsOracle("int16_abs_scale_only",
                     testing::OpModel(BuiltinOp::kAbs, {}, {scale_only_in}, {{TensorType::kInt16, {count}, 0.2f, 0}}),
                     {SpreadInt16()}, kSmallArena);
  // A zero point int8 could not hold is named as int16's rule.
  ExpectWeRefuse(Int16UnaryModel(BuiltinOp::kAbs, 0.5f, 300, 0.4f, 0), {SpreadInt16()}, "have zero points 300");
  for (BuiltinOp op : {BuiltinOp::kAbs, BuiltinOp::kRelu}) {
    for (int64_t zp : {int64_t{3}, int64_t{-1}}) {
      const Bytes in_zp = Int16UnaryModel(op, 0.5f, zp, 0.4f, 0);
      EXPECT_FALSE(RunOracleOn("int16_zp_in_" + std::to_string(n), in_zp, {SpreadInt16()}, kSmallArena).ok);
      ExpectWeRefuse(in_zp, {SpreadInt16()}, "have zero points");
      const Bytes out_zp = Int16UnaryModel(op, 0.5f, 0, 0.4f, zp);
      EXPECT_FALSE(RunOracleOn("int16_zp_out_" + std::to_string(n++), out_zp, {SpreadInt16()}, kSmallArena).ok);
      ExpectWeRefuse(out_zp, {SpreadInt16()}, "have zero points");
    }
  }
}

// An int8 unary op's input and output quantization.
struct ScaleCase {
  float in_scale;
  int64_t in_zp;
  float out_scale;
  int64_t out_zp;
};

Bytes AbsInt8Model(float in_scale, int64_t in_zp, float out_scale, int64_t out_zp) {
  OneOp m;
  m.Input(TensorType::kInt8, {256}, in_scale, in_zp);
  return m.Finish(BuiltinOp::kAbs, tflite::BuiltinOptionsUnion{}, TensorType::kInt8, {256}, out_scale, out_zp);
}

TEST(UnaryMathOracleTest, AbsInt8RequantizesAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const ScaleCase cases[] = {
      {0.1f, 0, 0.1f, 0},      {0.1f, -128, 0.1f, -128}, {0.1f, 127, 0.1f, 5},     {0.1f, 3, 0.05f, -128},
      {0.05f, -7, 0.1f, 0},    {0.02f, 127, 0.3f, -100}, {1.0f, -128, 1e-3f, 127}, {0.37f, 12, 0.0123f, -3},
      {0.5f, 0, 0.25f, -128},  {1e-3f, 50, 1.0f, 0},
      // Ratios that float and double divide differently (0.5f / 0.4f is 1.25
      // in float, 1.2499999814 from the doubles): TFLM divides in float.
      {0.5f, 0, 0.4f, -3},     {0.03f, 2, 0.024f, -10},  {0.25f, 0, 0.2f, 0},
  };
  int n = 0;
  for (const ScaleCase& c : cases) {
    ExpectSameAsOracle("abs_int8_" + std::to_string(n++), AbsInt8Model(c.in_scale, c.in_zp, c.out_scale, c.out_zp),
                       {EveryInt8()}, kSmallArena);
  }
}

// int8 RSQRT: every value from the zero point up (TFLM fails below it),
// zero points at both ends, output scales that keep, saturate and flush.
TEST(UnaryMathOracleTest, RsqrtInt8AsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const ScaleCase cases[] = {
      {0.1f, -128, 0.02f, -128}, {0.1f, 0, 0.01f, 0},      {0.05f, -5, 0.1f, 3},   {0.5f, 100, 0.004f, -100},
      {1e-3f, 127, 0.5f, 0},     {0.02f, -128, 0.3f, 7},   {2.0f, -60, 1e-3f, -128}, {0.37f, 12, 0.0123f, -3},
      {1e-4f, -128, 100.0f, 127},
  };
  int n = 0;
  for (const ScaleCase& c : cases) {
    // 256 inputs walking every value from the zero point to 127.
    const auto first = static_cast<int32_t>(c.in_zp);
    Bytes input(256);
    for (int32_t i = 0; i < 256; ++i) input[static_cast<size_t>(i)] = static_cast<uint8_t>(first + i % (128 - first));
    OneOp m;
    m.Input(TensorType::kInt8, {256}, c.in_scale, c.in_zp);
    ExpectSameAsOracle("rsqrt_int8_" + std::to_string(n++),
                       m.Finish(BuiltinOp::kRsqrt, tflite::BuiltinOptionsUnion{}, TensorType::kInt8, {256},
                                c.out_scale, c.out_zp),
                       {input}, kSmallArena);
  }
  // Input scale 1, output scale 8192: the multiplier 2^-13 needs a right
  // shift of 32 after the 2^20 scaling, undefined in TFLM; refused here.
  {
    OneOp big;
    big.Input(TensorType::kInt8, {4}, 1.0f, 0);
    ExpectWeRefuse(big.Finish(BuiltinOp::kRsqrt, tflite::BuiltinOptionsUnion{}, TensorType::kInt8, {4}, 8192.0f, 0),
                   {Bytes{1, 2, 3, 4}}, "needs a right shift of 32 after RSQRT's 2^20 scaling");
  }
  // One value below the zero point fails the Invoke in both.
  OneOp m;
  m.Input(TensorType::kInt8, {4}, 0.1f, 10);
  testing::ExpectBothRefuse("rsqrt_int8_negative",
                            m.Finish(BuiltinOp::kRsqrt, tflite::BuiltinOptionsUnion{}, TensorType::kInt8, {4}, 0.1f, 0),
                            {Bytes{20, 30, 9, 40}}, "only defined for values >= 0: element 2 is 9");
}

// BOOL activations: no quantization tables.
int32_t BoolTensor(OneOp* m, const std::string& name, std::vector<int32_t> shape) {
  return m->builder.AddTensor({name, TensorType::kBool, std::move(shape), 0, {}});
}

Bytes LogicalModel(BuiltinOp op, const std::vector<std::vector<int32_t>>& input_shapes,
                   std::vector<int32_t> out_shape) {
  OneOp m;
  for (const auto& shape : input_shapes) {
    const int32_t t = BoolTensor(&m, "in" + std::to_string(m.graph_inputs.size()), shape);
    m.graph_inputs.push_back(t);
    m.op_inputs.push_back(t);
  }
  const int32_t out = BoolTensor(&m, "out", std::move(out_shape));
  OperatorSpec spec;
  spec.op = op;
  spec.inputs = m.op_inputs;
  spec.outputs = {out};
  m.builder.AddOperator(std::move(spec));
  m.builder.SetInputs(m.graph_inputs);
  m.builder.SetOutputs({out});
  return m.builder.Build();
}

size_t Count(const std::vector<int32_t>& shape) {
  size_t n = 1;
  for (int32_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// 0/1 bytes, a different pattern per seed.
Bytes BoolBytes(size_t n, uint32_t seed) {
  Bytes bytes(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    bytes[i] = static_cast<uint8_t>((seed >> 16) & 1u);
  }
  return bytes;
}

TEST(UnaryMathOracleTest, LogicalNotMatchesTflm) {
  MICROARENA_REQUIRE_ORACLE();
  ExpectSameAsOracle("logical_not", LogicalModel(BuiltinOp::kLogicalNot, {{2, 3, 5}}, {2, 3, 5}),
                     {BoolBytes(30, 7)}, kSmallArena);
}

TEST(UnaryMathOracleTest, LogicalAndOrBroadcastAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> a;
    std::vector<int32_t> b;
    std::vector<int32_t> out;
  };
  const Case cases[] = {
      {{2, 3}, {2, 3}, {2, 3}},
      {{2, 3}, {3}, {2, 3}},
      {{1}, {5}, {5}},
      {{}, {2, 2}, {2, 2}},
      {{2, 1, 3}, {1, 4, 1}, {2, 4, 3}},
      {{2, 1, 3, 1}, {1, 2, 1, 4}, {2, 2, 3, 4}},
      {{4, 1}, {1, 1, 1, 4}, {1, 1, 4, 4}},
  };
  int n = 0;
  for (const Case& c : cases) {
    for (BuiltinOp op : {BuiltinOp::kLogicalAnd, BuiltinOp::kLogicalOr}) {
      const std::string name = std::string(op == BuiltinOp::kLogicalAnd ? "logical_and_" : "logical_or_") +
                               std::to_string(n);
      ExpectSameAsOracle(name, LogicalModel(op, {c.a, c.b}, c.out),
                         {BoolBytes(Count(c.a), 11 + n), BoolBytes(Count(c.b), 97 + n)}, kSmallArena);
    }
    ++n;
  }
}


TEST(UnaryMathOracleTest, UnsupportedTypesAreRefusedClearly) {
  MICROARENA_REQUIRE_ORACLE();
  // int8 NEG: TFLM refuses it too (float32 only).
  {
    OneOp m;
    m.Input(TensorType::kInt8, {4}, 0.1f, 0);
    const Bytes model = m.Finish(BuiltinOp::kNeg, tflite::BuiltinOptionsUnion{}, TensorType::kInt8, {4}, 0.1f, 0);
    const std::vector<Bytes> inputs = {Bytes{1, 2, 3, 4}};
    EXPECT_FALSE(RunOracleOn("neg_int8", model, inputs, kSmallArena).ok);
    ExpectWeRefuse(model, inputs, "INT8 -> output INT8 not supported (FLOAT32 only");
  }
  // int8 SQRT (TFLM has int8 RSQRT only; RsqrtInt8AsTflm).
  {
    OneOp m;
    m.Input(TensorType::kInt8, {4}, 0.1f, 0);
    ExpectWeRefuse(m.Finish(BuiltinOp::kSqrt, tflite::BuiltinOptionsUnion{}, TensorType::kInt8, {4}, 0.1f, 0),
                   {Bytes{1, 2, 3, 4}}, "(SQRT): input INT8 -> output INT8 not supported");
  }
  {
    OneOp m;
    m.Input(TensorType::kInt16, {2}, 0.1f, 0);
    ExpectWeRefuse(m.Finish(BuiltinOp::kSqrt, tflite::BuiltinOptionsUnion{}, TensorType::kInt16, {2}, 0.1f, 0),
                   {Bytes{1, 0, 2, 0}}, "INT16 -> output INT16 not supported (FLOAT32 only");
  }
  // Float LOGICAL_AND: BOOL only.
  {
    OneOp m;
    m.FloatInput({2});
    m.FloatInput({2});
    ExpectWeRefuse(m.Finish(BuiltinOp::kLogicalAnd, tflite::BuiltinOptionsUnion{}, TensorType::kFloat32, {2}, 0, 0),
                   {FloatBytes({1, 0}), FloatBytes({1, 1})}, "is FLOAT32; only BOOL is supported");
  }
}

}  // namespace
}  // namespace microarena
