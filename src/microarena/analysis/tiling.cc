#include "microarena/analysis/tiling.h"

#include <cstring>
#include <cstdint>
#include <limits>

#include "microarena/base/align.h"
#include "microarena/model/window.h"

namespace microarena {
namespace {

constexpr int32_t kNoRow = std::numeric_limits<int32_t>::max();

int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }
int32_t Min(int32_t a, int32_t b) { return a < b ? a : b; }
int64_t Max(int64_t a, int64_t b) { return a > b ? a : b; }

constexpr int32_t kMaxBandRows = 1 << 16;

// An NHWC map with batch 1, the only layout whose rows are contiguous bytes.
Status RequireRowMap(const OperatorView& op, const char* role, const TensorView& tensor) {
  const Span<const int32_t> shape = tensor.shape();
  if (shape.size() != 4 || shape[0] != 1 || shape[1] < 1) {
    return Status::Error(ErrorCode::kUnsupported,
                         "op %d (%s) cannot run in bands: its %s, tensor %d '%s', is not a 4-D map with batch 1",
                         op.index(), op.name(), role, tensor.index(), tensor.name());
  }
  if (tensor.is_constant() || tensor.is_variable()) {
    return Status::Error(ErrorCode::kUnsupported,
                         "op %d (%s) cannot run in bands: its %s, tensor %d '%s', is a %s", op.index(), op.name(),
                         role, tensor.index(), tensor.name(), tensor.is_constant() ? "constant" : "variable");
  }
  return OkStatus();
}

bool SameShape(const TensorView& a, const TensorView& b) {
  const Span<const int32_t> x = a.shape();
  const Span<const int32_t> y = b.shape();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

Status DescribeWindow(const OperatorView& op, const SubgraphView& subgraph, tflite::Padding padding, int32_t stride,
                      int32_t dilation, int32_t filter_height, BandOp* band_op) {
  const TensorView input = subgraph.tensor(static_cast<size_t>(op.inputs()[0]));
  const TensorView output = subgraph.tensor(static_cast<size_t>(op.outputs()[0]));
  if (stride < 1 || dilation < 1 || filter_height < 1 ||
      (padding != tflite::Padding::SAME && padding != tflite::Padding::VALID)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "op %d (%s) cannot run in bands: stride %d, dilation %d, filter height %d", op.index(),
                         op.name(), stride, dilation, filter_height);
  }
  const int32_t in_height = input.shape()[1];
  const int64_t out_height = WindowOutputSize(padding, in_height, filter_height, stride, dilation);
  if (out_height != output.shape()[1]) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "op %d (%s) cannot run in bands: its window gives %lld rows, output tensor %d has %d",
                         op.index(), op.name(), static_cast<long long>(out_height), output.index(),
                         output.shape()[1]);
  }
  band_op->kind = BandOpKind::kWindow;
  band_op->stride = stride;
  band_op->before = static_cast<int32_t>(WindowPaddingBefore(in_height, filter_height, stride, dilation, out_height));
  band_op->extent = (filter_height - 1) * dilation + 1;
  band_op->spatial_inputs = 1;
  return OkStatus();
}

// The rows PAD adds above the input, from its constant paddings.
Status DescribePad(const OperatorView& op, const SubgraphView& subgraph, BandOp* band_op) {
  if (op.inputs().size() < 2 || op.inputs()[1] < 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "op %d (%s) has no paddings", op.index(), op.name());
  }
  const TensorView paddings = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
  const Span<const uint8_t> bytes = paddings.data();
  const bool wide = paddings.type() == TensorType::kInt64;
  const size_t element = wide ? 8 : 4;
  if (!paddings.is_constant() || (paddings.type() != TensorType::kInt32 && !wide) || bytes.size() != 8 * element) {
    return Status::Error(ErrorCode::kUnsupported,
                         "op %d (%s) cannot run in bands: paddings tensor %d '%s' is not a constant 4x2 INT32/INT64",
                         op.index(), op.name(), paddings.index(), paddings.name());
  }
  int64_t pads[8];
  for (size_t i = 0; i < 8; ++i) {
    if (wide) {
      std::memcpy(&pads[i], bytes.data() + 8 * i, 8);
    } else {
      int32_t value = 0;
      std::memcpy(&value, bytes.data() + 4 * i, 4);
      pads[i] = value;
    }
  }
  if (pads[0] != 0 || pads[1] != 0 || pads[2] < 0 || pads[3] < 0 || pads[2] > (1 << 20)) {
    return Status::Error(ErrorCode::kUnsupported,
                         "op %d (%s) cannot run in bands: it pads the batch (%lld, %lld) or the rows (%lld, %lld)",
                         op.index(), op.name(), static_cast<long long>(pads[0]), static_cast<long long>(pads[1]),
                         static_cast<long long>(pads[2]), static_cast<long long>(pads[3]));
  }
  band_op->kind = BandOpKind::kPad;
  band_op->before = static_cast<int32_t>(pads[2]);
  band_op->spatial_inputs = 1;
  return OkStatus();
}

}  // namespace

