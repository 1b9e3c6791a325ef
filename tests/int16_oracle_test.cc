// Differential tests of the int16 ("16x8") paths of LOGISTIC, TANH, SOFTMAX,
// MUL, the pools, MEAN and the other ops that take int16 against TFLM itself
// (../shared/tools/tflm_oracle): one-op models built here run in microarena
// and in the oracle and must give the same bytes. Quantization parameters
// include the scales that send TFLM down its special paths (power-of-two
// scales, multipliers at the limits of its integer arithmetic). Expected
// values come from the oracle only; where TFLM refuses a model, both refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "microarena/report/tflm_arena.h"
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
using testing::ReduceCase;
using testing::ReducedShape;
constexpr TensorType kI16 = TensorType::kInt16;

// Every int16 value once, in a shuffled but fixed order.
Bytes AllInt16Values() {
  std::vector<int16_t> values(65536);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<int16_t>(static_cast<uint16_t>((i * 40503u + 12345u) & 0xFFFFu));
  }
  return BytesOf(values);
}

// ---------------------------------------------------------------- LOGISTIC, TANH

Bytes UnaryModel(BuiltinOp op, const std::vector<int32_t>& shape, float in_scale, int64_t in_zp, float out_scale,
                 int64_t out_zp) {
  return OpModel(op, tflite::BuiltinOptionsUnion{}, {{kI16, shape, in_scale, in_zp}},
                 {{kI16, shape, out_scale, out_zp}});
}

const char* OpName(BuiltinOp op) { return op == BuiltinOp::kLogistic ? "logistic" : "tanh"; }

TEST(Int16OracleTest, LogisticTanhEveryInputOverScales) {
  MICROARENA_REQUIRE_ORACLE();
  // 2^-12 and (TANH) 2^-11 are TFLM's power-of-two path; 2^-12 * 1.0004 is
  // within CheckedLog2's tolerance and takes it too; every other scale
  // takes the integer multiplier, including 2^-11 for LOGISTIC, scales
  // whose multiplier is above 32767 (up to TFLM's int32 limit) and tiny
  // scales whose shift reaches 31.
  const float scales[] = {1.0f / 4096, 1.0f / 2048,   1.0004f / 4096, 1.0f / 1024, 1.0f / 32768,
                          1.0f / 8192, 10.0f / 32768, 1.0f / 3000,    0.001f,      0.37f,
                          1.3333f,     2.0f,          5.3f,           1e-9f,       1e-12f};
  const float out_scales[] = {1.0f / 32768, 1.0006f / 32768};
  const Bytes input = AllInt16Values();
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kLogistic, BuiltinOp::kTanh}) {
    for (float scale : scales) {
      const float out_scale = out_scales[n % 2];
      ExpectSameAsOracle(std::string(OpName(op)) + "_" + std::to_string(n++),
                         UnaryModel(op, {65536}, scale, 0, out_scale, 0), {input}, kSmallArena);
    }
  }
}

TEST(Int16OracleTest, LogisticTanhShapes) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<std::vector<int32_t>> shapes = {{1}, {7}, {2, 3, 5}, {1, 4, 4, 3}, {2, 1, 3, 1, 2}};
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kLogistic, BuiltinOp::kTanh}) {
    for (const auto& shape : shapes) {
      ExpectSameAsOracle(std::string(OpName(op)) + "_shape_" + std::to_string(n),
                         UnaryModel(op, shape, 1.0f / 2000, 0, 1.0f / 32768, 0),
                         {Values(kI16, Count(shape), static_cast<uint32_t>(n))}, kSmallArena);
      ++n;
    }
  }
}

