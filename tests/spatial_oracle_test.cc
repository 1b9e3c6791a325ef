// Differential tests of SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, DEPTH_TO_SPACE,
// SPACE_TO_DEPTH, MIRROR_PAD, PADV2, RESIZE_BILINEAR and
// RESIZE_NEAREST_NEIGHBOR against TFLM itself (../shared/tools/tflm_oracle):
// one-op models in every type TFLM's kernels accept, across shapes, block
// sizes, paddings and crops, modes and flags, run by both; every output byte
// must be equal. Expected values come from the oracle only. Types and shapes
// TFLM refuses are refused by both; models TFLM would run out of bounds (an
// output shape unlike the one the parameters give) are refused by microarena.
#include <gtest/gtest.h>

#include <cmath>
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

using testing::Name;

using testing::Int32s;

// An activation operand of `type`: INT8 and INT16 carry a per-tensor
// quantization with a nonzero zero point (INT16: 0, as TFLM's int16 ops want),
// so padding with the zero point and padding with 0 differ.
Operand Activation(TensorType type, std::vector<int32_t> shape) {
  if (type == TensorType::kInt8) return {type, std::move(shape), 0.25f, -5};
  if (type == TensorType::kInt16) return {type, std::move(shape), 0.125f, 0};
  return {type, std::move(shape)};
}

// --- SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND ---------------------------------

struct SpaceBatchCase {
  std::vector<int32_t> space;  // the spatial side: SPACE_TO_BATCH_ND's input, BATCH_TO_SPACE_ND's output
  std::vector<int32_t> block;
  std::vector<int32_t> pads;   // paddings or crops, (before, after) per spatial axis
  std::vector<int32_t> batch;  // the batched side
};

const SpaceBatchCase kSpaceBatchCases[] = {
    {{1, 4, 4, 1}, {2, 2}, {0, 0, 0, 0}, {4, 2, 2, 1}},
    {{2, 3, 5, 2}, {2, 3}, {1, 0, 0, 1}, {12, 2, 2, 2}},
    {{1, 5, 2, 3}, {3, 1}, {2, 2, 0, 0}, {3, 3, 2, 3}},
    {{1, 2, 2, 4}, {1, 1}, {1, 1, 2, 0}, {1, 4, 4, 4}},
    {{2, 1, 7, 2}, {1, 4}, {0, 0, 3, 2}, {8, 1, 3, 2}},
    {{3, 4, 3}, {2}, {1, 1}, {6, 3, 3}},
    {{1, 5, 2}, {3}, {0, 1}, {3, 2, 2}},
};

Bytes SpaceBatchModel(BuiltinOp op, TensorType type, const SpaceBatchCase& c, bool constant_parameters,
                      TensorType parameter_type = TensorType::kInt32) {
  const bool to_batch = op == BuiltinOp::kSpaceToBatchNd;
  const auto spatial = static_cast<int32_t>(c.block.size());
  auto encode = [&](const std::vector<int32_t>& values) {
    if (!constant_parameters) return Bytes{};
    if (parameter_type == TensorType::kInt64) return BytesOf(std::vector<int64_t>(values.begin(), values.end()));
    return Int32s(values);
  };
  const Bytes block = encode(c.block);
  const Bytes pads = encode(c.pads);
  const Operand in = Activation(type, to_batch ? c.space : c.batch);
  const Operand out = Activation(type, to_batch ? c.batch : c.space);
  tflite::BuiltinOptionsUnion options;
  if (to_batch) {
    options = MakeBuiltinOptions(tflite::SpaceToBatchNDOptionsT{});
  } else {
    options = MakeBuiltinOptions(tflite::BatchToSpaceNDOptionsT{});
  }
  return OpModel(op, std::move(options),
                 {in, {parameter_type, {spatial}, 0, 0, block}, {parameter_type, {spatial, 2}, 0, 0, pads}}, {out});
}

