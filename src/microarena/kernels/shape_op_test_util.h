// Test helpers for the data-movement kernel tests: kernel_test_util.h's
// one-op runner bound to those kernels. The tests live in this namespace so
// they use the helpers unqualified. Host tests only.
#pragma once

#include "microarena/kernels/kernel_test_util.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena::shape_op_test {

inline const OpResolver& Resolver() {
  return kernel_test::KernelResolver<&kBatchMatmulKernel, &kConcatenationKernel, &kExpandDimsKernel, &kMeanKernel,
                                     &kPadKernel, &kSqueezeKernel, &kStridedSliceKernel, &kTransposeKernel>();
}

using kernel_test::Bytes;
using kernel_test::ExpectError;
using kernel_test::Int8;
using kernel_test::Plain;
using kernel_test::Values;

// kernel_test::OneOp with the kernels above (see kernel_test_util.h).
class OneOp : public kernel_test::OneOp {
 public:
  explicit OneOp(BuiltinOp op) : kernel_test::OneOp(op, Resolver()) {}
};

}  // namespace microarena::shape_op_test