Status DescribeBandOp(const ModelView& model, int32_t op_index, BandOp* band_op) {
  const SubgraphView subgraph = model.subgraph(0);
  const OperatorView op = subgraph.op(static_cast<size_t>(op_index));
  *band_op = BandOp{};
  if (op.outputs().size() != 1 || op.inputs().empty() || op.inputs()[0] < 0) {
    return Status::Error(ErrorCode::kUnsupported, "op %d (%s) cannot run in bands: it needs one input and one output",
                         op_index, op.name());
  }
  const TensorView input = subgraph.tensor(static_cast<size_t>(op.inputs()[0]));
  const TensorView output = subgraph.tensor(static_cast<size_t>(op.outputs()[0]));
  MICROARENA_RETURN_IF_ERROR(RequireRowMap(op, "input", input));
  MICROARENA_RETURN_IF_ERROR(RequireRowMap(op, "output", output));
  const tflite::Operator* raw = op.raw();
  switch (op.code()) {
    case BuiltinOp::kConv2d: {
      const tflite::Conv2DOptions* options = raw->builtin_options_as_Conv2DOptions();
      if (options == nullptr || op.inputs().size() < 2 || op.inputs()[1] < 0) break;
      const TensorView filter = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      if (filter.rank() != 4) break;
      return DescribeWindow(op, subgraph, options->padding(), options->stride_h(), options->dilation_h_factor(),
                            filter.shape()[1], band_op);
    }
    case BuiltinOp::kDepthwiseConv2d: {
      const tflite::DepthwiseConv2DOptions* options = raw->builtin_options_as_DepthwiseConv2DOptions();
      if (options == nullptr || op.inputs().size() < 2 || op.inputs()[1] < 0) break;
      const TensorView filter = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      if (filter.rank() != 4) break;
      return DescribeWindow(op, subgraph, options->padding(), options->stride_h(), options->dilation_h_factor(),
                            filter.shape()[1], band_op);
    }
    case BuiltinOp::kAveragePool2d:
    case BuiltinOp::kMaxPool2d: {
      const tflite::Pool2DOptions* options = raw->builtin_options_as_Pool2DOptions();
      if (options == nullptr) break;
      return DescribeWindow(op, subgraph, options->padding(), options->stride_h(), 1, options->filter_height(),
                            band_op);
    }
    case BuiltinOp::kPad:
    case BuiltinOp::kPadv2:
      return DescribePad(op, subgraph, band_op);
    case BuiltinOp::kAdd: {
      if (op.inputs().size() != 2 || op.inputs()[1] < 0) break;
      const TensorView other = subgraph.tensor(static_cast<size_t>(op.inputs()[1]));
      MICROARENA_RETURN_IF_ERROR(RequireRowMap(op, "second input", other));
      if (!SameShape(input, output) || !SameShape(other, output)) {
        return Status::Error(ErrorCode::kUnsupported,
                             "op %d (%s) cannot run in bands: it broadcasts (inputs %d and %d against output %d)",
                             op_index, op.name(), input.index(), other.index(), output.index());
      }
      band_op->spatial_inputs = 3;
      return OkStatus();
    }
    case BuiltinOp::kRelu:
    case BuiltinOp::kRelu6:
      if (!SameShape(input, output)) break;
      band_op->spatial_inputs = 1;
      return OkStatus();
    default:
      return Status::Error(ErrorCode::kUnsupported,
                           "op %d (%s) cannot run in bands: only CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, "
                           "MAX_POOL_2D, PAD, PADV2, ADD, RELU and RELU6 can",
                           op_index, op.name());
  }
  return Status::Error(ErrorCode::kInvalidArgument, "op %d (%s) cannot run in bands: its options or operands are malformed",
                       op_index, op.name());
}

RowRange InputRowsOf(const BandOp& op, RowRange rows, int32_t height) {
  if (rows.empty()) return RowRange{0, 0};
  RowRange in;
  switch (op.kind) {
    case BandOpKind::kWindow:
      in.first = rows.first * op.stride - op.before;
      in.end = (rows.end - 1) * op.stride - op.before + op.extent;
      break;
    case BandOpKind::kPad:
      in.first = rows.first - op.before;
      in.end = rows.end - op.before;
      break;
    case BandOpKind::kElementwise:
      in = rows;
      break;
  }
  in.first = Min(Max(in.first, 0), height);
  in.end = Min(Max(in.end, in.first), height);
  return in;
}