TEST(SpatialOracleTest, SpaceToBatchNdAndBatchToSpaceNd) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (BuiltinOp op : {BuiltinOp::kSpaceToBatchNd, BuiltinOp::kBatchToSpaceNd}) {
    const bool to_batch = op == BuiltinOp::kSpaceToBatchNd;
    for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
      for (const SpaceBatchCase& c : kSpaceBatchCases) {
        const size_t count = Count(to_batch ? c.space : c.batch);
        const std::string name = std::string(to_batch ? "s2b_" : "b2s_") + Name(type) + "_" + std::to_string(n++);
        ExpectSameAsOracle(name, SpaceBatchModel(op, type, c, true), {Values(type, count, 11)}, kSmallArena);
        // Block and paddings given at Invoke.
        ExpectSameAsOracle(name + "_dyn", SpaceBatchModel(op, type, c, false),
                           {Values(type, count, 12), Int32s(c.block), Int32s(c.pads)}, kSmallArena);
      }
    }
  }
}

TEST(SpatialOracleTest, SpaceBatchRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const SpaceBatchCase& c = kSpaceBatchCases[1];
  for (BuiltinOp op : {BuiltinOp::kSpaceToBatchNd, BuiltinOp::kBatchToSpaceNd}) {
    const bool to_batch = op == BuiltinOp::kSpaceToBatchNd;
    for (TensorType type : {TensorType::kInt16, TensorType::kInt32}) {
      ExpectBothRefuse(std::string("space_batch_") + Name(type), SpaceBatchModel(op, type, c, true),
                       {Values(type, Count(to_batch ? c.space : c.batch), 1)}, "supported: FLOAT32 or INT8",
                       kSmallArena);
    }
    // Rank 2 (TFLM takes rank 3 and 4 only).
    const SpaceBatchCase flat = {{4, 6}, {2}, {0, 0}, {8, 3}};
    ExpectBothRefuse("space_batch_rank2", SpaceBatchModel(op, TensorType::kFloat32, flat, true),
                     {Values(TensorType::kFloat32, 24, 1)}, "rank 2");
    // An output shape the parameters do not give, negative crops or paddings,
    // and a zero block: TFLM does not check them (and writes out of bounds).
    SpaceBatchCase bad = c;
    bad.batch[0] = 6;
    ExpectWeRefuse(SpaceBatchModel(op, TensorType::kFloat32, bad, true),
                   {Values(TensorType::kFloat32, Count(to_batch ? bad.space : bad.batch), 1)}, "block product");
    bad = c;
    bad.pads = {-1, 2, 0, 1};
    ExpectWeRefuse(SpaceBatchModel(op, TensorType::kFloat32, bad, true),
                   {Values(TensorType::kFloat32, Count(to_batch ? bad.space : bad.batch), 1)}, "both >= 0");
    bad = c;
    ExpectWeRefuse(
        SpaceBatchModel(op, TensorType::kFloat32, bad, false),
        {Values(TensorType::kFloat32, Count(to_batch ? bad.space : bad.batch), 1), Int32s({0, 3}), Int32s(c.pads)},
        "need block >= 1");
    ExpectWeRefuse(SpaceBatchModel(op, TensorType::kFloat32, c, true, TensorType::kInt64),
                   {Values(TensorType::kFloat32, Count(to_batch ? c.space : c.batch), 1)}, "need INT32");
  }
}

// --- DEPTH_TO_SPACE and SPACE_TO_DEPTH ----------------------------------------

struct DepthSpaceCase {
  std::vector<int32_t> space;  // DEPTH_TO_SPACE's output, SPACE_TO_DEPTH's input
  int32_t block;
  std::vector<int32_t> depth;  // the other side
};

const DepthSpaceCase kDepthSpaceCases[] = {
    {{1, 2, 2, 1}, 2, {1, 1, 1, 4}},  {{1, 4, 6, 3}, 2, {1, 2, 3, 12}}, {{2, 6, 3, 2}, 3, {2, 2, 1, 18}},
    {{3, 4, 4, 5}, 4, {3, 1, 1, 80}}, {{2, 3, 5, 2}, 1, {2, 3, 5, 2}},  {{1, 8, 4, 1}, 2, {1, 4, 2, 4}},
};