TEST(Int16OracleTest, LogisticTanhRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  for (BuiltinOp op : {BuiltinOp::kLogistic, BuiltinOp::kTanh}) {
    const std::string name = OpName(op);
    const Bytes input = Values(kI16, 8, 1);
    ExpectBothRefuse(name + "_in_zp", UnaryModel(op, {8}, 1.0f / 4096, 3, 1.0f / 32768, 0), {input},
                     "zero points 3 and 0; TFLM requires 0");
    ExpectBothRefuse(name + "_out_zp", UnaryModel(op, {8}, 1.0f / 4096, 0, 1.0f / 32768, -1), {input},
                     "zero points 0 and -1; TFLM requires 0");
    ExpectBothRefuse(name + "_out_scale", UnaryModel(op, {8}, 1.0f / 4096, 0, 1.0f / 65536, 0), {input},
                     "TFLM requires 2^-15");
    ExpectBothRefuse(name + "_out_not_pot", UnaryModel(op, {8}, 1.0f / 4096, 0, 1.01f / 32768, 0), {input},
                     "TFLM requires 2^-15");
    ExpectBothRefuse(name + "_int16_to_int8",
                     OpModel(op, tflite::BuiltinOptionsUnion{}, {{kI16, {8}, 1.0f / 4096, 0}},
                             {{TensorType::kInt8, {8}, 1.0f / 256, -128}}),
                     {input}, "input INT16 -> output INT8 not supported");
    // A multiplier of 10 * 12288 overflows TFLM's int32 product: we refuse.
    ExpectWeRefuse(UnaryModel(op, {8}, 10.0f, 0, 1.0f / 32768, 0), {input}, "outside TFLM's range [1, 65535]");
  }
}

// ---------------------------------------------------------------- SOFTMAX

Bytes SoftmaxModel(const std::vector<int32_t>& shape, float beta, float in_scale, int64_t in_zp, float out_scale,
                   int64_t out_zp, TensorType out_type = kI16) {
  tflite::SoftmaxOptionsT options;
  options.beta = beta;
  return OpModel(BuiltinOp::kSoftmax, MakeBuiltinOptions(options), {{kI16, shape, in_scale, in_zp}},
                 {{out_type, shape, out_scale, out_zp}});
}

// Rows whose values lie within `spread` of each other (so that many exps
// count), from a fixed generator.
Bytes NarrowInt16Values(size_t n, int32_t spread, uint32_t seed) {
  std::vector<int16_t> values(n);
  uint32_t state = seed * 2654435761u + 3;
  for (auto& v : values) {
    const int32_t r = static_cast<int32_t>(testing::NextRandom(&state) % static_cast<uint32_t>(2 * spread + 1));
    v = static_cast<int16_t>(r - spread + 1000);
  }
  return BytesOf(values);
}

TEST(Int16OracleTest, SoftmaxShapesScalesAndBetas) {
  MICROARENA_REQUIRE_ORACLE();
  struct Params {
    float beta;
    float in_scale;
    int64_t in_zp;
  };
  // Multipliers from about 2^-16 (tiny scale) to 2^13 (scale 1), both signs of shift.
  const Params params[] = {{1.0f, 10.0f / 32768, 0}, {1.0f, 1.0f / 4096, 0},   {0.5f, 0.001f, 0},
                           {2.0f, 0.0003f, 0},       {1.0f, 1e-5f, 0},        {1.0f, 1.0f, 0},
                           {1.0f, 1.0f / 6553.5f, 0}, {0.001f, 0.37f, 0}};
  const std::vector<std::vector<int32_t>> shapes = {{1, 10}, {3, 17}, {2, 2, 5}, {1, 300}, {4}, {1, 1}, {2, 1000}};
  const float out_scales[] = {1.0f / 32768, 1.0009f / 32768};
  int n = 0;
  for (const Params& p : params) {
    for (const auto& shape : shapes) {
      const Bytes input = n % 2 == 0 ? Values(kI16, Count(shape), static_cast<uint32_t>(n))
                                     : NarrowInt16Values(Count(shape), 1 + (n * 37) % 3000, static_cast<uint32_t>(n));
      ExpectSameAsOracle("softmax16_" + std::to_string(n),
                         SoftmaxModel(shape, p.beta, p.in_scale, p.in_zp, out_scales[n % 2], 0), {input}, kSmallArena);
      ++n;
    }
  }
  // Every input value against a row maximum, to read every table entry.
  ExpectSameAsOracle("softmax16_all", SoftmaxModel({256, 256}, 1.0f, 10.0f / 65535, 0, 1.0f / 32768, 0),
                     {AllInt16Values()}, size_t{4} << 20);
  ExpectSameAsOracle("softmax16_all_wide", SoftmaxModel({512, 128}, 1.0f, 20.0f / 65535, 0, 1.0f / 32768, 0),
                     {AllInt16Values()}, size_t{4} << 20);
}

