// UNIDIRECTIONAL_SEQUENCE_LSTM glue: validates the standard LSTM (the only
// form TFLM's kernel runs: no peephole, projection, layer norm or CIFG),
// precomputes the gate and product multipliers, and asks for TFLM's four
// scratch buffers of batches x state_size cell-type values, in TFLM's order.
//
// Inputs (TFLite's numbering): 0 input, 1-4 input-to-{input, forget, cell,
// output} weights, 5-8 recurrent-to-{...} weights, 12-15 {input, forget,
// cell, output} gate biases, 18 hidden (output) state, 19 cell state (both
// variable); 9-11, 16-17 and 20-23 must be omitted. Output 0: the hidden
// state of every step, [batch, time, state] (or [time, batch, state]).
//
// Types, as TFLM runs them: int8 input/hidden/output with int8 weights,
// int32 biases and an int16 cell state whose scale is a power of two; the
// same with int16 input/hidden/output and int64 biases ("16x8"); or float32
// throughout. The cell gate activation must be TANH (what converters write).
// The int8 variant's gate matmuls run the fast path of
// optimized/recurrent_int8.h (the reference's bytes).
#include <cmath>
#include <cstdint>
#include <new>

#include "microarena/kernels/conv_common.h"
#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/recurrent_int8.h"
#include "microarena/kernels/reference/lstm.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

constexpr size_t kInputTensor = 0;
constexpr size_t kHiddenState = 18;
constexpr size_t kCellState = 19;
// Per gate (forget, input, cell, output: reference::LstmGate order).
constexpr size_t kInputWeights[4] = {2, 1, 3, 4};
constexpr size_t kRecurrentWeights[4] = {6, 5, 7, 8};
constexpr size_t kBiases[4] = {13, 12, 14, 15};
constexpr size_t kMustBeOmitted[] = {9, 10, 11, 16, 17, 20, 21, 22, 23};

// The fixed gate scales: FC outputs (sigmoid/tanh inputs) in Q3.12, and
// sigmoid/tanh outputs in Q0.15, both exact powers of two. (Some TFLM
// revisions write 2^-15 as the float literal 0.00003051757f, four ulps below;
// the goldens of the TFLM commit we match need the exact 2^-15: with the
// literal, one cell-state value in trained_lstm_int8 seed 2 is off by one.)
constexpr float kGateInputScale = 1.0f / 4096;
constexpr float kGateOutputScale = 1.0f / 32768;

struct LstmOpData {
  reference::LstmIntegerParams params;  // integer variants only
  reference::LstmShape shape;
  float cell_clip = 0.0f;               // float variant only
  int32_t scratch_index[4] = {-1, -1, -1, -1};
  TensorType input_type = TensorType::kFloat32;  // INT8, INT16 or FLOAT32: the variant
};

// The variant's name in messages.
const char* VariantName(TensorType input_type) {
  return input_type == TensorType::kInt16 ? "16x8" : input_type == TensorType::kInt8 ? "int8" : "float32";
}

bool PerTensorQuantization(const TensorView& tensor, float* scale, int32_t* zero_point) {
  const QuantizationView quantization = tensor.quantization();
  if (!quantization.is_quantized() || quantization.channel_count() != 1) return false;
  *scale = quantization.scale(0);
  const int64_t zp = quantization.zero_point(0);
  const int64_t limit = tensor.type() == TensorType::kInt8 ? 128 : 32768;
  if (!(*scale > 0.0f) || !std::isfinite(*scale) || zp < -limit || zp >= limit) return false;
  *zero_point = static_cast<int32_t>(zp);
  return true;
}

// QuantizeMultiplier of `real`, refused when its shift is out of range
// (`role` and `tensor` name the tensor whose scale sets it).
Status Multiplier(const PrepareContext& context, const char* role, const TensorView& tensor, double real,
                  reference::LstmMultiplier* result) {
  int shift = 0;
  fixed_point::QuantizeMultiplier(real, &result->multiplier, &shift);
  MICROARENA_RETURN_IF_ERROR(RequireMultiplierShift(context, role, tensor, real, shift));
  result->shift = shift;
  return OkStatus();
}

