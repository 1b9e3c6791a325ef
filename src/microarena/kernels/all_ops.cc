#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

// Every implemented kernel (the list is in registrations.h).
#define MICROARENA_KERNEL_ENTRY(name) &name,
constexpr const KernelRegistration* kAllKernels[] = {MICROARENA_FOR_EACH_KERNEL(MICROARENA_KERNEL_ENTRY)};
#undef MICROARENA_KERNEL_ENTRY

#define MICROARENA_CUSTOM_KERNEL_ENTRY(name, kernel) {name, &kernel},
constexpr CustomKernel kAllCustomKernels[] = {MICROARENA_FOR_EACH_CUSTOM_KERNEL(MICROARENA_CUSTOM_KERNEL_ENTRY)};
#undef MICROARENA_CUSTOM_KERNEL_ENTRY

}  // namespace

const OpResolver& AllOpsResolver() {
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kAllKernels),
                                       Span<const CustomKernel>(kAllCustomKernels)};
  return resolver;
}

}  // namespace microarena
