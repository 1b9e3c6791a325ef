// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL: elementwise
// comparisons with broadcasting, BOOL output.
//
// As TFLM's reference kernel: float32, int32 and int64 compare the raw
// values; int8 compares after bringing both inputs to a common fixed-point
// scale (value - zero point, shifted left by 8, times the input's scale as a
// multiplier below one), so inputs with different quantization compare by
// their real values. BOOL inputs: EQUAL and NOT_EQUAL only. TFLM refuses
// uint8 and int16, and so does this kernel, with one difference: TFLM's
// GREATER runs int16 through the int8 scaling without computing its
// parameters (the oracle build answers false everywhere), which this
// kernel refuses rather than imitate. A scale of 1 or more, which TFLM
// aborts on, is refused.
#include <cstring>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

enum class Comparison : uint8_t { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

// Pointer- and size_t-free, as all op data (kernel.h): the broadcast shape is
// rebuilt at Eval from the tensors' dimensions, as add.cc does.
struct ComparisonData {
  bool same_shape = true;
  TensorType type = TensorType::kFloat32;
  // int8 rescaling.
  int32_t input1_offset = 0;
  int32_t input1_multiplier = 0;
  int32_t input1_shift = 0;
  int32_t input2_offset = 0;
  int32_t input2_multiplier = 0;
  int32_t input2_shift = 0;
};

constexpr int kLeftShift = 8;

template <Comparison kOp, typename T>
bool Compare(T a, T b) {
  switch (kOp) {
    case Comparison::kEqual: return a == b;
    case Comparison::kNotEqual: return a != b;
    case Comparison::kLess: return a < b;
    case Comparison::kLessEqual: return a <= b;
    case Comparison::kGreater: return a > b;
    case Comparison::kGreaterEqual: return a >= b;
  }
  return false;
}

template <Comparison kOp>
Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView input1 = context.input(0);
  const TensorView input2 = context.input(1);
  const TensorView output = context.output(0);
  const TensorType type = input1.type();
  const bool equality = kOp == Comparison::kEqual || kOp == Comparison::kNotEqual;
  const bool supported = type == TensorType::kFloat32 || type == TensorType::kInt32 || type == TensorType::kInt64 ||
                         type == TensorType::kInt8 || (equality && type == TensorType::kBool);
  if (!supported || input2.type() != type) {
    return context.Error(ErrorCode::kUnsupported,
                         "types %s, %s not supported (FLOAT32, INT32, INT64, INT8%s; both the same, as TFLM)",
                         TensorTypeName(type), TensorTypeName(input2.type()), equality ? ", BOOL" : "");
  }
  if (output.type() != TensorType::kBool) {
    return context.Error(ErrorCode::kInvalidArgument, "the output is %s; it must be BOOL",
                         TensorTypeName(output.type()));
  }
  auto* data = elementwise::AllocateOpData<ComparisonData>(context);
  if (data == nullptr) return context.OutOfMemory();
  data->type = type;
  reference::BroadcastShape shape;
  if (!reference::MakeBroadcastShape(input1.shape().data(), input1.rank(), input2.shape().data(), input2.rank(),
                                     &shape)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "input tensors %d (rank %zu) and %d (rank %zu) do not broadcast (ranks up to %zu)",
                         input1.index(), input1.rank(), input2.index(), input2.rank(), reference::kMaxBroadcastRank);
  }
  size_t total = 1;
  for (size_t axis = 0; axis < shape.rank; ++axis) total *= static_cast<size_t>(shape.output_dims[axis]);
  if (output.element_count() != total) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "the inputs broadcast to %zu elements but output tensor %d has %zu", total, output.index(),
                         output.element_count());
  }
  data->same_shape = elementwise::SameShape(input1.shape(), input2.shape());
  if (type == TensorType::kInt8) {
    elementwise::TensorQuantization q1;
    elementwise::TensorQuantization q2;
    MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input1, "input 0", &q1));
    MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input2, "input 1", &q2));
    if (!elementwise::QuantizeMultiplierSmallerThanOne(q1.scale, &data->input1_multiplier, &data->input1_shift) ||
        !elementwise::QuantizeMultiplierSmallerThanOne(q2.scale, &data->input2_multiplier, &data->input2_shift)) {
      return context.Error(ErrorCode::kUnsupported, "input scales %g and %g: both must be below 1 (as in TFLM)",
                           static_cast<double>(q1.scale), static_cast<double>(q2.scale));
    }
    data->input1_offset = -q1.zero_point;
    data->input2_offset = -q2.zero_point;
  }
  *op_data = data;
  return OkStatus();
}

