// Differential tests of MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, DIV, FLOOR_DIV
// and FLOOR_MOD against TFLM itself (../shared/tools/tflm_oracle): one-op
// models in every type TFLM's kernels accept, same shapes and broadcasts,
// run by both; the output bytes must be equal. Every expected value comes
// from the oracle. Inputs include each type's extremes, negative values
// (floor ops), zero divisors where TFLM computes an answer, and float
// specials (signed zeros, infinities, NaN).
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
using testing::Outcome;
using testing::RunOracleOn;
using testing::RunOursOn;

// These models are small: the oracle runs faster in a small arena.
using testing::kSmallArena;

using testing::Count;
using testing::ExpectBothRefuse;
using testing::Operand;
using testing::Values;

Bytes BinaryModel(BuiltinOp op, tflite::BuiltinOptionsUnion options, const Operand& a, const Operand& b,
                  const Operand& out) {
  return testing::OpModel(op, std::move(options), {a, b}, {out});
}

struct Shapes {
  std::vector<int32_t> a;
  std::vector<int32_t> b;
  std::vector<int32_t> out;
};

// Same shapes, a vector against a matrix either way, both inputs repeated,
// scalar operands, rank 5 and 6.
const Shapes kShapes[] = {
    {{3, 17}, {3, 17}, {3, 17}},
    {{2, 3, 8}, {8}, {2, 3, 8}},
    {{8}, {2, 3, 8}, {2, 3, 8}},
    {{2, 1, 5}, {1, 4, 1}, {2, 4, 5}},
    {{}, {2, 6}, {2, 6}},
    {{2, 6}, {1}, {2, 6}},
    {{1, 2, 1, 3, 4}, {2, 1, 5, 1, 1}, {2, 2, 5, 3, 4}},
    {{2, 1, 2, 1, 3, 1}, {1, 2, 1, 2, 1, 3}, {2, 2, 2, 2, 3, 3}},
};

void ExpectBinarySame(const std::string& name, BuiltinOp op, tflite::BuiltinOptionsUnion options, const Operand& a,
                      const Operand& b, const Operand& out, bool nonzero_divisor = false) {
  ExpectSameAsOracle(name, BinaryModel(op, std::move(options), a, b, out),
                     {Values(a.type, Count(a.shape), 1), Values(b.type, Count(b.shape), 2, nonzero_divisor)},
                     kSmallArena);
}

const char* TypeSuffix(TensorType type) { return TensorTypeName(type); }

TEST(BinaryMathOracleTest, MaximumMinimumAllTypesAndBroadcasts) {
  MICROARENA_REQUIRE_ORACLE();
  const TensorType types[] = {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32,
                              TensorType::kInt64};
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kMaximum, BuiltinOp::kMinimum}) {
    for (TensorType type : types) {
      // Quantized types keep their parameters; TFLM compares raw values.
      const float scale = type == TensorType::kInt8 || type == TensorType::kInt16 ? 0.05f : 0.0f;
      for (const Shapes& s : kShapes) {
        ExpectBinarySame(
            std::string(op == BuiltinOp::kMaximum ? "max_" : "min_") + TypeSuffix(type) + "_" + std::to_string(n++), op,
            {}, {type, s.a, scale, 0}, {type, s.b, scale * 2, 3}, {type, s.out, scale, 0});
      }
    }
  }
}

TEST(BinaryMathOracleTest, SquaredDifferenceFloatAndInt32) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt32}) {
    for (const Shapes& s : kShapes) {
      ExpectBinarySame(std::string("sqdiff_") + TypeSuffix(type) + "_" + std::to_string(n++),
                       BuiltinOp::kSquaredDifference, {}, {type, s.a}, {type, s.b}, {type, s.out});
    }
  }
}

struct QuantizedCase {
  float scale1;
  int64_t zp1;
  float scale2;
  int64_t zp2;
  float out_scale;
  int64_t out_zp;
};