Status CheckShape(PrepareContext& context, size_t input, int32_t dim0, int32_t dim1) {
  const TensorView tensor = context.input(input);
  const bool matches = dim1 < 0 ? tensor.rank() == 1 && tensor.shape()[0] == dim0
                                : tensor.rank() == 2 && tensor.shape()[0] == dim0 && tensor.shape()[1] == dim1;
  if (matches) return OkStatus();
  if (dim1 < 0) {
    return context.Error(ErrorCode::kInvalidArgument, "input %zu (tensor %d '%s') must have shape [%d]", input,
                         tensor.index(), tensor.name(), dim0);
  }
  return context.Error(ErrorCode::kInvalidArgument, "input %zu (tensor %d '%s') must have shape [%d, %d]", input,
                       tensor.index(), tensor.name(), dim0, dim1);
}

// Every gate's weights of type `weights` and bias of type `bias` for the
// variant of `input_type`, in a frame of its own (its message's arguments
// would widen the caller's).
[[gnu::noinline]] Status CheckGateTypes(PrepareContext& context, TensorType input_type, TensorType weights,
                                        TensorType bias) {
  for (size_t g = 0; g < 4; ++g) {
    const TensorType w = context.input(kInputWeights[g]).type();
    const TensorType r = context.input(kRecurrentWeights[g]).type();
    const TensorType b = context.input(kBiases[g]).type();
    if (w != weights || r != weights || b != bias) {
      return context.Error(ErrorCode::kUnsupported,
                           "%s LSTM needs %s weights and %s biases; gate %zu has %s, %s and %s",
                           VariantName(input_type), TensorTypeName(weights), TensorTypeName(bias), g, TensorTypeName(w),
                           TensorTypeName(r), TensorTypeName(b));
    }
  }
  return OkStatus();
}

// Multiplier of the tensor at input `input` (or output 0 when `input` is
// kOutputTensor), read in a frame of its own.
constexpr size_t kOutputTensor = static_cast<size_t>(-1);

[[gnu::noinline]] Status MultiplierOf(const PrepareContext& context, const char* role, size_t input, double real,
                                      reference::LstmMultiplier* result) {
  return Multiplier(context, role, input == kOutputTensor ? context.output(0) : context.input(input), real, result);
}

// The scales and zero points the integer LSTM needs from its input, hidden
// state and cell state, checked as TFLM checks them.
struct StateQuantization {
  float input_scale = 0, hidden_scale = 0, cell_scale = 0;
  int32_t input_zp = 0, hidden_zp = 0, cell_zp = 0;
  float cell_power = 0;  // log2 of the cell scale, a whole number
};