int32_t SegmentWalk::SlotOf(int32_t tensor) const {
  for (size_t s = 0; s < tensor_count_; ++s) {
    if (memory_.tensors[s].tensor == tensor) return static_cast<int32_t>(s);
  }
  return -1;
}

Status SegmentWalk::AddTensor(int32_t tensor, SegmentRole role, int16_t* slot) {
  if (tensor_count_ >= memory_.tensors.size() || tensor_count_ >= memory_.producers.size() ||
      tensor_count_ >= memory_.window_rows.size()) {
    return Status::Error(ErrorCode::kUnsupported, "segment ops %d-%d touch more than %zu maps", segment_.first_op,
                         segment_.last_op, memory_.tensors.size());
  }
  SegmentTensor& entry = memory_.tensors[tensor_count_];
  entry = SegmentTensor{};
  entry.tensor = tensor;
  entry.role = role;
  entry.height = model_->subgraph(0).tensor(static_cast<size_t>(tensor)).shape()[1];
  memory_.producers[tensor_count_] = -1;
  *slot = static_cast<int16_t>(tensor_count_++);
  return OkStatus();
}

Status SegmentWalk::Start(const ModelView& model, const TiledSegment& segment) {
  model_ = &model;
  segment_ = segment;
  tensor_count_ = 0;
  if (model.subgraph_count() == 0) return Status::Error(ErrorCode::kInvalidArgument, "the model has no subgraph");
  const SubgraphView subgraph = model.subgraph(0);
  const auto op_count = static_cast<int64_t>(subgraph.operator_count());
  if (segment.first_op < 0 || segment.first_op > segment.last_op || segment.last_op >= op_count) {
    return Status::Error(ErrorCode::kInvalidArgument, "tiled segment ops %d-%d is not within the model's %lld ops",
                         segment.first_op, segment.last_op, static_cast<long long>(op_count));
  }
  if (static_cast<size_t>(segment.last_op - segment.first_op + 1) > memory_.ops.size()) {
    return Status::Error(ErrorCode::kUnsupported, "tiled segment ops %d-%d has more than %zu ops", segment.first_op,
                         segment.last_op, memory_.ops.size());
  }
  // Rows per band from a model's metadata are untrusted: bounded so that
  // row arithmetic cannot overflow (no map is this tall).
  if (segment.band_rows < 1 || segment.band_rows > kMaxBandRows) {
    return Status::Error(ErrorCode::kInvalidArgument, "tiled segment ops %d-%d has %d rows per band; 1 to %d",
                         segment.first_op, segment.last_op, segment.band_rows, kMaxBandRows);
  }
  for (int32_t o = segment.first_op; o <= segment.last_op; ++o) {
    WalkOp& walk_op = memory_.ops[static_cast<size_t>(o - segment.first_op)];
    walk_op = WalkOp{};
    MICROARENA_RETURN_IF_ERROR(DescribeBandOp(model, o, &walk_op.op));
    const OperatorView op = subgraph.op(static_cast<size_t>(o));
    for (size_t i = 0; i < 2; ++i) {
      if ((walk_op.op.spatial_inputs & (1u << i)) == 0) continue;
      const int32_t t = op.inputs()[i];
      const int32_t slot = SlotOf(t);
      if (slot >= 0) {
        walk_op.input_slot[i] = static_cast<int16_t>(slot);
      } else {
        MICROARENA_RETURN_IF_ERROR(AddTensor(t, SegmentRole::kInput, &walk_op.input_slot[i]));
      }
    }
    const int32_t out = op.outputs()[0];
    if (SlotOf(out) >= 0) {
      return Status::Error(ErrorCode::kInvalidArgument, "op %d (%s) writes tensor %d, which the segment already has",
                           o, op.name(), out);
    }
    MICROARENA_RETURN_IF_ERROR(AddTensor(out, SegmentRole::kWindow, &walk_op.output_slot));
    memory_.producers[static_cast<size_t>(walk_op.output_slot)] = static_cast<int16_t>(o - segment.first_op);
  }
  sink_ = memory_.ops[static_cast<size_t>(segment.last_op - segment.first_op)].output_slot;
  memory_.tensors[static_cast<size_t>(sink_)].role = SegmentRole::kSink;

  // A window exists only inside: nothing after the segment, no non-row
  // input inside and no model output may read it.
  for (size_t s = 0; s < tensor_count_; ++s) {
    if (memory_.tensors[s].role != SegmentRole::kWindow) continue;
    const int32_t t = memory_.tensors[s].tensor;
    for (int32_t output : subgraph.outputs()) {
      if (output == t) {
        return Status::Error(ErrorCode::kUnsupported,
                             "tiled segment ops %d-%d: tensor %d is a model output, so it must be whole; end the "
                             "segment at the op that writes it",
                             segment.first_op, segment.last_op, t);
      }
    }
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      const OperatorView op = subgraph.op(o);
      const Span<const int32_t> inputs = op.inputs();
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] != t) continue;
        const auto oi = static_cast<int32_t>(o);
        const bool inside = oi >= segment.first_op && oi <= segment.last_op;
        if (!inside || i >= 2 || (memory_.ops[static_cast<size_t>(oi - segment.first_op)].op.spatial_inputs & (1u << i)) == 0) {
          return Status::Error(ErrorCode::kUnsupported,
                               "tiled segment ops %d-%d: tensor %d, made inside, is read by op %zu (%s)%s; only the "
                               "last op's output may be read after the segment",
                               segment.first_op, segment.last_op, t, o, op.name(),
                               inside ? " as a whole tensor" : " after the segment");
        }
      }
    }
  }
  return OkStatus();
}

