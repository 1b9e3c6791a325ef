// Differential tests of CAST, FILL, ZEROS_LIKE, SHAPE, BROADCAST_TO,
// BROADCAST_ARGS and SELECT_V2 against TFLM itself (../shared/tools/
// tflm_oracle): one-op models in every type TFLM's kernels accept, run by
// both; the output bytes must be equal. Every expected value comes from the
// oracle, and each op's refused types are refused by both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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
using testing::Count;
using testing::ExpectBothRefuse;
using testing::ExpectSameAsOracle;
using testing::ExpectWeRefuse;
using testing::Operand;
using testing::OpModel;
using testing::Outcome;
using testing::RunOursOn;
using testing::Values;

using testing::kSmallArena;

using testing::Name;

// Values that make casts interesting: every type's extremes, fractions of
// both signs (truncation), and floats outside every integer range, NaN and
// infinities (TFLM's x86 conversions).
Bytes CastInput(TensorType type) {
  if (type == TensorType::kFloat32) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v = {0.0f,           -0.0f,          0.5f,          -0.5f,         1.9f,          -1.9f,
                            127.9f,         128.0f,         -128.9f,       -129.0f,       255.0f,        256.0f,
                            32767.5f,       32768.0f,       -32769.0f,     65536.0f,      2147483520.0f, 2147483648.0f,
                            -2147483648.0f, -2147483904.0f, 4294967040.0f, 4294967296.0f, 1e10f,         -1e10f,
                            1e20f,          -1e20f,         inf,           -inf,          std::nanf(""), -3.7f};
    for (int i = -40; i < 40; ++i) v.push_back(static_cast<float>(i) * 13.37f);
    return BytesOf(v);
  }
  if (type == TensorType::kBool) return Values(type, 110, 3);
  return Values(type, 110, 3);
}

const TensorType kCastInputs[] = {TensorType::kInt8,   TensorType::kInt16,   TensorType::kInt32,
                                  TensorType::kUInt32, TensorType::kFloat32, TensorType::kBool};
const TensorType kCastOutputs[] = {TensorType::kInt8, TensorType::kInt16, TensorType::kInt32, TensorType::kUInt32,
                                   TensorType::kFloat32};

TEST(ShapeCastOracleTest, CastEveryTypePair) {
  MICROARENA_REQUIRE_ORACLE();
  for (TensorType from : kCastInputs) {
    for (TensorType to : kCastOutputs) {
      const Bytes input = CastInput(from);
      const auto n = static_cast<int32_t>(input.size() / (TensorTypeBits(from) / 8));
      ExpectSameAsOracle("cast_" + Name(from) + "_" + Name(to),
                         OpModel(BuiltinOp::kCast, {}, {{from, {n}}}, {{to, {n}}}), {input}, kSmallArena);
    }
  }
}

TEST(ShapeCastOracleTest, CastRefusesWhatTflmRefuses) {
  MICROARENA_REQUIRE_ORACLE();
  // BOOL output, INT64 input, FLOAT16 both ways: not in TFLM's kernel.
  const std::pair<TensorType, TensorType> pairs[] = {{TensorType::kFloat32, TensorType::kBool},
                                                     {TensorType::kInt64, TensorType::kFloat32},
                                                     {TensorType::kFloat32, TensorType::kInt64},
                                                     {TensorType::kUInt8, TensorType::kInt32}};
  for (const auto& [from, to] : pairs) {
    ExpectBothRefuse("cast_refused_" + Name(from) + "_" + Name(to),
                     OpModel(BuiltinOp::kCast, {}, {{from, {4}}}, {{to, {4}}}), {Values(from, 4, 1)},
                     "(CAST): " + Name(from) + " -> " + Name(to) + " not supported");
  }
}