Bytes DepthSpaceModel(BuiltinOp op, TensorType type, const std::vector<int32_t>& in, int32_t block,
                      const std::vector<int32_t>& out) {
  tflite::BuiltinOptionsUnion options;
  if (op == BuiltinOp::kDepthToSpace) {
    tflite::DepthToSpaceOptionsT o;
    o.block_size = block;
    options = MakeBuiltinOptions(o);
  } else {
    tflite::SpaceToDepthOptionsT o;
    o.block_size = block;
    options = MakeBuiltinOptions(o);
  }
  return OpModel(op, std::move(options), {Activation(type, in)}, {Activation(type, out)});
}

TEST(SpatialOracleTest, DepthToSpaceAndSpaceToDepth) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
    for (const DepthSpaceCase& c : kDepthSpaceCases) {
      ExpectSameAsOracle("d2s_" + Name(type) + "_" + std::to_string(n),
                         DepthSpaceModel(BuiltinOp::kDepthToSpace, type, c.depth, c.block, c.space),
                         {Values(type, Count(c.depth), 21)}, kSmallArena);
      ExpectSameAsOracle("s2d_" + Name(type) + "_" + std::to_string(n++),
                         DepthSpaceModel(BuiltinOp::kSpaceToDepth, type, c.space, c.block, c.depth),
                         {Values(type, Count(c.space), 22)}, kSmallArena);
    }
  }
}

TEST(SpatialOracleTest, DepthSpaceRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const DepthSpaceCase& c = kDepthSpaceCases[1];
  for (TensorType type : {TensorType::kInt16, TensorType::kInt32}) {
    ExpectBothRefuse("d2s_" + Name(type), DepthSpaceModel(BuiltinOp::kDepthToSpace, type, c.depth, c.block, c.space),
                     {Values(type, Count(c.depth), 1)}, "supported: FLOAT32 or INT8", kSmallArena);
    ExpectBothRefuse("s2d_" + Name(type), DepthSpaceModel(BuiltinOp::kSpaceToDepth, type, c.space, c.block, c.depth),
                     {Values(type, Count(c.space), 1)}, "supported: FLOAT32 or INT8", kSmallArena);
  }
  // Channels not divisible by block^2, spatial extents not divisible by the block, rank 3, block 0.
  ExpectBothRefuse("d2s_channels",
                   DepthSpaceModel(BuiltinOp::kDepthToSpace, TensorType::kFloat32, {1, 2, 2, 6}, 2, {1, 4, 4, 1}),
                   {Values(TensorType::kFloat32, 24, 1)}, "not divisible by block_size^2", kSmallArena);
  ExpectBothRefuse("s2d_height",
                   DepthSpaceModel(BuiltinOp::kSpaceToDepth, TensorType::kFloat32, {1, 5, 4, 1}, 2, {1, 2, 2, 4}),
                   {Values(TensorType::kFloat32, 20, 1)}, "not divisible by block_size 2", kSmallArena);
  ExpectBothRefuse("d2s_rank3",
                   DepthSpaceModel(BuiltinOp::kDepthToSpace, TensorType::kFloat32, {2, 2, 4}, 2, {4, 4, 1}),
                   {Values(TensorType::kFloat32, 16, 1)}, "rank", kSmallArena);
  ExpectBothRefuse("d2s_block0",
                   DepthSpaceModel(BuiltinOp::kDepthToSpace, TensorType::kFloat32, {1, 2, 2, 4}, 0, {1, 2, 2, 4}),
                   {Values(TensorType::kFloat32, 16, 1)}, "block_size 0", kSmallArena);
  // TFLM divides by a zero block, and writes its own output shape over one that disagrees.
  ExpectWeRefuse(DepthSpaceModel(BuiltinOp::kSpaceToDepth, TensorType::kFloat32, {1, 2, 2, 4}, 0, {1, 2, 2, 4}),
                 {Values(TensorType::kFloat32, 16, 1)}, "block_size 0");
  ExpectWeRefuse(DepthSpaceModel(BuiltinOp::kDepthToSpace, TensorType::kFloat32, {1, 2, 2, 4}, 2, {1, 2, 8, 1}),
                 {Values(TensorType::kFloat32, 16, 1)}, "block_size 2 gives");
}

