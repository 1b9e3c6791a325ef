// The kernels microarena provides, one constant registration per op. Each is
// defined in kernels/<op>.cc and listed in all_ops.cc, and the tensor types
// its Prepare accepts are in the op table (op_types.cc; a kernel added here
// without an entry there fails tests/ops_table_test.cc).
#pragma once

#include "microarena/kernels/kernel.h"

namespace microarena {

// Ops of the shared MLPerf Tiny and TFLM example models.
extern const KernelRegistration kAddKernel;
extern const KernelRegistration kAveragePool2dKernel;
extern const KernelRegistration kConv2dKernel;
extern const KernelRegistration kDepthwiseConv2dKernel;
extern const KernelRegistration kFullyConnectedKernel;
extern const KernelRegistration kLogisticKernel;
extern const KernelRegistration kQuantizeKernel;
extern const KernelRegistration kReshapeKernel;
extern const KernelRegistration kSoftmaxKernel;
extern const KernelRegistration kSvdfKernel;
extern const KernelRegistration kUnidirectionalSequenceLstmKernel;
// Other common MCU ops.
extern const KernelRegistration kBatchMatmulKernel;
extern const KernelRegistration kConcatenationKernel;
extern const KernelRegistration kDequantizeKernel;
extern const KernelRegistration kExpandDimsKernel;
extern const KernelRegistration kHardSwishKernel;
extern const KernelRegistration kLeakyReluKernel;
extern const KernelRegistration kMaxPool2dKernel;
extern const KernelRegistration kMeanKernel;
extern const KernelRegistration kMulKernel;
extern const KernelRegistration kPadKernel;
extern const KernelRegistration kReluKernel;
extern const KernelRegistration kRelu6Kernel;
extern const KernelRegistration kSqueezeKernel;
extern const KernelRegistration kStridedSliceKernel;
extern const KernelRegistration kSubKernel;
extern const KernelRegistration kTanhKernel;
extern const KernelRegistration kTransposeConvKernel;
extern const KernelRegistration kTransposeKernel;
// Comparisons (comparisons.cc).
extern const KernelRegistration kEqualKernel;
extern const KernelRegistration kGreaterEqualKernel;
extern const KernelRegistration kGreaterKernel;
extern const KernelRegistration kLessEqualKernel;
extern const KernelRegistration kLessKernel;
extern const KernelRegistration kNotEqualKernel;
// Binary elementwise math (binary_math.cc).
extern const KernelRegistration kDivKernel;
extern const KernelRegistration kFloorDivKernel;
extern const KernelRegistration kFloorModKernel;
extern const KernelRegistration kMaximumKernel;
extern const KernelRegistration kMinimumKernel;
extern const KernelRegistration kSquaredDifferenceKernel;
// Casts, fills and shape ops (cast.cc, fill.cc, broadcast_ops.cc).
extern const KernelRegistration kBroadcastArgsKernel;
extern const KernelRegistration kBroadcastToKernel;
extern const KernelRegistration kCastKernel;
extern const KernelRegistration kDynamicUpdateSliceKernel;
extern const KernelRegistration kFillKernel;
extern const KernelRegistration kSelectV2Kernel;
extern const KernelRegistration kShapeKernel;
extern const KernelRegistration kZerosLikeKernel;
// Data movement (pack_split.cc, gather_slice.cc).
extern const KernelRegistration kGatherKernel;
extern const KernelRegistration kGatherNdKernel;
extern const KernelRegistration kPackKernel;
extern const KernelRegistration kReverseV2Kernel;
extern const KernelRegistration kSliceKernel;
extern const KernelRegistration kSplitKernel;
extern const KernelRegistration kSplitVKernel;
extern const KernelRegistration kUnpackKernel;
// Reductions and ADD_N (reduce.cc, arg_min_max.cc, add_n.cc).
extern const KernelRegistration kAddNKernel;
extern const KernelRegistration kArgMaxKernel;
extern const KernelRegistration kArgMinKernel;
extern const KernelRegistration kReduceAllKernel;
extern const KernelRegistration kReduceMaxKernel;
extern const KernelRegistration kReduceMinKernel;
extern const KernelRegistration kSumKernel;
// Unary math (unary_math.cc) and logical ops (logical.cc).
extern const KernelRegistration kAbsKernel;
extern const KernelRegistration kCeilKernel;
extern const KernelRegistration kCosKernel;
extern const KernelRegistration kExpKernel;
extern const KernelRegistration kFloorKernel;
extern const KernelRegistration kLogKernel;
extern const KernelRegistration kLogicalAndKernel;
extern const KernelRegistration kLogicalNotKernel;
extern const KernelRegistration kLogicalOrKernel;
extern const KernelRegistration kNegKernel;
extern const KernelRegistration kRoundKernel;
extern const KernelRegistration kRsqrtKernel;
extern const KernelRegistration kSinKernel;
extern const KernelRegistration kSqrtKernel;
extern const KernelRegistration kSquareKernel;
// Activations, normalization, pooling, CUMSUM and EMBEDDING_LOOKUP (one file per op).
extern const KernelRegistration kCumsumKernel;
extern const KernelRegistration kEluKernel;
extern const KernelRegistration kEmbeddingLookupKernel;
extern const KernelRegistration kL2NormalizationKernel;
extern const KernelRegistration kL2Pool2dKernel;
extern const KernelRegistration kLogSoftmaxKernel;
extern const KernelRegistration kPreluKernel;
// Control flow and resource variables (control_flow.cc, resource_variables.cc).
extern const KernelRegistration kAssignVariableKernel;
extern const KernelRegistration kCallOnceKernel;
extern const KernelRegistration kIfKernel;
extern const KernelRegistration kReadVariableKernel;
extern const KernelRegistration kVarHandleKernel;
extern const KernelRegistration kWhileKernel;
// Spatial data movement (space_batch.cc, depth_space.cc, mirror_pad.cc, pad.cc, resize.cc).
extern const KernelRegistration kBatchToSpaceNdKernel;
extern const KernelRegistration kDepthToSpaceKernel;
extern const KernelRegistration kMirrorPadKernel;
extern const KernelRegistration kPadv2Kernel;
extern const KernelRegistration kResizeBilinearKernel;
extern const KernelRegistration kResizeNearestNeighborKernel;
extern const KernelRegistration kSpaceToBatchNdKernel;
extern const KernelRegistration kSpaceToDepthKernel;

// Int8-only variants (int8_only.h; TFLM's Register_CONV_2D_INT8 and friends):
// the same op as the general kernel above, accepting only INT8 input 0 and
// output 0, so a firmware that registers one links none of the op's int16 or
// float32 code. Not in AllOpsResolver (one kernel per op there); `microarena
// embed --resolver` picks one when every instance of its op in the model is
// int8.
extern const KernelRegistration kAddInt8Kernel;
extern const KernelRegistration kAveragePool2dInt8Kernel;
extern const KernelRegistration kConv2dInt8Kernel;
extern const KernelRegistration kDepthwiseConv2dInt8Kernel;
extern const KernelRegistration kFullyConnectedInt8Kernel;
extern const KernelRegistration kLogisticInt8Kernel;
extern const KernelRegistration kMaxPool2dInt8Kernel;
extern const KernelRegistration kMulInt8Kernel;
extern const KernelRegistration kSoftmaxInt8Kernel;
extern const KernelRegistration kSubInt8Kernel;
extern const KernelRegistration kTanhInt8Kernel;

// Every general registration above, for tables built from the list (all_ops.cc, and
// the per-model resolvers `microarena embed --resolver` writes):
//   #define ENTRY(name) &microarena::name,
//   MICROARENA_FOR_EACH_KERNEL(ENTRY)
#define MICROARENA_FOR_EACH_KERNEL(X) \
  X(kAbsKernel) \
  X(kAddKernel) \
  X(kAddNKernel) \
  X(kArgMaxKernel) \
  X(kArgMinKernel) \
  X(kAssignVariableKernel) \
  X(kAveragePool2dKernel) \
  X(kBatchMatmulKernel) \
  X(kBatchToSpaceNdKernel) \
  X(kBroadcastArgsKernel) \
  X(kBroadcastToKernel) \
  X(kCallOnceKernel) \
  X(kCastKernel) \
  X(kCeilKernel) \
  X(kConcatenationKernel) \
  X(kConv2dKernel) \
  X(kCosKernel) \
  X(kCumsumKernel) \
  X(kDepthwiseConv2dKernel) \
  X(kDepthToSpaceKernel) \
  X(kDequantizeKernel) \
  X(kDivKernel) \
  X(kDynamicUpdateSliceKernel) \
  X(kEluKernel) \
  X(kEmbeddingLookupKernel) \
  X(kEqualKernel) \
  X(kExpKernel) \
  X(kExpandDimsKernel) \
  X(kFillKernel) \
  X(kFloorDivKernel) \
  X(kFloorKernel) \
  X(kFloorModKernel) \
  X(kFullyConnectedKernel) \
  X(kGatherKernel) \
  X(kGatherNdKernel) \
  X(kGreaterEqualKernel) \
  X(kGreaterKernel) \
  X(kHardSwishKernel) \
  X(kIfKernel) \
  X(kL2NormalizationKernel) \
  X(kL2Pool2dKernel) \
  X(kLeakyReluKernel) \
  X(kLessEqualKernel) \
  X(kLessKernel) \
  X(kLogKernel) \
  X(kLogSoftmaxKernel) \
  X(kLogicalAndKernel) \
  X(kLogicalNotKernel) \
  X(kLogicalOrKernel) \
  X(kLogisticKernel) \
  X(kMaxPool2dKernel) \
  X(kMaximumKernel) \
  X(kMeanKernel) \
  X(kMinimumKernel) \
  X(kMirrorPadKernel) \
  X(kMulKernel) \
  X(kNegKernel) \
  X(kNotEqualKernel) \
  X(kPackKernel) \
  X(kPadKernel) \
  X(kPadv2Kernel) \
  X(kPreluKernel) \
  X(kQuantizeKernel) \
  X(kReadVariableKernel) \
  X(kReduceAllKernel) \
  X(kReduceMaxKernel) \
  X(kReduceMinKernel) \
  X(kRelu6Kernel) \
  X(kReluKernel) \
  X(kReshapeKernel) \
  X(kResizeBilinearKernel) \
  X(kResizeNearestNeighborKernel) \
  X(kReverseV2Kernel) \
  X(kRoundKernel) \
  X(kRsqrtKernel) \
  X(kSelectV2Kernel) \
  X(kShapeKernel) \
  X(kSinKernel) \
  X(kSliceKernel) \
  X(kSoftmaxKernel) \
  X(kSpaceToBatchNdKernel) \
  X(kSpaceToDepthKernel) \
  X(kSplitKernel) \
  X(kSplitVKernel) \
  X(kSqrtKernel) \
  X(kSquareKernel) \
  X(kSquaredDifferenceKernel) \
  X(kSqueezeKernel) \
  X(kStridedSliceKernel) \
  X(kSubKernel) \
  X(kSumKernel) \
  X(kSvdfKernel) \
  X(kTanhKernel) \
  X(kTransposeConvKernel) \
  X(kTransposeKernel) \
  X(kUnidirectionalSequenceLstmKernel) \
  X(kUnpackKernel) \
  X(kVarHandleKernel) \
  X(kWhileKernel) \
  X(kZerosLikeKernel)

// TFLM's custom ops, found by the name in the model's operator code.
extern const KernelRegistration kCircularBufferKernel;        // "CIRCULAR_BUFFER"
extern const KernelRegistration kDetectionPostprocessKernel;  // "TFLite_Detection_PostProcess"

// Every custom kernel AllOpsResolver has, as X(name, kernel), sorted by name.
#define MICROARENA_FOR_EACH_CUSTOM_KERNEL(X) \
  X("CIRCULAR_BUFFER", kCircularBufferKernel) \
  X("TFLite_Detection_PostProcess", kDetectionPostprocessKernel)

// Every int8-only variant, for the per-model resolvers.
#define MICROARENA_FOR_EACH_INT8_KERNEL(X) \
  X(kAddInt8Kernel) \
  X(kAveragePool2dInt8Kernel) \
  X(kConv2dInt8Kernel) \
  X(kDepthwiseConv2dInt8Kernel) \
  X(kFullyConnectedInt8Kernel) \
  X(kLogisticInt8Kernel) \
  X(kMaxPool2dInt8Kernel) \
  X(kMulInt8Kernel) \
  X(kSoftmaxInt8Kernel) \
  X(kSubInt8Kernel) \
  X(kTanhInt8Kernel)

}  // namespace microarena
