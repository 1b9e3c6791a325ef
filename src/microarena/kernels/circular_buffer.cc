// CIRCULAR_BUFFER (custom op): the streaming-convolution buffer of TFLM's
// examples. Every Invoke shifts the output's slots one towards the start,
// dropping the oldest, and writes the input into the last slot; then it
// counts down: the rest of the model runs only every `cycles_max`-th Invoke,
// the others stop after this op with ErrorCode::kStoppedEarly (TFLM's
// kTfLiteAbort).
//
// As TFLM: INT8 only; input [b, 1, w, d], output [b, slots, w, d] (equal b,
// w, d); one slot is w * d bytes. cycles_max comes from the custom options
// (a FlexBuffers map {"cycles_max": int}); when absent or <= 0, TFLM picks 1
// for outputs of 5, 13 or 25 slots and for the fifth such buffer whose
// output is [., ., 2, 96] (counted since the last buffer given 1), else 2.
// TFLM counts in a process-wide static; microarena counts the model's
// buffers in prepare order, which gives the same answer for one model.
//
// The op data is the only writable op data of any kernel (the countdown
// changes at eval). The output's older slots survive between Invokes only if
// nothing else shares its bytes, as in TFLM: streaming models make it a
// variable tensor.
#include <cstring>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/model/flexbuffer_map.h"

namespace microarena {
namespace {

// Persistent, writable: 8 bytes, as TFLM's.
struct OpData {
  int32_t cycles_until_run = 0;
  int32_t cycles_max = 0;
};

// The op's cycles_max option; 0 when the op has no options.
Status ReadCyclesMax(const PrepareContext& context, const OperatorView& op, int32_t* cycles_max) {
  *cycles_max = 0;
  const Span<const uint8_t> options = op.custom_options();
  if (options.empty()) return OkStatus();
  Result<FlexbufferMap> map = FlexbufferMap::Parse(options);
  bool present = false;
  const Status read = map.ok() ? map->GetInt32("cycles_max", cycles_max, &present) : map.status();
  if (!read.ok()) return context.Error(read.code(), "custom options of op %d: %s", op.index(), read.message());
  if (!present) *cycles_max = 0;
  return OkStatus();
}

bool IsCircularBuffer(const OperatorView& op) {
  return op.is_custom() && op.name() != nullptr && std::strcmp(op.name(), "CIRCULAR_BUFFER") == 0;
}

// TFLM's rule for a buffer without a positive cycles_max. `count` is the
// number of such buffers prepared since the last one given 1, this one
// included.
int32_t DefaultCyclesMax(const TensorView& output, int32_t count) {
  const int32_t slots = Dim(output, 1);
  if (slots == 5 || slots == 13 || slots == 25 || (count == 5 && Dim(output, 2) == 2 && Dim(output, 3) == 96)) return 1;
  return 2;
}

// The default cycles_max of the current op: replays TFLM's counter over the
// circular buffers before it in prepare order (subgraph by subgraph).
Status CurrentDefaultCyclesMax(const PrepareContext& context, int32_t* cycles_max) {
  const ModelView& model = context.model();
  const OperatorView current = context.op();
  int32_t count = 0;
  for (size_t s = 0; s < model.subgraph_count(); ++s) {
    const SubgraphView subgraph = model.subgraph(s);
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      const OperatorView op = subgraph.op(o);
      if (!IsCircularBuffer(op)) continue;
      const bool is_current = op.raw() == current.raw();
      int32_t own = 0;
      if (!is_current) {
        // An earlier buffer whose options do not parse fails its own
        // prepare first; here it counts as having none.
        if (!ReadCyclesMax(context, op, &own).ok()) own = 0;
        if (op.outputs().size() != 1 || op.outputs()[0] < 0 ||
            subgraph.tensor(static_cast<size_t>(op.outputs()[0])).rank() != 4) {
          continue;  // its prepare fails before it counts
        }
      }
      if (own > 0) continue;
      ++count;
      const TensorView output = is_current ? context.output(0) : subgraph.tensor(static_cast<size_t>(op.outputs()[0]));
      const int32_t picked = DefaultCyclesMax(output, count);
      if (is_current) {
        *cycles_max = picked;
        return OkStatus();
      }
      if (picked == 1) count = 0;
    }
  }
  return context.Error(ErrorCode::kInternal, "the op was not found in its model");
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 1, 1));
  const TensorView input = context.input(0);
  const TensorView output = context.output(0);
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "input", input, 4));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "output", output, 4));
  if (Dim(input, 0) != Dim(output, 0) || Dim(input, 1) != 1 || Dim(input, 2) != Dim(output, 2) ||
      Dim(input, 3) != Dim(output, 3)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensor %d is [%d, %d, %d, %d] and output tensor %d [%d, %d, %d, %d]; expected "
                         "[b, 1, w, d] -> [b, slots, w, d]",
                         input.index(), Dim(input, 0), Dim(input, 1), Dim(input, 2), Dim(input, 3), output.index(),
                         Dim(output, 0), Dim(output, 1), Dim(output, 2), Dim(output, 3));
  }
  if (input.type() != TensorType::kInt8 || output.type() != TensorType::kInt8) {
    return context.Error(ErrorCode::kUnsupported, "types %s -> %s not supported (INT8 -> INT8 only, as TFLM)",
                         TensorTypeName(input.type()), TensorTypeName(output.type()));
  }
  if (Dim(output, 1) < 1) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d has %d slots; expected at least 1",
                         output.index(), Dim(output, 1));
  }
  int32_t cycles_max = 0;
  MICROARENA_RETURN_IF_ERROR(ReadCyclesMax(context, context.op(), &cycles_max));
  if (cycles_max <= 0) MICROARENA_RETURN_IF_ERROR(CurrentDefaultCyclesMax(context, &cycles_max));
  OpData* data = elementwise::AllocateOpData<OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  data->cycles_max = cycles_max;
  data->cycles_until_run = cycles_max;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* input = context.input(0);
  EvalTensor* output = context.output(0);
  const auto slots = static_cast<size_t>(output->dim(1));
  const size_t slot_bytes = static_cast<size_t>(output->dim(2)) * static_cast<size_t>(output->dim(3));
  auto* out = output->As<int8_t>();
  std::memmove(out, out + slot_bytes, (slots - 1) * slot_bytes);
  std::memcpy(out + (slots - 1) * slot_bytes, input->As<const int8_t>(), slot_bytes);
  // The countdown is state: this op's data is writable by design (see top).
  auto* data = static_cast<OpData*>(const_cast<void*>(op_data));
  if (--data->cycles_until_run != 0) {
    return Status::Error(ErrorCode::kStoppedEarly,
                         "stopped early: waits for %d more Invoke(s) with new input before the rest of the model runs",
                         static_cast<int>(data->cycles_until_run));
  }
  data->cycles_until_run = data->cycles_max;
  return OkStatus();
}

}  // namespace

const KernelRegistration kCircularBufferKernel = {BuiltinOp::kCustom, Prepare, Eval, /*op_data_in_ram=*/true};

}  // namespace microarena
