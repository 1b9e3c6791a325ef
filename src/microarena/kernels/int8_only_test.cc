// The int8-only registrations (int8_only.h): one per op, none in
// AllOpsResolver, each beside a general kernel for the same op; each refuses
// INT16 and FLOAT32 activations that the general kernel accepts, with an
// error naming the op, the types and the general kernel; on INT8 they give
// the general kernel's bytes. Whole models: tests/int8_resolver_test.cc.
#include "microarena/kernels/int8_only.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "microarena/kernels/conv_test_util.h"
#include "microarena/kernels/kernel_test_util.h"
#include "microarena/kernels/op_types.h"
#include "microarena/kernels/registrations.h"

namespace microarena {
namespace {

using kernel_test::Bytes;
using kernel_test::ExpectError;
using kernel_test::OneOp;

struct Variant {
  const KernelRegistration* int8;
  const char* symbol;
};

#define MICROARENA_VARIANT(name) Variant{&name, #name},
const Variant kVariants[] = {MICROARENA_FOR_EACH_INT8_KERNEL(MICROARENA_VARIANT)};
#undef MICROARENA_VARIANT

// "kConv2dKernel" for "kConv2dInt8Kernel".
std::string GeneralSymbol(const char* int8_symbol) {
  std::string symbol = int8_symbol;
  symbol.erase(symbol.find("Int8"), 4);
  return symbol;
}

TEST(Int8OnlyKernelsTest, EachHasAGeneralKernelAndNoneIsInAllOpsResolver) {
  std::set<int32_t> ops;
  for (const Variant& variant : kVariants) {
    SCOPED_TRACE(variant.symbol);
    const BuiltinOp op = variant.int8->op;
    EXPECT_TRUE(ops.insert(static_cast<int32_t>(op)).second) << "two int8-only kernels for " << BuiltinOpName(op);
    const KernelRegistration* general = AllOpsResolver().Find(op);
    ASSERT_NE(general, nullptr) << BuiltinOpName(op) << " has an int8-only kernel but no general one";
    EXPECT_NE(general, variant.int8);
    for (const KernelRegistration* kernel : AllOpsResolver().kernels()) EXPECT_NE(kernel, variant.int8);
    const OpTypes* types = FindOpTypes(op);
    ASSERT_NE(types, nullptr);
    EXPECT_TRUE(Accepts(*types, TensorType::kInt8)) << "the op table has no INT8 for " << BuiltinOpName(op);
  }
}

TensorSpec Quantized(const std::string& name, TensorType type, std::vector<int32_t> shape, float scale,
                     int64_t zero_point) {
  return {name, type, std::move(shape), 0, QuantizationSpec::PerTensor(scale, zero_point), false};
}

// A valid one-op model of `op` whose activations are `type` (INT8, INT16 as
// 16x8 with INT8 weights, or FLOAT32), added to `one`; the bytes of the
// input are a ramp.
void BuildOp(BuiltinOp op, TensorType type, OneOp* one) {
  const bool is_float = type == TensorType::kFloat32;
  const TensorType weight_type = is_float ? TensorType::kFloat32 : TensorType::kInt8;
  auto activation = [&](const std::string& name, std::vector<int32_t> shape, float scale, int64_t zero_point) {
    return is_float ? kernel_test::Plain(name, type, std::move(shape))
                    : Quantized(name, type, std::move(shape), scale, zero_point);
  };
  auto weights = [&](const std::string& name, std::vector<int32_t> shape) {
    return is_float ? kernel_test::Plain(name, weight_type, std::move(shape))
                    : Quantized(name, weight_type, std::move(shape), 0.5f, 0);
  };
  auto ramp = [&](size_t count) {
    std::vector<uint8_t> bytes(count * (is_float ? 4 : type == TensorType::kInt16 ? 2 : 1), 0);
    if (is_float) {
      std::vector<float> values(count);
      for (size_t i = 0; i < count; ++i) values[i] = 0.25f * static_cast<float>(i) - 1.0f;
      return Bytes<float>(values);
    }
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(3 * i + 1);
    return bytes;
  };
  auto filter_bytes = [&](size_t count) {
    std::vector<int8_t> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<int8_t>(static_cast<int>(i % 5) - 2);
    if (!is_float) return Bytes<int8_t>(values);
    return Bytes<float>(std::vector<float>(values.begin(), values.end()));
  };
  switch (op) {
    case BuiltinOp::kConv2d:
      one->Input(activation("in", {1, 3, 3, 2}, 0.5f, 1), ramp(18));
      one->Constant(weights("filter", {2, 2, 2, 2}), filter_bytes(16));
      one->Output(activation("out", {1, 2, 2, 2}, 1.0f, -2));
      one->Options(conv_test::ConvOptions(tflite::Padding::VALID, 1, 1, tflite::ActivationFunctionType::NONE));
      break;
    case BuiltinOp::kDepthwiseConv2d:
      one->Input(activation("in", {1, 3, 3, 2}, 0.5f, 1), ramp(18));
      one->Constant(weights("filter", {1, 2, 2, 2}), filter_bytes(8));
      one->Output(activation("out", {1, 2, 2, 2}, 1.0f, -2));
      one->Options(conv_test::DepthwiseOptions(tflite::Padding::VALID, 1, 1, 1, tflite::ActivationFunctionType::NONE));
      break;
    case BuiltinOp::kFullyConnected:
      one->Input(activation("in", {1, 4}, 0.5f, 1), ramp(4));
      one->Constant(weights("filter", {3, 4}), filter_bytes(12));
      one->Output(activation("out", {1, 3}, 1.0f, -2));
      break;
    case BuiltinOp::kSoftmax: {
      // TFLM's output quantization for each type.
      const bool is_int16 = type == TensorType::kInt16;
      one->Input(activation("in", {2, 3}, 0.1f, is_int16 ? 0 : 3), ramp(6));
      one->Output(activation("out", {2, 3}, is_int16 ? 1.0f / 32768 : 1.0f / 256, is_int16 ? 0 : -128));
      tflite::SoftmaxOptionsT options;
      options.beta = 1.0f;
      one->Options(options);
      break;
    }
    case BuiltinOp::kAveragePool2d:
    case BuiltinOp::kMaxPool2d:
      one->Input(activation("in", {1, 3, 3, 2}, 0.5f, 1), ramp(18));
      one->Output(activation("out", {1, 2, 2, 2}, 0.5f, 1));
      one->Options(conv_test::PoolOptions(tflite::Padding::VALID, 1, 2, tflite::ActivationFunctionType::NONE));
      break;
    case BuiltinOp::kAdd:
    case BuiltinOp::kSub:
    case BuiltinOp::kMul: {
      // INT16 zero points 0, as TFLM requires for MUL.
      const int64_t zero_point = type == TensorType::kInt16 ? 0 : 1;
      one->Input(activation("in", {2, 3}, 0.5f, zero_point), ramp(6));
      one->Input(activation("in2", {2, 3}, 0.25f, zero_point), ramp(6));
      one->Output(activation("out", {2, 3}, 1.0f, zero_point));
      break;
    }
    case BuiltinOp::kLogistic:
    case BuiltinOp::kTanh: {
      // TFLM's output quantization for each type.
      const bool is_int16 = type == TensorType::kInt16;
      const bool is_tanh = op == BuiltinOp::kTanh;
      one->Input(activation("in", {2, 3}, is_int16 ? 1.0f / 4096 : 0.1f, is_int16 ? 0 : 3), ramp(6));
      one->Output(activation("out", {2, 3},
                             is_int16  ? 1.0f / 32768
                             : is_tanh ? 1.0f / 128
                                       : 1.0f / 256,
                             is_int16 || is_tanh ? 0 : -128));
      break;
    }
    default: FAIL() << "no test model for " << BuiltinOpName(op);
  }
}

// The general kernel runs each type; the int8-only one refuses INT16 and
// FLOAT32 at Prepare, naming the op, both types and the general kernel.
TEST(Int8OnlyKernelsTest, RefuseWhatOnlyTheGeneralKernelAccepts) {
  for (const Variant& variant : kVariants) {
    const BuiltinOp op = variant.int8->op;
    const KernelRegistration* general = AllOpsResolver().Find(op);
    ASSERT_NE(general, nullptr);
    const OpResolver general_resolver{Span<const KernelRegistration* const>(&general, 1)};
    const OpResolver int8_resolver{Span<const KernelRegistration* const>(&variant.int8, 1)};
    for (TensorType type : {TensorType::kInt16, TensorType::kFloat32}) {
      SCOPED_TRACE(std::string(variant.symbol) + " " + TensorTypeName(type));
      OneOp with_general(op, general_resolver);
      BuildOp(op, type, &with_general);
      ASSERT_TRUE(with_general.Run().ok()) << "the general kernel must accept this model";
      OneOp with_int8(op, int8_resolver);
      BuildOp(op, type, &with_int8);
      const Status status = with_int8.Run();
      const std::string type_name = TensorTypeName(type);
      ExpectError(status, ErrorCode::kUnsupported,
                  std::string("op 0 (") + BuiltinOpName(op) + "): input tensor 0 'in' is " + type_name);
      ExpectError(status, ErrorCode::kUnsupported,
                  "'out' is " + type_name + "; " + variant.symbol + " takes INT8 input and output only");
      ExpectError(status, ErrorCode::kUnsupported,
                  "the general " + GeneralSymbol(variant.symbol) + " accepts these types");
    }
  }
}

// On INT8 the int8-only kernel is the general kernel's int8 path: the same
// output bytes.
TEST(Int8OnlyKernelsTest, Int8OutputsEqualTheGeneralKernels) {
  for (const Variant& variant : kVariants) {
    SCOPED_TRACE(variant.symbol);
    const BuiltinOp op = variant.int8->op;
    const KernelRegistration* general = AllOpsResolver().Find(op);
    ASSERT_NE(general, nullptr);
    const OpResolver general_resolver{Span<const KernelRegistration* const>(&general, 1)};
    const OpResolver int8_resolver{Span<const KernelRegistration* const>(&variant.int8, 1)};
    OneOp with_general(op, general_resolver);
    BuildOp(op, TensorType::kInt8, &with_general);
    ASSERT_TRUE(with_general.Run().ok());
    OneOp with_int8(op, int8_resolver);
    BuildOp(op, TensorType::kInt8, &with_int8);
    const Status status = with_int8.Run();
    ASSERT_TRUE(status.ok()) << status.message();
    const std::vector<int8_t> output = with_int8.Output<int8_t>();
    EXPECT_EQ(output, with_general.Output<int8_t>());
    EXPECT_GT(std::set<int8_t>(output.begin(), output.end()).size(), 1u) << "a test model whose output is constant";
  }
}

// INT8 -> INT16 SOFTMAX runs only in the general kernel.
TEST(Int8OnlyKernelsTest, SoftmaxInt8ToInt16NeedsTheGeneralKernel) {
  const KernelRegistration* int8 = &kSoftmaxInt8Kernel;
  const OpResolver resolver{Span<const KernelRegistration* const>(&int8, 1)};
  OneOp op(BuiltinOp::kSoftmax, resolver);
  op.Input(Quantized("in", TensorType::kInt8, {1, 2}, 0.1f, 0), Bytes<int8_t>({1, 2}));
  op.Output(Quantized("out", TensorType::kInt16, {1, 2}, 1.0f / 65536, -32768));
  tflite::SoftmaxOptionsT options;
  options.beta = 1.0f;
  op.Options(options);
  ExpectError(op.Run(), ErrorCode::kUnsupported, "input tensor 0 'in' is INT8 and output tensor 1 'out' is INT16");
}

}  // namespace
}  // namespace microarena
