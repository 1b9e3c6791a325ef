#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

// One line per implemented kernel (keep the list sorted by op name).
// (Empty until the first kernel lands.)
constexpr const KernelRegistration* const* kAllKernels = nullptr;
constexpr size_t kKernelCount = 0;

}  // namespace

const OpResolver& AllOpsResolver() {
  static constexpr OpResolver resolver{Span<const KernelRegistration* const>(kAllKernels, kKernelCount)};
  return resolver;
}

}  // namespace microarena