// --- MIRROR_PAD -------------------------------------------------------------

struct MirrorPadCase {
  std::vector<int32_t> shape;
  std::vector<int32_t> paddings;  // (before, after) per axis
};

const MirrorPadCase kMirrorPadCases[] = {
    {{5}, {2, 1}},
    {{3, 4}, {1, 2, 0, 3}},
    {{2, 3, 4}, {1, 1, 2, 1, 0, 2}},
    {{1, 3, 3, 2}, {0, 0, 2, 2, 1, 2, 0, 0}},
    {{2, 1, 2, 3, 2}, {1, 0, 0, 0, 1, 1, 2, 0, 0, 1}},
    {{2, 2, 1, 2, 2, 2}, {0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0}},
};

std::vector<int32_t> Padded(const std::vector<int32_t>& shape, const std::vector<int32_t>& paddings) {
  std::vector<int32_t> out = shape;
  for (size_t d = 0; d < shape.size(); ++d) out[d] += paddings[2 * d] + paddings[2 * d + 1];
  return out;
}

Bytes MirrorPadModel(TensorType type, const std::vector<int32_t>& shape, const std::vector<int32_t>& paddings,
                     tflite::MirrorPadMode mode, TensorType paddings_type, bool constant,
                     std::vector<int32_t> out_shape = {}) {
  tflite::MirrorPadOptionsT options;
  options.mode = mode;
  const auto rank = static_cast<int32_t>(shape.size());
  Bytes data;
  if (constant) {
    data = paddings_type == TensorType::kInt64 ? BytesOf(std::vector<int64_t>(paddings.begin(), paddings.end()))
                                               : Int32s(paddings);
  }
  if (out_shape.empty()) out_shape = Padded(shape, paddings);
  return OpModel(BuiltinOp::kMirrorPad, MakeBuiltinOptions(options),
                 {Activation(type, shape), {paddings_type, {rank, 2}, 0, 0, data}}, {Activation(type, out_shape)});
}

TEST(SpatialOracleTest, MirrorPadReflectAndSymmetric) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (tflite::MirrorPadMode mode : {tflite::MirrorPadMode::REFLECT, tflite::MirrorPadMode::SYMMETRIC}) {
    const std::string mode_name = mode == tflite::MirrorPadMode::REFLECT ? "reflect" : "symmetric";
    for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
      for (const MirrorPadCase& c : kMirrorPadCases) {
        const std::string name = "mirror_" + mode_name + "_" + Name(type) + "_" + std::to_string(n++);
        ExpectSameAsOracle(name, MirrorPadModel(type, c.shape, c.paddings, mode, TensorType::kInt32, true),
                           {Values(type, Count(c.shape), 31)}, kSmallArena);
        // INT64 paddings given at Invoke.
        ExpectSameAsOracle(
            name + "_dyn", MirrorPadModel(type, c.shape, c.paddings, mode, TensorType::kInt64, false),
            {Values(type, Count(c.shape), 32), BytesOf(std::vector<int64_t>(c.paddings.begin(), c.paddings.end()))},
            kSmallArena);
      }
    }
    // The longest paddings each mode allows before an axis, and longer ones after it (TFLM repeats index 0).
    const int32_t longest = mode == tflite::MirrorPadMode::REFLECT ? 3 : 4;
    for (const std::vector<int32_t>& paddings :
         std::vector<std::vector<int32_t>>{{longest, longest}, {0, 7}, {1, 9}, {longest, 0}}) {
      ExpectSameAsOracle("mirror_long_" + mode_name + "_" + std::to_string(n++),
                         MirrorPadModel(TensorType::kFloat32, {4}, paddings, mode, TensorType::kInt32, true),
                         {Values(TensorType::kFloat32, 4, 33)}, kSmallArena);
    }
    // One element on an axis: REFLECT has nothing to mirror and repeats it after.
    ExpectSameAsOracle("mirror_single_" + mode_name,
                       MirrorPadModel(TensorType::kInt8, {1, 3}, {0, 2, 1, 1}, mode, TensorType::kInt32, true),
                       {Values(TensorType::kInt8, 3, 34)}, kSmallArena);
  }
}

