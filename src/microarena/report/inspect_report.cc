#include "microarena/report/inspect_report.h"

#include <fmt/format.h>

#include "microarena/report/format.h"

namespace microarena::report {
namespace {

std::string IndexList(const std::vector<int32_t>& indices) {
  std::string out;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (i != 0) out += ",";
    out += indices[i] < 0 ? "-" : std::to_string(indices[i]);
  }
  return out.empty() ? "-" : out;
}

std::string CountsLine(const std::map<std::string, int>& counts) {
  std::string out;
  for (const auto& [name, count] : counts) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", name, count);
  }
  return out.empty() ? "none" : out;
}

std::string QuantizationText(const TensorSummary& tensor) {
  if (tensor.quantization_channels == 0) return "-";
  if (tensor.quantization_channels == 1) return "per-tensor";
  return fmt::format("per-channel({})", tensor.quantization_channels);
}

// The runtime's verdict on the model's ops: one line, then a table of the
// ops without a kernel and one of the types a kernel refuses.
std::string SupportText(const OpSupport& support) {
  if (support.ok()) return "runtime      every op has a kernel that accepts its types\n";
  std::string out = fmt::format("runtime      {} op(s) without a kernel, {} refused type(s)\n", support.missing.size(),
                                support.refused.size());
  if (!support.missing.empty()) {
    out += "\nOps the runtime lacks\n";
    TextTable table({"subgraph", "#", "op"}, {true, true, false});
    for (const MissingOp& op : support.missing) {
      table.AddRow(
          {std::to_string(op.subgraph), std::to_string(op.op_index), op.custom ? "CUSTOM '" + op.op + "'" : op.op});
    }
    out += table.Render("  ");
  }
  if (!support.refused.empty()) {
    out += "\nOp/type combinations the runtime refuses\n";
    TextTable table({"subgraph", "#", "op", "operand", "tensor", "type", "accepted"},
                    {true, true, false, false, true, false, false});
    for (const RefusedOp& op : support.refused) {
      table.AddRow({std::to_string(op.subgraph), std::to_string(op.op_index), op.op, op.operand,
                    std::to_string(op.tensor_index), op.type, op.accepts});
    }
    out += table.Render("  ");
  }
  return out;
}

}  // namespace

std::string InspectText(const ModelSummary& summary, const OpSupport& support, const InspectTextOptions& options) {
  std::string out;
  out += fmt::format("model        {}\n", summary.path);
  out += fmt::format("file size    {}\n", Bytes(summary.file_size_bytes));
  out += fmt::format("schema       version {}\n", summary.schema_version);
  if (!summary.description.empty()) out += fmt::format("description  {}\n", summary.description);
  out += fmt::format("subgraphs    {}\n", summary.subgraphs.size());
  if (!summary.metadata.empty()) {
    std::string list;
    for (const auto& [name, bytes] : summary.metadata) {
      if (!list.empty()) list += ", ";
      list += fmt::format("{} ({})", name, Bytes(bytes));
    }
    out += fmt::format("metadata     {}\n", list);
  }
  out += SupportText(support);
  for (const SubgraphSummary& subgraph : summary.subgraphs) {
    out += fmt::format("\n== subgraph {}{} ==\n", subgraph.index,
                       subgraph.name.empty() ? "" : " '" + subgraph.name + "'");
    out += fmt::format("ops          {} ({})\n", subgraph.ops.size(), CountsLine(subgraph.op_counts));
    out += fmt::format("tensors      {} ({})\n", subgraph.tensors.size(), CountsLine(subgraph.tensor_counts));
    out += fmt::format("inputs       {}   outputs {}\n", IndexList(subgraph.inputs), IndexList(subgraph.outputs));
    out += fmt::format("MACs         {}\n", Thousands(static_cast<uint64_t>(subgraph.total_macs)));

    out += "\nTensors\n";
    TextTable tensors({"#", "name", "type", "shape", "bytes", "kind", "quantization"},
                      {true, false, false, false, true, false, false});
    for (const TensorSummary& t : subgraph.tensors) {
      tensors.AddRow({std::to_string(t.index), Clip(t.name, options.name_width), t.type,
                      ShapeText(t.shape.data(), t.shape.size()), Thousands(t.size_bytes),
                      TensorKindName(t.kind), QuantizationText(t)});
    }
    out += tensors.Render("  ");

    out += "\nOperators\n";
    TextTable ops({"#", "op", "inputs", "", "outputs", "MACs"}, {true, false, false, false, false, true});
    for (const OpSummary& op : subgraph.ops) {
      ops.AddRow({std::to_string(op.index), op.op, IndexList(op.inputs), "->", IndexList(op.outputs),
                  op.macs < 0 ? "-" : Thousands(static_cast<uint64_t>(op.macs))});
    }
    out += ops.Render("  ");

    out += "\nRead-only persistent (flash), bytes per layer\n";
    TextTable flash({"#", "op", "weights", "bias", "quant params", "total"},
                    {true, false, true, true, true, true});
    for (const LayerFlash& layer : subgraph.layers) {
      if (layer.total_bytes() == 0) continue;
      flash.AddRow({std::to_string(layer.op_index), layer.op, Thousands(layer.weights_bytes),
                    Thousands(layer.bias_bytes), Thousands(layer.quantization_bytes),
                    Thousands(layer.total_bytes())});
    }
    flash.AddRule();
    const LayerFlash& total = subgraph.flash_total;
    flash.AddRow({"", "total", Thousands(total.weights_bytes), Thousands(total.bias_bytes),
                  Thousands(total.quantization_bytes), Thousands(total.total_bytes())});
    out += flash.Render("  ");
    if (subgraph.unreferenced_constant_bytes != 0) {
      out += fmt::format("  constants read by no op: {}\n", Bytes(subgraph.unreferenced_constant_bytes));
    }
  }
  return out;
}