Status SegmentWalk::Walk(BandVisitor& visitor) {
  SegmentTensor* tensors = memory_.tensors.data();
  for (size_t s = 0; s < tensor_count_; ++s) {
    SegmentTensor& t = tensors[s];
    t.first_row = 0;
    t.done = t.role == SegmentRole::kInput ? t.height : 0;
  }
  const int32_t height = tensors[sink_].height;
  for (int32_t first = 0; first < height; first += segment_.band_rows) {
    MICROARENA_RETURN_IF_ERROR(Pull(static_cast<int16_t>(sink_), Min(height, first + segment_.band_rows), visitor));
  }
  if (tensors[sink_].done != height) {
    return Status::Error(ErrorCode::kInternal, "tiled segment ops %d-%d left sink rows %d-%d uncomputed",
                         segment_.first_op, segment_.last_op, tensors[sink_].done, height);
  }
  return OkStatus();
}

int32_t SegmentWalk::KeepFirst(int16_t slot) const {
  const SegmentTensor* tensors = memory_.tensors.data();
  if (tensors[slot].role == SegmentRole::kSink) return tensors[slot].done;
  int32_t keep = kNoRow;
  const auto count = static_cast<size_t>(segment_.last_op - segment_.first_op + 1);
  for (size_t k = 0; k < count; ++k) {
    const WalkOp& walk_op = memory_.ops[k];
    const SegmentTensor& out = tensors[walk_op.output_slot];
    if (out.done >= out.height) continue;
    for (size_t i = 0; i < 2; ++i) {
      if (walk_op.input_slot[i] != slot) continue;
      keep = Min(keep, InputRowsOf(walk_op.op, RowRange{out.done, out.done + 1}, tensors[slot].height).first);
    }
  }
  return keep;
}

// Depth-first: each row is made just before a consumer needs it, so a
// window holds the consumer's halo and little more. The recursion is as
// deep as the segment's longest chain of ops (at most kMaxSegmentOps).
Status SegmentWalk::Pull(int16_t slot, int32_t end, BandVisitor& visitor) {
  SegmentTensor* tensors = memory_.tensors.data();
  SegmentTensor& out = tensors[slot];
  if (out.role == SegmentRole::kInput) return OkStatus();
  end = Min(end, out.height);
  const int16_t k = memory_.producers[static_cast<size_t>(slot)];
  const WalkOp& walk_op = memory_.ops[static_cast<size_t>(k)];
  while (out.done < end) {
    // Rows no consumer reads (below every consumer's next window) are skipped.
    const int32_t keep_first = KeepFirst(slot);
    const int32_t first = Max(out.done, keep_first);
    if (first >= end) {
      out.done = end;
      break;
    }
    BandStep step;
    step.op = segment_.first_op + k;
    step.output = RowRange{first, Min(end, first + segment_.band_rows)};
    step.output_slot = slot;
    for (size_t i = 0; i < 2; ++i) {
      step.input_slot[i] = walk_op.input_slot[i];
      if (walk_op.input_slot[i] < 0) continue;
      const SegmentTensor& in = tensors[walk_op.input_slot[i]];
      // Empty when the rows read only padding (PAD's rows below the input).
      step.inputs[i] = InputRowsOf(walk_op.op, step.output, in.height);
      MICROARENA_RETURN_IF_ERROR(Pull(walk_op.input_slot[i], step.inputs[i].end, visitor));
    }
    for (size_t i = 0; i < 2; ++i) {
      if (walk_op.input_slot[i] < 0) continue;
      const SegmentTensor& in = tensors[walk_op.input_slot[i]];
      if (!step.inputs[i].empty() && (step.inputs[i].first < in.first_row || step.inputs[i].end > in.done)) {
        return Status::Error(ErrorCode::kInternal,
                             "op %d: rows %d-%d of tensor %d are not in its window (rows %d-%d)", step.op,
                             step.inputs[i].first, step.inputs[i].end, in.tensor, in.first_row, in.done);
      }
    }
    // Pulling the inputs moved no consumer of this map: keep_first holds.
    if (out.role == SegmentRole::kWindow) {
      MICROARENA_RETURN_IF_ERROR(visitor.BeforeWrite(out, keep_first, step));
      out.first_row = Max(out.first_row, keep_first);
    } else {
      MICROARENA_RETURN_IF_ERROR(visitor.BeforeWrite(out, 0, step));
    }
    MICROARENA_RETURN_IF_ERROR(visitor.Run(step, tensors));
    out.done = step.output.end;
  }
  return OkStatus();
}

