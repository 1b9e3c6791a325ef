#include "microarena/report/model_summary.h"

namespace microarena::report {
namespace {

// Inputs that are biases (constant, added to the accumulator) per op; the
// other constant inputs are weights. Indices are the ops' input positions.
bool IsBiasInput(BuiltinOp op, size_t input_position) {
  switch (op) {
    case BuiltinOp::kConv2d:
    case BuiltinOp::kDepthwiseConv2d:
    case BuiltinOp::kFullyConnected:
      return input_position == 2;
    case BuiltinOp::kTransposeConv:
      return input_position == 3;
    case BuiltinOp::kSvdf:
      return input_position == 3;
    case BuiltinOp::kUnidirectionalSequenceLstm:
    case BuiltinOp::kLstm:
      // input, forget, cell and output gate biases; projection bias.
      return (input_position >= 12 && input_position <= 15) || input_position == 17;
    default:
      return false;
  }
}

int64_t EstimateMacs(const SubgraphView& subgraph, const OperatorView& op) {
  Span<const int32_t> ins = op.inputs();
  Span<const int32_t> outs = op.outputs();
  if (outs.empty()) return -1;
  auto tensor_at = [&](Span<const int32_t> list, size_t position, TensorView* out) {
    if (position >= list.size() || list[position] < 0) return false;
    *out = subgraph.tensor(static_cast<size_t>(list[position]));
    return true;
  };
  TensorView output = subgraph.tensor(static_cast<size_t>(outs[0]));
  TensorView filter = output;
  auto out_elements = static_cast<int64_t>(output.element_count());
  switch (op.code()) {
    case BuiltinOp::kConv2d: {  // filter [out_c, kh, kw, in_c]
      if (!tensor_at(ins, 1, &filter) || filter.rank() != 4) return -1;
      Span<const int32_t> f = filter.shape();
      return out_elements * int64_t{f[1]} * int64_t{f[2]} * int64_t{f[3]};
    }
    case BuiltinOp::kDepthwiseConv2d: {  // filter [1, kh, kw, out_c]
      if (!tensor_at(ins, 1, &filter) || filter.rank() != 4) return -1;
      Span<const int32_t> f = filter.shape();
      return out_elements * int64_t{f[1]} * int64_t{f[2]};
    }
    case BuiltinOp::kFullyConnected: {  // filter [units, in_features]
      if (!tensor_at(ins, 1, &filter) || filter.rank() != 2) return -1;
      return out_elements * int64_t{filter.shape()[1]};
    }
    case BuiltinOp::kTransposeConv: {  // filter [out_c, kh, kw, in_c]; input 2 is the data
      TensorView data = output;
      if (!tensor_at(ins, 1, &filter) || filter.rank() != 4 || !tensor_at(ins, 2, &data)) return -1;
      Span<const int32_t> f = filter.shape();
      return static_cast<int64_t>(data.element_count()) * int64_t{f[0]} * int64_t{f[1]} * int64_t{f[2]};
    }
    default:
      return -1;
  }
}

}  // namespace

const char* TensorKindName(TensorKind kind) {
  switch (kind) {
    case TensorKind::kConstant: return "constant";
    case TensorKind::kInput: return "input";
    case TensorKind::kOutput: return "output";
    case TensorKind::kVariable: return "variable";
    case TensorKind::kActivation: return "activation";
    case TensorKind::kIntermediate: return "intermediate";
    case TensorKind::kUnused: return "unused";
  }
  return "unknown";
}

ModelSummary Summarize(const ModelView& model, const std::string& path, uint64_t file_size_bytes) {
  ModelSummary summary;
  summary.path = path;
  summary.file_size_bytes = file_size_bytes;
  summary.schema_version = model.schema_version();
  summary.description = model.description();
  for (size_t m = 0; m < model.metadata_count(); ++m) {
    const char* name = model.metadata_name(m);
    summary.metadata.emplace_back(name, model.metadata(name).size());
  }
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    SubgraphView subgraph = model.subgraph(s);
    SubgraphSummary& out = summary.subgraphs.emplace_back();
    out.index = subgraph.index();
    out.name = subgraph.name();
    out.inputs.assign(subgraph.inputs().begin(), subgraph.inputs().end());
    out.outputs.assign(subgraph.outputs().begin(), subgraph.outputs().end());

    std::vector<bool> referenced(subgraph.tensor_count(), false);
    std::vector<bool> intermediate(subgraph.tensor_count(), false);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      for (Span<const int32_t> list : {op.inputs(), op.outputs()}) {
        for (int32_t t : list) {
          if (t >= 0) referenced[static_cast<size_t>(t)] = true;
        }
      }
      for (int32_t t : op.intermediates()) intermediate[static_cast<size_t>(t)] = true;
    }
    for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
      TensorView tensor = subgraph.tensor(t);
      TensorSummary& ts = out.tensors.emplace_back();
      ts.index = tensor.index();
      ts.name = tensor.name();
      ts.type = TensorTypeName(tensor.type());
      ts.shape.assign(tensor.shape().begin(), tensor.shape().end());
      ts.size_bytes = tensor.byte_size();
      ts.quantization_channels = tensor.quantization().channel_count();
      ts.quantization_bytes = tensor.quantization().stored_bytes();
      auto index = static_cast<int32_t>(t);
      if (tensor.is_constant()) ts.kind = TensorKind::kConstant;
      else if (subgraph.IsInput(index)) ts.kind = TensorKind::kInput;
      else if (subgraph.IsOutput(index)) ts.kind = TensorKind::kOutput;
      else if (tensor.is_variable()) ts.kind = TensorKind::kVariable;
      else if (!referenced[t] && intermediate[t]) ts.kind = TensorKind::kIntermediate;
      else if (!referenced[t]) ts.kind = TensorKind::kUnused;
      else ts.kind = TensorKind::kActivation;
      out.tensor_counts[TensorKindName(ts.kind)] += 1;
    }

    std::vector<bool> counted_data(subgraph.tensor_count(), false);
    std::vector<bool> counted_quantization(subgraph.tensor_count(), false);
    out.flash_total.op_index = -1;
    out.flash_total.op = "total";
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      OpSummary& os = out.ops.emplace_back();
      os.index = op.index();
      os.op = op.name();
      os.version = op.version();
      os.inputs.assign(op.inputs().begin(), op.inputs().end());
      os.outputs.assign(op.outputs().begin(), op.outputs().end());
      os.intermediates.assign(op.intermediates().begin(), op.intermediates().end());
      os.macs = EstimateMacs(subgraph, op);
      if (os.macs > 0) out.total_macs += os.macs;
      out.op_counts[os.op] += 1;

      LayerFlash& layer = out.layers.emplace_back();
      layer.op_index = op.index();
      layer.subgraph = subgraph.index();
      layer.op = os.op;
      Span<const int32_t> inputs = op.inputs();
      for (size_t position = 0; position < inputs.size(); ++position) {
        int32_t t = inputs[position];
        if (t < 0) continue;
        auto tu = static_cast<size_t>(t);
        const TensorSummary& ts = out.tensors[tu];
        if (ts.kind == TensorKind::kConstant && !counted_data[tu]) {
          counted_data[tu] = true;
          if (IsBiasInput(op.code(), position)) layer.bias_bytes += ts.size_bytes;
          else layer.weights_bytes += ts.size_bytes;
        }
      }
      for (Span<const int32_t> list : {op.inputs(), op.outputs(), op.intermediates()}) {
        for (int32_t t : list) {
          if (t < 0 || counted_quantization[static_cast<size_t>(t)]) continue;
          counted_quantization[static_cast<size_t>(t)] = true;
          layer.quantization_bytes += out.tensors[static_cast<size_t>(t)].quantization_bytes;
        }
      }
      out.flash_total.weights_bytes += layer.weights_bytes;
      out.flash_total.bias_bytes += layer.bias_bytes;
      out.flash_total.quantization_bytes += layer.quantization_bytes;
    }
    for (size_t t = 0; t < out.tensors.size(); ++t) {
      if (out.tensors[t].kind == TensorKind::kConstant && !counted_data[t]) {
        out.unreferenced_constant_bytes += out.tensors[t].size_bytes;
      }
    }
  }
  return summary;
}

}  // namespace microarena::report