[[gnu::noinline]] Status ReadStateQuantization(PrepareContext& context, StateQuantization* q) {
  const TensorView input = context.input(kInputTensor);
  const TensorView hidden = context.input(kHiddenState);
  const TensorView cell = context.input(kCellState);
  const TensorView output = context.output(0);
  const char* variant = VariantName(input.type());
  if (hidden.type() != input.type() || output.type() != input.type()) {
    return context.Error(ErrorCode::kUnsupported, "%s LSTM needs a %s hidden state and output, got %s and %s", variant,
                         TensorTypeName(input.type()), TensorTypeName(hidden.type()), TensorTypeName(output.type()));
  }
  if (!PerTensorQuantization(input, &q->input_scale, &q->input_zp) ||
      !PerTensorQuantization(hidden, &q->hidden_scale, &q->hidden_zp) ||
      !PerTensorQuantization(cell, &q->cell_scale, &q->cell_zp) || q->cell_zp != 0) {
    return context.Error(ErrorCode::kUnsupported,
                         "%s LSTM needs per-tensor quantization on input %d and hidden state %d, and a symmetric "
                         "one on cell state %d",
                         variant, input.index(), hidden.index(), cell.index());
  }
  // The cell scale must be a power of two (TFLM's CheckedLog2, in float).
  const float log2_scale = std::log(q->cell_scale) * (1.0f / std::log(2.0f));
  const float log2_rounded = std::round(log2_scale);
  if (!(std::abs(log2_scale - log2_rounded) < 1e-3f)) {
    return context.Error(ErrorCode::kUnsupported, "cell state tensor %d scale %g is not a power of two",
                         cell.index(), static_cast<double>(q->cell_scale));
  }
  // tanh(c) scales the cell by 3 * 2^(12 + power) (TFLM's power-of-two tanh):
  // a left shift of 3 beyond 29 bits overflows int32 and a right shift beyond
  // 31 bits is undefined, in TFLM too, so such scales are refused.
  constexpr float kMinCellPower = -43.0f;
  constexpr float kMaxCellPower = 17.0f;
  if (!(log2_rounded >= kMinCellPower && log2_rounded <= kMaxCellPower)) {
    return context.Error(ErrorCode::kUnsupported,
                         "cell state tensor %d '%s' scale 2^%g is outside the int16 tanh's range [2^%g, 2^%g]",
                         cell.index(), cell.name(), static_cast<double>(log2_rounded),
                         static_cast<double>(kMinCellPower), static_cast<double>(kMaxCellPower));
  }
  q->cell_power = log2_rounded;
  return OkStatus();
}

// A 16x8 gate FC rescales its int64 sum with the 64-bit multiply, whose
// shift is at most kMaxMultiplierShift64 (in a frame of its own).
[[gnu::noinline, gnu::cold]] Status WideShiftError(const PrepareContext& context, const char* role,
                                                   const TensorView& tensor, int shift) {
  return context.Error(ErrorCode::kUnsupported,
                       "%s tensor %d '%s': the 16x8 LSTM's gate multiplier needs shift %d; its 64-bit rescale "
                       "allows at most %d",
                       role, tensor.index(), tensor.name(), shift, kMaxMultiplierShift64);
}

// Gate `g`'s two FC multipliers, in a frame of its own.
[[gnu::noinline]] Status PrepareGate(PrepareContext& context, size_t g, const StateQuantization& q,
                                     reference::LstmIntegerParams* params) {
  float weight_scale = 0, recurrent_scale = 0;
  int32_t weight_zp = 0, recurrent_zp = 0;
  const TensorView weights = context.input(kInputWeights[g]);
  const TensorView recurrent = context.input(kRecurrentWeights[g]);
  const TensorType input_type = context.input(kInputTensor).type();
  if (!PerTensorQuantization(weights, &weight_scale, &weight_zp) ||
      !PerTensorQuantization(recurrent, &recurrent_scale, &recurrent_zp) || weight_zp != 0 || recurrent_zp != 0) {
    return context.Error(ErrorCode::kUnsupported,
                         "%s LSTM needs symmetric per-tensor quantization on weights tensors %d and %d",
                         VariantName(input_type), weights.index(), recurrent.index());
  }
  // TFLM's FC multiplier: the scale product in float, widened, then divided.
  MICROARENA_RETURN_IF_ERROR(Multiplier(
      context, "weights", weights,
      static_cast<double>(q.input_scale * weight_scale) / static_cast<double>(kGateInputScale), &params->input_fc[g]));
  MICROARENA_RETURN_IF_ERROR(
      Multiplier(context, "recurrent weights", recurrent,
                 static_cast<double>(q.hidden_scale * recurrent_scale) / static_cast<double>(kGateInputScale),
                 &params->recurrent_fc[g]));
  if (input_type == TensorType::kInt16) {
    if (params->input_fc[g].shift > kMaxMultiplierShift64) {
      return WideShiftError(context, "weights", weights, params->input_fc[g].shift);
    }
    if (params->recurrent_fc[g].shift > kMaxMultiplierShift64) {
      return WideShiftError(context, "recurrent weights", recurrent, params->recurrent_fc[g].shift);
    }
  }
  return OkStatus();
}