namespace {

class WindowCounter final : public BandVisitor {
 public:
  explicit WindowCounter(Span<int32_t> rows) : rows_(rows) {}
  Status BeforeWrite(SegmentTensor& output, int32_t keep_first, const BandStep& step) override {
    if (output.role != SegmentRole::kWindow) return OkStatus();
    const int32_t first = Max(output.first_row, keep_first);
    int32_t& rows = rows_[static_cast<size_t>(step.output_slot)];
    rows = Max(rows, step.output.end - first);
    return OkStatus();
  }
  Status Run(const BandStep&, const SegmentTensor*) override { return OkStatus(); }

 private:
  Span<int32_t> rows_;
};

}  // namespace

Status WindowRowsOf(SegmentWalk& walk) {
  const Span<int32_t> window_rows = walk.window_rows();
  for (int32_t& rows : window_rows) rows = 0;
  WindowCounter counter(window_rows);
  return walk.Walk(counter);
}

namespace {

size_t OpsOfLongest(Span<const TiledSegment> segments) {
  size_t most = 0;
  for (const TiledSegment& segment : segments) {
    // A malformed segment gets room for one op: Start refuses it.
    const int64_t ops = int64_t{segment.last_op} - int64_t{segment.first_op} + 1;
    const size_t clamped = ops < 1 ? 1 : ops > static_cast<int64_t>(kMaxSegmentOps) ? kMaxSegmentOps : static_cast<size_t>(ops);
    most = clamped > most ? clamped : most;
  }
  return most;
}

// The maps a walk of `segment` can add: its ops' outputs and their first
// two inputs that are not constants, each once (at least one, at most
// kMaxSegmentTensors; Start refuses a segment with more).
size_t MapsOf(const ModelView& model, const TiledSegment& segment) {
  if (model.subgraph_count() == 0) return 1;
  const SubgraphView subgraph = model.subgraph(0);
  const auto op_count = static_cast<int64_t>(subgraph.operator_count());
  if (segment.first_op < 0 || segment.first_op > segment.last_op || segment.last_op >= op_count ||
      static_cast<size_t>(segment.last_op - segment.first_op + 1) > kMaxSegmentOps) {
    return 1;
  }
  // Whether tensor `t`, an input or output of op `o`, was seen at an earlier place.
  const auto seen_before = [&](int32_t t, int32_t o, size_t place) {
    for (int32_t p = segment.first_op; p <= o; ++p) {
      const OperatorView op = subgraph.op(static_cast<size_t>(p));
      const Span<const int32_t> inputs = op.inputs();
      const size_t places = p < o ? 3 : place;  // inputs 0-1, then the output
      for (size_t i = 0; i < places; ++i) {
        const int32_t other = i < 2 ? (i < inputs.size() ? inputs[i] : -1) : (op.outputs().empty() ? -1 : op.outputs()[0]);
        if (other == t) return true;
      }
    }
    return false;
  };
  size_t maps = 0;
  for (int32_t o = segment.first_op; o <= segment.last_op; ++o) {
    const OperatorView op = subgraph.op(static_cast<size_t>(o));
    const Span<const int32_t> inputs = op.inputs();
    for (size_t place = 0; place < 3; ++place) {
      const int32_t t = place < 2 ? (place < inputs.size() ? inputs[place] : -1) : (op.outputs().empty() ? -1 : op.outputs()[0]);
      if (t < 0 || static_cast<size_t>(t) >= subgraph.tensor_count() || seen_before(t, o, place)) continue;
      if (place < 2 && subgraph.tensor(static_cast<size_t>(t)).is_constant()) continue;
      ++maps;
    }
  }
  return maps < 1 ? 1 : maps > kMaxSegmentTensors ? kMaxSegmentTensors : maps;
}

// The walk memory's shape for `segments`: ops and maps of the largest need.
void MemoryShape(const ModelView& model, Span<const TiledSegment> segments, size_t* ops, size_t* maps) {
  *ops = OpsOfLongest(segments);
  *maps = 1;
  for (const TiledSegment& segment : segments) {
    const size_t m = MapsOf(model, segment);
    *maps = m > *maps ? m : *maps;
  }
}

constexpr size_t RoundUp4(size_t bytes) { return (bytes + 3) & ~size_t{3}; }

static_assert(alignof(WalkOp) <= 4 && alignof(SegmentTensor) <= 4, "walk memory is carved at 4-byte boundaries");

// Runs `body(walk)` on a BoundedSegmentWalk: out of line, so that callers
// given memory keep its 3.6 KB off their frame.
template <typename Body>
[[gnu::noinline]] auto WithBoundedWalk(Body& body) {
  BoundedSegmentWalk walk;
  return body(static_cast<SegmentWalk&>(walk));
}

// Runs `body(walk)` on a walk over `memory`, or a bounded one without.
template <typename Body>
auto WithWalk(const WalkMemory* memory, Body body) {
  if (memory == nullptr) return WithBoundedWalk(body);
  SegmentWalk walk(*memory);
  return body(walk);
}

}  // namespace