TEST(Int16OracleTest, SoftmaxRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Bytes input = Values(kI16, 8, 2);
  ExpectBothRefuse("softmax16_in_zp", SoftmaxModel({1, 8}, 1.0f, 0.001f, 7, 1.0f / 32768, 0), {input},
                   "int16 input tensor 0 has zero point 7; TFLM requires 0");
  ExpectBothRefuse("softmax16_out_zp", SoftmaxModel({1, 8}, 1.0f, 0.001f, 0, 1.0f / 32768, -32768), {input},
                   "TFLM requires 1/32768 and 0");
  ExpectBothRefuse("softmax16_out_scale", SoftmaxModel({1, 8}, 1.0f, 0.001f, 0, 1.0f / 65536, 0), {input},
                   "TFLM requires 1/32768 and 0");
  ExpectBothRefuse("softmax16_to_int8", SoftmaxModel({1, 8}, 1.0f, 0.001f, 0, 1.0f / 256, -128, TensorType::kInt8),
                   {input}, "INT16 input needs an INT16 output");
}

// ---------------------------------------------------------------- MUL

tflite::BuiltinOptionsUnion MulOptions(tflite::ActivationFunctionType activation) {
  tflite::MulOptionsT options;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

TEST(Int16OracleTest, MulScalesShapesAndActivations) {
  MICROARENA_REQUIRE_ORACLE();
  struct Shapes {
    std::vector<int32_t> a, b, out;
  };
  const Shapes shapes[] = {{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
                           {{1, 4}, {3, 1}, {3, 4}},
                           {{5}, {}, {5}},
                           {{2, 1, 3, 1, 2, 2}, {1, 2, 1, 2, 1, 1}, {2, 2, 3, 2, 2, 2}},
                           {{700}, {700}, {700}}};
  struct Scales {
    float a, b, out;
  };
  // Multipliers 2^-15, 0.2, 1.2 (a left shift), 2^-30 and 0.999.
  const Scales scales[] = {{1.0f / 32768, 1.0f / 32768, 1.0f / 32768},
                           {0.001f, 0.002f, 0.00001f},
                           {0.02f, 0.03f, 0.0005f},
                           {1.0f / 32768, 1.0f / 32768, 1.0f},
                           {0.0999f, 0.01f, 0.001f}};
  const tflite::ActivationFunctionType activations[] = {
      tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
      tflite::ActivationFunctionType::RELU_N1_TO_1};
  int n = 0;
  for (const Scales& sc : scales) {
    for (const Shapes& sh : shapes) {
      const auto activation = activations[n % 4];
      ExpectSameAsOracle("mul16_" + std::to_string(n),
                         OpModel(BuiltinOp::kMul, MulOptions(activation),
                                 {{kI16, sh.a, sc.a, 0}, {kI16, sh.b, sc.b, 0}}, {{kI16, sh.out, sc.out, 0}}),
                         {Values(kI16, Count(sh.a), static_cast<uint32_t>(n)),
                          Values(kI16, Count(sh.b), static_cast<uint32_t>(n + 100))},
                         kSmallArena);
      ++n;
    }
  }
}

TEST(Int16OracleTest, MulRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const auto none = tflite::ActivationFunctionType::NONE;
  const Bytes a = Values(kI16, 4, 1);
  const Bytes b = Values(kI16, 4, 2);
  ExpectBothRefuse("mul16_zp",
                   OpModel(BuiltinOp::kMul, MulOptions(none), {{kI16, {4}, 0.01f, 3}, {kI16, {4}, 0.01f, 0}},
                           {{kI16, {4}, 0.01f, 0}}),
                   {a, b}, "have zero points 3, 0 and 0; TFLM requires 0");
  ExpectBothRefuse("mul16_out_zp",
                   OpModel(BuiltinOp::kMul, MulOptions(none), {{kI16, {4}, 0.01f, 0}, {kI16, {4}, 0.01f, 0}},
                           {{kI16, {4}, 0.01f, -5}}),
                   {a, b}, "have zero points 0, 0 and -5; TFLM requires 0");
  ExpectBothRefuse("mul16_mixed_inputs",
                   OpModel(BuiltinOp::kMul, MulOptions(none),
                           {{kI16, {4}, 0.01f, 0}, {TensorType::kInt8, {4}, 0.01f, 0}}, {{kI16, {4}, 0.01f, 0}}),
                   {a, Values(TensorType::kInt8, 4, 2)}, "types INT16, INT8 -> INT16 not supported");
  // TFLM takes an INT8 output after INT16 inputs and writes int16 values
  // into it (past its end): refused here.
  ExpectWeRefuse(OpModel(BuiltinOp::kMul, MulOptions(none), {{kI16, {4}, 0.01f, 0}, {kI16, {4}, 0.01f, 0}},
                         {{TensorType::kInt8, {4}, 0.01f, 0}}),
                 {a, b}, "types INT16, INT16 -> INT8 not supported");
}

// ---------------------------------------------------------------- pools

struct PoolCase {
  std::vector<int32_t> in;
  std::vector<int32_t> out;
  int32_t filter_h, filter_w, stride_h, stride_w;
  tflite::Padding padding;
};

tflite::BuiltinOptionsUnion PoolOptions(const PoolCase& c, tflite::ActivationFunctionType activation) {
  tflite::Pool2DOptionsT options;
  options.padding = c.padding;
  options.stride_h = c.stride_h;
  options.stride_w = c.stride_w;
  options.filter_height = c.filter_h;
  options.filter_width = c.filter_w;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

const PoolCase kPoolCases[] = {
    {{1, 5, 5, 3}, {1, 2, 2, 3}, 2, 2, 2, 2, tflite::Padding::VALID},
    {{2, 6, 7, 2}, {2, 6, 7, 2}, 3, 3, 1, 1, tflite::Padding::SAME},
    {{1, 4, 4, 1}, {1, 2, 2, 1}, 4, 4, 3, 3, tflite::Padding::SAME},
    {{1, 9, 3, 4}, {1, 4, 2, 4}, 3, 2, 2, 1, tflite::Padding::VALID},
    {{1, 16, 16, 2}, {1, 1, 1, 2}, 16, 16, 1, 1, tflite::Padding::VALID},
};

TEST(Int16OracleTest, AverageAndMaxPool) {
  MICROARENA_REQUIRE_ORACLE();
  const tflite::ActivationFunctionType activations[] = {
      tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
      tflite::ActivationFunctionType::RELU_N1_TO_1};
  struct Q {
    float scale;
    int64_t zp;
  };
  const Q qs[] = {{0.01f, 0}, {0.001f, 5}, {1.0f / 4096, -300}};
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kAveragePool2d, BuiltinOp::kMaxPool2d}) {
    for (const Q& q : qs) {
      for (const PoolCase& c : kPoolCases) {
        const auto activation = activations[n % 4];
        ExpectSameAsOracle(
            std::string(op == BuiltinOp::kAveragePool2d ? "avgpool16_" : "maxpool16_") + std::to_string(n),
            OpModel(op, PoolOptions(c, activation), {{kI16, c.in, q.scale, q.zp}}, {{kI16, c.out, q.scale, q.zp}}),
            {Values(kI16, Count(c.in), static_cast<uint32_t>(n))}, kSmallArena);
        ++n;
      }
    }
  }
}

TEST(Int16OracleTest, PoolQuantizationTolerance) {
  MICROARENA_REQUIRE_ORACLE();
  const PoolCase& c = kPoolCases[0];
  const auto none = tflite::ActivationFunctionType::NONE;
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kAveragePool2d, BuiltinOp::kMaxPool2d}) {
    for (TensorType type : {TensorType::kInt8, kI16}) {
      const std::string name = std::string(op == BuiltinOp::kAveragePool2d ? "avg" : "max") + TensorTypeName(type);
      // TFLM accepts scales within 1e-6 of each other ...
      ExpectSameAsOracle("pool_tol_" + std::to_string(n++),
                         OpModel(op, PoolOptions(c, none), {{type, c.in, 0.01f, 1}}, {{type, c.out, 0.0100005f, 1}}),
                         {Values(type, Count(c.in), 9)}, kSmallArena);
      // ... and refuses more, or another zero point.
      ExpectBothRefuse(name + "_scale",
                       OpModel(op, PoolOptions(c, none), {{type, c.in, 0.01f, 1}}, {{type, c.out, 0.010003f, 1}}),
                       {Values(type, Count(c.in), 9)}, "must share quantization");
      ExpectBothRefuse(name + "_zp",
                       OpModel(op, PoolOptions(c, none), {{type, c.in, 0.01f, 1}}, {{type, c.out, 0.01f, 2}}),
                       {Values(type, Count(c.in), 9)}, "must share quantization");
    }
  }
}

