// Prepare and eval shared by ADD and SUB (kernels/add.cc, kernels/sub.cc):
// int8 and int16 with TFLM's general rescaling (left shift 20 for int8, 15
// for int16), or float32; fused activation; numpy broadcasting up to rank 6.
// Prepare<kSubtract, true> and EvalInt8 are the int8 path alone (int8_only.h).
//
// Multipliers (TFLM's Prepare), with s1, s2, s_out the scales and L the
// left shift:
//   ADD, in double:  t = 2 * max(s1, s2); m1 = s1 / t; m2 = s2 / t;
//                    m_out = t / (2^L * s_out)
//   SUB, in float:   the same expressions evaluated in float, then widened.
// TFLM's int16 ADD never takes TFLite's power-of-two-scale path (it passes
// pot_scale = false), and its int16 SUB has none; both use the general path.
// Plain INT32 (no quantization, as TFLM requires): the low 32 bits of the
// sum or difference; SUB clamps to its fused activation, ADD ignores it
// (TFLM's int32 ADD sets the whole int32 range; checked against it).
#pragma once

#include <algorithm>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/int8_only.h"
#include "microarena/kernels/optimized/int8_kernels.h"
#include "microarena/kernels/reference/add.h"
#include "microarena/kernels/reference/broadcast.h"
#include "microarena/kernels/wrapping_math.h"

namespace microarena::add_sub {

// Persistent op data: 60 bytes.
struct OpData {
  reference::AddQuantizedParams quantized;  // int8, int16
  reference::FloatActivationRange range;    // float32
  bool requires_broadcast = false;
};

constexpr int32_t kInt8LeftShift = 20;
// 65535 << 15 still fits int32, so the sum cannot overflow.
constexpr int32_t kInt16LeftShift = 15;

[[gnu::noinline, gnu::cold]] inline Status ScalesError(const PrepareContext& context, float scale1, float scale2,
                                                      float scale_out, double real_out) {
  return context.Error(ErrorCode::kUnsupported,
                       "scales %g, %g -> %g give an output multiplier %g >= 1 (TFLM requires < 1)",
                       static_cast<double>(scale1), static_cast<double>(scale2), static_cast<double>(scale_out),
                       real_out);
}

// The quantized half of Prepare, in a frame of its own (Prepare runs on
// AllocateTensors' stack).
template <bool kSubtract>
[[gnu::noinline]] Status PrepareQuantized(PrepareContext& context, TensorType type,
                                          tflite::ActivationFunctionType activation, OpData* data) {
  const TensorView input1 = context.input(0);
  const TensorView input2 = context.input(1);
  const TensorView output = context.output(0);
  elementwise::TensorQuantization q1;
  elementwise::TensorQuantization q2;
  elementwise::TensorQuantization q_out;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input1, "input 0", &q1));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, input2, "input 1", &q2));
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, output, "output", &q_out));
  reference::AddQuantizedParams& p = data->quantized;
  p.input1_offset = -q1.zero_point;
  p.input2_offset = -q2.zero_point;
  p.output_offset = q_out.zero_point;
  p.left_shift = type == TensorType::kInt16 ? kInt16LeftShift : kInt8LeftShift;
  double real1 = 0.0;
  double real2 = 0.0;
  double real_out = 0.0;
  if constexpr (kSubtract) {
    const float twice_max = 2 * std::max(q1.scale, q2.scale);
    real1 = static_cast<double>(q1.scale / twice_max);
    real2 = static_cast<double>(q2.scale / twice_max);
    real_out = static_cast<double>(twice_max / (static_cast<float>(1 << p.left_shift) * q_out.scale));
  } else {
    const double twice_max = 2 * static_cast<double>(std::max(q1.scale, q2.scale));
    real1 = static_cast<double>(q1.scale) / twice_max;
    real2 = static_cast<double>(q2.scale) / twice_max;
    real_out = twice_max / ((1 << p.left_shift) * static_cast<double>(q_out.scale));
  }
  // real1 and real2 are in (0, 1/2]; real_out < 1 unless the output scale is
  // below 2^(1-L) of the input scales.
  if (!elementwise::QuantizeMultiplierSmallerThanOne(real1, &p.input1_multiplier, &p.input1_shift) ||
      !elementwise::QuantizeMultiplierSmallerThanOne(real2, &p.input2_multiplier, &p.input2_shift) ||
      !elementwise::QuantizeMultiplierSmallerThanOne(real_out, &p.output_multiplier, &p.output_shift)) {
    return ScalesError(context, q1.scale, q2.scale, q_out.scale, real_out);
  }
  if (!elementwise::QuantizedActivationRange(activation, type, q_out, &p.activation_min, &p.activation_max)) {
    return context.Error(ErrorCode::kUnsupported, "fused activation %s not supported",
                         elementwise::ActivationName(activation));
  }
  return OkStatus();
}