TEST(BinaryMathOracleTest, SquaredDifferenceInt8Rescales) {
  MICROARENA_REQUIRE_ORACLE();
  // Equal scales; different input scales; extreme zero points; an output
  // scale fine enough to saturate and one coarse enough to round most to 0.
  const QuantizedCase cases[] = {
      {0.05f, 0, 0.05f, 0, 0.1f, -128},   {0.02f, -10, 0.07f, 12, 0.5f, -100}, {0.1f, 127, 0.1f, -128, 20.0f, -128},
      {0.3f, 5, 0.01f, -3, 0.001f, -128}, {0.004f, 0, 0.5f, 0, 0.9f, 3},       {1.0f, -128, 1.0f, 127, 300.0f, 0},
  };
  int n = 0;
  for (const QuantizedCase& c : cases) {
    for (const Shapes& s : {kShapes[0], kShapes[1], kShapes[3], kShapes[6]}) {
      ExpectBinarySame("sqdiff_int8_" + std::to_string(n++), BuiltinOp::kSquaredDifference, {},
                       {TensorType::kInt8, s.a, c.scale1, c.zp1}, {TensorType::kInt8, s.b, c.scale2, c.zp2},
                       {TensorType::kInt8, s.out, c.out_scale, c.out_zp});
    }
  }
}

TEST(BinaryMathOracleTest, SquaredDifferenceInt16Rescales) {
  MICROARENA_REQUIRE_ORACLE();
  const QuantizedCase cases[] = {
      {1.0f / 1024, 0, 1.0f / 1024, 0, 1.0f / 64, 0},
      {0.0003f, 0, 0.0011f, 0, 0.05f, 0},
      {0.01f, 0, 0.002f, 0, 3000.0f, 0},
      {0.5f, 0, 0.5f, 0, 0.25f, 0},
  };
  int n = 0;
  for (const QuantizedCase& c : cases) {
    for (const Shapes& s : {kShapes[0], kShapes[2], kShapes[4], kShapes[7]}) {
      ExpectBinarySame("sqdiff_int16_" + std::to_string(n++), BuiltinOp::kSquaredDifference, {},
                       {TensorType::kInt16, s.a, c.scale1, c.zp1}, {TensorType::kInt16, s.b, c.scale2, c.zp2},
                       {TensorType::kInt16, s.out, c.out_scale, c.out_zp});
    }
  }
}

tflite::BuiltinOptionsUnion DivOptions(tflite::ActivationFunctionType activation) {
  tflite::DivOptionsT options;
  options.fused_activation_function = activation;
  return MakeBuiltinOptions(options);
}

const tflite::ActivationFunctionType kActivations[] = {
    tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU, tflite::ActivationFunctionType::RELU6,
    tflite::ActivationFunctionType::RELU_N1_TO_1, tflite::ActivationFunctionType::TANH};

