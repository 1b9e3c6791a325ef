#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

// One line per implemented kernel (keep the list sorted by op name).
constexpr const KernelRegistration* kAllKernels[] = {
    &kAddKernel,
    &kAssignVariableKernel,
    &kAveragePool2dKernel,
    &kBatchMatmulKernel,
    &kCallOnceKernel,
    &kConcatenationKernel,
    &kConv2dKernel,
    &kDepthwiseConv2dKernel,
    &kDequantizeKernel,
    &kEqualKernel,
    &kExpandDimsKernel,
    &kFullyConnectedKernel,
    &kGreaterEqualKernel,
    &kGreaterKernel,
    &kHardSwishKernel,
    &kIfKernel,
    &kLeakyReluKernel,
    &kLessEqualKernel,
    &kLessKernel,
    &kLogisticKernel,
    &kMaxPool2dKernel,
    &kMeanKernel,
    &kMulKernel,
    &kNotEqualKernel,
    &kPadKernel,
    &kQuantizeKernel,
    &kReadVariableKernel,
    &kRelu6Kernel,
    &kReluKernel,
    &kReshapeKernel,
    &kSoftmaxKernel,
    &kSqueezeKernel,
    &kStridedSliceKernel,
    &kSubKernel,
    &kSvdfKernel,
    &kTanhKernel,
    &kTransposeKernel,
    &kUnidirectionalSequenceLstmKernel,
    &kVarHandleKernel,
    &kWhileKernel,
};

}  // namespace

const OpResolver& AllOpsResolver() {
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kAllKernels)};
  return resolver;
}

}  // namespace microarena