// ---------------------------------------------------------------- MEAN, REDUCE_MAX/MIN

Bytes ReduceModel(BuiltinOp op, const ReduceCase& c, bool keep_dims, float in_scale, int64_t in_zp, float out_scale,
                  int64_t out_zp) {
  tflite::ReducerOptionsT options;
  options.keep_dims = keep_dims;
  return OpModel(op, MakeBuiltinOptions(options),
                 {{kI16, c.shape, in_scale, in_zp},
                  {TensorType::kInt32, {static_cast<int32_t>(c.axes.size())}, 0, 0, BytesOf(c.axes)}},
                 {{kI16, ReducedShape(c, keep_dims), out_scale, out_zp}});
}

TEST(Int16OracleTest, MeanAxesAndScales) {
  MICROARENA_REQUIRE_ORACLE();
  const ReduceCase cases[] = {
      {{10}, {0}},         {{4, 6}, {1}},          {{4, 6}, {-2}},      {{2, 3, 4}, {0, 2}},
      {{2, 3, 4}, {1, 1}}, {{1, 5, 5, 3}, {1, 2}}, {{2, 3, 4, 5}, {3}}, {{2, 2, 3, 2, 3}, {4, 0}},
      {{1, 300}, {1}}};
  struct Scales {
    float in;
    int64_t in_zp;
    float out;
    int64_t out_zp;
  };
  // Same parameters, a coarser output, a finer one (saturates), zero points.
  const Scales scales[] = {
      {0.001f, 0, 0.001f, 0}, {0.002f, 5, 0.05f, -3}, {0.01f, -300, 0.0001f, 0}, {1.0f / 32768, 0, 1.0f / 32768, 0}};
  int n = 0;
  for (const Scales& s : scales) {
    for (const ReduceCase& c : cases) {
      const bool keep = n % 2 == 0;
      ExpectSameAsOracle("mean16_" + std::to_string(n),
                         ReduceModel(BuiltinOp::kMean, c, keep, s.in, s.in_zp, s.out, s.out_zp),
                         {Values(kI16, Count(c.shape), static_cast<uint32_t>(n))}, kSmallArena);
      ++n;
    }
  }
}

