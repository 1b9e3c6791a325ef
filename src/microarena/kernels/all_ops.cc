#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

// Every implemented kernel (the list is in registrations.h).
#define MICROARENA_KERNEL_ENTRY(name) &name,
constexpr const KernelRegistration* kAllKernels[] = {MICROARENA_FOR_EACH_KERNEL(MICROARENA_KERNEL_ENTRY)};
#undef MICROARENA_KERNEL_ENTRY

}  // namespace

const OpResolver& AllOpsResolver() {
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kAllKernels)};
  return resolver;
}

}  // namespace microarena
