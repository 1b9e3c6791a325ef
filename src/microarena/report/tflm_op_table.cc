#include "microarena/report/tflm_op_table.h"

#include "microarena/model/builtin_op.h"
#include "microarena/model/tensor_type.h"

namespace microarena::report {

const TflmLayout& TflmHostLayout() {
  static const TflmLayout layout = [] {
    TflmLayout l;
    l.name = "host";
    return l;  // the defaults are the 64-bit sizes
  }();
  return layout;
}

const TflmLayout& TflmCortexMLayout() {
  static const TflmLayout layout = [] {
    TflmLayout l;
    l.name = "cortex-m";
    l.pointer_bytes = 4;
    l.enum_bytes = 1;
    l.eval_tensor_bytes = 12;
    l.tflite_tensor_bytes = 32;
    l.affine_quantization_bytes = 12;
    l.node_and_registration_bytes = 32;
    l.subgraph_allocations_bytes = 8;
    l.scratch_request_bytes = 12;
    l.scratch_handle_bytes = 4;
    l.allocation_info_bytes = 24;
    l.arena_allocator_bytes = 36;
    l.memory_planner_bytes = 44;
    l.micro_allocator_bytes = 36;
    l.builtin_allocator_bytes = 8;
    l.fully_connected_op_data_bytes = 48;
    l.conv_op_data_bytes = 56;
    l.softmax_op_data_bytes = 56;
    return l;
  }();
  return layout;
}

namespace {

using Kind = TflmPrepareStep::Kind;

TflmPrepareStep In(int32_t index) { return {Kind::kTempInput, index, 0}; }
TflmPrepareStep Out(int32_t index) { return {Kind::kTempOutput, index, 0}; }
TflmPrepareStep Persistent(size_t bytes) { return {Kind::kPersistent, 0, bytes}; }
TflmPrepareStep Scratch(size_t bytes) { return {Kind::kScratch, 0, bytes}; }

TflmOpFacts Unknown(const std::string& reason) {
  TflmOpFacts facts;
  facts.known = false;
  facts.unknown_reason = reason;
  return facts;
}

// The optional tensor in `slot` (absent or -1 count as missing).
bool HasInput(const OperatorView& op, size_t slot) { return slot < op.inputs().size() && op.inputs()[slot] >= 0; }

TensorType InputType(const SubgraphView& subgraph, const OperatorView& op, size_t slot) {
  return subgraph.tensor(static_cast<size_t>(op.inputs()[slot])).type();
}

TensorView TensorAt(const SubgraphView& subgraph, int32_t index) { return subgraph.tensor(static_cast<size_t>(index)); }

TensorType OutputType(const SubgraphView& subgraph, const OperatorView& op) {
  return TensorAt(subgraph, op.outputs()[0]).type();
}

// Exactly `count` inputs, none of them omitted (-1).
bool AllInputsPresent(const OperatorView& op, size_t count) {
  if (op.inputs().size() != count) return false;
  for (size_t slot = 0; slot < count; ++slot) {
    if (!HasInput(op, slot)) return false;
  }
  return true;
}

// Each element-wise kernel below temp-allocates its inputs then its output.
void AddUnaryTemps(TflmOpFacts& facts) { facts.prepare = {In(0), Out(0)}; }
void AddBinaryTemps(TflmOpFacts& facts) { facts.prepare = {In(0), In(1), Out(0)}; }

// Convolutions: Prepare takes output, input and filter, allocates the
// per-channel multiplier and shift arrays (4 bytes per output channel each,
// every type), then a helper takes input, filter, bias and output again.
void AddConvSteps(TflmOpFacts& facts, size_t channels) {
  facts.prepare = {Out(0), In(0), In(1), Persistent(4 * channels), Persistent(4 * channels)};
  for (const TflmPrepareStep& step : {In(0), In(1), In(2), Out(0)}) facts.prepare.push_back(step);
}

// The input types each op's facts were checked with against the oracle.
bool TypeChecked(BuiltinOp code, TensorType input) {
  const bool common = input == TensorType::kInt8 || input == TensorType::kFloat32;
  const bool int16 = input == TensorType::kInt16;
  const bool int32 = input == TensorType::kInt32;
  switch (code) {
    case BuiltinOp::kAdd:
    case BuiltinOp::kSub:
    case BuiltinOp::kMul:
    case BuiltinOp::kPad:
    case BuiltinOp::kStridedSlice: return common || int16 || int32;
    case BuiltinOp::kReshape: return common || int16 || int32 || input == TensorType::kBool;
    case BuiltinOp::kDequantize: return input == TensorType::kInt8 || int16 || input == TensorType::kUInt8;
    case BuiltinOp::kConv2d:
    case BuiltinOp::kDepthwiseConv2d:
    case BuiltinOp::kFullyConnected:
    case BuiltinOp::kRelu:
    case BuiltinOp::kRelu6:
    case BuiltinOp::kLeakyRelu:
    case BuiltinOp::kLogistic:
    case BuiltinOp::kTanh:
    case BuiltinOp::kAveragePool2d:
    case BuiltinOp::kMaxPool2d:
    case BuiltinOp::kMean:
    case BuiltinOp::kSoftmax: return common || int16;
    case BuiltinOp::kQuantize: return common || int16 || int32;
    case BuiltinOp::kEqual:
    case BuiltinOp::kNotEqual:
    case BuiltinOp::kLess:
    case BuiltinOp::kLessEqual:
    case BuiltinOp::kGreater:
    case BuiltinOp::kGreaterEqual: return common || int32;
    case BuiltinOp::kSvdf: return input == TensorType::kInt8;
    case BuiltinOp::kUnidirectionalSequenceLstm: return input == TensorType::kInt8 || input == TensorType::kInt16;
    case BuiltinOp::kIf: return input == TensorType::kBool;
    case BuiltinOp::kTransposeConv: return common || int16;  // `input`: the data (input 2)
    // int8 BATCH_MATMUL's persistent copies run into its temps differently
    // with and without transposed operands (off by 32-48 B): not modelled.
    case BuiltinOp::kBatchMatmul:
    // Checked with float32 only (fitted on models where their temps set the
    // minimum: OpsWhoseTempsSetTheMinimumMatchTheOracle).
    case BuiltinOp::kFloor:
    case BuiltinOp::kNeg:
    case BuiltinOp::kCeil:
    case BuiltinOp::kCos:
    case BuiltinOp::kSin:
    case BuiltinOp::kLog:
    case BuiltinOp::kSquare:
    case BuiltinOp::kRound:
    case BuiltinOp::kFloorDiv:
    case BuiltinOp::kFloorMod:
    case BuiltinOp::kReverseV2: return input == TensorType::kFloat32;
    case BuiltinOp::kWhile: return true;  // its inputs are the loop state, of any type
    case BuiltinOp::kL2Pool2d: return input == TensorType::kFloat32;  // TFLM's only type
    case BuiltinOp::kLogicalAnd:
    case BuiltinOp::kLogicalOr:
    case BuiltinOp::kLogicalNot: return input == TensorType::kBool;
    default: return common;
  }
}

}  // namespace

TflmOpFacts TflmFactsForOp(const ModelView& model, size_t subgraph_index, size_t op_index, const TflmLayout& layout,
                           const std::vector<size_t>& kernel_scratch_bytes) {
  const SubgraphView subgraph = model.subgraph(subgraph_index);
  const OperatorView op = subgraph.op(op_index);
  const BuiltinOp code = op.code();
  if (op.is_custom()) return Unknown(std::string("custom op '") + op.name() + "'");
  if (op.inputs().empty() || op.outputs().empty()) return Unknown("an op without inputs or outputs");
  // INT4 weights: CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED unpack them
  // into a scratch buffer of one byte per weight (int4_weight_bytes).
  size_t int4_weight_bytes = 0;
  for (size_t slot = 0; slot < op.inputs().size(); ++slot) {
    const int32_t t = op.inputs()[slot];
    if (t < 0 || subgraph.tensor(static_cast<size_t>(t)).type() != TensorType::kInt4) continue;
    const bool weights = slot == 1 && (code == BuiltinOp::kConv2d || code == BuiltinOp::kDepthwiseConv2d ||
                                       code == BuiltinOp::kFullyConnected);
    if (!weights) return Unknown("int4 tensors other than convolution and FULLY_CONNECTED weights");
    int4_weight_bytes = 1;
    for (int32_t d : subgraph.tensor(static_cast<size_t>(t)).shape()) int4_weight_bytes *= static_cast<size_t>(d);
  }
  if (!HasInput(op, 0)) return Unknown("no first input");
  const TensorType input_type = InputType(subgraph, op, 0);
  // TFLM runs INT4 weights with int8 activations only (checked: 16x8 and
  // per-channel FULLY_CONNECTED are refused).
  if (int4_weight_bytes > 0 && input_type != TensorType::kInt8) {
    return Unknown("INT4 weights with other than INT8 activations");
  }

  const bool short_enums = layout.enum_bytes == 1;
  TflmOpFacts facts;
  facts.known = true;
  switch (code) {
    case BuiltinOp::kFullyConnected: {
      // activation, weights format, 2 bools, bias type
      facts.builtin_data_bytes = short_enums ? 5 : 16;
      facts.builtin_data_align = short_enums ? 1 : 4;
      facts.init_bytes = layout.fully_connected_op_data_bytes;
      facts.prepare = {In(0), In(1), In(2), Out(0)};
      if (!HasInput(op, 1)) return Unknown("FULLY_CONNECTED without weights");
      const QuantizationView q = subgraph.tensor(static_cast<size_t>(op.inputs()[1])).quantization();
      // Per-channel weights (more than one scale, as TFLM records them):
      // the multiplier and shift arrays, 4 bytes per unit each, allocated
      // while the four temporary tensors are still live (they may run into
      // them: ArenaModel::PersistentOverTemps).
      if (int4_weight_bytes > 0 && q.is_affine() && q.channel_count() > 1) {
        return Unknown("per-channel INT4 FULLY_CONNECTED weights");
      }
      if (input_type != TensorType::kFloat32 && q.is_affine() && q.channel_count() > 1) {
        facts.prepare.push_back(Persistent(4 * q.channel_count()));
        facts.prepare.push_back(Persistent(4 * q.channel_count()));
      }
      if (int4_weight_bytes > 0) facts.prepare.push_back(Scratch(int4_weight_bytes));
      break;
    }
    case BuiltinOp::kConv2d:
    case BuiltinOp::kDepthwiseConv2d: {
      facts.builtin_data_bytes = 28;  // padding, strides, activation, dilations, 7th int
      facts.init_bytes = layout.conv_op_data_bytes;
      if (!HasInput(op, 1)) return Unknown("a convolution without a filter");
      const TensorView filter = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      if (filter.rank() != 4) return Unknown("a convolution whose filter is not 4-D");
      // The quantized dimension: output channels are dim 0 (conv) or 3 (depthwise).
      const size_t channels = static_cast<size_t>(filter.shape()[code == BuiltinOp::kConv2d ? 0 : 3]);
      AddConvSteps(facts, channels);
      if (int4_weight_bytes > 0) facts.prepare.push_back(Scratch(int4_weight_bytes));
      break;
    }
    case BuiltinOp::kAveragePool2d:
    case BuiltinOp::kMaxPool2d:
      facts.builtin_data_bytes = 40;  // 6 ints + computed padding (4 ints)
      facts.init_bytes = 32;          // padding + int and float activation limits
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kReshape:
      facts.builtin_data_bytes = 36;  // shape[8] + count
      facts.init_bytes = 0;
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kSoftmax:
      facts.builtin_data_bytes = 4;  // beta
      facts.init_bytes = layout.softmax_op_data_bytes;
      AddUnaryTemps(facts);
      // int16 input adds two lookup tables of 513 int16 values (exp and
      // 1 / (1 + x)); int8 in, int16 out adds nothing.
      if (input_type == TensorType::kInt16) {
        facts.prepare = {In(0), Out(0), Persistent(2 * 513), Persistent(2 * 513)};
      }
      break;
    case BuiltinOp::kAdd:
    case BuiltinOp::kSub:
      facts.builtin_data_bytes = short_enums ? 2 : 8;  // activation + pot_scale_int16
      facts.builtin_data_align = short_enums ? 1 : 4;
      facts.init_bytes = code == BuiltinOp::kAdd ? 60 : 56;
      AddBinaryTemps(facts);
      break;
    case BuiltinOp::kMul:
      facts.builtin_data_bytes = short_enums ? 1 : 4;  // activation
      facts.builtin_data_align = short_enums ? 1 : 4;
      facts.init_bytes = 36;
      AddBinaryTemps(facts);
      break;
    case BuiltinOp::kQuantize:
      facts.init_bytes = 32;
      facts.prepare = {Out(0), In(0)};
      break;
    case BuiltinOp::kDequantize:
      facts.init_bytes = 32;
      facts.prepare = {In(0), Out(0)};
      break;
    case BuiltinOp::kSvdf:
      facts.builtin_data_bytes = short_enums ? 8 : 12;  // rank, activation, bool
      facts.init_bytes = 36;
      facts.prepare = {In(0), In(1), In(2), In(3), In(4), Out(0)};
      for (size_t bytes : kernel_scratch_bytes) facts.prepare.push_back(Scratch(bytes));
      break;
    case BuiltinOp::kUnidirectionalSequenceLstm:
      if (op.inputs().size() != 24) return Unknown("UNIDIRECTIONAL_SEQUENCE_LSTM without 24 inputs");
      facts.builtin_data_bytes = 16;
      facts.init_bytes = 688;  // sizes, gate and inter-gate parameters: no pointers, one size for both targets
      for (int32_t i = 0; i < 24; ++i) facts.prepare.push_back(In(i));
      facts.prepare.push_back(Out(0));
      for (size_t bytes : kernel_scratch_bytes) facts.prepare.push_back(Scratch(bytes));
      break;
    case BuiltinOp::kRelu:
      facts.init_bytes = 32;
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kRelu6:
      facts.init_bytes = 6;  // the int8 and int16 forms of 0 and 6
      facts.prepare = {In(0)};
      break;
    case BuiltinOp::kLeakyRelu:
      facts.builtin_data_bytes = 4;  // alpha
      facts.init_bytes = 24;
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kHardSwish:
      facts.init_bytes = 24;
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kLogistic:
      facts.init_bytes = 16;
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kTanh:
      facts.init_bytes = 16;
      // Prepare takes input and output, then its helper the input once more.
      facts.prepare = {In(0), Out(0), In(0)};
      break;
    case BuiltinOp::kMean:
    case BuiltinOp::kSum: {
      if (input_type != TensorType::kInt8 && input_type != TensorType::kInt16 && input_type != TensorType::kFloat32) {
        return Unknown("MEAN or SUM other than int8, int16 or float32");
      }
      if (!HasInput(op, 1)) return Unknown("MEAN or SUM without axes");
      facts.builtin_data_bytes = 1;  // keep_dims
      facts.builtin_data_align = 1;
      facts.init_bytes = 40;  // OpDataReduce: 10 ints
      // The mean helper takes input, output and axes; the shared checks take
      // input and axes again, and the output once more for int8 (not int16).
      facts.prepare = {In(0), Out(0), In(1), In(0), In(1)};
      const bool quantized = input_type == TensorType::kInt8 || input_type == TensorType::kInt16;
      if (input_type == TensorType::kInt8) facts.prepare.push_back(Out(0));
      const TensorView input = subgraph.tensor(static_cast<size_t>(op.inputs()[0]));
      const TensorView output = subgraph.tensor(static_cast<size_t>(op.outputs()[0]));
      const TensorView axes = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      // int8 and int16 sum in int32 per output element; all keep an index per
      // input dimension and a resolved axis per reduced axis.
      if (quantized) facts.prepare.push_back(Scratch(4 * output.element_count()));
      facts.prepare.push_back(Scratch(4 * input.rank()));
      facts.prepare.push_back(Scratch(4 * axes.element_count()));
      break;
    }
    case BuiltinOp::kReduceMax:
    case BuiltinOp::kReduceMin: {
      if (!HasInput(op, 1)) return Unknown("REDUCE_MAX or REDUCE_MIN without axes");
      facts.builtin_data_bytes = 1;  // keep_dims
      facts.builtin_data_align = 1;
      facts.init_bytes = 40;  // OpDataReduce
      const TensorView input = subgraph.tensor(static_cast<size_t>(op.inputs()[0]));
      const TensorView axes = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      // The shared checks take input and axes (and the output for int8),
      // then the max helper input, output and axes again.
      facts.prepare = {In(0), In(1)};
      if (input_type == TensorType::kInt8) facts.prepare.push_back(Out(0));
      for (const TflmPrepareStep& step : {In(0), Out(0), In(1), Scratch(4 * input.rank()), Scratch(4 * axes.element_count())}) {
        facts.prepare.push_back(step);
      }
      break;
    }
    case BuiltinOp::kBatchMatmul: {
      facts.builtin_data_bytes = 3;  // adj_x, adj_y, asymmetric_quantize_inputs
      facts.builtin_data_align = 1;
      facts.init_bytes = layout.pointer_bytes == 8 ? 32 : 16;  // three pointers, three flags
      if (!HasInput(op, 1)) return Unknown("BATCH_MATMUL without a second input");
      const tflite::BatchMatMulOptions* options = op.raw()->builtin_options_as_BatchMatMulOptions();
      const bool adj_x = options != nullptr && options->adj_x();
      const bool adj_y = options != nullptr && options->adj_y();
      // Both inputs and the output; quantization parameters (int8, int16);
      // a transposed copy of the lhs when adj_x and of the rhs unless adj_y
      // (the kernel wants rhs columns contiguous); the output's dims.
      facts.prepare = {In(0), In(1), Out(0)};
      if (input_type == TensorType::kInt8 || input_type == TensorType::kInt16) facts.prepare.push_back(Persistent(28));
      // A transposed copy of an operand: its eval tensor, dims and data.
      auto transposed = [&](size_t slot) {
        const TensorView t = subgraph.tensor(static_cast<size_t>(op.inputs()[slot]));
        facts.prepare.push_back(Persistent(layout.eval_tensor_bytes));
        facts.prepare.push_back(Persistent(4 + 4 * t.rank()));
        facts.prepare.push_back(Persistent(t.byte_size()));
      };
      if (adj_x) transposed(0);
      if (!adj_y) transposed(1);
      facts.prepare.push_back(Persistent(4 + 4 * subgraph.tensor(static_cast<size_t>(op.outputs()[0])).rank()));
      break;
    }
    case BuiltinOp::kIf:
      facts.builtin_data_bytes = 8;  // then and else subgraph indices
      facts.init_bytes = 8;
      facts.prepare = {In(0)};  // the condition
      break;
    case BuiltinOp::kWhile:
      facts.builtin_data_bytes = 8;  // cond and body subgraph indices
      facts.init_bytes = 8;
      break;
    case BuiltinOp::kPad:
    case BuiltinOp::kPadv2:
      facts.init_bytes = 56;  // padding counts and amounts, resizing category, zero point
      facts.prepare = {In(0), In(1), In(2), Out(0)};
      break;
    case BuiltinOp::kSpaceToBatchNd:
      facts.init_bytes = 4;  // SpaceToBatchParams: the pad value
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kBatchToSpaceNd: AddUnaryTemps(facts); break;
    case BuiltinOp::kDepthToSpace:
    case BuiltinOp::kSpaceToDepth:
      facts.builtin_data_bytes = 4;  // block_size
      // Prepare copies the output's dims (4) to the tail before writing them.
      facts.prepare = {In(0), Out(0), Persistent(20)};
      break;
    case BuiltinOp::kMirrorPad: {
      facts.builtin_data_bytes = short_enums ? 1 : 4;  // mode
      facts.builtin_data_align = short_enums ? 1 : 4;
      facts.init_bytes = 20;  // OpDataMirrorPad: 5 ints
      // Two scratch buffers of one int per input dimension.
      const size_t rank = subgraph.tensor(static_cast<size_t>(op.inputs()[0])).rank();
      facts.prepare = {In(0), In(1), Out(0), Scratch(4 * rank), Scratch(4 * rank)};
      break;
    }
    case BuiltinOp::kResizeBilinear:
    case BuiltinOp::kResizeNearestNeighbor:
      facts.builtin_data_bytes = 2;  // align_corners, half_pixel_centers
      facts.builtin_data_align = 1;
      facts.prepare = {In(0), In(1), Out(0)};
      break;
    case BuiltinOp::kStridedSlice:
      facts.builtin_data_bytes = 24;  // five masks and the offset flag
      facts.init_bytes = 84;
      facts.prepare = {In(0), In(1), In(2), In(3), Out(0)};
      break;
    case BuiltinOp::kEqual:
    case BuiltinOp::kNotEqual:
    case BuiltinOp::kLess:
    case BuiltinOp::kLessEqual:
    case BuiltinOp::kGreater:
    case BuiltinOp::kGreaterEqual:
      facts.init_bytes = 28;
      facts.prepare = {In(0), In(1)};  // the output is not looked at
      break;
    case BuiltinOp::kConcatenation: {
      facts.builtin_data_bytes = 8;  // axis, activation
      // ConcatenationParams: axis, two pointers, count, output zero point and scale.
      facts.init_bytes = layout.pointer_bytes == 8 ? 40 : 24;
      // Input 0 and the output, then every input (the oracle's TFLM keeps
      // no per-input arrays for int8: tail and minimum match without them).
      facts.prepare = {In(0), Out(0)};
      for (int32_t i = 0; i < static_cast<int32_t>(op.inputs().size()); ++i) facts.prepare.push_back(In(i));
      break;
    }
    case BuiltinOp::kTranspose:
    case BuiltinOp::kExpandDims:
    case BuiltinOp::kSlice:
    case BuiltinOp::kFill:
      // No options, no op data: inputs then the output.
      for (int32_t i = 0; i < static_cast<int32_t>(op.inputs().size()); ++i) facts.prepare.push_back(In(i));
      facts.prepare.push_back(Out(0));
      break;
    case BuiltinOp::kGather:
    case BuiltinOp::kGatherNd: {
      if (code == BuiltinOp::kGather) facts.builtin_data_bytes = 8;  // axis, batch_dims
      // Inputs and output, then a writable copy of the output's dims.
      const size_t rank = subgraph.tensor(static_cast<size_t>(op.outputs()[0])).rank();
      facts.prepare = {In(0), In(1), Out(0), Persistent(4 + 4 * rank)};
      break;
    }
    case BuiltinOp::kSplit:
      facts.builtin_data_bytes = 4;  // num_splits
      facts.prepare = {In(0)};     // the axis
      break;
    case BuiltinOp::kSplitV:
      facts.builtin_data_bytes = 4;  // num_splits
      facts.prepare = {In(2)};     // the axis
      break;
    case BuiltinOp::kPack:
    case BuiltinOp::kUnpack:
      facts.builtin_data_bytes = 8;  // count, axis; no Prepare
      break;
    case BuiltinOp::kSqueeze:
      facts.builtin_data_bytes = 36;  // squeeze_dims[8], count
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kArgMax:
    case BuiltinOp::kArgMin:
    case BuiltinOp::kShape:
      facts.builtin_data_bytes = short_enums ? 1 : 4;  // the output type; no Prepare
      facts.builtin_data_align = short_enums ? 1 : 4;
      break;
    case BuiltinOp::kCast:
      facts.builtin_data_bytes = short_enums ? 2 : 8;  // in and out types
      facts.builtin_data_align = short_enums ? 1 : 4;
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kMaximum:
    case BuiltinOp::kMinimum:
    case BuiltinOp::kFloor:
    case BuiltinOp::kNeg: break;  // no options, op data or Prepare
    case BuiltinOp::kCeil:
    case BuiltinOp::kCos:
    case BuiltinOp::kSin:
    case BuiltinOp::kLog:
    case BuiltinOp::kSquare:
    case BuiltinOp::kRound:
      if (op.inputs().size() != 1) return Unknown("an element-wise op without exactly one input");
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kFloorDiv:
    case BuiltinOp::kFloorMod:
    case BuiltinOp::kReverseV2:
      if (op.inputs().size() != 2 || !HasInput(op, 1)) return Unknown("a binary op without exactly two inputs");
      AddBinaryTemps(facts);
      break;
    case BuiltinOp::kExp:
    case BuiltinOp::kSqrt:
    case BuiltinOp::kZerosLike: AddUnaryTemps(facts); break;
    case BuiltinOp::kAbs:
    case BuiltinOp::kRsqrt:
      facts.init_bytes = short_enums ? 20 : 28;  // multiplier, shift, offsets, flag, two enums
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kL2Normalization:
      facts.builtin_data_bytes = short_enums ? 1 : 4;  // activation
      facts.builtin_data_align = short_enums ? 1 : 4;
      facts.init_bytes = 4;  // the input zero point
      AddUnaryTemps(facts);
      break;
    case BuiltinOp::kPrelu:
      facts.init_bytes = 28;  // offsets, two multipliers and shifts
      facts.prepare = {In(0), In(1), Out(0)};
      break;
    case BuiltinOp::kDiv:
      facts.builtin_data_bytes = short_enums ? 1 : 4;  // activation
      facts.builtin_data_align = short_enums ? 1 : 4;
      facts.init_bytes = 28;  // zero points, clamp, multiplier, shift
      AddBinaryTemps(facts);
      break;
    case BuiltinOp::kSquaredDifference:
      facts.init_bytes = 112;  // a flag and ArithmeticParams (int64 members)
      AddBinaryTemps(facts);
      break;
    case BuiltinOp::kSelectV2:
      facts.init_bytes = 2;  // two flags
      facts.prepare = {In(0), In(1), In(2), Out(0)};
      break;
    case BuiltinOp::kTransposeConv: {
      // Inputs: output shape, filter, input, optional bias.
      if (!HasInput(op, 1) || !HasInput(op, 2)) return Unknown("TRANSPOSE_CONV without a filter or an input");
      if (subgraph.tensor(static_cast<size_t>(op.inputs()[1])).rank() != 4) {
        return Unknown("a TRANSPOSE_CONV whose filter is not 4-D");
      }
      const TensorType data_type = InputType(subgraph, op, 2);
      facts.builtin_data_bytes = short_enums ? 16 : 20;  // padding, strides, activation, bias type
      // ConvParams (56 B), scratch and bias indices, two array pointers.
      facts.init_bytes = layout.pointer_bytes == 8 ? 80 : 72;
      const TensorView filter = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      const size_t channels = static_cast<size_t>(filter.shape()[0]);
      const size_t out_elems = subgraph.tensor(static_cast<size_t>(op.outputs()[0])).element_count();
      // Output, input and filter, then per-channel multiplier and shift
      // arrays for every type, then a scratch sum per output element (int32
      // for int8, int64 for int16); the quantized helper takes the tensors
      // again, and widens an int16 bias in scratch.
      facts.prepare = {Out(0), In(2), In(1), Persistent(4 * channels), Persistent(4 * channels)};
      if (data_type == TensorType::kInt8) facts.prepare.push_back(Scratch(4 * out_elems));
      if (data_type == TensorType::kInt16) facts.prepare.push_back(Scratch(8 * out_elems));
      if (data_type != TensorType::kFloat32) {
        for (const TflmPrepareStep& step : {In(2), In(1), In(3), Out(0)}) facts.prepare.push_back(step);
        if (data_type == TensorType::kInt16 && HasInput(op, 3) && InputType(subgraph, op, 3) == TensorType::kInt16) {
          facts.prepare.push_back(Scratch(8 * subgraph.tensor(static_cast<size_t>(op.inputs()[3])).element_count()));
        }
      }
      break;
    }
    case BuiltinOp::kElu: {
      if (!AllInputsPresent(op, 1)) return Unknown("ELU without exactly one input");
      if (OutputType(subgraph, op) != input_type) return Unknown("ELU whose output type is not its input's");
      // Not modelled: float32 with quantized tensors. With 2,000 per-channel
      // scales on the output TFLM's tail holds 256 B more than the facts give
      // (its own temps then set the minimum); with one or two scales, not.
      // The cause was not found.
      if (input_type == TensorType::kFloat32 && (TensorAt(subgraph, op.inputs()[0]).quantization().is_affine() ||
                                                 TensorAt(subgraph, op.outputs()[0]).quantization().is_affine())) {
        return Unknown("a float32 ELU with quantized tensors");
      }
      // The 256-byte lookup table: in the oracle's tail for int8, not for
      // float32 (checked on one-op models; the source read allocates it in
      // Init for every type).
      if (input_type == TensorType::kInt8) facts.init_bytes = 256;
      AddUnaryTemps(facts);
      break;
    }
    case BuiltinOp::kAddN: {
      // Input 0 and the output, then each further input; the int8 op data
      // while they are live; a scratch array of one pointer per input.
      const size_t count = op.inputs().size();
      if (count < 2 || !AllInputsPresent(op, count)) return Unknown("ADD_N without two or more inputs");
      const TensorView first = TensorAt(subgraph, op.inputs()[0]);
      for (size_t i = 1; i < count; ++i) {
        const TensorView other = TensorAt(subgraph, op.inputs()[i]);
        if (other.type() != input_type ||
            (input_type == TensorType::kInt8 &&
             (!other.quantization().is_affine() || !first.quantization().is_affine() ||
              other.quantization().scale(0) != first.quantization().scale(0) ||
              other.quantization().zero_point(0) != first.quantization().zero_point(0)))) {
          return Unknown("ADD_N whose inputs differ in type or quantization");
        }
      }
      facts.prepare = {In(0), Out(0)};
      for (size_t i = 1; i < count; ++i) facts.prepare.push_back(In(static_cast<int32_t>(i)));
      if (input_type == TensorType::kInt8) facts.prepare.push_back(Persistent(40));  // OpData: 10 ints
      facts.prepare.push_back(Scratch(layout.pointer_bytes * count));
      break;
    }
    case BuiltinOp::kLogSoftmax: {
      if (!AllInputsPresent(op, 1) || OutputType(subgraph, op) != input_type) {
        return Unknown("LOG_SOFTMAX without one input and an output of its type");
      }
      if (input_type == TensorType::kInt8) {
        const QuantizationView q = TensorAt(subgraph, op.outputs()[0]).quantization();
        if (!q.is_affine() || q.scale(0) != 16.0f / 256 || q.zero_point(0) != 127) {
          return Unknown("an int8 LOG_SOFTMAX whose output is not int8 with scale 16/256 and zero point 127");
        }
      }
      AddUnaryTemps(facts);
      // int8: LogSoftmaxOpData (4 int32, an int, two size_t) while the temps are live.
      if (input_type == TensorType::kInt8) facts.prepare.push_back(Persistent(layout.pointer_bytes == 8 ? 40 : 28));
      break;
    }
    case BuiltinOp::kL2Pool2d: {
      if (!AllInputsPresent(op, 1) || TensorAt(subgraph, op.inputs()[0]).rank() != 4 ||
          TensorAt(subgraph, op.outputs()[0]).rank() != 4 || OutputType(subgraph, op) != input_type) {
        return Unknown("L2_POOL_2D without one 4-D input and a 4-D output of its type");
      }
      // Its output's dims are copied to the tail while the temps are live;
      // where quantized temps set the minimum, TFLM's planning overwrites the
      // copy at TFLM's minimum arena and plans the output from it (seen with
      // 2,000 per-channel scales on the output): not modelled.
      if (TensorAt(subgraph, op.inputs()[0]).quantization().is_affine() ||
          TensorAt(subgraph, op.outputs()[0]).quantization().is_affine()) {
        return Unknown("an L2_POOL_2D with quantized tensors");
      }
      facts.builtin_data_bytes = 40;  // as the other pools
      facts.prepare = {Out(0), In(0), Persistent(4 + 4 * 4)};
      break;
    }
    case BuiltinOp::kCumsum:
      if (!AllInputsPresent(op, 2) || InputType(subgraph, op, 1) != TensorType::kInt32 ||
          OutputType(subgraph, op) != input_type) {
        return Unknown("CUMSUM without an input, an INT32 axis and an output of the input's type");
      }
      facts.builtin_data_bytes = 2;  // exclusive, reverse
      facts.builtin_data_align = 1;
      facts.prepare = {In(0), In(1), Out(0)};
      if (input_type == TensorType::kInt8) facts.prepare.push_back(Persistent(36));  // OpData: 9 ints
      break;
    case BuiltinOp::kEmbeddingLookup: {
      // Lookup, table, output; the output's dims to the tail, then the op
      // data (a float and a size_t), both while the temps are live. The
      // hybrid form (int8 table, float32 output) is not checked: refused.
      if (!AllInputsPresent(op, 2) || input_type != TensorType::kInt32 ||
          OutputType(subgraph, op) != InputType(subgraph, op, 1)) {
        return Unknown("EMBEDDING_LOOKUP without an INT32 lookup and an output of the table's type");
      }
      const size_t output_rank = TensorAt(subgraph, op.outputs()[0]).rank();
      facts.prepare = {In(0), In(1), Out(0), Persistent(4 + 4 * output_rank),
                       Persistent(layout.pointer_bytes == 8 ? 16 : 8)};
      break;
    }
    case BuiltinOp::kBroadcastTo:
      if (!AllInputsPresent(op, 2) || OutputType(subgraph, op) != input_type) {
        return Unknown("BROADCAST_TO without an input, a shape and an output of the input's type");
      }
      facts.prepare = {In(0), In(1), Out(0)};
      break;
    case BuiltinOp::kDynamicUpdateSlice:
      if (!AllInputsPresent(op, 3) || InputType(subgraph, op, 1) != input_type ||
          OutputType(subgraph, op) != input_type) {
        return Unknown("DYNAMIC_UPDATE_SLICE without three inputs, the update and output of the operand's type");
      }
      facts.prepare = {In(0), In(1), In(2), Out(0)};
      break;
    case BuiltinOp::kLogicalAnd:
    case BuiltinOp::kLogicalOr: break;  // no options, op data or Prepare
    case BuiltinOp::kLogicalNot:
      if (!AllInputsPresent(op, 1)) return Unknown("LOGICAL_NOT without exactly one input");
      AddUnaryTemps(facts);
      break;
    default: return Unknown(std::string("op ") + BuiltinOpName(code) + " is not in the TFLM arena table");
  }
  // The data's type: input 0 but where that is a shape, an axis, a
  // condition or a lookup (FILL, SPLIT, SELECT_V2, EMBEDDING_LOOKUP: input 1;
  // TRANSPOSE_CONV: input 2).
  TensorType data_type = input_type;
  const size_t data_slot = code == BuiltinOp::kTransposeConv ? 2
                           : code == BuiltinOp::kFill || code == BuiltinOp::kSplit || code == BuiltinOp::kSelectV2 ||
                                     code == BuiltinOp::kEmbeddingLookup
                               ? 1
                               : 0;
  if (data_slot > 0) {
    if (!HasInput(op, data_slot)) return Unknown(std::string(BuiltinOpName(code)) + " without its data input");
    data_type = InputType(subgraph, op, data_slot);
  }
  if (!TypeChecked(code, data_type)) {
    return Unknown(std::string(BuiltinOpName(code)) + " with " + TensorTypeName(data_type) +
                   " data (not checked against TFLM)");
  }
  return facts;
}

}  // namespace microarena::report