TEST(Int16OracleTest, ReduceMaxMinInt16AreRefusedByBoth) {
  MICROARENA_REQUIRE_ORACLE();
  const ReduceCase c = {{2, 3}, {1}};
  ExpectBothRefuse("rmax16", ReduceModel(BuiltinOp::kReduceMax, c, false, 0.1f, 0, 0.1f, 0), {Values(kI16, 6, 1)},
                   "(REDUCE_MAX): input INT16 -> output INT16 not supported");
  ExpectBothRefuse("rmin16", ReduceModel(BuiltinOp::kReduceMin, c, true, 0.1f, 0, 0.1f, 0), {Values(kI16, 6, 1)},
                   "(REDUCE_MIN): input INT16 -> output INT16 not supported");
}

// ---------------------------------------------------------------- HARD_SWISH

TEST(Int16OracleTest, HardSwishInt16IsRefusedByBoth) {
  MICROARENA_REQUIRE_ORACLE();
  ExpectBothRefuse(
      "hswish16",
      OpModel(BuiltinOp::kHardSwish, tflite::BuiltinOptionsUnion{}, {{kI16, {8}, 0.01f, 0}}, {{kI16, {8}, 0.01f, 0}}),
      {Values(kI16, 8, 1)}, "input INT16 -> output INT16 not supported");
}