size_t TilingStateBytes(const ModelView& model, Span<const TiledSegment> segments) {
  if (segments.empty()) return 0;
  size_t ops = 0, maps = 0;
  MemoryShape(model, segments, &ops, &maps);
  return ops * sizeof(WalkOp) + maps * sizeof(SegmentTensor) + maps * sizeof(int32_t) +
         RoundUp4(maps * sizeof(int16_t));
}

WalkMemory WalkMemoryIn(Span<uint8_t> bytes, const ModelView& model, Span<const TiledSegment> segments) {
  WalkMemory memory;
  if (segments.empty() || bytes.size() < TilingStateBytes(model, segments) ||
      reinterpret_cast<uintptr_t>(bytes.data()) % 4 != 0) {
    return memory;  // no room: every Start fails, naming the segment
  }
  size_t ops = 0, maps = 0;
  MemoryShape(model, segments, &ops, &maps);
  uint8_t* at = bytes.data();
  memory.ops = Span<WalkOp>(reinterpret_cast<WalkOp*>(at), ops);
  at += ops * sizeof(WalkOp);
  memory.tensors = Span<SegmentTensor>(reinterpret_cast<SegmentTensor*>(at), maps);
  at += maps * sizeof(SegmentTensor);
  memory.window_rows = Span<int32_t>(reinterpret_cast<int32_t*>(at), maps);
  at += maps * sizeof(int32_t);
  memory.producers = Span<int16_t>(reinterpret_cast<int16_t*>(at), maps);
  return memory;
}

bool IsTiledTensor(const ModelView& model, Span<const TiledSegment> segments, int32_t tensor) {
  const SubgraphView subgraph = model.subgraph(0);
  for (const TiledSegment& segment : segments) {
    for (int32_t o = segment.first_op; o <= segment.last_op; ++o) {
      const OperatorView op = subgraph.op(static_cast<size_t>(o));
      for (int32_t t : op.inputs()) {
        if (t == tensor) return true;
      }
      for (int32_t t : op.outputs()) {
        if (t == tensor) return true;
      }
    }
  }
  return false;
}

namespace {

Status CheckOrder(Span<const TiledSegment> segments) {
  for (size_t i = 1; i < segments.size(); ++i) {
    if (segments[i].first_op <= segments[i - 1].last_op) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "tiled segments ops %d-%d and %d-%d are not in order or overlap", segments[i - 1].first_op,
                           segments[i - 1].last_op, segments[i].first_op, segments[i].last_op);
    }
  }
  return OkStatus();
}

}  // namespace

namespace {

Status ApplySegments(const ModelView& model, Span<const TiledSegment> segments, size_t alignment_bytes,
                     Span<BufferRequest> buffers, SegmentWalk& walk) {
  const SubgraphView subgraph = model.subgraph(0);
  for (const TiledSegment& segment : segments) {
    MICROARENA_RETURN_IF_ERROR(walk.Start(model, segment));
    MICROARENA_RETURN_IF_ERROR(WindowRowsOf(walk));
    const Span<int32_t> window_rows = walk.window_rows();
    for (BufferRequest& buffer : buffers) {
      if (buffer.kind != BufferKind::kTensor || buffer.subgraph_index != 0) continue;
      const int32_t slot = walk.SlotOf(buffer.owner_index);
      // Every op of a segment runs again in every band, so every tensor one
      // of them reads (a filter made by DEQUANTIZE too) lives through it all.
      if (slot < 0) {
        if (IsTiledTensor(model, Span<const TiledSegment>(&segment, 1), buffer.owner_index)) {
          buffer.lifetime.end_op = Max(buffer.lifetime.end_op, segment.last_op + 1);
        }
        continue;
      }
      const SegmentTensor& t = walk.tensors()[static_cast<size_t>(slot)];
      if (t.role == SegmentRole::kWindow) {
        const size_t row_bytes = subgraph.tensor(static_cast<size_t>(t.tensor)).byte_size() / static_cast<size_t>(t.height);
        buffer.size_bytes = AlignUpUnchecked(row_bytes * static_cast<size_t>(window_rows[static_cast<size_t>(slot)]), alignment_bytes);
      }
      buffer.lifetime.first_op = Min(buffer.lifetime.first_op, segment.first_op);
      buffer.lifetime.end_op = Max(buffer.lifetime.end_op, segment.last_op + 1);
    }
  }
  return OkStatus();
}

}  // namespace