TEST(SpatialOracleTest, MirrorPadRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const MirrorPadCase& c = kMirrorPadCases[2];
  for (TensorType type : {TensorType::kInt16, TensorType::kInt32}) {
    ExpectBothRefuse(
        "mirror_" + Name(type),
        MirrorPadModel(type, c.shape, c.paddings, tflite::MirrorPadMode::REFLECT, TensorType::kInt32, true),
        {Values(type, Count(c.shape), 1)}, "supported: FLOAT32 or INT8", kSmallArena);
  }
  // Paddings not [rank, 2].
  ExpectBothRefuse("mirror_paddings_shape",
                   OpModel(BuiltinOp::kMirrorPad, MakeBuiltinOptions(tflite::MirrorPadOptionsT{}),
                           {{TensorType::kFloat32, {2, 3}}, {TensorType::kInt32, {1, 2}, 0, 0, Int32s({1, 1})}},
                           {{TensorType::kFloat32, {4, 3}}}),
                   {Values(TensorType::kFloat32, 6, 1)}, "need INT32 or INT64 [2,2]", kSmallArena);
  // Before an axis, longer than the mode allows (TFLM reads before the input), and an output
  // shape unlike the padded one.
  ExpectWeRefuse(
      MirrorPadModel(TensorType::kFloat32, {4}, {4, 0}, tflite::MirrorPadMode::REFLECT, TensorType::kInt32, true),
      {Values(TensorType::kFloat32, 4, 1)}, "REFLECT allows at most 3");
  ExpectWeRefuse(
      MirrorPadModel(TensorType::kFloat32, {4}, {5, 0}, tflite::MirrorPadMode::SYMMETRIC, TensorType::kInt32, true),
      {Values(TensorType::kFloat32, 4, 1)}, "SYMMETRIC allows at most 4");
  ExpectWeRefuse(
      MirrorPadModel(TensorType::kFloat32, {4}, {1, 1}, tflite::MirrorPadMode::REFLECT, TensorType::kInt32, true, {7}),
      {Values(TensorType::kFloat32, 4, 1)}, "do not give the output's 7");
  ExpectWeRefuse(
      MirrorPadModel(TensorType::kFloat32, {4}, {0, 0}, tflite::MirrorPadMode::REFLECT, TensorType::kInt32, false),
      {Values(TensorType::kFloat32, 4, 1), Int32s({-1, 1})}, "paddings (-1, 1)");
}

// --- PADV2 ------------------------------------------------------------------

// One value of `type`: one of Values()'s, picked by `seed` (extremes included).
Bytes OneValue(TensorType type, uint32_t seed) {
  const size_t bytes = TensorTypeBits(type) / 8;
  const Bytes all = Values(type, 16, seed);
  const size_t pick = seed % 16;
  return Bytes(all.begin() + static_cast<std::ptrdiff_t>(pick * bytes),
               all.begin() + static_cast<std::ptrdiff_t>((pick + 1) * bytes));
}