// ------------------------------------- ops whose int16 forms existed: oracle cases

TEST(Int16OracleTest, ConcatenationInt16) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<std::vector<int32_t>> inputs;
    std::vector<int32_t> out;
    int32_t axis;
  };
  const Case cases[] = {{{{2, 3}, {2, 5}}, {2, 8}, 1},
                        {{{1, 2, 2, 3}, {2, 2, 2, 3}, {1, 2, 2, 3}}, {4, 2, 2, 3}, 0},
                        {{{3, 4, 2}, {3, 4, 1}}, {3, 4, 3}, -1},
                        {{{7}}, {7}, 0}};
  int n = 0;
  for (const Case& c : cases) {
    tflite::ConcatenationOptionsT options;
    options.axis = c.axis;
    std::vector<Operand> inputs;
    std::vector<Bytes> data;
    for (const auto& shape : c.inputs) {
      inputs.push_back({kI16, shape, 0.005f, 0});
      data.push_back(Values(kI16, Count(shape), static_cast<uint32_t>(n * 10 + inputs.size())));
    }
    ExpectSameAsOracle(
        "concat16_" + std::to_string(n++),
        OpModel(BuiltinOp::kConcatenation, MakeBuiltinOptions(options), inputs, {{kI16, c.out, 0.005f, 0}}), data,
        kSmallArena);
  }
  // TFLM takes int16 only with zero point 0.
  tflite::ConcatenationOptionsT options;
  options.axis = 1;
  const std::vector<Bytes> data = {Values(kI16, 6, 1), Values(kI16, 4, 2)};
  auto model = [&](float scale0, int64_t zp0, float scale1, int64_t zp1, float out_scale, int64_t out_zp) {
    return OpModel(BuiltinOp::kConcatenation, MakeBuiltinOptions(options),
                   {{kI16, {2, 3}, scale0, zp0}, {kI16, {2, 2}, scale1, zp1}}, {{kI16, {2, 5}, out_scale, out_zp}});
  };
  ExpectBothRefuse("concat16_zp", model(0.005f, -7, 0.005f, -7, 0.005f, -7), data, "zero point -7; TFLM requires 0");
  ExpectBothRefuse("concat16_in_zp", model(0.005f, 0, 0.005f, 3, 0.005f, 0), data, "different quantization");
  // TFLM runs int16 inputs of another scale, copying their bytes unscaled
  // (wrong values); refused here, as the kernel rescales only int8.
  ExpectWeRefuse(model(0.005f, 0, 0.01f, 0, 0.005f, 0), data, "different quantization");
}