// Plain INT32 ADD, SUB and MUL (shape arithmetic in models, TFLM runs
// them): every activation and broadcast, with the inputs' extremes, so sums,
// differences and products overflow (TFLM keeps the low 32 bits; ADD ignores
// its activation). Quantized INT32 is refused by both for ADD and SUB; MUL
// ignores the quantization, as TFLM does.
TEST(BinaryMathOracleTest, AddSubMulInt32) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (tflite::ActivationFunctionType activation : kActivations) {
    tflite::AddOptionsT add;
    add.fused_activation_function = activation;
    tflite::SubOptionsT subtract;
    subtract.fused_activation_function = activation;
    tflite::MulOptionsT mul;
    mul.fused_activation_function = activation;
    for (const Shapes& s : kShapes) {
      const Operand a{TensorType::kInt32, s.a};
      const Operand b{TensorType::kInt32, s.b};
      const Operand out{TensorType::kInt32, s.out};
      ExpectBinarySame("add_int32_" + std::to_string(n), BuiltinOp::kAdd, MakeBuiltinOptions(add), a, b, out);
      ExpectBinarySame("sub_int32_" + std::to_string(n), BuiltinOp::kSub, MakeBuiltinOptions(subtract), a, b, out);
      ExpectBinarySame("mul_int32_" + std::to_string(n), BuiltinOp::kMul, MakeBuiltinOptions(mul), a, b, out);
      ++n;
    }
  }
  // Overflow at the edges, by hand: INT32_MIN - 1, INT32_MAX + 1, 10^5 x 10^5, -2^31 x -1.
  const std::vector<int32_t> x = {INT32_MIN, INT32_MAX, 100000, INT32_MIN, 65536, 46341};
  const std::vector<int32_t> y = {1, 1, 100000, -1, 65536, 46341};
  for (BuiltinOp op : {BuiltinOp::kAdd, BuiltinOp::kSub, BuiltinOp::kMul}) {
    ExpectSameAsOracle("int32_edges_" + std::to_string(static_cast<int>(op)),
                       BinaryModel(op, {}, {TensorType::kInt32, {6}}, {TensorType::kInt32, {6}},
                                   {TensorType::kInt32, {6}}),
                       {BytesOf(x), BytesOf(y)}, kSmallArena);
  }
  for (BuiltinOp op : {BuiltinOp::kAdd, BuiltinOp::kSub}) {
    ExpectBothRefuse("quantized_int32_" + std::to_string(static_cast<int>(op)),
                     BinaryModel(op, {}, {TensorType::kInt32, {2}, 0.5f, 0}, {TensorType::kInt32, {2}, 0.5f, 0},
                                 {TensorType::kInt32, {2}, 0.5f, 0}),
                     {Values(TensorType::kInt32, 2, 1), Values(TensorType::kInt32, 2, 2)}, "is quantized");
  }
  // ADD checks only its inputs (SUB its output too).
  ExpectSameAsOracle("add_int32_quantized_output",
                     BinaryModel(BuiltinOp::kAdd, {}, {TensorType::kInt32, {2}}, {TensorType::kInt32, {2}},
                                 {TensorType::kInt32, {2}, 0.5f, 0}),
                     {Values(TensorType::kInt32, 2, 1), Values(TensorType::kInt32, 2, 2)}, kSmallArena);
  ExpectBothRefuse("sub_int32_quantized_output",
                   BinaryModel(BuiltinOp::kSub, {}, {TensorType::kInt32, {2}}, {TensorType::kInt32, {2}},
                               {TensorType::kInt32, {2}, 0.5f, 0}),
                   {Values(TensorType::kInt32, 2, 1), Values(TensorType::kInt32, 2, 2)}, "is quantized");
  // A scale without a zero point is no quantization to TFLM's loader: plain
  // INT32 for ADD, SUB and DIV (refused above when the zero point is there).
  Operand scale_only{TensorType::kInt32, {2}, 0.5f, 0};
  scale_only.scale_only = true;
  for (BuiltinOp op : {BuiltinOp::kAdd, BuiltinOp::kSub, BuiltinOp::kDiv}) {
    ExpectSameAsOracle("scale_only_int32_" + std::to_string(static_cast<int>(op)),
                       BinaryModel(op, {}, scale_only, scale_only, scale_only),
                       {Values(TensorType::kInt32, 2, 1), BytesOf(std::vector<int32_t>{3, -7})}, kSmallArena);
  }
  ExpectSameAsOracle("mul_quantized_int32",
                     BinaryModel(BuiltinOp::kMul, {}, {TensorType::kInt32, {2}, 0.5f, 0},
                                 {TensorType::kInt32, {2}, 0.5f, 0}, {TensorType::kInt32, {2}, 0.5f, 0}),
                     {Values(TensorType::kInt32, 2, 1), Values(TensorType::kInt32, 2, 2)}, kSmallArena);
}