TEST(SpatialOracleTest, PadV2ConstantValues) {
  MICROARENA_REQUIRE_ORACLE();
  const MirrorPadCase cases[] = {
      {{4}, {2, 3}},
      {{2, 3}, {1, 0, 2, 2}},
      {{1, 3, 2, 2}, {0, 0, 1, 2, 2, 1, 0, 0}},  // TFLM's image-style path
      {{2, 2, 3, 2}, {1, 1, 0, 1, 1, 0, 1, 1}},
      {{2, 1, 2, 2, 3}, {1, 0, 0, 2, 1, 1, 0, 0, 2, 1}},
  };
  const TensorType types[] = {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16, TensorType::kInt32};
  int n = 0;
  for (TensorType type : types) {
    for (const MirrorPadCase& c : cases) {
      const auto rank = static_cast<int32_t>(c.shape.size());
      const Operand value_spec = Activation(type, {});
      const Bytes value = OneValue(type, static_cast<uint32_t>(n));
      const std::string name = "padv2_" + Name(type) + "_" + std::to_string(n++);
      // A constant value.
      Operand constant_value = value_spec;
      constant_value.constant = value;
      ExpectSameAsOracle(
          name,
          OpModel(
              BuiltinOp::kPadv2, MakeBuiltinOptions(tflite::PadV2OptionsT{}),
              {Activation(type, c.shape), {TensorType::kInt32, {rank, 2}, 0, 0, Int32s(c.paddings)}, constant_value},
              {Activation(type, Padded(c.shape, c.paddings))}),
          {Values(type, Count(c.shape), 42)}, kSmallArena);
      // The value given at Invoke, as a [1] tensor.
      Operand computed_value = Activation(type, {1});
      ExpectSameAsOracle(
          name + "_dyn",
          OpModel(
              BuiltinOp::kPadv2, MakeBuiltinOptions(tflite::PadV2OptionsT{}),
              {Activation(type, c.shape), {TensorType::kInt32, {rank, 2}, 0, 0, Int32s(c.paddings)}, computed_value},
              {Activation(type, Padded(c.shape, c.paddings))}),
          {Values(type, Count(c.shape), 43), value}, kSmallArena);
      // PADV2 without the value pads as PAD (INT8: the zero point; INT16: 0).
      ExpectSameAsOracle(name + "_two_inputs",
                         OpModel(BuiltinOp::kPadv2, MakeBuiltinOptions(tflite::PadV2OptionsT{}),
                                 {Activation(type, c.shape), {TensorType::kInt32, {rank, 2}, 0, 0, Int32s(c.paddings)}},
                                 {Activation(type, Padded(c.shape, c.paddings))}),
                         {Values(type, Count(c.shape), 44)}, kSmallArena);
    }
  }
  // INT16 PAD with a nonzero zero point pads with 0, not the zero point (as TFLM).
  ExpectSameAsOracle(
      "pad_int16_zero_point",
      OpModel(BuiltinOp::kPad, MakeBuiltinOptions(tflite::PadOptionsT{}),
              {{TensorType::kInt16, {2, 2}, 0.5f, 3}, {TensorType::kInt32, {2, 2}, 0, 0, Int32s({1, 1, 1, 0})}},
              {{TensorType::kInt16, {4, 3}, 0.5f, 3}}),
      {Values(TensorType::kInt16, 4, 45)}, kSmallArena);
}

TEST(SpatialOracleTest, PadV2Refusals) {
  MICROARENA_REQUIRE_ORACLE();
  const Bytes paddings = Int32s({1, 1, 0, 2});
  auto model = [&](Operand input, Operand value, Operand output) {
    return OpModel(BuiltinOp::kPadv2, MakeBuiltinOptions(tflite::PadV2OptionsT{}),
                   {input, {TensorType::kInt32, {2, 2}, 0, 0, paddings}, value}, {output});
  };
  // constant_values of another type, with two elements, or (INT8) another quantization.
  ExpectBothRefuse("padv2_value_type",
                   model({TensorType::kFloat32, {2, 2}}, {TensorType::kInt32, {}, 0, 0, Int32s({7})},
                         {TensorType::kFloat32, {4, 4}}),
                   {Values(TensorType::kFloat32, 4, 1)}, "need one FLOAT32 element", kSmallArena);
  ExpectBothRefuse("padv2_value_count",
                   model({TensorType::kInt32, {2, 2}}, {TensorType::kInt32, {2}, 0, 0, Int32s({7, 8})},
                         {TensorType::kInt32, {4, 4}}),
                   {Values(TensorType::kInt32, 4, 1)}, "with 2 elements", kSmallArena);
  ExpectBothRefuse(
      "padv2_value_zero_point",
      model({TensorType::kInt8, {2, 2}, 0.25f, -5}, {TensorType::kInt8, {}, 0.25f, 4, BytesOf(std::vector<int8_t>{9})},
            {TensorType::kInt8, {4, 4}, 0.25f, -5}),
      {Values(TensorType::kInt8, 4, 1)}, "must share the output's quantization", kSmallArena);
  ExpectBothRefuse(
      "padv2_value_scale",
      model({TensorType::kInt8, {2, 2}, 0.25f, -5}, {TensorType::kInt8, {}, 0.5f, -5, BytesOf(std::vector<int8_t>{9})},
            {TensorType::kInt8, {4, 4}, 0.25f, -5}),
      {Values(TensorType::kInt8, 4, 1)}, "must share the output's quantization", kSmallArena);
  ExpectBothRefuse("padv2_int64",
                   model({TensorType::kInt64, {2, 2}}, {TensorType::kInt64, {}, 0, 0, BytesOf(std::vector<int64_t>{3})},
                         {TensorType::kInt64, {4, 4}}),
                   {Values(TensorType::kInt64, 4, 1)}, "INT64", kSmallArena);
}