TEST(Int16OracleTest, PadInt16) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> in;
    std::vector<int32_t> paddings;
    int64_t zp;
  };
  const Case cases[] = {{{2, 3}, {1, 2, 0, 3}, 0},
                        {{1, 3, 3, 2}, {0, 0, 1, 1, 2, 0, 0, 1}, -1000},
                        {{4}, {3, 0}, 32767},
                        {{2, 1, 2}, {1, 1, 1, 1, 1, 1}, 5}};
  int n = 0;
  for (const Case& c : cases) {
    std::vector<int32_t> out = c.in;
    for (size_t d = 0; d < out.size(); ++d) out[d] += c.paddings[2 * d] + c.paddings[2 * d + 1];
    ExpectSameAsOracle(
        "pad16_" + std::to_string(n),
        OpModel(BuiltinOp::kPad, MakeBuiltinOptions(tflite::PadOptionsT{}),
                {{kI16, c.in, 0.01f, c.zp},
                 {TensorType::kInt32, {static_cast<int32_t>(c.in.size()), 2}, 0, 0, BytesOf(c.paddings)}},
                {{kI16, out, 0.01f, c.zp}}),
        {Values(kI16, Count(c.in), static_cast<uint32_t>(n))}, kSmallArena);
    ++n;
  }
}

TEST(Int16OracleTest, StridedSliceInt16) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> in, begin, end, strides, out;
    int32_t begin_mask, end_mask, shrink_mask;
  };
  const Case cases[] = {{{10}, {1}, {9}, {2}, {4}, 0, 0, 0},
                        {{4, 6}, {3, 0}, {0, 6}, {-1, 2}, {3, 3}, 0, 0, 0},
                        {{2, 3, 4}, {0, 1, 0}, {2, 2, 4}, {1, 1, 3}, {2, 2}, 0, 0, 2},
                        {{3, 5}, {1, 1}, {0, 0}, {1, 1}, {2, 4}, 0, 3, 0}};
  int n = 0;
  for (const Case& c : cases) {
    tflite::StridedSliceOptionsT options;
    options.begin_mask = c.begin_mask;
    options.end_mask = c.end_mask;
    options.shrink_axis_mask = c.shrink_mask;
    const auto rank = static_cast<int32_t>(c.in.size());
    ExpectSameAsOracle("sslice16_" + std::to_string(n),
                       OpModel(BuiltinOp::kStridedSlice, MakeBuiltinOptions(options),
                               {{kI16, c.in, 0.02f, 3},
                                {TensorType::kInt32, {rank}, 0, 0, BytesOf(c.begin)},
                                {TensorType::kInt32, {rank}, 0, 0, BytesOf(c.end)},
                                {TensorType::kInt32, {rank}, 0, 0, BytesOf(c.strides)}},
                               {{kI16, c.out, 0.02f, 3}}),
                       {Values(kI16, Count(c.in), static_cast<uint32_t>(n))}, kSmallArena);
    ++n;
  }
}

// Values() floats without NaN and infinities (their conversion to an integer
// is undefined in TFLM's C++).
Bytes FiniteFloats(size_t n, uint32_t seed) {
  Bytes bytes = Values(TensorType::kFloat32, n, seed);
  for (size_t i = 0; i + sizeof(float) <= bytes.size(); i += sizeof(float)) {
    float value;
    std::memcpy(&value, bytes.data() + i, sizeof(value));
    if (!std::isfinite(value) || std::fabs(value) > 1e6f) value = 1.5f;
    std::memcpy(bytes.data() + i, &value, sizeof(value));
  }
  return bytes;
}