TEST(ShapeCastOracleTest, FillWithInt32AndInt64Dims) {
  MICROARENA_REQUIRE_ORACLE();
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt32, TensorType::kInt8}) {
    const float scale = type == TensorType::kInt8 ? 0.5f : 0.0f;
    for (const std::vector<int32_t>& shape : std::vector<std::vector<int32_t>>{{3}, {2, 3, 4}, {1, 1, 5, 2}}) {
      const auto rank = static_cast<int32_t>(shape.size());
      // Constant dims of INT32 and of INT64.
      ExpectSameAsOracle(
          "fill_" + Name(type) + "_" + std::to_string(rank),
          OpModel(BuiltinOp::kFill, {}, {{TensorType::kInt32, {rank}, 0, 0, BytesOf(shape)}, {type, {}, scale, 0}},
                  {{type, shape, scale, 0}}),
          {Values(type, 1, 5)}, kSmallArena);
      std::vector<int64_t> wide(shape.begin(), shape.end());
      ExpectSameAsOracle(
          "fill64_" + Name(type) + "_" + std::to_string(rank),
          OpModel(BuiltinOp::kFill, {}, {{TensorType::kInt64, {rank}, 0, 0, BytesOf(wide)}, {type, {}, scale, 0}},
                  {{type, shape, scale, 0}}),
          {Values(type, 1, 6)}, kSmallArena);
    }
  }
}

TEST(ShapeCastOracleTest, FillRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Bytes dims = BytesOf(std::vector<int32_t>{2, 2});
  // INT16 values: TFLM's kernel has no such case.
  ExpectBothRefuse("fill_int16",
                   OpModel(BuiltinOp::kFill, {}, {{TensorType::kInt32, {2}, 0, 0, dims}, {TensorType::kInt16, {}}},
                           {{TensorType::kInt16, {2, 2}}}),
                   {Values(TensorType::kInt16, 1, 1)}, "(FILL): value INT16 -> output INT16 not supported");
  // Constant dims unlike the output shape.
  ExpectBothRefuse("fill_mismatch",
                   OpModel(BuiltinOp::kFill, {}, {{TensorType::kInt32, {2}, 0, 0, dims}, {TensorType::kFloat32, {}}},
                           {{TensorType::kFloat32, {2, 3}}}),
                   {Values(TensorType::kFloat32, 1, 1)}, "does not equal the output shape [2,3]");
  // Computed dims: TFLM needs them constant.
  ExpectBothRefuse("fill_dynamic_dims",
                   OpModel(BuiltinOp::kFill, {}, {{TensorType::kInt32, {2}}, {TensorType::kFloat32, {}}},
                           {{TensorType::kFloat32, {2, 2}}}),
                   {dims, Values(TensorType::kFloat32, 1, 1)}, "dims tensor 0 'in0' must be constant");
  // A value that is not a scalar.
  ExpectBothRefuse("fill_vector_value",
                   OpModel(BuiltinOp::kFill, {}, {{TensorType::kInt32, {2}, 0, 0, dims}, {TensorType::kFloat32, {1}}},
                           {{TensorType::kFloat32, {2, 2}}}),
                   {Values(TensorType::kFloat32, 1, 1)}, "it must be a scalar");
}

TEST(ShapeCastOracleTest, ZerosLike) {
  MICROARENA_REQUIRE_ORACLE();
  for (TensorType type : {TensorType::kInt64, TensorType::kInt32, TensorType::kInt8, TensorType::kFloat32}) {
    ExpectSameAsOracle("zeros_like_" + Name(type),
                       OpModel(BuiltinOp::kZerosLike, {}, {{type, {3, 5}}}, {{type, {3, 5}}}), {Values(type, 15, 2)},
                       kSmallArena);
  }
  for (TensorType type : {TensorType::kInt16, TensorType::kBool}) {
    ExpectBothRefuse("zeros_like_" + Name(type), OpModel(BuiltinOp::kZerosLike, {}, {{type, {4}}}, {{type, {4}}}),
                     {Values(type, 4, 1)}, "(ZEROS_LIKE): input " + Name(type) + " -> output");
  }
}

TEST(ShapeCastOracleTest, ShapeOfEveryRank) {
  MICROARENA_REQUIRE_ORACLE();
  const std::vector<std::vector<int32_t>> shapes = {{7}, {2, 3}, {1, 4, 1, 2}, {2, 1, 3, 1, 2, 1}};
  for (const auto& shape : shapes) {
    const auto rank = static_cast<int32_t>(shape.size());
    for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kBool}) {
      ExpectSameAsOracle("shape_" + Name(type) + "_" + std::to_string(rank),
                         OpModel(BuiltinOp::kShape, {}, {{type, shape}}, {{TensorType::kInt32, {rank}}}),
                         {Values(type, Count(shape), 1)}, kSmallArena);
    }
  }
  ExpectBothRefuse("shape_int64_out",
                   OpModel(BuiltinOp::kShape, {}, {{TensorType::kFloat32, {2, 3}}}, {{TensorType::kInt64, {2}}}),
                   {Values(TensorType::kFloat32, 6, 1)}, "(SHAPE): output INT64 not supported");
}