// --- RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR --------------------------------

struct ResizeCase {
  std::vector<int32_t> shape;
  int32_t height;
  int32_t width;
};

const ResizeCase kResizeCases[] = {
    {{1, 2, 2, 1}, 3, 3}, {{1, 3, 4, 2}, 5, 7}, {{2, 4, 4, 3}, 2, 2}, {{1, 5, 3, 1}, 1, 1},
    {{1, 1, 1, 2}, 3, 2}, {{1, 3, 3, 2}, 6, 4}, {{1, 4, 6, 1}, 4, 6}, {{2, 7, 5, 2}, 3, 9},
};

struct ResizeFlags {
  bool align_corners;
  bool half_pixel_centers;
};

Bytes ResizeModel(BuiltinOp op, TensorType type, const ResizeCase& c, ResizeFlags flags,
                  TensorType size_type = TensorType::kInt32, bool constant_size = true) {
  tflite::BuiltinOptionsUnion options;
  if (op == BuiltinOp::kResizeBilinear) {
    tflite::ResizeBilinearOptionsT o;
    o.align_corners = flags.align_corners;
    o.half_pixel_centers = flags.half_pixel_centers;
    options = MakeBuiltinOptions(o);
  } else {
    tflite::ResizeNearestNeighborOptionsT o;
    o.align_corners = flags.align_corners;
    o.half_pixel_centers = flags.half_pixel_centers;
    options = MakeBuiltinOptions(o);
  }
  Bytes size;
  if (constant_size) {
    size = size_type == TensorType::kInt64 ? BytesOf(std::vector<int64_t>{c.height, c.width})
                                           : Int32s({c.height, c.width});
  }
  return OpModel(op, std::move(options), {Activation(type, c.shape), {size_type, {2}, 0, 0, size}},
                 {Activation(type, {c.shape[0], c.height, c.width, c.shape[3]})});
}

// Values() with every infinity and NaN made finite: which NaN a sum of NaNs
// keeps depends on operand order the compiler may choose.
Bytes FiniteValues(TensorType type, size_t n, uint32_t seed) {
  Bytes bytes = Values(type, n, seed);
  if (type != TensorType::kFloat32) return bytes;
  for (size_t i = 0; i < n; ++i) {
    float f = 0.0f;
    std::memcpy(&f, &bytes[4 * i], 4);
    if (!std::isfinite(f)) f = static_cast<float>(i % 7) - 3.5f;
    std::memcpy(&bytes[4 * i], &f, 4);
  }
  return bytes;
}

TEST(SpatialOracleTest, ResizeBilinear) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8}) {
    for (ResizeFlags flags : {ResizeFlags{false, false}, ResizeFlags{true, false}, ResizeFlags{false, true}}) {
      for (const ResizeCase& c : kResizeCases) {
        ExpectSameAsOracle("bilinear_" + Name(type) + "_" + std::to_string(n++),
                           ResizeModel(BuiltinOp::kResizeBilinear, type, c, flags),
                           {FiniteValues(type, Count(c.shape), 51)}, kSmallArena);
      }
    }
  }
  // Negative zeros and negative values only: TFLM's sum ends in + 0, so it gives +0 where every term is -0.
  const std::vector<float> negative = {-0.0f, -0.0f, -1.5f, -0.0f, -2.0f, -0.25f};
  for (const ResizeCase& c : {ResizeCase{{1, 2, 3, 1}, 2, 3}, ResizeCase{{1, 2, 3, 1}, 3, 5}}) {
    ExpectSameAsOracle("bilinear_negative_zero_" + std::to_string(c.width),
                       ResizeModel(BuiltinOp::kResizeBilinear, TensorType::kFloat32, c, {false, false}),
                       {BytesOf(negative)}, kSmallArena);
  }
}