template <Comparison kOp, typename T, typename Func>
void Run(const ComparisonData& data, const EvalTensor* input1, const EvalTensor* input2, bool* output, Func func) {
  const T* a = reinterpret_cast<const T*>(input1->data);
  const T* b = reinterpret_cast<const T*>(input2->data);
  if (data.same_shape) {
    reference::ElementwiseBinary(input1->element_count(), a, b, output, func);
  } else {
    reference::BroadcastShape shape;  // checked at Prepare
    (void)reference::MakeBroadcastShape(input1->dims, input1->rank, input2->dims, input2->rank, &shape);
    reference::BroadcastBinary(shape, a, b, output, func);
  }
}

template <Comparison kOp, typename T>
void RunRaw(const ComparisonData& data, const EvalTensor* input1, const EvalTensor* input2, bool* output) {
  Run<kOp, T>(data, input1, input2, output, [](T a, T b) { return Compare<kOp>(a, b); });
}

template <Comparison kOp, typename T>
void RunScaled(const ComparisonData& data, const EvalTensor* input1, const EvalTensor* input2, bool* output) {
  Run<kOp, T>(data, input1, input2, output, [&data](T a, T b) {
    const int32_t shifted1 = (data.input1_offset + static_cast<int32_t>(a)) * (1 << kLeftShift);
    const int32_t shifted2 = (data.input2_offset + static_cast<int32_t>(b)) * (1 << kLeftShift);
    const int32_t scaled1 = fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp(
        shifted1, data.input1_multiplier, data.input1_shift);
    const int32_t scaled2 = fixed_point::MultiplyByQuantizedMultiplierSmallerThanOneExp(
        shifted2, data.input2_multiplier, data.input2_shift);
    return Compare<kOp>(scaled1, scaled2);
  });
}

template <Comparison kOp>
Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const ComparisonData*>(op_data);
  const EvalTensor* input1 = context.input(0);
  const EvalTensor* input2 = context.input(1);
  bool* output = reinterpret_cast<bool*>(context.output(0)->data);
  switch (data.type) {
    case TensorType::kFloat32: RunRaw<kOp, float>(data, input1, input2, output); break;
    case TensorType::kInt32: RunRaw<kOp, int32_t>(data, input1, input2, output); break;
    case TensorType::kInt64: RunRaw<kOp, int64_t>(data, input1, input2, output); break;
    case TensorType::kBool: RunRaw<kOp, bool>(data, input1, input2, output); break;
    case TensorType::kInt8: RunScaled<kOp, int8_t>(data, input1, input2, output); break;
    default: return Status::Error(ErrorCode::kInternal, "comparison of %s", TensorTypeName(data.type));
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kEqualKernel = {BuiltinOp::kEqual, Prepare<Comparison::kEqual>, Eval<Comparison::kEqual>};
const KernelRegistration kNotEqualKernel = {BuiltinOp::kNotEqual, Prepare<Comparison::kNotEqual>,
                                            Eval<Comparison::kNotEqual>};
const KernelRegistration kLessKernel = {BuiltinOp::kLess, Prepare<Comparison::kLess>, Eval<Comparison::kLess>};
const KernelRegistration kLessEqualKernel = {BuiltinOp::kLessEqual, Prepare<Comparison::kLessEqual>,
                                             Eval<Comparison::kLessEqual>};
const KernelRegistration kGreaterKernel = {BuiltinOp::kGreater, Prepare<Comparison::kGreater>,
                                           Eval<Comparison::kGreater>};
const KernelRegistration kGreaterEqualKernel = {BuiltinOp::kGreaterEqual, Prepare<Comparison::kGreaterEqual>,
                                                Eval<Comparison::kGreaterEqual>};

}  // namespace microarena