TEST(ShapeCastOracleTest, BroadcastToEveryTypeAndRank) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> input;
    std::vector<int32_t> output;
  };
  const Case cases[] = {
      {{1}, {5}},
      {{3}, {2, 3}},
      {{2, 1}, {2, 4}},
      {{1, 3, 1}, {2, 3, 4}},
      {{}, {2, 2}},
      {{4, 1, 1}, {2, 4, 3, 2}},
      {{1, 2, 1, 3, 1}, {2, 2, 2, 3, 2}},
      {{2, 3}, {2, 3}},
  };
  const TensorType types[] = {TensorType::kFloat32, TensorType::kInt8,   TensorType::kInt16, TensorType::kInt32,
                              TensorType::kInt64,   TensorType::kUInt8,  TensorType::kBool,  TensorType::kFloat16,
                              TensorType::kFloat64, TensorType::kUInt16, TensorType::kUInt32};
  int n = 0;
  for (TensorType type : types) {
    for (const Case& c : cases) {
      const auto rank = static_cast<int32_t>(c.output.size());
      const bool wide = n % 2 == 1;  // INT64 shape every other case
      const Bytes shape = wide ? BytesOf(std::vector<int64_t>(c.output.begin(), c.output.end())) : BytesOf(c.output);
      ExpectSameAsOracle(
          "broadcast_to_" + Name(type) + "_" + std::to_string(n++),
          OpModel(BuiltinOp::kBroadcastTo, {},
                  {{type, c.input}, {wide ? TensorType::kInt64 : TensorType::kInt32, {rank}, 0, 0, shape}},
                  {{type, c.output}}),
          {Values(type, Count(c.input), 4)}, kSmallArena);
    }
  }
}

TEST(ShapeCastOracleTest, BroadcastToRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  // Rank 6 (TFLM handles up to 5) and an extent that does not broadcast.
  ExpectBothRefuse("broadcast_to_rank6",
                   OpModel(BuiltinOp::kBroadcastTo, {},
                           {{TensorType::kFloat32, {1}},
                            {TensorType::kInt32, {6}, 0, 0, BytesOf(std::vector<int32_t>{1, 1, 1, 1, 1, 2})}},
                           {{TensorType::kFloat32, {1, 1, 1, 1, 1, 2}}}),
                   {Values(TensorType::kFloat32, 1, 1)}, "at most 5 is supported");
  ExpectBothRefuse(
      "broadcast_to_mismatch",
      OpModel(BuiltinOp::kBroadcastTo, {},
              {{TensorType::kFloat32, {3}}, {TensorType::kInt32, {2}, 0, 0, BytesOf(std::vector<int32_t>{2, 4})}},
              {{TensorType::kFloat32, {2, 4}}}),
      {Values(TensorType::kFloat32, 3, 1)}, "input shape [3] does not broadcast to shape [2,4]");
  // A computed shape: TFLM requires a constant.
  ExpectBothRefuse("broadcast_to_dynamic",
                   OpModel(BuiltinOp::kBroadcastTo, {}, {{TensorType::kFloat32, {1}}, {TensorType::kInt32, {1}}},
                           {{TensorType::kFloat32, {3}}}),
                   {Values(TensorType::kFloat32, 1, 1), BytesOf(std::vector<int32_t>{3})}, "must be constant");
}

