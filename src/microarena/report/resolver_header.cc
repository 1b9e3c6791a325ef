#include "microarena/report/resolver_header.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/registrations.h"

namespace microarena::report {
namespace {

struct NamedKernel {
  const KernelRegistration* kernel;
  const char* symbol;
};

#define MICROARENA_NAMED_KERNEL(name) NamedKernel{&name, #name},
const NamedKernel kNamedKernels[] = {MICROARENA_FOR_EACH_KERNEL(MICROARENA_NAMED_KERNEL)};
const NamedKernel kNamedInt8Kernels[] = {MICROARENA_FOR_EACH_INT8_KERNEL(MICROARENA_NAMED_KERNEL)};

// microarena's kernels for TFLM's custom ops: the model's name and the symbol.
struct NamedCustomKernel {
  const char* name;
  const char* symbol;
};
#define MICROARENA_NAMED_CUSTOM_KERNEL(name, kernel) NamedCustomKernel{name, #kernel},
const NamedCustomKernel kNamedCustomKernels[] = {MICROARENA_FOR_EACH_CUSTOM_KERNEL(MICROARENA_NAMED_CUSTOM_KERNEL)};
#undef MICROARENA_NAMED_CUSTOM_KERNEL

const NamedCustomKernel* FindNamedCustom(const std::string& name) {
  for (const NamedCustomKernel& named : kNamedCustomKernels) {
    if (name == named.name) return &named;
  }
  return nullptr;
}
#undef MICROARENA_NAMED_KERNEL

template <size_t N>
const NamedKernel* FindNamed(const NamedKernel (&table)[N], int32_t code) {
  for (const NamedKernel& named : table) {
    if (static_cast<int32_t>(named.kernel->op) == code) return &named;
  }
  return nullptr;
}

// The entry's comment: the op, and for an op with an int8-only variant,
// which kernel and why.
std::string Why(const ModelKernel& chosen) {
  const char* op = BuiltinOpName(static_cast<int32_t>(chosen.kernel->op));
  if (!chosen.has_int8_variant) return op;
  if (chosen.int8_only) {
    return fmt::format("{} (int8 only: {} of {} with INT8 input and output)", op, chosen.int8_instances,
                       chosen.instances);
  }
  return fmt::format("{} (general: {} of {} not INT8 -> INT8{})", op, chosen.instances - chosen.int8_instances,
                     chosen.instances,
                     chosen.kernel->op == BuiltinOp::kFullyConnected ? " with per-tensor INT8 weights"
                     : chosen.kernel->op == BuiltinOp::kConv2d || chosen.kernel->op == BuiltinOp::kDepthwiseConv2d
                         ? " with INT8 weights"
                         : "");
}

}  // namespace

Result<std::vector<ModelKernel>> ModelKernels(const ModelView& model, const std::string& model_label) {
  struct Count {
    size_t instances = 0;
    size_t int8_instances = 0;
  };
  std::map<int32_t, Count> builtins;  // in op-code order: the header is the same on every run
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      if (op.is_custom()) continue;
      Count& count = builtins[static_cast<int32_t>(op.code())];
      ++count.instances;
      if (FitsInt8Kernel(subgraph, op)) ++count.int8_instances;
    }
  }
  std::vector<ModelKernel> chosen;
  std::string missing;
  for (const auto& [code, count] : builtins) {
    const NamedKernel* general = FindNamed(kNamedKernels, code);
    if (general == nullptr) {
      missing += (missing.empty() ? "" : ", ") + std::string(BuiltinOpName(code));
      continue;
    }
    const NamedKernel* int8 = FindNamed(kNamedInt8Kernels, code);
    const bool use_int8 = int8 != nullptr && count.int8_instances == count.instances;
    const NamedKernel* named = use_int8 ? int8 : general;
    chosen.push_back(
        ModelKernel{named->kernel, named->symbol, use_int8, int8 != nullptr, count.instances, count.int8_instances});
  }
  if (!missing.empty()) {
    return Status::Error(ErrorCode::kUnsupported, "%s: no kernel in microarena for %s; the model cannot run",
                         model_label.c_str(), missing.c_str());
  }
  return chosen;
}

Result<std::string> ModelResolverHeader(const ModelView& model, const std::string& namespace_name,
                                        const std::string& model_label) {
  Result<std::vector<ModelKernel>> kernels = ModelKernels(model, model_label);
  if (!kernels.ok()) return kernels.status();
  const std::vector<ModelKernel>& chosen = *kernels;
  std::set<std::string> custom;  // custom ops microarena has no kernel for
  std::set<std::string> known_custom;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      if (!op.is_custom()) continue;
      const std::string name = op.name() != nullptr ? op.name() : "";
      (FindNamedCustom(name) != nullptr ? known_custom : custom).insert(name);
    }
  }
  std::string guard = "MICROARENA_RESOLVER_" + namespace_name + "_H_";
  for (char& c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = fmt::format(
      "// Generated by `microarena embed {0} --resolver ...`; do not edit.\n"
      "// The kernels of this model's ops only ({1} of {2}): with a section per function and\n"
      "// --gc-sections, the linker keeps no other kernel. An op whose every instance has INT8\n"
      "// input and output gets its int8-only kernel where one exists, which links no int16 or\n"
      "// float32 code (kernels/int8_only.h); otherwise the general kernel.\n"
      "//   microarena::Interpreter interpreter(model, {3}::ModelOpResolver(), arena, size);\n",
      model_label, chosen.size(), sizeof(kNamedKernels) / sizeof(kNamedKernels[0]), namespace_name);
  if (!custom.empty()) {
    out += known_custom.empty()
               ? "// Custom ops, whose kernels the application adds with OpResolver::WithCustom:"
               : "// Custom ops, whose kernels the application adds with OpResolver::WithCustom (listing\n"
                 "// kModelCustomKernels' entries too, as WithCustom replaces them):";
    for (const std::string& name : custom) out += " " + name;
    out += "\n";
  }
  out += fmt::format(
      "#ifndef {0}\n#define {0}\n\n#include \"microarena/kernels/op_resolver.h\"\n"
      "#include \"microarena/kernels/registrations.h\"\n\nnamespace {1} {{\n\n"
      "inline constexpr const microarena::KernelRegistration* kModelKernels[] = {{\n",
      guard, namespace_name);
  for (const ModelKernel& kernel : chosen) {
    out += fmt::format("    &microarena::{},  // {}\n", kernel.symbol, Why(kernel));
  }
  if (chosen.empty()) out += "    nullptr,  // the model has no builtin op\n";
  out += "};\n\n";
  std::string custom_span;
  if (!known_custom.empty()) {
    out +=
        "// TFLM's custom ops this model uses, with microarena's kernels.\n"
        "inline constexpr microarena::CustomKernel kModelCustomKernels[] = {\n";
    for (const std::string& name : known_custom) {
      out += fmt::format("    {{\"{}\", &microarena::{}}},\n", name, FindNamedCustom(name)->symbol);
    }
    out += "};\n\n";
    custom_span = ",\n      microarena::Span<const microarena::CustomKernel>(kModelCustomKernels)";
  }
  out += fmt::format(
      "inline const microarena::OpResolver& ModelOpResolver() {{\n"
      "  static constexpr microarena::OpResolver resolver{{\n"
      "      microarena::Span<const microarena::KernelRegistration* const>(kModelKernels, {0}){3}}};\n"
      "  return resolver;\n"
      "}}\n\n"
      "}}  // namespace {1}\n\n#endif  // {2}\n",
      chosen.size(), namespace_name, guard, custom_span);
  return out;
}

}  // namespace microarena::report