Status CheckTiling(const ModelView& model, Span<const TiledSegment> segments, const WalkMemory* memory) {
  MICROARENA_RETURN_IF_ERROR(CheckOrder(segments));
  return WithWalk(memory, [&](SegmentWalk& walk) -> Status {
    for (const TiledSegment& segment : segments) MICROARENA_RETURN_IF_ERROR(walk.Start(model, segment));
    return OkStatus();
  });
}

Status ApplyTiling(const ModelView& model, Span<const TiledSegment> segments, size_t alignment_bytes,
                   Span<BufferRequest> buffers, const WalkMemory* memory) {
  // Each segment is checked by its walk's Start below; once, not twice.
  MICROARENA_RETURN_IF_ERROR(CheckOrder(segments));
  return WithWalk(memory,
                  [&](SegmentWalk& walk) { return ApplySegments(model, segments, alignment_bytes, buffers, walk); });
}


namespace {

size_t RowBytesOf(const ModelView& model, const SegmentTensor& tensor) {
  return model.subgraph(0).tensor(static_cast<size_t>(tensor.tensor)).byte_size() /
         static_cast<size_t>(tensor.height);
}

// The buffer of tensor `tensor` of subgraph 0, or -1.
int64_t BufferOf(Span<const BufferRequest> buffers, int32_t tensor) {
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (buffers[b].kind == BufferKind::kTensor && buffers[b].subgraph_index == 0 && buffers[b].owner_index == tensor) {
      return static_cast<int64_t>(b);
    }
  }
  return -1;
}

bool IsModelOutput(const ModelView& model, int32_t tensor) {
  for (int32_t t : model.subgraph(0).outputs()) {
    if (t == tensor) return true;
  }
  return false;
}

// Whether an op of `segment` reads `tensor` other than by rows (a filter or
// bias made at run time that is also a segment input).
bool IsReadWhole(const ModelView& model, const TiledSegment& segment, int32_t tensor) {
  const SubgraphView subgraph = model.subgraph(0);
  for (int32_t o = segment.first_op; o <= segment.last_op; ++o) {
    BandOp band_op;
    if (!DescribeBandOp(model, o, &band_op).ok()) return true;
    const Span<const int32_t> inputs = subgraph.op(static_cast<size_t>(o)).inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool by_rows = i < 2 && (band_op.spatial_inputs & (1u << i)) != 0;
      if (inputs[i] == tensor && !by_rows) return true;
    }
  }
  return false;
}

// Per input slot: the largest (sink bytes written - first input byte read)
// over the steps that read it.
class SinkDisplacement final : public BandVisitor {
 public:
  SinkDisplacement(const ModelView& model, const SegmentWalk& walk, Span<int64_t> displacement)
      : displacement_(displacement) {
    const Span<const SegmentTensor> tensors = walk.tensors();
    for (size_t s = 0; s < tensors.size(); ++s) {
      row_bytes_[s] = static_cast<int64_t>(RowBytesOf(model, tensors[s]));
      if (tensors[s].role == SegmentRole::kSink) sink_ = static_cast<int16_t>(s);
      displacement_[s] = std::numeric_limits<int64_t>::min();
    }
  }
  Status BeforeWrite(SegmentTensor&, int32_t, const BandStep&) override { return OkStatus(); }
  Status Run(const BandStep& step, const SegmentTensor* tensors) override {
    if (step.output_slot == sink_) sink_rows_ = Max(sink_rows_, step.output.end);
    const int64_t written = static_cast<int64_t>(sink_rows_) * row_bytes_[sink_];
    for (size_t i = 0; i < 2; ++i) {
      const int16_t slot = step.input_slot[i];
      if (slot < 0 || tensors[slot].role != SegmentRole::kInput || step.inputs[i].empty()) continue;
      const int64_t read_from = static_cast<int64_t>(step.inputs[i].first) * row_bytes_[slot];
      displacement_[static_cast<size_t>(slot)] = Max(displacement_[static_cast<size_t>(slot)], written - read_from);
    }
    return OkStatus();
  }