// The integer multipliers, as TFLM's PrepareGateParametersInteger forms them
// (the same for both integer variants).
[[gnu::noinline]] Status PrepareInteger(PrepareContext& context, LstmOpData* data) {
  const TensorType input_type = context.input(kInputTensor).type();
  MICROARENA_RETURN_IF_ERROR(
      CheckGateTypes(context, input_type, TensorType::kInt8,
                     input_type == TensorType::kInt16 ? TensorType::kInt64 : TensorType::kInt32));
  StateQuantization q;
  MICROARENA_RETURN_IF_ERROR(ReadStateQuantization(context, &q));
  reference::LstmIntegerParams& params = data->params;
  params.cell_scale_power = static_cast<int32_t>(q.cell_power);
  params.input_offset = -q.input_zp;
  params.hidden_offset = -q.hidden_zp;
  params.hidden_zero_point = q.hidden_zp;
  for (size_t g = 0; g < 4; ++g) MICROARENA_RETURN_IF_ERROR(PrepareGate(context, g, q, &params));
  // The element-wise products: both factors widened, then multiplied and divided in double.
  const double gate_out = static_cast<double>(kGateOutputScale);
  const auto cell_scale = static_cast<double>(q.cell_scale);
  MICROARENA_RETURN_IF_ERROR(
      MultiplierOf(context, "cell state", kCellState, gate_out * cell_scale / cell_scale, &params.forget_times_cell));
  MICROARENA_RETURN_IF_ERROR(MultiplierOf(context, "cell state", kCellState, gate_out * gate_out / cell_scale,
                                          &params.input_times_cell_gate));
  return MultiplierOf(context, "hidden state", kHiddenState,
                      gate_out * gate_out / static_cast<double>(q.hidden_scale), &params.hidden);
}