TEST(Int16OracleTest, QuantizeDequantizeInt16) {
  MICROARENA_REQUIRE_ORACLE();
  struct Q {
    float scale;
    int64_t zp;
  };
  const Q qs[] = {{1.0f / 32768, 0}, {0.01f, 0}, {0.37f, -12000}, {1e-4f, 25}};
  int n = 0;
  for (const Q& q : qs) {
    ExpectSameAsOracle("dequant16_" + std::to_string(n),
                       OpModel(BuiltinOp::kDequantize, tflite::BuiltinOptionsUnion{}, {{kI16, {70}, q.scale, q.zp}},
                               {{TensorType::kFloat32, {70}}}),
                       {Values(kI16, 70, static_cast<uint32_t>(n))}, kSmallArena);
    ExpectSameAsOracle("quant16_" + std::to_string(n),
                       OpModel(BuiltinOp::kQuantize, tflite::BuiltinOptionsUnion{}, {{TensorType::kFloat32, {70}}},
                               {{kI16, {70}, q.scale, q.zp}}),
                       {FiniteFloats(70, static_cast<uint32_t>(n))}, kSmallArena);
    // int16 -> int16 and int16 -> int8 requantization.
    ExpectSameAsOracle("requant16_" + std::to_string(n),
                       OpModel(BuiltinOp::kQuantize, tflite::BuiltinOptionsUnion{}, {{kI16, {70}, q.scale, q.zp}},
                               {{kI16, {70}, q.scale * 1.7f, q.zp / 2}}),
                       {Values(kI16, 70, static_cast<uint32_t>(n))}, kSmallArena);
    ExpectSameAsOracle("requant16_8_" + std::to_string(n),
                       OpModel(BuiltinOp::kQuantize, tflite::BuiltinOptionsUnion{}, {{kI16, {70}, q.scale, q.zp}},
                               {{TensorType::kInt8, {70}, q.scale * 300.0f, 3}}),
                       {Values(kI16, 70, static_cast<uint32_t>(n))}, kSmallArena);
    ++n;
  }
}

// ------------------------------------- TFLM arena predictor (plan --runtime tflm)

TEST(Int16OracleTest, TflmArenaPredictionOfInt16FormsMatchesTheOracle) {
  MICROARENA_REQUIRE_ORACLE();
  const auto none = tflite::ActivationFunctionType::NONE;
  tflite::SoftmaxOptionsT softmax;
  softmax.beta = 1.0f;
  const PoolCase& pool = kPoolCases[1];
  const std::vector<std::pair<std::string, Bytes>> models = {
      {"logistic", UnaryModel(BuiltinOp::kLogistic, {1, 40}, 1.0f / 3000, 0, 1.0f / 32768, 0)},
      {"tanh", UnaryModel(BuiltinOp::kTanh, {2, 3, 7}, 1.0f / 4096, 0, 1.0f / 32768, 0)},
      {"softmax", SoftmaxModel({3, 50}, 1.0f, 0.001f, 0, 1.0f / 32768, 0)},
      {"mul", OpModel(BuiltinOp::kMul, MulOptions(none), {{kI16, {2, 5}, 0.01f, 0}, {kI16, {1, 5}, 0.02f, 0}},
                      {{kI16, {2, 5}, 0.001f, 0}})},
      {"avgpool", OpModel(BuiltinOp::kAveragePool2d, PoolOptions(pool, none), {{kI16, pool.in, 0.01f, 3}},
                          {{kI16, pool.out, 0.01f, 3}})},
      {"maxpool", OpModel(BuiltinOp::kMaxPool2d, PoolOptions(pool, none), {{kI16, pool.in, 0.01f, 3}},
                          {{kI16, pool.out, 0.01f, 3}})},
      {"mean", ReduceModel(BuiltinOp::kMean, {{2, 3, 4, 5}, {1, 2}}, true, 0.01f, 2, 0.02f, -1)},
  };
  for (const auto& [name, model] : models) {
    SCOPED_TRACE(name);
    std::map<std::string, size_t> truth = testing::OracleSummary(name, model);
    ASSERT_EQ(truth.count("min_arena_bytes"), 1u);
    Result<ModelView> view = LoadModel(Span<const uint8_t>(model.data(), model.size()));
    ASSERT_TRUE(view.ok());
    Result<report::TflmArenaPrediction> p = report::PredictTflmArena(*view, report::TflmHostLayout());
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->min_arena_bytes, truth["min_arena_bytes"]);
    EXPECT_EQ(p->arena_used_bytes, truth["arena_used_bytes"]);
    EXPECT_EQ(p->tail_bytes, truth["tail_bytes"]);
  }
}

}  // namespace
}  // namespace microarena
