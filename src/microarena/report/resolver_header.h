// The per-model resolver (host): a C++ header with an OpResolver holding only
// the kernels a model's ops need, so a firmware links no other kernel (with a
// section per function and --gc-sections). What `microarena embed MODEL
// --resolver FILE` writes; examples/cortex_m uses it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/kernels/kernel.h"
#include "microarena/model/model_view.h"

namespace microarena::report {

// One kernel of a per-model resolver.
struct ModelKernel {
  const KernelRegistration* kernel;  // static
  const char* symbol;                // its name in namespace microarena, e.g. "kConv2dInt8Kernel"
  bool int8_only;                    // an int8-only variant (kernels/int8_only.h)
  bool has_int8_variant;             // the op has an int8-only variant (chosen or not)
  size_t instances;                  // ops of the model (all subgraphs) with this op code
  size_t int8_instances;             // those with INT8 input 0 and output 0
};

// The kernels of `model`'s builtin ops, one per op code, in op-code order:
// the op's int8-only variant when it has one and every instance of the op
// has INT8 input 0 and output 0 (HasInt8Activations, the check its Prepare
// makes), else the general kernel, which accepts every type. Errors name
// every builtin op of the model that has no kernel in microarena.
Result<std::vector<ModelKernel>> ModelKernels(const ModelView& model, const std::string& model_label);

// The header text: namespace `namespace_name` with ModelOpResolver() over
// ModelKernels(model), each entry commented with its op and, for an op with
// an int8-only variant, which kernel was chosen and why. Errors name every
// builtin op of the model (any subgraph) that has no kernel in
// microarena. Custom ops are listed in a comment: the application adds their
// kernels with OpResolver::WithCustom.
Result<std::string> ModelResolverHeader(const ModelView& model, const std::string& namespace_name,
                                        const std::string& model_label);

}  // namespace microarena::report