// Prepare's checks of the operands and options, in a frame of their own
// (Prepare runs on AllocateTensors' stack); fills `shape`.
[[gnu::noinline]] Status CheckOperands(PrepareContext& context, reference::LstmShape* shape_out) {
  if (context.input_count() != 24 || context.output_count() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "UNIDIRECTIONAL_SEQUENCE_LSTM takes 24 inputs and 1 output, "
                         "got %zu and %zu", context.input_count(), context.output_count());
  }
  for (size_t i : kMustBeOmitted) {
    if (context.has_input(i)) {
      return context.Error(ErrorCode::kUnsupported,
                           "input %zu is present: peephole, projection and layer-norm LSTMs are not supported", i);
    }
  }
  for (size_t i = 0; i < 24; ++i) {
    const bool optional = i == 9 || i == 10 || i == 11 || i == 16 || i == 17 || i >= 20;
    if (!optional && !context.has_input(i)) {
      return context.Error(ErrorCode::kUnsupported, "input %zu is omitted; the standard LSTM (no CIFG) needs it", i);
    }
  }
  const tflite::UnidirectionalSequenceLSTMOptions* options =
      context.op().raw()->builtin_options_as_UnidirectionalSequenceLSTMOptions();
  if (options == nullptr) {
    return context.Error(ErrorCode::kInvalidArgument, "UnidirectionalSequenceLSTMOptions missing");
  }
  if (options->fused_activation_function() != tflite::ActivationFunctionType::TANH) {
    return context.Error(ErrorCode::kUnsupported, "cell gate activation %d is not supported; TANH (4) expected",
                         static_cast<int>(options->fused_activation_function()));
  }

  const TensorView input = context.input(kInputTensor);
  const TensorView hidden = context.input(kHiddenState);
  const TensorView cell = context.input(kCellState);
  const TensorView output = context.output(0);
  if (input.rank() != 3) {
    return context.Error(ErrorCode::kInvalidArgument, "input tensor %d '%s' must have rank 3, has %zu",
                         input.index(), input.name(), input.rank());
  }
  if (hidden.rank() != 2) {
    return context.Error(ErrorCode::kInvalidArgument, "hidden state tensor %d '%s' must have rank 2, has %zu",
                         hidden.index(), hidden.name(), hidden.rank());
  }
  if (!hidden.is_variable() || !cell.is_variable()) {
    return context.Error(ErrorCode::kInvalidArgument, "hidden state tensor %d and cell state tensor %d must be variable",
                         hidden.index(), cell.index());
  }
  reference::LstmShape shape;
  shape.time_major = options->time_major();
  shape.batches = shape.time_major ? input.shape()[1] : input.shape()[0];
  shape.time_steps = shape.time_major ? input.shape()[0] : input.shape()[1];
  shape.input_size = input.shape()[2];
  shape.state_size = hidden.shape()[1];
  const int32_t state = shape.state_size;
  for (size_t g = 0; g < 4; ++g) {
    MICROARENA_RETURN_IF_ERROR(CheckShape(context, kInputWeights[g], state, shape.input_size));
    MICROARENA_RETURN_IF_ERROR(CheckShape(context, kRecurrentWeights[g], state, state));
    MICROARENA_RETURN_IF_ERROR(CheckShape(context, kBiases[g], state, -1));
  }
  const size_t state_elements = static_cast<size_t>(shape.batches) * static_cast<size_t>(state);
  if (hidden.element_count() != state_elements || cell.element_count() != state_elements) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "hidden state tensor %d (%zu elements) and cell state tensor %d (%zu) must hold "
                         "batches %d x state %d",
                         hidden.index(), hidden.element_count(), cell.index(), cell.element_count(), shape.batches,
                         state);
  }
  if (output.rank() != 3 || output.shape()[0] != input.shape()[0] || output.shape()[1] != input.shape()[1] ||
      output.shape()[2] != state) {
    return context.Error(ErrorCode::kInvalidArgument, "output tensor %d '%s' must have shape [%d, %d, %d]",
                         output.index(), output.name(), input.shape()[0], input.shape()[1], state);
  }
  if (hidden.type() != input.type() || output.type() != input.type()) {
    return context.Error(ErrorCode::kUnsupported, "input %s, hidden state %s and output %s must have one type",
                         TensorTypeName(input.type()), TensorTypeName(hidden.type()),
                         TensorTypeName(output.type()));
  }

  *shape_out = shape;
  return OkStatus();
}

// The integer LSTM's requantization and cell clip, in a frame of its own.
[[gnu::noinline]] Status PrepareIntegerWithClip(PrepareContext& context, float cell_clip, LstmOpData* data) {
  MICROARENA_RETURN_IF_ERROR(PrepareInteger(context, data));
  data->params.clip_cell = cell_clip > 0.0f;
  if (data->params.clip_cell) {
    // As TFLM: clip / scale in double, saturated to int16, truncated.
    const double cell_scale = static_cast<double>(context.input(kCellState).quantization().scale(0));
    const double quantized = std::min(std::max(static_cast<double>(cell_clip) / cell_scale, -32768.0), 32767.0);
    data->params.cell_clip = static_cast<int16_t>(quantized);
  }
  return OkStatus();
}