TEST(ShapeCastOracleTest, BroadcastArgs) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> a;
    std::vector<int32_t> b;
  };
  const Case cases[] = {
      {{2, 1, 3}, {4, 1}}, {{1}, {5, 6, 7}}, {{3, 1}, {3, 1}}, {{8, 1, 1, 2}, {1, 9, 1}}, {{0, 1}, {1}}};
  int n = 0;
  for (const Case& c : cases) {
    const auto len = static_cast<int32_t>(std::max(c.a.size(), c.b.size()));
    const auto la = static_cast<int32_t>(c.a.size());
    const auto lb = static_cast<int32_t>(c.b.size());
    ExpectSameAsOracle("broadcast_args32_" + std::to_string(n),
                       OpModel(BuiltinOp::kBroadcastArgs, {}, {{TensorType::kInt32, {la}}, {TensorType::kInt32, {lb}}},
                               {{TensorType::kInt32, {len}}}),
                       {BytesOf(c.a), BytesOf(c.b)}, kSmallArena);
    ExpectSameAsOracle(
        "broadcast_args64_" + std::to_string(n++),
        OpModel(BuiltinOp::kBroadcastArgs, {}, {{TensorType::kInt64, {la}}, {TensorType::kInt64, {lb}}},
                {{TensorType::kInt64, {len}}}),
        {BytesOf(std::vector<int64_t>(c.a.begin(), c.a.end())), BytesOf(std::vector<int64_t>(c.b.begin(), c.b.end()))},
        kSmallArena);
  }
  ExpectBothRefuse("broadcast_args_float",
                   OpModel(BuiltinOp::kBroadcastArgs, {}, {{TensorType::kFloat32, {2}}, {TensorType::kFloat32, {2}}},
                           {{TensorType::kFloat32, {2}}}),
                   {Values(TensorType::kFloat32, 2, 1), Values(TensorType::kFloat32, 2, 2)},
                   "(BROADCAST_ARGS): types FLOAT32, FLOAT32 -> FLOAT32 not supported");
  // Shapes that do not broadcast: TFLM aborts; microarena fails the Invoke.
  ExpectWeRefuse(OpModel(BuiltinOp::kBroadcastArgs, {}, {{TensorType::kInt32, {1}}, {TensorType::kInt32, {1}}},
                         {{TensorType::kInt32, {1}}}),
                 {BytesOf(std::vector<int32_t>{2}), BytesOf(std::vector<int32_t>{3})}, "extents 2 and 3");
}

TEST(ShapeCastOracleTest, SelectV2BroadcastsAllThree) {
  MICROARENA_REQUIRE_ORACLE();
  struct Case {
    std::vector<int32_t> c;
    std::vector<int32_t> x;
    std::vector<int32_t> y;
    std::vector<int32_t> out;
  };
  const Case cases[] = {
      {{2, 3}, {2, 3}, {2, 3}, {2, 3}},
      {{}, {4}, {4}, {4}},
      {{3}, {2, 3}, {1}, {2, 3}},
      {{2, 1, 1}, {1, 3, 1}, {1, 1, 4}, {2, 3, 4}},
      {{1}, {1}, {}, {1}},
      {{1, 1}, {}, {1}, {1}},
      {{2, 1, 3, 1, 2}, {1, 2, 1, 2, 1}, {2}, {2, 2, 3, 2, 2}},
  };
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    for (const Case& c : cases) {
      ExpectSameAsOracle(
          "select_v2_" + Name(type) + "_" + std::to_string(n++),
          OpModel(BuiltinOp::kSelectV2, {}, {{TensorType::kBool, c.c}, {type, c.x}, {type, c.y}}, {{type, c.out}}),
          {Values(TensorType::kBool, Count(c.c), 9), Values(type, Count(c.x), 1), Values(type, Count(c.y), 2)},
          kSmallArena);
    }
  }
  ExpectBothRefuse(
      "select_v2_int32",
      OpModel(BuiltinOp::kSelectV2, {},
              {{TensorType::kBool, {2}}, {TensorType::kInt32, {2}}, {TensorType::kInt32, {2}}},
              {{TensorType::kInt32, {2}}}),
      {Values(TensorType::kBool, 2, 1), Values(TensorType::kInt32, 2, 1), Values(TensorType::kInt32, 2, 2)},
      "(SELECT_V2): types INT32, INT32 -> INT32 not supported");
  ExpectBothRefuse(
      "select_v2_float_condition",
      OpModel(BuiltinOp::kSelectV2, {},
              {{TensorType::kFloat32, {2}}, {TensorType::kFloat32, {2}}, {TensorType::kFloat32, {2}}},
              {{TensorType::kFloat32, {2}}}),
      {Values(TensorType::kFloat32, 2, 1), Values(TensorType::kFloat32, 2, 1), Values(TensorType::kFloat32, 2, 2)},
      "it must be BOOL");
}

}  // namespace
}  // namespace microarena