// Float zero divisors give +-inf (clamped to the float range by NONE), 0/0 NaN.
TEST(BinaryMathOracleTest, DivFloatActivationsAndZeroDivisors) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (tflite::ActivationFunctionType activation : kActivations) {
    for (const Shapes& s : kShapes) {
      ExpectBinarySame("div_float_" + std::to_string(n++), BuiltinOp::kDiv, DivOptions(activation),
                       {TensorType::kFloat32, s.a}, {TensorType::kFloat32, s.b}, {TensorType::kFloat32, s.out});
    }
  }
}

// Truncating division of both signs; no zero divisor (TFLM traps on one).
TEST(BinaryMathOracleTest, DivInt32) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (tflite::ActivationFunctionType activation : kActivations) {
    for (const Shapes& s : kShapes) {
      ExpectBinarySame("div_int32_" + std::to_string(n++), BuiltinOp::kDiv, DivOptions(activation),
                       {TensorType::kInt32, s.a}, {TensorType::kInt32, s.b}, {TensorType::kInt32, s.out},
                       /*nonzero_divisor=*/true);
    }
  }
}

// Int8 DIV: every pair of int8 values (including divisor == zero point,
// which TFLM runs through its reciprocal anyway), several scales, the
// activations, and broadcasts.
TEST(BinaryMathOracleTest, DivInt8EveryPair) {
  MICROARENA_REQUIRE_ORACLE();
  std::vector<int8_t> a;
  std::vector<int8_t> b;
  for (int i = -128; i < 128; ++i) {
    for (int j = -128; j < 128; ++j) {
      a.push_back(static_cast<int8_t>(i));
      b.push_back(static_cast<int8_t>(j));
    }
  }
  const QuantizedCase cases[] = {
      {0.1f, 0, 0.1f, 0, 0.1f, 0},      {0.05f, -3, 0.02f, 7, 0.5f, -10}, {0.5f, 127, 0.01f, -128, 2.0f, 5},
      {0.01f, -128, 1.0f, 0, 1e-3f, 0}, {1.0f, 0, 1.0f, 0, 1e-4f, -128},  {0.003f, 10, 0.2f, -20, 0.0004f, 100},
  };
  int n = 0;
  for (const QuantizedCase& c : cases) {
    for (tflite::ActivationFunctionType activation :
         {tflite::ActivationFunctionType::NONE, tflite::ActivationFunctionType::RELU6}) {
      const Bytes model = BinaryModel(
          BuiltinOp::kDiv, DivOptions(activation), {TensorType::kInt8, {256, 256}, c.scale1, c.zp1},
          {TensorType::kInt8, {256, 256}, c.scale2, c.zp2}, {TensorType::kInt8, {256, 256}, c.out_scale, c.out_zp});
      ExpectSameAsOracle("div_int8_pairs_" + std::to_string(n++), model, {BytesOf(a), BytesOf(b)}, kSmallArena);
    }
  }
  for (const Shapes& s : kShapes) {
    ExpectBinarySame("div_int8_bcast_" + std::to_string(n++), BuiltinOp::kDiv,
                     DivOptions(tflite::ActivationFunctionType::RELU), {TensorType::kInt8, s.a, 0.04f, -5},
                     {TensorType::kInt8, s.b, 0.03f, 2}, {TensorType::kInt8, s.out, 0.2f, -1});
  }
}

// Negative operands of both signs (floor rounds toward -infinity, the
// remainder takes the divisor's sign).
TEST(BinaryMathOracleTest, FloorDivFloorModFloat) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kFloorDiv, BuiltinOp::kFloorMod}) {
    for (const Shapes& s : kShapes) {
      ExpectBinarySame(std::string(op == BuiltinOp::kFloorDiv ? "floordiv_" : "floormod_") + std::to_string(n++), op,
                       {}, {TensorType::kFloat32, s.a}, {TensorType::kFloat32, s.b}, {TensorType::kFloat32, s.out},
                       /*nonzero_divisor=*/true);
    }
  }
  // Hand-checked signs: floor(-7 / 2) = -4, -7 mod 2 = 1, 7 mod -2 = -1.
  const Bytes model = BinaryModel(BuiltinOp::kFloorMod, {}, {TensorType::kFloat32, {4}}, {TensorType::kFloat32, {4}},
                                  {TensorType::kFloat32, {4}});
  const std::vector<Bytes> inputs = {BytesOf(std::vector<float>{-7, 7, -7, 6}),
                                     BytesOf(std::vector<float>{2, -2, -2, 3})};
  const Outcome ours = RunOursOn(model, inputs);
  ASSERT_TRUE(ours.ok) << ours.error;
  EXPECT_EQ(ours.outputs[0], BytesOf(std::vector<float>{1, -1, -1, 0}));
}