TEST(SpatialOracleTest, ResizeNearestNeighbor) {
  MICROARENA_REQUIRE_ORACLE();
  int n = 0;
  for (TensorType type : {TensorType::kFloat32, TensorType::kInt8, TensorType::kInt16}) {
    for (ResizeFlags flags :
         {ResizeFlags{false, false}, ResizeFlags{true, false}, ResizeFlags{false, true}, ResizeFlags{true, true}}) {
      for (const ResizeCase& c : kResizeCases) {
        ExpectSameAsOracle("nearest_" + Name(type) + "_" + std::to_string(n++),
                           ResizeModel(BuiltinOp::kResizeNearestNeighbor, type, c, flags),
                           {Values(type, Count(c.shape), 61)}, kSmallArena);
      }
    }
  }
}

TEST(SpatialOracleTest, ResizeRefusals) {
  MICROARENA_REQUIRE_ORACLE();
  const ResizeCase& c = kResizeCases[1];
  for (TensorType type : {TensorType::kInt16, TensorType::kInt32}) {
    ExpectBothRefuse("bilinear_" + Name(type), ResizeModel(BuiltinOp::kResizeBilinear, type, c, {false, false}),
                     {Values(type, Count(c.shape), 1)}, "supported: FLOAT32 or INT8", kSmallArena);
  }
  ExpectBothRefuse("nearest_int32",
                   ResizeModel(BuiltinOp::kResizeNearestNeighbor, TensorType::kInt32, c, {false, false}),
                   {Values(TensorType::kInt32, Count(c.shape), 1)}, "supported: FLOAT32, INT8 or INT16", kSmallArena);
  ExpectBothRefuse("bilinear_both_flags",
                   ResizeModel(BuiltinOp::kResizeBilinear, TensorType::kFloat32, c, {true, true}),
                   {Values(TensorType::kFloat32, Count(c.shape), 1)}, "both set", kSmallArena);
  for (BuiltinOp op : {BuiltinOp::kResizeBilinear, BuiltinOp::kResizeNearestNeighbor}) {
    // A size that is not constant, or not INT32.
    ExpectBothRefuse("resize_dynamic_size",
                     ResizeModel(op, TensorType::kFloat32, c, {false, false}, TensorType::kInt32, false),
                     {Values(TensorType::kFloat32, Count(c.shape), 1), Int32s({c.height, c.width})}, "must be constant",
                     kSmallArena);
    ExpectBothRefuse("resize_int64_size", ResizeModel(op, TensorType::kFloat32, c, {false, false}, TensorType::kInt64),
                     {Values(TensorType::kFloat32, Count(c.shape), 1)}, "need INT32 [2]", kSmallArena);
    // Rank 3 input.
    ExpectBothRefuse(
        "resize_rank3",
        OpModel(op, {}, {{TensorType::kFloat32, {3, 4, 2}}, {TensorType::kInt32, {2}, 0, 0, Int32s({5, 7})}},
                {{TensorType::kFloat32, {5, 7, 2}}}),
        {Values(TensorType::kFloat32, 24, 1)}, "rank", kSmallArena);
    // An output shape unlike the size (TFLM writes by the size).
    ExpectWeRefuse(
        OpModel(op, {}, {{TensorType::kFloat32, {1, 3, 4, 2}}, {TensorType::kInt32, {2}, 0, 0, Int32s({5, 7})}},
                {{TensorType::kFloat32, {1, 5, 6, 2}}}),
        {Values(TensorType::kFloat32, 24, 1)}, "resized to 5 x 7");
  }
}

}  // namespace
}  // namespace microarena
