#include "microarena/report/op_support.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "microarena/report/format.h"

namespace microarena::report {
namespace {

// The order types are listed in: the common activation types first.
constexpr TensorType kTypeOrder[] = {
    TensorType::kFloat32, TensorType::kInt8,     TensorType::kInt16,     TensorType::kInt32,      TensorType::kInt64,
    TensorType::kUInt8,   TensorType::kUInt16,   TensorType::kUInt32,    TensorType::kUInt64,     TensorType::kBool,
    TensorType::kFloat16, TensorType::kFloat64,  TensorType::kComplex64, TensorType::kComplex128, TensorType::kInt4,
    TensorType::kString,  TensorType::kResource, TensorType::kVariant,
};

std::string OpName(BuiltinOp op) {
  const char* name = BuiltinOpName(op);
  return name != nullptr ? name : fmt::format("BUILTIN_{}", static_cast<int32_t>(op));
}

// The table's entries sorted by op name, so every output lists them alike.
std::vector<const OpTypes*> SortedEntries() {
  std::vector<const OpTypes*> entries;
  for (const OpTypes& entry : OpTypeTable()) entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(),
            [](const OpTypes* a, const OpTypes* b) { return OpName(a->op) < OpName(b->op); });
  return entries;
}

// The tensor index of the entry's operand, or -1 when the op has none.
int32_t OperandTensor(const OperatorView& op, TypedOperand operand) {
  auto pick = [](Span<const int32_t> list, size_t i) { return i < list.size() ? list[i] : -1; };
  switch (operand) {
    case TypedOperand::kInput0: return pick(op.inputs(), 0);
    case TypedOperand::kInput1: return pick(op.inputs(), 1);
    case TypedOperand::kInput2: return pick(op.inputs(), 2);
    case TypedOperand::kOutput0: return pick(op.outputs(), 0);
    case TypedOperand::kNone: return -1;
  }
  return -1;
}

}  // namespace

std::string OpTypesText(const OpTypes& entry) {
  if (entry.operand == TypedOperand::kNone) return "-";
  if (entry.types == kAnyTensorType) return "any";
  if (entry.types == kWholeByteTypes) return "any whole-byte type";
  if (entry.types == k1To4ByteTypes) return "any 1-, 2- or 4-byte type";
  std::string out;
  for (TensorType type : kTypeOrder) {
    if (!Accepts(entry, type)) continue;
    if (!out.empty()) out += ", ";
    out += TensorTypeName(type);
    if (type == TensorType::kInt16 && entry.int16_is_16x8) out += " (16x8)";
  }
  return out;
}

const char* TypedOperandName(TypedOperand operand) {
  switch (operand) {
    case TypedOperand::kInput0: return "input 0";
    case TypedOperand::kInput1: return "input 1";
    case TypedOperand::kInput2: return "input 2";
    case TypedOperand::kOutput0: return "output 0";
    case TypedOperand::kNone: return "-";
  }
  return "-";
}

