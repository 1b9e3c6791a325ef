// Test helpers for the convolution, pooling, fully-connected and reshape
// kernel tests: kernel_test_util.h's one-op runner bound to those kernels,
// per-channel tensor specs and op options. Host tests only.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "microarena/kernels/kernel_test_util.h"
#include "microarena/kernels/op_resolver.h"
#include "microarena/kernels/registrations.h"

namespace microarena::conv_test {

inline const OpResolver& Resolver() {
  return kernel_test::KernelResolver<&kAveragePool2dKernel, &kConv2dKernel, &kDepthwiseConv2dKernel,
                                     &kFullyConnectedKernel, &kMaxPool2dKernel, &kReshapeKernel>();
}

using kernel_test::Bytes;
using kernel_test::ExpectError;
using kernel_test::Int8;
using kernel_test::Plain;

inline TensorSpec PerChannel(const std::string& name, std::vector<int32_t> shape, std::vector<float> scales,
                             int32_t dimension) {
  std::vector<int64_t> zero_points(scales.size(), 0);
  return {name, TensorType::kInt8, std::move(shape), 0,
          QuantizationSpec::PerChannel(std::move(scales), std::move(zero_points), dimension), false};
}
inline TensorSpec Int32Bias(const std::string& name, std::vector<int32_t> shape, float scale) {
  return {name, TensorType::kInt32, std::move(shape), 0, QuantizationSpec::PerTensor(scale, 0), false};
}

// kernel_test::OneOp with the kernels above (see kernel_test_util.h):
//   OneOp op(BuiltinOp::kConv2d);
//   op.Input(Int8("in", {1, 2, 2, 1}, 0.5f, 0), Bytes<int8_t>({...}));
//   op.Constant(PerChannel("filter", {...}, {...}, 0), Bytes<int8_t>({...}));
//   op.Output(Int8("out", {1, 2, 2, 2}, 1.0f, 3));
//   op.Options(conv_options);
//   ASSERT_TRUE(op.Run().ok());
class OneOp : public kernel_test::OneOp {
 public:
  explicit OneOp(BuiltinOp op) : kernel_test::OneOp(op, Resolver()) {}
};

inline tflite::Conv2DOptionsT ConvOptions(tflite::Padding padding, int32_t stride, int32_t dilation,
                                          tflite::ActivationFunctionType activation) {
  tflite::Conv2DOptionsT options;
  options.padding = padding;
  options.stride_h = options.stride_w = stride;
  options.dilation_h_factor = options.dilation_w_factor = dilation;
  options.fused_activation_function = activation;
  return options;
}

inline tflite::DepthwiseConv2DOptionsT DepthwiseOptions(tflite::Padding padding, int32_t stride, int32_t dilation,
                                                        int32_t depth_multiplier,
                                                        tflite::ActivationFunctionType activation) {
  tflite::DepthwiseConv2DOptionsT options;
  options.padding = padding;
  options.stride_h = options.stride_w = stride;
  options.dilation_h_factor = options.dilation_w_factor = dilation;
  options.depth_multiplier = depth_multiplier;
  options.fused_activation_function = activation;
  return options;
}

inline tflite::Pool2DOptionsT PoolOptions(tflite::Padding padding, int32_t stride, int32_t filter,
                                          tflite::ActivationFunctionType activation) {
  tflite::Pool2DOptionsT options;
  options.padding = padding;
  options.stride_h = options.stride_w = stride;
  options.filter_height = options.filter_width = filter;
  options.fused_activation_function = activation;
  return options;
}

}  // namespace microarena::conv_test
