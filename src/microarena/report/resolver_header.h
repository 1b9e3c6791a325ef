// The per-model resolver (host): a C++ header with an OpResolver holding only
// the kernels a model's ops need, so a firmware links no other kernel (with a
// section per function and --gc-sections). What `microarena embed MODEL
// --resolver FILE` writes; examples/cortex_m uses it.
#pragma once

#include <string>

#include "microarena/base/result.h"
#include "microarena/model/model_view.h"

namespace microarena::report {

// The header text: namespace `namespace_name` with ModelOpResolver(). Errors
// name every builtin op of the model (any subgraph) that has no kernel in
// microarena. Custom ops are listed in a comment: the application adds their
// kernels with OpResolver::WithCustom.
Result<std::string> ModelResolverHeader(const ModelView& model, const std::string& namespace_name,
                                        const std::string& model_label);

}  // namespace microarena::report