// FLOOR_MOD does not check its divisors: x mod 0 is NaN in both.
TEST(BinaryMathOracleTest, FloorModByZeroIsNaNAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const Bytes model = BinaryModel(BuiltinOp::kFloorMod, {}, {TensorType::kFloat32, {4}}, {TensorType::kFloat32, {4}},
                                  {TensorType::kFloat32, {4}});
  ExpectSameAsOracle("floormod_zero", model,
                     {BytesOf(std::vector<float>{1, -1, 0, 5}), BytesOf(std::vector<float>{0, 0, -0.0f, 2})},
                     kSmallArena);
}

// FLOOR_DIV fails on any zero divisor at Invoke, in TFLM and here.
TEST(BinaryMathOracleTest, FloorDivByZeroFailsAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const Bytes model = BinaryModel(BuiltinOp::kFloorDiv, {}, {TensorType::kFloat32, {4}}, {TensorType::kFloat32, {1}},
                                  {TensorType::kFloat32, {4}});
  for (float zero : {0.0f, -0.0f}) {
    const std::vector<Bytes> inputs = {BytesOf(std::vector<float>{1, 2, 3, 4}), BytesOf(std::vector<float>{zero})};
    EXPECT_FALSE(RunOracleOn("floordiv_zero", model, inputs, kSmallArena).ok);
    const Outcome ours = RunOursOn(model, inputs);
    ASSERT_FALSE(ours.ok);
    EXPECT_NE(ours.error.find("division by zero"), std::string::npos) << ours.error;
  }
}

// Int32 DIV by zero traps in TFLM (SIGFPE); microarena fails the Invoke.
TEST(BinaryMathOracleTest, DivInt32ByZeroFails) {
  const Bytes model = BinaryModel(BuiltinOp::kDiv, DivOptions(tflite::ActivationFunctionType::NONE),
                                  {TensorType::kInt32, {3}}, {TensorType::kInt32, {3}}, {TensorType::kInt32, {3}});
  const Outcome ours =
      RunOursOn(model, {BytesOf(std::vector<int32_t>{1, 2, 3}), BytesOf(std::vector<int32_t>{1, 0, 1})});
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("division by zero: divisor element 1"), std::string::npos) << ours.error;
}

