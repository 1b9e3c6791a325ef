// OpResolver: op code -> kernel, from a constant table (no mutable state).
//
//   const OpResolver& resolver = AllOpsResolver();        // every kernel we have
//   // or, to keep only what a model needs in flash:
//   static constexpr const KernelRegistration* kMine[] = {&kConv2dKernel, &kSoftmaxKernel};
//   static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kMine)};
#pragma once

#include "microarena/base/span.h"
#include "microarena/kernels/kernel.h"

namespace microarena {

class OpResolver {
 public:
  constexpr explicit OpResolver(Span<const KernelRegistration* const> kernels) : kernels_(kernels) {}
  // The kernel for `op`, or nullptr.
  const KernelRegistration* Find(BuiltinOp op) const {
    for (const KernelRegistration* kernel : kernels_) {
      if (kernel->op == op) return kernel;
    }
    return nullptr;
  }
  Span<const KernelRegistration* const> kernels() const { return kernels_; }

 private:
  Span<const KernelRegistration* const> kernels_;
};

// Every kernel microarena has.
const OpResolver& AllOpsResolver();

}  // namespace microarena