nlohmann::json InspectJson(const ModelSummary& summary, const OpSupport& support) {
  using nlohmann::json;
  json doc;
  doc["file"] = summary.path;
  doc["file_size_bytes"] = summary.file_size_bytes;
  doc["schema_version"] = summary.schema_version;
  doc["description"] = summary.description;
  json metadata = json::array();
  for (const auto& [name, bytes] : summary.metadata) metadata.push_back({{"name", name}, {"size_bytes", bytes}});
  doc["metadata"] = metadata;
  json subgraphs = json::array();
  for (const SubgraphSummary& subgraph : summary.subgraphs) {
    json sg;
    sg["index"] = subgraph.index;
    sg["name"] = subgraph.name;
    sg["inputs"] = subgraph.inputs;
    sg["outputs"] = subgraph.outputs;
    sg["op_counts"] = subgraph.op_counts;
    sg["tensor_counts"] = subgraph.tensor_counts;
    sg["total_macs"] = subgraph.total_macs;
    json tensors = json::array();
    for (const TensorSummary& t : subgraph.tensors) {
      tensors.push_back({{"index", t.index},
                         {"name", t.name},
                         {"type", t.type},
                         {"shape", t.shape},
                         {"size_bytes", t.size_bytes},
                         {"kind", TensorKindName(t.kind)},
                         {"quantization_channels", t.quantization_channels},
                         {"quantization_bytes", t.quantization_bytes}});
    }
    sg["tensors"] = tensors;
    json ops = json::array();
    for (const OpSummary& op : subgraph.ops) {
      json entry = {{"index", op.index},     {"op", op.op},           {"version", op.version},
                    {"inputs", op.inputs},   {"outputs", op.outputs}, {"intermediates", op.intermediates}};
      entry["macs"] = op.macs < 0 ? json(nullptr) : json(op.macs);
      ops.push_back(entry);
    }
    sg["operators"] = ops;
    sg["read_only"] = ReadOnlyJson(subgraph.layers, subgraph.flash_total, subgraph.unreferenced_constant_bytes,
                                   /*with_subgraph=*/false);
    subgraphs.push_back(sg);
  }
  doc["subgraphs"] = subgraphs;
  json missing = json::array();
  for (const MissingOp& op : support.missing) {
    missing.push_back({{"subgraph", op.subgraph}, {"op_index", op.op_index}, {"op", op.op}, {"custom", op.custom}});
  }
  json refused = json::array();
  for (const RefusedOp& op : support.refused) {
    refused.push_back({{"subgraph", op.subgraph},
                       {"op_index", op.op_index},
                       {"op", op.op},
                       {"operand", op.operand},
                       {"tensor_index", op.tensor_index},
                       {"type", op.type},
                       {"accepted", op.accepts}});
  }
  doc["runtime_support"] = {{"ok", support.ok()}, {"missing_ops", missing}, {"refused_types", refused}};
  return doc;
}

nlohmann::json ReadOnlyJson(const std::vector<LayerFlash>& layers, const LayerFlash& total,
                            uint64_t unreferenced_constant_bytes, bool with_subgraph) {
  using nlohmann::json;
  auto layer_json = [with_subgraph](const LayerFlash& layer) {
    json entry = {{"op_index", layer.op_index},
                  {"op", layer.op},
                  {"weights_bytes", layer.weights_bytes},
                  {"bias_bytes", layer.bias_bytes},
                  {"quantization_bytes", layer.quantization_bytes},
                  {"total_bytes", layer.total_bytes()}};
    if (with_subgraph) entry["subgraph"] = layer.subgraph;
    return entry;
  };
  json entries = json::array();
  for (const LayerFlash& layer : layers) entries.push_back(layer_json(layer));
  json total_entry = layer_json(total);
  // The total is no layer: only the byte counts.
  for (const char* key : {"op_index", "subgraph", "op"}) total_entry.erase(key);
  return {{"layers", entries}, {"total", total_entry}, {"unreferenced_constant_bytes", unreferenced_constant_bytes}};
}

}  // namespace microarena::report