// kInt8Only: the Prepare of kAddInt8Kernel and kSubInt8Kernel, which refuses
// all but INT8 activations first; the float32 branch compiles out.
template <bool kSubtract, bool kInt8Only = false>
Status Prepare(PrepareContext& context, const void** op_data) {
  if (kInt8Only) {
    MICROARENA_RETURN_IF_ERROR(RequireInt8Activations(context, kSubtract ? "kSubInt8Kernel" : "kAddInt8Kernel",
                                                      kSubtract ? "kSubKernel" : "kAddKernel"));
  }
  MICROARENA_RETURN_IF_ERROR(
      elementwise::CheckBinaryOperands(context, /*allow_int16=*/true, /*allow_int32=*/!kInt8Only));
  const TensorType type = kInt8Only ? TensorType::kInt8 : context.output(0).type();
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::NONE;
  if constexpr (kSubtract) {
    if (const tflite::SubOptions* options = context.op().raw()->builtin_options_as_SubOptions()) {
      activation = options->fused_activation_function();
    }
  } else {
    if (const tflite::AddOptions* options = context.op().raw()->builtin_options_as_AddOptions()) {
      activation = options->fused_activation_function();
    }
  }

  OpData* data = elementwise::AllocateOpData<OpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  *op_data = data;
  data->requires_broadcast = !elementwise::SameShape(context.input(0).shape(), context.input(1).shape());

  if (type == TensorType::kFloat32) {
    if (!elementwise::FloatActivationRange(activation, &data->range)) {
      return context.Error(ErrorCode::kUnsupported, "fused activation %s not supported",
                           elementwise::ActivationName(activation));
    }
    return OkStatus();
  }
  if (!kInt8Only && type == TensorType::kInt32) {
    MICROARENA_RETURN_IF_ERROR(elementwise::RequirePlainInt32(context, /*check_output=*/kSubtract));
    elementwise::IntegerActivationRange(kSubtract ? activation : tflite::ActivationFunctionType::NONE,
                                        &data->quantized.activation_min, &data->quantized.activation_max);
    return OkStatus();
  }
  return PrepareQuantized<kSubtract>(context, type, activation, data);
}

// Applies `func` to each pair of elements, broadcasting when the op data says so.
template <typename T, typename Func>
void Run(const OpData& data, const EvalTensor& input1, const EvalTensor& input2, EvalTensor* output, Func func) {
  if (data.requires_broadcast) {
    reference::BroadcastShape broadcast;
    // Checked at prepare; cannot fail here.
    (void)reference::MakeBroadcastShape(input1.dims, input1.rank, input2.dims, input2.rank, &broadcast);
    reference::BroadcastBinary(broadcast, input1.As<const T>(), input2.As<const T>(), output->As<T>(), func);
  } else {
    reference::ElementwiseBinary(output->element_count(), input1.As<const T>(), input2.As<const T>(),
                                 output->As<T>(), func);
  }
}

template <bool kSubtract, typename T>
void EvalQuantized(const OpData& data, const EvalTensor& input1, const EvalTensor& input2, EvalTensor* output) {
  const reference::AddQuantizedParams& params = data.quantized;
  Run<T>(data, input1, input2, output,
         [&params](T x, T y) { return reference::AddQuantizedElement<kSubtract>(x, y, params); });
}

// The int8 path, the whole Eval of kAddInt8Kernel and kSubInt8Kernel: same
// shapes take the fast loop (optimized/int8_kernels.h), broadcasts the
// reference's.
template <bool kSubtract>
Status EvalInt8(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const OpData*>(op_data);
  EvalTensor* output = context.output(0);
  if (!data.requires_broadcast) {
    optimized::AddInt8<kSubtract>(data.quantized, context.input(0)->As<const int8_t>(),
                                  context.input(1)->As<const int8_t>(), output->As<int8_t>(), output->element_count());
    return OkStatus();
  }
  EvalQuantized<kSubtract, int8_t>(data, *context.input(0), *context.input(1), output);
  return OkStatus();
}

template <bool kSubtract>
Status Eval(EvalContext& context, const void* op_data) {
  EvalTensor* output = context.output(0);
  if (output->type == TensorType::kInt8) return EvalInt8<kSubtract>(context, op_data);
  const auto* data = static_cast<const OpData*>(op_data);
  const EvalTensor* input1 = context.input(0);
  const EvalTensor* input2 = context.input(1);
  if (output->type == TensorType::kFloat32) {
    const reference::FloatActivationRange range = data->range;
    Run<float>(*data, *input1, *input2, output,
               [range](float x, float y) { return reference::AddFloatElement<kSubtract>(x, y, range); });
  } else if (output->type == TensorType::kInt32) {
    const int32_t lo = data->quantized.activation_min;
    const int32_t hi = data->quantized.activation_max;
    Run<int32_t>(*data, *input1, *input2, output, [lo, hi](int32_t x, int32_t y) {
      return std::clamp(kSubtract ? fixed_point::WrappingSub(x, y) : fixed_point::WrappingAdd(x, y), lo, hi);
    });
  } else {
    EvalQuantized<kSubtract, int16_t>(*data, *input1, *input2, output);
  }
  return OkStatus();
}

}  // namespace microarena::add_sub