 private:
  Span<int64_t> displacement_;
  int64_t row_bytes_[kMaxSegmentTensors] = {};
  int16_t sink_ = 0;
  int32_t sink_rows_ = 0;
};

}  // namespace

Result<size_t> TilingOverlapCount(const ModelView& model, Span<const TiledSegment> segments,
                                  const WalkMemory* memory) {
  return WithWalk(memory, [&](SegmentWalk& walk) -> Result<size_t> {
    size_t count = 0;
    for (const TiledSegment& segment : segments) {
      MICROARENA_RETURN_IF_ERROR(walk.Start(model, segment));
      for (const SegmentTensor& t : walk.tensors()) count += t.role == SegmentRole::kInput ? 1 : 0;
    }
    return count;
  });
}

namespace {

Result<size_t> SegmentOverlaps(const ModelView& model, Span<const TiledSegment> segments,
                               Span<const BufferRequest> buffers, Span<OverlapPermission> permissions,
                               SegmentWalk& walk) {
  size_t count = 0;
  for (const TiledSegment& segment : segments) {
    MICROARENA_RETURN_IF_ERROR(walk.Start(model, segment));
    int64_t displacement[kMaxSegmentTensors];
    const size_t slots = walk.tensors().size();
    SinkDisplacement visitor(model, walk, Span<int64_t>(displacement, slots));
    MICROARENA_RETURN_IF_ERROR(walk.Walk(visitor));
    int64_t sink_buffer = -1;
    for (const SegmentTensor& t : walk.tensors()) {
      if (t.role == SegmentRole::kSink) sink_buffer = BufferOf(buffers, t.tensor);
    }
    if (sink_buffer < 0) continue;
    for (size_t s = 0; s < slots; ++s) {
      const SegmentTensor& t = walk.tensors()[s];
      if (t.role != SegmentRole::kInput || displacement[s] == std::numeric_limits<int64_t>::min()) continue;
      const int64_t input_buffer = BufferOf(buffers, t.tensor);
      // An input read after the segment, returned as a model output, or read
      // whole by an op of the segment (D counts row reads only) keeps every byte.
      if (input_buffer < 0 || buffers[static_cast<size_t>(input_buffer)].lifetime.end_op > segment.last_op + 1 ||
          IsModelOutput(model, t.tensor) || IsReadWhole(model, segment, t.tensor)) {
        continue;
      }
      if (count == permissions.size()) {
        return Status::Error(ErrorCode::kInternal, "tiled segment ops %d-%d: more than %zu overlaps",
                             segment.first_op, segment.last_op, permissions.size());
      }
      OverlapPermission& permission = permissions[count++];
      permission.input_buffer = static_cast<uint32_t>(input_buffer);
      permission.output_buffer = static_cast<uint32_t>(sink_buffer);
      permission.min_displacement_bytes = static_cast<size_t>(Max(displacement[s], int64_t{0}));
    }
  }
  return count;
}

}  // namespace

Result<size_t> TilingOverlaps(const ModelView& model, Span<const TiledSegment> segments,
                              Span<const BufferRequest> buffers, Span<OverlapPermission> permissions,
                              const WalkMemory* memory) {
  MICROARENA_RETURN_IF_ERROR(CheckOrder(segments));
  return WithWalk(memory, [&](SegmentWalk& walk) { return SegmentOverlaps(model, segments, buffers, permissions, walk); });
}

size_t TiledBufferBytes(const ModelView& model, Span<const TiledSegment> segments, int32_t tensor,
                        size_t alignment_bytes, const WalkMemory* memory) {
  const TensorView view = model.subgraph(0).tensor(static_cast<size_t>(tensor));
  for (const TiledSegment& segment : segments) {
    if (!IsTiledTensor(model, Span<const TiledSegment>(&segment, 1), tensor)) continue;
    // SIZE_MAX fails any bounds check: a tiling that does not walk places nothing.
    return WithWalk(memory, [&](SegmentWalk& walk) -> size_t {
      if (!walk.Start(model, segment).ok() || !WindowRowsOf(walk).ok()) return SIZE_MAX;
      const int32_t slot = walk.SlotOf(tensor);
      if (slot < 0 || walk.tensors()[static_cast<size_t>(slot)].role != SegmentRole::kWindow) return view.byte_size();
      const SegmentTensor& t = walk.tensors()[static_cast<size_t>(slot)];
      return AlignUpUnchecked(
          view.byte_size() / static_cast<size_t>(t.height) * static_cast<size_t>(walk.window_rows()[static_cast<size_t>(slot)]),
          alignment_bytes);
    });
  }
  return view.byte_size();
}

}  // namespace microarena
