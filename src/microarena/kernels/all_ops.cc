#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

// One line per implemented kernel (keep the list sorted by op name).
constexpr const KernelRegistration* kAllKernels[] = {
    &kAddKernel,
    &kAveragePool2dKernel,
    &kBatchMatmulKernel,
    &kConcatenationKernel,
    &kConv2dKernel,
    &kDepthwiseConv2dKernel,
    &kDequantizeKernel,
    &kExpandDimsKernel,
    &kFullyConnectedKernel,
    &kHardSwishKernel,
    &kLeakyReluKernel,
    &kLogisticKernel,
    &kMaxPool2dKernel,
    &kMeanKernel,
    &kMulKernel,
    &kPadKernel,
    &kQuantizeKernel,
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
};

}  // namespace

const OpResolver& AllOpsResolver() {
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kAllKernels)};
  return resolver;
}

}  // namespace microarena