TEST(BinaryMathOracleTest, UnsupportedTypesAreRefusedAsTflm) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<Bytes> int32_inputs = {BytesOf(std::vector<int32_t>{7, -7}), BytesOf(std::vector<int32_t>{2, 2})};
  ExpectBothRefuse("floordiv_int32",
                   BinaryModel(BuiltinOp::kFloorDiv, {}, {TensorType::kInt32, {2}}, {TensorType::kInt32, {2}},
                               {TensorType::kInt32, {2}}),
                   int32_inputs, "(FLOOR_DIV): types INT32, INT32 -> INT32 not supported (FLOAT32 only");
  ExpectBothRefuse("floormod_int32",
                   BinaryModel(BuiltinOp::kFloorMod, {}, {TensorType::kInt32, {2}}, {TensorType::kInt32, {2}},
                               {TensorType::kInt32, {2}}),
                   int32_inputs, "(FLOOR_MOD): types INT32, INT32 -> INT32 not supported (FLOAT32 only");
  const std::vector<Bytes> int16_inputs = {Bytes{1, 0, 2, 0}, Bytes{1, 0, 1, 0}};
  ExpectBothRefuse(
      "div_int16",
      BinaryModel(BuiltinOp::kDiv, DivOptions(tflite::ActivationFunctionType::NONE), {TensorType::kInt16, {2}, 0.1f, 0},
                  {TensorType::kInt16, {2}, 0.1f, 0}, {TensorType::kInt16, {2}, 0.1f, 0}),
      int16_inputs, "(DIV): types INT16, INT16 -> INT16 not supported (FLOAT32, INT32 or INT8");
  // TFLM's int16 SQUARED_DIFFERENCE requires zero points of 0.
  ExpectBothRefuse("sqdiff_int16_zp",
                   BinaryModel(BuiltinOp::kSquaredDifference, {}, {TensorType::kInt16, {2}, 0.1f, 3},
                               {TensorType::kInt16, {2}, 0.1f, 0}, {TensorType::kInt16, {2}, 0.1f, 0}),
                   int16_inputs, "zero points 3, 0 -> 0 must all be 0");
  const std::vector<Bytes> int64_inputs = {Bytes(16, 1), Bytes(16, 2)};
  ExpectBothRefuse("sqdiff_int64",
                   BinaryModel(BuiltinOp::kSquaredDifference, {}, {TensorType::kInt64, {2}}, {TensorType::kInt64, {2}},
                               {TensorType::kInt64, {2}}),
                   int64_inputs, "types INT64, INT64 -> INT64 not supported (FLOAT32, INT32, INT8 or INT16");
  ExpectBothRefuse("max_bool",
                   BinaryModel(BuiltinOp::kMaximum, {}, {TensorType::kBool, {2}}, {TensorType::kBool, {2}},
                               {TensorType::kBool, {2}}),
                   {Bytes{0, 1}, Bytes{1, 0}}, "(MAXIMUM): types BOOL, BOOL -> BOOL not supported");
}

// Rescalings TFLM cannot represent, refused by microarena (TFLM shifts by
// undefined amounts): an int8 DIV multiplier of 2^22 or more, and a
// SQUARED_DIFFERENCE output multiplier of 2^31 or more.
TEST(BinaryMathOracleTest, UnrepresentableRescalingsAreRefused) {
  const Bytes div = BinaryModel(BuiltinOp::kDiv, DivOptions(tflite::ActivationFunctionType::NONE),
                                {TensorType::kInt8, {2}, 1000.0f, 0}, {TensorType::kInt8, {2}, 1e-3f, 0},
                                {TensorType::kInt8, {2}, 1e-3f, 0});
  testing::ExpectWeRefuse(div, {Bytes{1, 2}, Bytes{3, 4}}, "is too large");
  const Bytes sqdiff = BinaryModel(BuiltinOp::kSquaredDifference, {}, {TensorType::kInt16, {2}, 1000.0f, 0},
                                   {TensorType::kInt16, {2}, 1000.0f, 0}, {TensorType::kInt16, {2}, 1e-6f, 0});
  testing::ExpectWeRefuse(sqdiff, {Bytes{1, 0, 2, 0}, Bytes{3, 0, 4, 0}}, "needs a left shift");
}

// Operand types that differ: TFLM does not check them for MAXIMUM (it would
// read the bytes as the output's type); microarena refuses.
TEST(BinaryMathOracleTest, MixedTypesAreRefused) {
  const Bytes model = BinaryModel(BuiltinOp::kMinimum, {}, {TensorType::kFloat32, {2}}, {TensorType::kInt32, {2}},
                                  {TensorType::kFloat32, {2}});
  const Outcome ours = RunOursOn(model, {Bytes(8, 0), Bytes(8, 0)});
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find("(MINIMUM): types FLOAT32, INT32 -> FLOAT32 not supported"), std::string::npos)
      << ours.error;
}

}  // namespace
}  // namespace microarena