Status Prepare(PrepareContext& context, const void** op_data) {
  reference::LstmShape shape;
  MICROARENA_RETURN_IF_ERROR(CheckOperands(context, &shape));
  const tflite::UnidirectionalSequenceLSTMOptions* options =
      context.op().raw()->builtin_options_as_UnidirectionalSequenceLSTMOptions();
  const TensorType input_type = context.input(kInputTensor).type();
  const TensorType cell_type = context.input(kCellState).type();
  const size_t state_elements = static_cast<size_t>(shape.batches) * static_cast<size_t>(shape.state_size);
  void* memory = context.AllocatePersistent(sizeof(LstmOpData), alignof(LstmOpData));
  if (memory == nullptr) return context.OutOfMemory();
  // Built in place: a temporary of this size would sit on AllocateTensors' stack.
  auto* data = new (memory) LstmOpData();
  data->shape = shape;
  data->input_type = input_type;
  size_t cell_bytes = 0;
  const bool integer = input_type == TensorType::kInt8 || input_type == TensorType::kInt16;
  if (integer && cell_type == TensorType::kInt16) {
    MICROARENA_RETURN_IF_ERROR(PrepareIntegerWithClip(context, options->cell_clip(), data));
    cell_bytes = sizeof(int16_t);
  } else if (input_type == TensorType::kFloat32 && cell_type == TensorType::kFloat32) {
    MICROARENA_RETURN_IF_ERROR(CheckGateTypes(context, input_type, TensorType::kFloat32, TensorType::kFloat32));
    data->cell_clip = options->cell_clip();
    cell_bytes = sizeof(float);
  } else {
    return context.Error(ErrorCode::kUnsupported,
                         "input %s with cell state %s is not supported; int8 or int16 with int16, or float32 with "
                         "float32",
                         TensorTypeName(input_type), TensorTypeName(cell_type));
  }
  for (int32_t& index : data->scratch_index) {
    MICROARENA_RETURN_IF_ERROR(context.RequestScratch(state_elements * cell_bytes, &index));
  }
  *op_data = data;
  return OkStatus();
}

// One integer variant: `Act` is its activation type (int8_t or int16_t).
template <typename Act>
void EvalInteger(EvalContext& context, const LstmOpData& data) {
  reference::LstmIntegerTensors<Act> tensors;
  tensors.input = context.input(kInputTensor)->As<const Act>();
  for (size_t g = 0; g < 4; ++g) {
    tensors.input_weights[g] = context.input(kInputWeights[g])->As<const int8_t>();
    tensors.recurrent_weights[g] = context.input(kRecurrentWeights[g])->As<const int8_t>();
    tensors.biases[g] = context.input(kBiases[g])->As<const reference::LstmBias<Act>>();
  }
  tensors.hidden = context.input(kHiddenState)->As<Act>();
  tensors.cell = context.input(kCellState)->As<int16_t>();
  tensors.output = context.output(0)->As<Act>();
  int16_t* buffers[4];
  for (size_t i = 0; i < 4; ++i) buffers[i] = static_cast<int16_t*>(context.scratch(data.scratch_index[i]));
  reference::LstmInteger(data.params, data.shape, tensors, buffers, optimized::LstmGateFullyConnected{});
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const LstmOpData*>(op_data);
  if (data.input_type == TensorType::kInt8) {
    EvalInteger<int8_t>(context, data);
    return OkStatus();
  }
  if (data.input_type == TensorType::kInt16) {
    EvalInteger<int16_t>(context, data);
    return OkStatus();
  }
  reference::LstmFloatTensors tensors;
  tensors.input = context.input(kInputTensor)->As<const float>();
  for (size_t g = 0; g < 4; ++g) {
    tensors.input_weights[g] = context.input(kInputWeights[g])->As<const float>();
    tensors.recurrent_weights[g] = context.input(kRecurrentWeights[g])->As<const float>();
    tensors.biases[g] = context.input(kBiases[g])->As<const float>();
  }
  tensors.hidden = context.input(kHiddenState)->As<float>();
  tensors.cell = context.input(kCellState)->As<float>();
  tensors.output = context.output(0)->As<float>();
  float* buffers[4];
  for (size_t i = 0; i < 4; ++i) buffers[i] = static_cast<float*>(context.scratch(data.scratch_index[i]));
  reference::LstmFloat(data.cell_clip, data.shape, tensors, buffers);
  return OkStatus();
}

}  // namespace

const KernelRegistration kUnidirectionalSequenceLstmKernel = {BuiltinOp::kUnidirectionalSequenceLstm, Prepare, Eval};

}  // namespace microarena
