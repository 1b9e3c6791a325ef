#include "microarena/kernels/op_types.h"

#include <cstring>

namespace microarena {
namespace {

using T = TensorType;
using O = TypedOperand;
using B = BuiltinOp;

constexpr TensorTypeMask kF32 = TypeBit(T::kFloat32);
constexpr TensorTypeMask kI8 = TypeBit(T::kInt8);
constexpr TensorTypeMask kI16 = TypeBit(T::kInt16);
constexpr TensorTypeMask kI32 = TypeBit(T::kInt32);
constexpr TensorTypeMask kI64 = TypeBit(T::kInt64);
constexpr TensorTypeMask kU8 = TypeBit(T::kUInt8);
constexpr TensorTypeMask kU32 = TypeBit(T::kUInt32);
constexpr TensorTypeMask kBool = TypeBit(T::kBool);
constexpr TensorTypeMask kResource = TypeBit(T::kResource);

// Each entry restates the type checks of the kernel's Prepare (the file is
// named); change both together.
constexpr OpTypes kTable[] = {
    // unary_math.cc: FLOAT32; ABS also INT8 (per-tensor quantized) and INT16.
    {B::kAbs, O::kInput0, kF32 | kI8 | kI16, false,
     "output of the input's type; INT16: zero points 0, or unquantized"},
    // add_sub_common.h: CheckBinaryOperands(allow_int16, allow_int32).
    {B::kAdd, O::kInput0, kF32 | kI8 | kI16 | kI32, false,
     "both inputs and the output of one type; INT32 inputs unquantized, its fused activation ignored (as TFLM)"},
    {B::kAddN, O::kInput0, kF32 | kI8, false, "all inputs and the output of one type (INT8: one quantization)"},
    {B::kArgMax, O::kInput0, kF32 | kI8, false, "output INT32; axis one INT32 value"},
    {B::kArgMin, O::kInput0, kF32 | kI8, false, "output INT32; axis one INT32 value"},
    {B::kAssignVariable, O::kInput0, kResource | kI32, false, "input 0 a resource id; value of any type"},
    {B::kAveragePool2d, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type and quantization"},
    {B::kBatchMatmul, O::kInput0, kF32 | kI8 | kI16, false,
     "both inputs and the output of one type; INT16: zero points 0"},
    {B::kBatchToSpaceNd, O::kInput0, kF32 | kI8, false, "output of the input's type; block_shape and crops INT32"},
    {B::kBroadcastArgs, O::kInput0, kI32 | kI64, false, "both shapes and the output of one type"},
    {B::kBroadcastTo, O::kInput0, kWholeByteTypes, false, "output of the input's type; shape INT32 or INT64"},
    {B::kCallOnce, O::kNone, 0, false, "no tensors; runs the init subgraph once"},
    {B::kCast, O::kInput0, kI8 | kI16 | kI32 | kU32 | kF32 | kBool, false,
     "output INT8, INT16, INT32, UINT32 or FLOAT32"},
    {B::kCeil, O::kInput0, kF32, false, "output of the input's type"},
    {B::kConcatenation, O::kInput0, kF32 | kI8 | kI16 | kI32 | kI64 | kBool, false,
     "all inputs and the output of one type (INT8 may requantize)"},
    // conv.cc: INT16 input with an INT8 filter and an INT32 or INT64 bias.
    {B::kConv2d, O::kInput0, kF32 | kI8 | kI16, true, "output of the input's type; INT8: INT8 or INT4 weights; INT16: INT32 or INT64 bias"},
    {B::kCos, O::kInput0, kF32, false, "output of the input's type"},
    {B::kCumsum, O::kInput0, kF32 | kI8, false, "output of the input's type; axis one INT32 value"},
    // depthwise_conv.cc: the 16x8 form takes an INT64 bias.
    {B::kDepthwiseConv2d, O::kInput0, kF32 | kI8 | kI16, true, "output of the input's type; INT8: INT8 or INT4 weights; INT16: INT64 bias"},
    {B::kDepthToSpace, O::kInput0, kF32 | kI8, false, "output of the input's type; option block_size"},
    {B::kDequantize, O::kInput0, kI8 | kU8 | kI16, false, "output FLOAT32"},
    {B::kDiv, O::kInput0, kF32 | kI32 | kI8, false, "both inputs and the output of one type"},
    {B::kDynamicUpdateSlice, O::kInput0, kF32 | kI8 | kI16 | kI32, false,
     "update and output of the operand's type; start_indices INT32 or INT64, one per dimension"},
    {B::kElu, O::kInput0, kF32 | kI8, false, "output of the input's type"},
    {B::kEmbeddingLookup, O::kInput1, kF32 | kI8, false,
     "lookup INT32; output of the table's type, or FLOAT32 for INT8"},
    {B::kEqual, O::kInput0, kF32 | kI32 | kI64 | kI8 | kBool, false, "both inputs of one type; output BOOL"},
    {B::kExp, O::kInput0, kF32, false, "output of the input's type"},
    {B::kExpandDims, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type and quantization"},
    {B::kFill, O::kInput1, kF32 | kI32 | kI8, false, "value and output of one type; dims constant"},
    {B::kFloor, O::kInput0, kF32, false, "output of the input's type"},
    {B::kFloorDiv, O::kInput0, kF32, false, "both inputs and the output of one type"},
    {B::kFloorMod, O::kInput0, kF32, false, "both inputs and the output of one type"},
    // fully_connected.cc: INT16 input with INT8 weights and an INT16 output.
    {B::kFullyConnected, O::kInput0, kF32 | kI8 | kI16, true,
     "output of the input's type; weights per tensor, or per channel (one scale per unit) with a rank-2 output; INT8: "
     "also INT4 weights per tensor"},
    {B::kGather, O::kInput0, kF32 | kI8, false, "indices INT32"},
    {B::kGatherNd, O::kInput0, kF32 | kI8, false, "indices INT32"},
    {B::kGreater, O::kInput0, kF32 | kI32 | kI64 | kI8, false, "both inputs of one type; output BOOL"},
    {B::kGreaterEqual, O::kInput0, kF32 | kI32 | kI64 | kI8, false, "both inputs of one type; output BOOL"},
    {B::kHardSwish, O::kInput0, kF32 | kI8, false, "output of the input's type"},
    {B::kIf, O::kInput0, kBool, false, "condition one BOOL; other operands match the branches' types"},
    {B::kL2Normalization, O::kInput0, kF32 | kI8, false, "output of the input's type; rank 1 to 4; no activation"},
    {B::kL2Pool2d, O::kInput0, kF32, false, "output of the input's type"},
    {B::kLeakyRelu, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type"},
    {B::kLess, O::kInput0, kF32 | kI32 | kI64 | kI8, false, "both inputs of one type; output BOOL"},
    {B::kLessEqual, O::kInput0, kF32 | kI32 | kI64 | kI8, false, "both inputs of one type; output BOOL"},
    {B::kLog, O::kInput0, kF32, false, "output of the input's type"},
    {B::kLogicalAnd, O::kInput0, kBool, false, "all operands BOOL"},
    {B::kLogicalNot, O::kInput0, kBool, false, "all operands BOOL"},
    {B::kLogicalOr, O::kInput0, kBool, false, "all operands BOOL"},
    {B::kLogistic, O::kInput0, kF32 | kI8 | kI16, false,
     "output of the input's type; INT16: scale 2^-15, zero points 0"},
    {B::kLogSoftmax, O::kInput0, kF32 | kI8, false, "output of the input's type (INT8: scale 16/256, zero point 127)"},
    {B::kMaxPool2d, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type and quantization"},
    {B::kMaximum, O::kInput0, kF32 | kI8 | kI16 | kI32 | kI64, false, "both inputs and the output of one type"},
    {B::kMean, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type; axis INT32"},
    {B::kMinimum, O::kInput0, kF32 | kI8 | kI16 | kI32 | kI64, false, "both inputs and the output of one type"},
    {B::kMirrorPad, O::kInput0, kF32 | kI8, false, "output of the input's type; paddings INT32 or INT64"},
    {B::kMul, O::kInput0, kF32 | kI8 | kI16 | kI32, false,
     "both inputs and the output of one type; INT16: zero points 0; INT32: the low 32 bits of the product"},
    {B::kNeg, O::kInput0, kF32, false, "output of the input's type"},
    {B::kNotEqual, O::kInput0, kF32 | kI32 | kI64 | kI8 | kBool, false, "both inputs of one type; output BOOL"},
    {B::kPack, O::kInput0, kF32 | kI8 | kI16 | kI32 | kI64, false, "all operands of one type"},
    {B::kPad, O::kInput0, kF32 | kI8 | kI16 | kI32, false, "output of the input's type; paddings INT32 or INT64"},
    {B::kPadv2, O::kInput0, kF32 | kI8 | kI16 | kI32, false,
     "output of the input's type; paddings INT32 or INT64; constant_values of the input's type"},
    {B::kPrelu, O::kInput0, kF32 | kI8 | kI16, false, "alpha and output of the input's type (INT16: INT8 alpha)"},
    // quantize.cc: Supported(in, out).
    {B::kQuantize, O::kInput0, kF32 | kI8 | kI16 | kI32 | kU8, false,
     "FLOAT32 -> INT8/INT16; INT8 -> INT8/UINT8/INT16/INT32; INT16 -> INT8/INT16/INT32; INT32 -> INT8/INT16; "
     "UINT8 -> INT8"},
    {B::kReadVariable, O::kInput0, kResource | kI32, false, "input 0 a resource id; output of the variable's type"},
    {B::kReduceAll, O::kInput0, kBool, false, "output BOOL; axis INT32"},
    {B::kReduceMax, O::kInput0, kF32 | kI8, false, "output of the input's type; axis INT32"},
    {B::kReduceMin, O::kInput0, kF32 | kI8, false, "output of the input's type; axis INT32"},
    {B::kRelu, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type; INT16: zero points 0"},
    {B::kRelu6, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type"},
    {B::kReshape, O::kInput0, kAnyTensorType, false, "output of the input's type"},
    {B::kResizeBilinear, O::kInput0, kF32 | kI8, false, "output of the input's type; size constant INT32"},
    {B::kResizeNearestNeighbor, O::kInput0, kF32 | kI8 | kI16, false,
     "output of the input's type; size constant INT32"},
    {B::kReverseV2, O::kInput0, kF32 | kI32 | kU8 | kI8 | kI16 | kI64 | kBool, false, "axis INT32"},
    {B::kRound, O::kInput0, kF32, false, "output of the input's type"},
    {B::kRsqrt, O::kInput0, kF32 | kI8, false,
     "output of the input's type; INT8: per-tensor quantization, inputs at or above the zero point"},
    {B::kSelectV2, O::kInput1, kF32 | kI8 | kI16, false, "condition BOOL; x, y and the output of one type"},
    {B::kShape, O::kOutput0, kI32, false, "input of any type"},
    {B::kSin, O::kInput0, kF32, false, "output of the input's type"},
    {B::kSlice, O::kInput0, kF32 | kI8 | kI16 | kI32 | kBool, false, "begin and size both INT32 or both INT64"},
    {B::kSoftmax, O::kInput0, kF32 | kI8 | kI16, false, "FLOAT32 -> FLOAT32; INT8 -> INT8 or INT16; INT16 -> INT16"},
    {B::kSpaceToBatchNd, O::kInput0, kF32 | kI8, false,
     "output of the input's type; block_shape and paddings INT32; pads with 0 bytes"},
    {B::kSpaceToDepth, O::kInput0, kF32 | kI8, false, "output of the input's type; option block_size"},
    {B::kSplit, O::kInput1, kF32 | kI8 | kI16 | kI32, false, "outputs of the input's type; axis INT32"},
    {B::kSplitV, O::kInput0, kF32 | kI8 | kI16 | kI32, false, "outputs of the input's type; axis INT32"},
    {B::kSqrt, O::kInput0, kF32, false, "output of the input's type"},
    {B::kSquare, O::kInput0, kF32, false, "output of the input's type"},
    {B::kSquaredDifference, O::kInput0, kF32 | kI32 | kI8 | kI16, false, "both inputs and the output of one type"},
    {B::kSqueeze, O::kInput0, kWholeByteTypes, false, "output of the input's type and quantization"},
    {B::kStridedSlice, O::kInput0, k1To4ByteTypes, false, "output of the input's type and quantization"},
    {B::kSub, O::kInput0, kF32 | kI8 | kI16 | kI32, false, "both inputs and the output of one type; INT32 unquantized"},
    {B::kSum, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type; axis INT32"},
    {B::kSvdf, O::kInput0, kF32 | kI8, false, "INT8: INT8 weights and output, INT8 or INT16 state, INT32 bias"},
    {B::kTanh, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type; INT16: scale 2^-15, zero points 0"},
    {B::kTranspose, O::kInput0, kF32 | kI8 | kI16, false, "output of the input's type and quantization"},
    // transpose_conv.cc: the 16x8 form takes an INT16 or INT64 bias.
    {B::kTransposeConv, O::kInput2, kF32 | kI8 | kI16, true,
     "output shape INT32; output of the input's type; INT16: INT16 or INT64 bias"},
    // unidirectional_sequence_lstm.cc: the 16x8 form takes INT64 biases.
    {B::kUnidirectionalSequenceLstm, O::kInput0, kF32 | kI8 | kI16, true,
     "INT8/INT16: INT8 weights, INT16 cell state, hidden state and output of the input's type, INT32/INT64 bias"},
    {B::kUnpack, O::kInput0, kF32 | kI8 | kI16 | kI32, false, "outputs of the input's type"},
    {B::kVarHandle, O::kOutput0, kResource | kI32, false, "no inputs; output a resource id"},
    {B::kWhile, O::kNone, 0, false, "operands match the cond and body subgraphs' types"},
    {B::kZerosLike, O::kInput0, kI64 | kI32 | kI8 | kF32, false, "output of the input's type"},
};

constexpr CustomOpTypes kCustomTable[] = {
    {"CIRCULAR_BUFFER",
     {B::kCustom, O::kInput0, kI8, false, "output INT8 [b, slots, w, d] for input [b, 1, w, d]; option cycles_max"}},
    {"TFLite_Detection_PostProcess",
     {B::kCustom, O::kInput0, kF32, false,
      "box encodings, class scores and anchors FLOAT32; four FLOAT32 outputs; options as TFLM's"}},
};

// TFLM's MicroMutableOpResolver builtins (Add<Op> methods), by code.
constexpr BuiltinOp kTflmBuiltins[] = {
    B::kAdd,
    B::kAveragePool2d,
    B::kConcatenation,
    B::kConv2d,
    B::kDepthwiseConv2d,
    B::kDepthToSpace,
    B::kDequantize,
    B::kEmbeddingLookup,
    B::kFloor,
    B::kFullyConnected,
    B::kL2Normalization,
    B::kL2Pool2d,
    B::kLogistic,
    B::kMaxPool2d,
    B::kMul,
    B::kRelu,
    B::kRelu6,
    B::kReshape,
    B::kResizeBilinear,
    B::kSoftmax,
    B::kSpaceToDepth,
    B::kSvdf,
    B::kTanh,
    B::kPad,
    B::kGather,
    B::kBatchToSpaceNd,
    B::kSpaceToBatchNd,
    B::kTranspose,
    B::kMean,
    B::kSub,
    B::kDiv,
    B::kSqueeze,
    B::kUnidirectionalSequenceLstm,
    B::kStridedSlice,
    B::kExp,
    B::kSplit,
    B::kLogSoftmax,
    B::kCast,
    B::kPrelu,
    B::kMaximum,
    B::kArgMax,
    B::kMinimum,
    B::kLess,
    B::kNeg,
    B::kPadv2,
    B::kGreater,
    B::kGreaterEqual,
    B::kLessEqual,
    B::kSlice,
    B::kSin,
    B::kTransposeConv,
    B::kExpandDims,
    B::kEqual,
    B::kNotEqual,
    B::kLog,
    B::kSum,
    B::kSqrt,
    B::kRsqrt,
    B::kShape,
    B::kArgMin,
    B::kReduceMax,
    B::kPack,
    B::kLogicalOr,
    B::kLogicalAnd,
    B::kLogicalNot,
    B::kUnpack,
    B::kReduceMin,
    B::kFloorDiv,
    B::kSquare,
    B::kZerosLike,
    B::kFill,
    B::kFloorMod,
    B::kResizeNearestNeighbor,
    B::kLeakyRelu,
    B::kSquaredDifference,
    B::kMirrorPad,
    B::kAbs,
    B::kSplitV,
    B::kCeil,
    B::kReverseV2,
    B::kAddN,
    B::kGatherNd,
    B::kCos,
    B::kElu,
    B::kQuantize,
    B::kRound,
    B::kHardSwish,
    B::kIf,
    B::kWhile,
    B::kSelectV2,
    B::kBatchMatmul,
    B::kCumsum,
    B::kCallOnce,
    B::kBroadcastTo,
    B::kVarHandle,
    B::kReadVariable,
    B::kAssignVariable,
    B::kBroadcastArgs,
    B::kReduceAll,
    B::kDynamicUpdateSlice,
};

}  // namespace

Span<const OpTypes> OpTypeTable() { return Span<const OpTypes>(kTable); }

const OpTypes* FindOpTypes(BuiltinOp op) {
  for (const OpTypes& entry : kTable) {
    if (entry.op == op) return &entry;
  }
  return nullptr;
}

Span<const CustomOpTypes> CustomOpTypeTable() { return Span<const CustomOpTypes>(kCustomTable); }

const OpTypes* FindCustomOpTypes(const char* name) {
  if (name == nullptr) return nullptr;
  for (const CustomOpTypes& entry : kCustomTable) {
    if (std::strcmp(entry.name, name) == 0) return &entry.types;
  }
  return nullptr;
}

Span<const BuiltinOp> TflmBuiltinOps() { return Span<const BuiltinOp>(kTflmBuiltins); }

}  // namespace microarena
