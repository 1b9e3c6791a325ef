#include "microarena/model/quantized_layers.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <tuple>

namespace microarena {
namespace {

// Spread of the accumulator covered by an activation range, in standard deviations.
constexpr double kRangeDeviations = 3.0;
// The top of a RELU6 output range.
constexpr double kRelu6Max = 6.0;

// Operator code versions the converter assigns to these ops with int8 tensors.
constexpr int32_t kConvVersion = 3;
constexpr int32_t kDepthwiseVersion = 3;
constexpr int32_t kPadVersion = 2;
constexpr int32_t kAddVersion = 2;
constexpr int32_t kAveragePoolVersion = 2;
constexpr int32_t kReshapeVersion = 1;
constexpr int32_t kFullyConnectedVersion = 4;
constexpr int32_t kSoftmaxVersion = 2;
// The oldest TFLite runtime that has all of the versions above.
constexpr char kMinRuntimeVersion[] = "1.14.0";

// Quantized weights of `channel_count` output channels with `fan_in` weights each.
struct Weights {
  std::vector<int8_t> values;         // laid out as the filter tensor wants
  std::vector<float> channel_scales;  // one per channel (or one for a per-tensor tensor)
  double rms_real = 0.0;              // root-mean-square of the real weight values
};

// Draws int8 weights for a filter whose element (channel c, tap k) lives at
// c * channel_stride + k * tap_stride. Each channel is stretched so that its
// largest magnitude is exactly 127, as symmetric quantization of a float channel
// yields; its real maximum is drawn around sqrt(6 / fan_in).
Weights DrawWeights(Lcg& random, int32_t channel_count, int32_t fan_in, int32_t channel_stride, int32_t tap_stride,
                    bool per_channel) {
  Weights weights;
  weights.values.assign(static_cast<size_t>(channel_count) * static_cast<size_t>(fan_in), 0);
  const double base_max_real = std::sqrt(6.0 / fan_in);
  const double tensor_max_real = base_max_real * (0.75 + 0.5 * random.NextUnit());
  double sum_squares_real = 0.0;
  for (int32_t c = 0; c < channel_count; ++c) {
    std::vector<int32_t> raw(static_cast<size_t>(fan_in));
    int32_t max_magnitude = 0;
    for (int32_t& value : raw) {
      value = random.NextInt(-127, 127);
      max_magnitude = std::max(max_magnitude, std::abs(value));
    }
    if (max_magnitude == 0) raw[0] = max_magnitude = 127;
    const double max_real = per_channel ? base_max_real * (0.75 + 0.5 * random.NextUnit()) : tensor_max_real;
    const double scale = max_real / 127.0;
    if (per_channel || c == 0) weights.channel_scales.push_back(static_cast<float>(scale));
    for (int32_t k = 0; k < fan_in; ++k) {
      // Round half away from zero: the stretched value stays in [-127, 127].
      const double stretched = std::round(raw[static_cast<size_t>(k)] * 127.0 / max_magnitude);
      const size_t at = static_cast<size_t>(c) * static_cast<size_t>(channel_stride) +
                        static_cast<size_t>(k) * static_cast<size_t>(tap_stride);
      weights.values[at] = static_cast<int8_t>(stretched);
      const double real = stretched * scale;
      sum_squares_real += real * real;
    }
  }
  weights.rms_real = std::sqrt(sum_squares_real / static_cast<double>(weights.values.size()));
  return weights;
}

// int32 biases with scale input_scale x weight_scale per channel; their real
// values are small next to the accumulator spread `accumulator_real`.
std::pair<std::vector<int32_t>, std::vector<float>> DrawBiases(Lcg& random, int32_t channel_count,
                                                               float input_scale, const Weights& weights,
                                                               double accumulator_real) {
  std::vector<int32_t> values;
  std::vector<float> scales;
  for (int32_t c = 0; c < channel_count; ++c) {
    const float weight_scale = weights.channel_scales[weights.channel_scales.size() == 1 ? 0 : static_cast<size_t>(c)];
    const double scale = static_cast<double>(input_scale) * static_cast<double>(weight_scale);
    if (weights.channel_scales.size() > 1 || c == 0) scales.push_back(static_cast<float>(scale));
    const double real = accumulator_real * 0.2 * (random.NextUnit() - 0.5);
    values.push_back(static_cast<int32_t>(std::round(real / scale)));
  }
  return {values, scales};
}

std::vector<int64_t> Zeros(size_t count) { return std::vector<int64_t>(count, 0); }

// Adds the filter tensor `filter_shape` holding `weights` and its int32 biases
// (drawn here, after the weights); returns their tensor indices.
std::pair<int32_t, int32_t> AddFilterAndBias(ModelBuilder& builder, Lcg& random, const std::string& prefix,
                                             const std::vector<int32_t>& filter_shape, const Weights& weights,
                                             int32_t quantized_dimension, float input_scale,
                                             double accumulator_real, int32_t channel_count) {
  const size_t scale_count = weights.channel_scales.size();
  const int32_t filter = builder.AddConstantTensor(
      {prefix + "/weights", TensorType::kInt8, filter_shape, 0,
       QuantizationSpec::PerChannel(weights.channel_scales, Zeros(scale_count), quantized_dimension), false},
      BytesOf(weights.values));
  auto [bias_values, bias_scales] = DrawBiases(random, channel_count, input_scale, weights, accumulator_real);
  const int32_t bias = builder.AddConstantTensor(
      {prefix + "/bias", TensorType::kInt32, {channel_count}, 0,
       QuantizationSpec::PerChannel(bias_scales, Zeros(scale_count), 0), false},
      BytesOf(bias_values));
  return {filter, bias};
}

// Rescales the weights' real values so that the accumulator's spread becomes
// `spread` (FilterLayer::output_spread); 0 leaves them as drawn.
void FoldSpread(Weights& weights, int32_t fan_in, double input_rms, double spread) {
  if (spread <= 0.0) return;
  const double factor = spread / (std::sqrt(static_cast<double>(fan_in)) * input_rms * weights.rms_real);
  for (float& scale : weights.channel_scales) scale = static_cast<float>(static_cast<double>(scale) * factor);
  weights.rms_real *= factor;
}

// The output of a filter layer of fan-in `fan_in` (its quantization and rms;
// the tensor is added later) and the accumulator's spread.
QuantizedActivation FilterOutput(std::vector<int32_t> shape, int32_t fan_in, const QuantizedActivation& input,
                                 const Weights& weights, tflite::ActivationFunctionType activation,
                                 double* accumulator_real) {
  const double spread = std::sqrt(static_cast<double>(fan_in)) * input.rms_real * weights.rms_real;
  *accumulator_real = spread;
  QuantizedActivation output;
  output.shape = std::move(shape);
  double min_real = 0.0;
  double max_real = kRangeDeviations * spread;
  output.rms_real = spread / std::sqrt(2.0);
  if (activation == tflite::ActivationFunctionType::RELU6) {
    // Clipped: half the values 0, most of the rest near 6 when s is well above 6.
    max_real = std::min(kRelu6Max, max_real);
    output.rms_real = std::min(kRelu6Max, spread) / std::sqrt(2.0);
  } else if (activation == tflite::ActivationFunctionType::NONE) {
    min_real = -kRangeDeviations * spread;
    output.rms_real = spread;
  }
  std::tie(output.scale, output.zero_point) = AffineForRange(min_real, max_real);
  return output;
}

// Output rows (or columns) of a window `kernel` moving by `stride` over `size`.
int32_t WindowOutputSize(int32_t size, int32_t kernel, int32_t stride, tflite::Padding padding) {
  if (padding == tflite::Padding::SAME) return (size + stride - 1) / stride;
  return (size - kernel) / stride + 1;
}

}  // namespace

std::pair<float, int32_t> AffineForRange(double min_real, double max_real) {
  min_real = std::min(min_real, 0.0);
  max_real = std::max(max_real, 0.0);
  const double scale = (max_real - min_real) / 255.0;
  const double zero_point = std::round(-128.0 - min_real / scale);
  return {static_cast<float>(scale), static_cast<int32_t>(std::clamp(zero_point, -128.0, 127.0))};
}

QuantizedActivation QuantizedModelWriter::AddInput(const std::string& name, std::vector<int32_t> shape,
                                                   double min_real, double max_real, double rms_real) {
  QuantizedActivation input;
  input.shape = std::move(shape);
  std::tie(input.scale, input.zero_point) = AffineForRange(min_real, max_real);
  input.rms_real = rms_real;
  input.tensor_index = AddActivationTensor(name, input);
  builder_.SetInputs({input.tensor_index});
  return input;
}

QuantizedActivation QuantizedModelWriter::AddConv2d(const std::string& prefix, const QuantizedActivation& input,
                                                    const FilterLayer& layer) {
  const int32_t in_channels = input.shape[3];
  const int32_t fan_in = layer.kernel_h * layer.kernel_w * in_channels;
  // Filter [out, kh, kw, in]: channel c holds fan_in consecutive values.
  Weights weights = DrawWeights(random_, layer.channels, fan_in, fan_in, 1, /*per_channel=*/true);
  FoldSpread(weights, fan_in, input.rms_real, layer.output_spread);
  const std::vector<int32_t> output_shape = {
      input.shape[0], WindowOutputSize(input.shape[1], layer.kernel_h, layer.stride, layer.padding),
      WindowOutputSize(input.shape[2], layer.kernel_w, layer.stride, layer.padding), layer.channels};
  double accumulator_real = 0.0;
  QuantizedActivation output = FilterOutput(output_shape, fan_in, input, weights, layer.activation, &accumulator_real);
  auto [filter, bias] =
      AddFilterAndBias(builder_, random_, prefix, {layer.channels, layer.kernel_h, layer.kernel_w, in_channels},
                       weights, 0, input.scale, accumulator_real, layer.channels);
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::Conv2DOptionsT options;
  options.padding = layer.padding;
  options.stride_w = layer.stride;
  options.stride_h = layer.stride;
  options.fused_activation_function = layer.activation;
  AddOp(BuiltinOp::kConv2d, kConvVersion, {input.tensor_index, filter, bias}, output.tensor_index,
        MakeBuiltinOptions(std::move(options)));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddDepthwiseConv2d(const std::string& prefix,
                                                             const QuantizedActivation& input,
                                                             const FilterLayer& layer) {
  const int32_t channels = input.shape[3];
  const int32_t fan_in = layer.kernel_h * layer.kernel_w;
  // Filter [1, kh, kw, channels]: tap k of channel c sits at k * channels + c.
  Weights weights = DrawWeights(random_, channels, fan_in, 1, channels, /*per_channel=*/true);
  FoldSpread(weights, fan_in, input.rms_real, layer.output_spread);
  const std::vector<int32_t> output_shape = {
      input.shape[0], WindowOutputSize(input.shape[1], layer.kernel_h, layer.stride, layer.padding),
      WindowOutputSize(input.shape[2], layer.kernel_w, layer.stride, layer.padding), channels};
  double accumulator_real = 0.0;
  QuantizedActivation output = FilterOutput(output_shape, fan_in, input, weights, layer.activation, &accumulator_real);
  auto [filter, bias] = AddFilterAndBias(builder_, random_, prefix, {1, layer.kernel_h, layer.kernel_w, channels},
                                         weights, 3, input.scale, accumulator_real, channels);
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::DepthwiseConv2DOptionsT options;
  options.padding = layer.padding;
  options.stride_w = layer.stride;
  options.stride_h = layer.stride;
  options.depth_multiplier = 1;
  options.fused_activation_function = layer.activation;
  AddOp(BuiltinOp::kDepthwiseConv2d, kDepthwiseVersion, {input.tensor_index, filter, bias}, output.tensor_index,
        MakeBuiltinOptions(std::move(options)));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddPad(const std::string& prefix, const QuantizedActivation& input,
                                                 int32_t top, int32_t bottom, int32_t left, int32_t right) {
  // [dimension][before, after] for N, H, W, C.
  const std::vector<int32_t> paddings = {0, 0, top, bottom, left, right, 0, 0};
  const int32_t paddings_tensor = builder_.AddConstantTensor(
      {prefix + "/paddings", TensorType::kInt32, {4, 2}, 0, QuantizationSpec(), false}, BytesOf(paddings));
  // The added zeros barely change the rms of a map larger than the kernel.
  QuantizedActivation output = input;
  output.shape = {input.shape[0], input.shape[1] + top + bottom, input.shape[2] + left + right, input.shape[3]};
  output.tensor_index = AddActivationTensor(prefix + "/output", output);
  AddOp(BuiltinOp::kPad, kPadVersion, {input.tensor_index, paddings_tensor}, output.tensor_index,
        MakeBuiltinOptions(tflite::PadOptionsT()));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddAdd(const std::string& prefix, const QuantizedActivation& a,
                                                 const QuantizedActivation& b) {
  QuantizedActivation output;
  output.shape = a.shape;
  const double min_real = -std::sqrt(a.min_real() * a.min_real() + b.min_real() * b.min_real());
  const double max_real = std::sqrt(a.max_real() * a.max_real() + b.max_real() * b.max_real());
  std::tie(output.scale, output.zero_point) = AffineForRange(min_real, max_real);
  output.rms_real = std::sqrt(a.rms_real * a.rms_real + b.rms_real * b.rms_real);
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::AddOptionsT options;
  options.fused_activation_function = tflite::ActivationFunctionType::NONE;
  AddOp(BuiltinOp::kAdd, kAddVersion, {a.tensor_index, b.tensor_index}, output.tensor_index,
        MakeBuiltinOptions(std::move(options)));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddAveragePool(const std::string& prefix,
                                                         const QuantizedActivation& input) {
  // Pooling keeps the input's quantization and leaves each channel's mean. The
  // mean of a RELU output is about s / sqrt(2 pi) = rms * sqrt(2) / sqrt(2 pi) =
  // rms / sqrt(pi) and varies little. A linear layer over RELU outputs keeps that
  // share: its channel means are its inputs' means through the weights.
  const int32_t height = input.shape[1];
  const int32_t width = input.shape[2];
  QuantizedActivation output = input;
  output.shape = {1, 1, 1, input.shape[3]};
  output.rms_real = input.rms_real / std::sqrt(3.141592653589793);
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::Pool2DOptionsT options;
  options.padding = tflite::Padding::VALID;
  options.stride_w = 1;
  options.stride_h = 1;
  options.filter_width = width;
  options.filter_height = height;
  options.fused_activation_function = tflite::ActivationFunctionType::NONE;
  AddOp(BuiltinOp::kAveragePool2d, kAveragePoolVersion, {input.tensor_index}, output.tensor_index,
        MakeBuiltinOptions(std::move(options)));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddReshape(const std::string& prefix, const QuantizedActivation& input) {
  const std::vector<int32_t> new_shape = {1, input.shape[3]};
  const int32_t shape_tensor = builder_.AddConstantTensor(
      {prefix + "/shape", TensorType::kInt32, {2}, 0, QuantizationSpec(), false}, BytesOf(new_shape));
  QuantizedActivation output = input;
  output.shape = new_shape;
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::ReshapeOptionsT options;
  options.new_shape = new_shape;
  AddOp(BuiltinOp::kReshape, kReshapeVersion, {input.tensor_index, shape_tensor}, output.tensor_index,
        MakeBuiltinOptions(std::move(options)));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddFullyConnected(const std::string& prefix,
                                                            const QuantizedActivation& input, int32_t units) {
  const int32_t fan_in = input.shape[1];
  // Weights [units, fan_in], per tensor.
  const Weights weights = DrawWeights(random_, units, fan_in, fan_in, 1, /*per_channel=*/false);
  const double accumulator_real = std::sqrt(static_cast<double>(fan_in)) * input.rms_real * weights.rms_real;
  QuantizedActivation output;
  output.shape = {1, units};
  // Logits: no activation; a little more room on top, where the winning class is.
  std::tie(output.scale, output.zero_point) =
      AffineForRange(-kRangeDeviations * accumulator_real, (kRangeDeviations + 0.5) * accumulator_real);
  output.rms_real = accumulator_real;
  auto [filter, bias] = AddFilterAndBias(builder_, random_, prefix, {units, fan_in}, weights, 0, input.scale,
                                         accumulator_real, units);
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::FullyConnectedOptionsT options;
  options.fused_activation_function = tflite::ActivationFunctionType::NONE;
  options.weights_format = tflite::FullyConnectedOptionsWeightsFormat::DEFAULT;
  options.keep_num_dims = false;
  AddOp(BuiltinOp::kFullyConnected, kFullyConnectedVersion, {input.tensor_index, filter, bias},
        output.tensor_index, MakeBuiltinOptions(std::move(options)));
  return output;
}

QuantizedActivation QuantizedModelWriter::AddSoftmax(const std::string& prefix, const QuantizedActivation& input) {
  // TFLite requires int8 softmax outputs to have scale 1/256 and zero point -128.
  QuantizedActivation output;
  output.shape = input.shape;
  output.scale = 1.0f / 256.0f;
  output.zero_point = -128;
  output.tensor_index = AddActivationTensor(prefix + "/output", output);

  tflite::SoftmaxOptionsT options;
  options.beta = 1.0f;
  AddOp(BuiltinOp::kSoftmax, kSoftmaxVersion, {input.tensor_index}, output.tensor_index,
        MakeBuiltinOptions(std::move(options)));
  return output;
}

std::vector<uint8_t> QuantizedModelWriter::Finish(const QuantizedActivation& output, std::string description) {
  return Finish(std::vector<QuantizedActivation>{output}, std::move(description));
}

std::vector<uint8_t> QuantizedModelWriter::Finish(const std::vector<QuantizedActivation>& outputs,
                                                  std::string description) {
  std::vector<int32_t> indices;
  for (const QuantizedActivation& output : outputs) indices.push_back(output.tensor_index);
  builder_.SetOutputs(indices);
  // The converter records the oldest TFLite runtime that has the model's op versions.
  std::vector<uint8_t> min_runtime_version(16, 0);
  std::copy(std::begin(kMinRuntimeVersion), std::end(kMinRuntimeVersion) - 1, min_runtime_version.begin());
  builder_.AddMetadata("min_runtime_version", std::move(min_runtime_version));
  builder_.SetDescription(std::move(description));
  return builder_.Build();
}

int32_t QuantizedModelWriter::AddActivationTensor(const std::string& name, const QuantizedActivation& activation) {
  return builder_.AddTensor({name, TensorType::kInt8, activation.shape, 0,
                             QuantizationSpec::PerTensor(activation.scale, activation.zero_point), false});
}

void QuantizedModelWriter::AddOp(BuiltinOp op, int32_t version, std::vector<int32_t> inputs, int32_t output,
                                 tflite::BuiltinOptionsUnion options) {
  OperatorSpec spec;
  spec.op = op;
  spec.version = version;
  spec.inputs = std::move(inputs);
  spec.outputs = {output};
  spec.options = std::move(options);
  builder_.AddOperator(std::move(spec));
}

}  // namespace microarena
