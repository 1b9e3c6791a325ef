// OpResolver: op code -> kernel, from constant tables (no mutable state).
//
//   const OpResolver& resolver = AllOpsResolver();        // every kernel we have
//   // or, to keep only what a model needs in flash:
//   static constexpr const KernelRegistration* kMine[] = {&kConv2dKernel, &kSoftmaxKernel};
//   static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kMine)};
//   // int8-only kernels (int8_only.h) link no int16 or float32 code, for ops
//   // whose instances all have INT8 activations (`embed --resolver` picks them):
//   static constexpr const KernelRegistration* kSmall[] = {&kConv2dInt8Kernel, &kSoftmaxInt8Kernel};
//
// Custom ops (op code CUSTOM) are found by their name in the model, as TFLM's
// MicroMutableOpResolver::AddCustom registers them. The kernel gets the same
// PrepareContext as a builtin (op data, scratch, persistent memory; the
// op's custom options through OperatorView::custom_options):
//   extern const KernelRegistration kMyNpuKernel;  // {BuiltinOp::kCustom, Prepare, Eval}
//   static constexpr CustomKernel kCustom[] = {{"ethos-u", &kMyNpuKernel}};
//   static const OpResolver resolver = AllOpsResolver().WithCustom(Span<const CustomKernel>(kCustom));
// A custom op whose name no entry matches fails AllocateTensors with an
// error naming the op and the name.
#pragma once

#include <cstring>

#include "microarena/base/span.h"
#include "microarena/kernels/kernel.h"

namespace microarena {

// A kernel for the custom ops named `name` (the operator code's custom_code).
struct CustomKernel {
  const char* name;                  // e.g. "ethos-u"; compared exactly (case-sensitive, as TFLM)
  const KernelRegistration* kernel;  // static; its `op` is not looked at
};

class OpResolver {
 public:
  // Both tables are borrowed and must outlive the resolver (static constants
  // in practice).
  constexpr explicit OpResolver(Span<const KernelRegistration* const> kernels,
                                Span<const CustomKernel> custom_kernels = {})
      : kernels_(kernels), custom_kernels_(custom_kernels) {}

  // The same builtin kernels with `custom_kernels` (borrowed) for custom ops.
  constexpr OpResolver WithCustom(Span<const CustomKernel> custom_kernels) const {
    return OpResolver(kernels_, custom_kernels);
  }

  // The builtin kernel for `op`, or nullptr (always for BuiltinOp::kCustom:
  // custom ops are found by name).
  const KernelRegistration* Find(BuiltinOp op) const {
    if (op == BuiltinOp::kCustom) return nullptr;
    for (const KernelRegistration* kernel : kernels_) {
      if (kernel->op == op) return kernel;
    }
    return nullptr;
  }
  // The kernel registered for the custom op `name`, or nullptr.
  const KernelRegistration* FindCustom(const char* name) const {
    for (const CustomKernel& custom : custom_kernels_) {
      if (custom.name != nullptr && name != nullptr && std::strcmp(custom.name, name) == 0) return custom.kernel;
    }
    return nullptr;
  }
  // The kernel for `op`: by name for a custom op, else by builtin code.
  const KernelRegistration* Find(const OperatorView& op) const {
    return op.is_custom() ? FindCustom(op.name()) : Find(op.code());
  }
  Span<const KernelRegistration* const> kernels() const { return kernels_; }
  Span<const CustomKernel> custom_kernels() const { return custom_kernels_; }

 private:
  Span<const KernelRegistration* const> kernels_;
  Span<const CustomKernel> custom_kernels_;
};

// Every kernel microarena has, with TFLM's custom ops (CIRCULAR_BUFFER, ...);
// WithCustom replaces the custom list.
const OpResolver& AllOpsResolver();

}  // namespace microarena