std::vector<std::string> MissingTflmBuiltins() {
  std::vector<std::string> names;
  for (BuiltinOp op : TflmBuiltinOps()) {
    if (FindOpTypes(op) == nullptr) names.push_back(OpName(op));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string OpsTableText() {
  TextTable table({"op", "types", "of", "also required"}, {false, false, false, false});
  const std::vector<const OpTypes*> entries = SortedEntries();
  for (const OpTypes* entry : entries) {
    table.AddRow({OpName(entry->op), OpTypesText(*entry), TypedOperandName(entry->operand), entry->note});
  }
  for (const CustomOpTypes& custom : CustomOpTypeTable()) {
    table.AddRow({std::string(custom.name) + " (custom)", OpTypesText(custom.types),
                  TypedOperandName(custom.types.operand), custom.types.note});
  }
  std::string out = fmt::format("{} builtin ops and {} custom ops; INT16 (16x8) means INT16 activations with INT8 "
                                "weights.\n\n",
                                entries.size(), CustomOpTypeTable().size());
  out += table.Render();
  const std::vector<std::string> missing = MissingTflmBuiltins();
  if (missing.empty()) {
    out += "\nEvery builtin of TFLM's op resolver has a kernel here.\n";
  } else {
    out += fmt::format("\nTFLM builtins without a kernel here ({}): {}\n", missing.size(), fmt::join(missing, ", "));
  }
  return out;
}

std::string OpsTableMarkdown() {
  const std::vector<const OpTypes*> entries = SortedEntries();
  std::string out = fmt::format(
      "{} builtin ops and {} of TFLM's custom ops. *Types* are those of the tensor in *Of* that the kernel's "
      "Prepare accepts; INT16 (16x8) means INT16 activations with INT8 weights.\n\n",
      entries.size(), CustomOpTypeTable().size());
  out += "| Op | Types | Of | Also required |\n|---|---|---|---|\n";
  for (const OpTypes* entry : entries) {
    out += fmt::format("| `{}` | {} | {} | {} |\n", OpName(entry->op), OpTypesText(*entry),
                       TypedOperandName(entry->operand), entry->note[0] != '\0' ? entry->note : "-");
  }
  for (const CustomOpTypes& custom : CustomOpTypeTable()) {
    out += fmt::format("| `{}` (custom) | {} | {} | {} |\n", custom.name, OpTypesText(custom.types),
                       TypedOperandName(custom.types.operand), custom.types.note);
  }
  const std::vector<std::string> missing = MissingTflmBuiltins();
  if (missing.empty()) {
    out += "\nEvery builtin of TFLM's op resolver has a kernel here.\n";
    return out;
  }
  out += fmt::format("\nTFLM builtins without a kernel here ({}):", missing.size());
  for (size_t i = 0; i < missing.size(); ++i) out += fmt::format("{} `{}`", i == 0 ? "" : ",", missing[i]);
  out += ".\n";
  return out;
}

nlohmann::json OpsTableJson() {
  using nlohmann::json;
  auto entry_json = [](const std::string& name, const OpTypes& entry) {
    json types = json::array();
    if (entry.operand != TypedOperand::kNone) {
      for (TensorType type : kTypeOrder) {
        if (Accepts(entry, type)) types.push_back(TensorTypeName(type));
      }
    }
    return json{{"op", name},
                {"code", static_cast<int32_t>(entry.op)},
                {"operand", TypedOperandName(entry.operand)},
                {"types", types},
                {"int16_is_16x8", entry.int16_is_16x8},
                {"note", entry.note}};
  };
  json ops = json::array();
  for (const OpTypes* entry : SortedEntries()) ops.push_back(entry_json(OpName(entry->op), *entry));
  json custom_ops = json::array();
  for (const CustomOpTypes& custom : CustomOpTypeTable()) custom_ops.push_back(entry_json(custom.name, custom.types));
  return {{"ops", ops}, {"custom_ops", custom_ops}, {"tflm_builtins_missing", MissingTflmBuiltins()}};
}

OpSupport CheckOpSupport(const ModelView& model, const OpResolver& resolver) {
  OpSupport support;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    const SubgraphView subgraph = model.subgraph(s);
    for (size_t i = 0; i < subgraph.operator_count(); ++i) {
      const OperatorView op = subgraph.op(i);
      const int32_t subgraph_index = static_cast<int32_t>(s);
      const int32_t op_index = static_cast<int32_t>(i);
      const std::string name = op.is_custom() ? std::string(op.name() != nullptr ? op.name() : "") : OpName(op.code());
      if (resolver.Find(op) == nullptr) {
        support.missing.push_back({subgraph_index, op_index, name, op.is_custom()});
        continue;
      }
      const OpTypes* entry = op.is_custom() ? FindCustomOpTypes(op.name()) : FindOpTypes(op.code());
      if (entry == nullptr) continue;
      const int32_t tensor_index = OperandTensor(op, entry->operand);
      if (tensor_index < 0 || static_cast<size_t>(tensor_index) >= subgraph.tensor_count()) continue;
      const TensorType type = subgraph.tensor(static_cast<size_t>(tensor_index)).type();
      if (!Accepts(*entry, type)) {
        support.refused.push_back({subgraph_index, op_index, name, TypedOperandName(entry->operand), tensor_index,
                                   TensorTypeName(type), OpTypesText(*entry)});
        continue;
      }
      // A 16x8 kernel takes INT16 activations only with INT8 weights.
      const int32_t weights = op.inputs().size() > 1 ? op.inputs()[1] : -1;
      if (entry->int16_is_16x8 && type == TensorType::kInt16 && weights >= 0 &&
          static_cast<size_t>(weights) < subgraph.tensor_count()) {
        const TensorType weights_type = subgraph.tensor(static_cast<size_t>(weights)).type();
        if (weights_type != TensorType::kInt8) {
          support.refused.push_back({subgraph_index, op_index, name, "input 1", weights, TensorTypeName(weights_type),
                                     "INT8 (an INT16 input takes INT8 weights)"});
        }
      }
    }
  }
  return support;
}

}  // namespace microarena::report
