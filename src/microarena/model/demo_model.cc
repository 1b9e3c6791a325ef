#include "microarena/model/demo_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>

#include "microarena/model/model_builder.h"

// How the activation scales are chosen.
//
// Calibration in the converter runs sample data through the float model and
// records each tensor's range. Here the range is predicted instead, from the
// statistics of an accumulator: an output value is a sum of K products x * w with
// weights independent of the inputs and of mean zero, so its standard deviation is
//
//   s = sqrt(K) * rms(x) * rms(w)          (real units; K = fan-in of one output)
//
// and the layer's output range is taken as 3 s: [0, 3 s] after RELU (zero point
// -128), [-3 s, 3.5 s] for the logits. After RELU the next layer's input has
// rms = s / sqrt(2) (half of a zero-mean bell curve). Weight maxima are drawn
// around sqrt(6 / K) (He initialisation), which keeps s about constant from layer
// to layer, as in a trained network.
//
// Only integer arithmetic and IEEE-exact double operations (+ - * / sqrt) are
// used, so the bytes are the same on every host.

namespace microarena {
namespace {

// Knuth's MMIX linear congruential generator: deterministic and portable.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}

  uint32_t NextBits() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state_ >> 33);  // the high bits are the random ones
  }
  // Uniform in [0, 1), 31 bits of resolution.
  double NextUnit() { return static_cast<double>(NextBits()) / 2147483648.0; }
  // Uniform integer in [low, high].
  int32_t NextInt(int32_t low, int32_t high) {
    const uint32_t span = static_cast<uint32_t>(high - low) + 1u;
    return low + static_cast<int32_t>(NextBits() % span);
  }

 private:
  uint64_t state_;
};

constexpr uint64_t kSeed = 20240601;
constexpr int32_t kChannels = 64;
constexpr int32_t kKeywords = 12;
constexpr int kBlockCount = 4;
// Spread of the accumulator covered by an activation range, in standard deviations.
constexpr double kRangeDeviations = 3.0;

// Operator code versions the converter assigns to these ops with int8 tensors.
constexpr int32_t kConvVersion = 3;
constexpr int32_t kDepthwiseVersion = 3;
constexpr int32_t kAveragePoolVersion = 2;
constexpr int32_t kReshapeVersion = 1;
constexpr int32_t kFullyConnectedVersion = 4;
constexpr int32_t kSoftmaxVersion = 2;

// A quantized activation tensor and what the next layer needs to know about it.
struct Activation {
  int32_t tensor_index = -1;
  std::vector<int32_t> shape;
  float scale = 1.0f;
  int32_t zero_point = 0;
  double rms_real = 0.0;  // expected root-mean-square of the real values
};

// TFLite's asymmetric int8 parameters for the real range [min_real, max_real]
// (widened to contain 0 so that 0 is exactly representable).
std::pair<float, int32_t> AffineForRange(double min_real, double max_real) {
  min_real = std::min(min_real, 0.0);
  max_real = std::max(max_real, 0.0);
  const double scale = (max_real - min_real) / 255.0;
  const double zero_point = std::round(-128.0 - min_real / scale);
  return {static_cast<float>(scale), static_cast<int32_t>(std::clamp(zero_point, -128.0, 127.0))};
}

// Quantized weights of `channel_count` output channels with `fan_in` weights each.
struct Weights {
  std::vector<int8_t> values;        // laid out as the filter tensor wants
  std::vector<float> channel_scales; // one per channel (or one for a per-tensor tensor)
  double rms_real = 0.0;             // root-mean-square of the real weight values
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
      const size_t at = static_cast<size_t>(c * channel_stride + k * tap_stride);
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

class DemoModelWriter {
 public:
  std::vector<uint8_t> Write() {
    Activation x = AddInput();
    x = AddConv("conv1", x, /*kernel_h=*/10, /*kernel_w=*/4, /*stride=*/2, {1, 25, 5, kChannels});
    for (int block = 1; block <= kBlockCount; ++block) {
      x = AddDepthwise("dw" + std::to_string(block), x);
      x = AddConv("pw" + std::to_string(block), x, 1, 1, 1, x.shape);
    }
    x = AddAveragePool(x);
    x = AddReshape(x);
    x = AddFullyConnected(x);
    const Activation output = AddSoftmax(x);
    builder_.SetOutputs({output.tensor_index});
    // The converter records the oldest TFLite runtime that has these op versions.
    std::vector<uint8_t> min_runtime_version(16, 0);
    const std::string version = "1.14.0";
    std::copy(version.begin(), version.end(), min_runtime_version.begin());
    builder_.AddMetadata("min_runtime_version", std::move(min_runtime_version));
    builder_.SetDescription("microarena demo model: keyword-spotting DS-CNN, int8");
    return builder_.Build();
  }

 private:
  Activation AddInput() {
    // MFCC features, real range [-6, 10], uniform: rms = sqrt((10^3 + 6^3) / (3 * 16)).
    Activation input;
    input.shape = {1, 49, 10, 1};
    std::tie(input.scale, input.zero_point) = AffineForRange(-6.0, 10.0);
    input.rms_real = std::sqrt((1000.0 + 216.0) / 48.0);
    input.tensor_index = AddActivationTensor("input", input);
    builder_.SetInputs({input.tensor_index});
    return input;
  }

  int32_t AddActivationTensor(const std::string& name, const Activation& activation) {
    return builder_.AddTensor(
        {name, TensorType::kInt8, activation.shape, 0,
         QuantizationSpec::PerTensor(activation.scale, activation.zero_point), false});
  }

  // The output activation of a layer with fan-in `fan_in` followed by RELU.
  Activation ReluOutput(const std::vector<int32_t>& shape, int32_t fan_in, const Activation& input,
                        const Weights& weights, double* accumulator_real) {
    *accumulator_real = std::sqrt(static_cast<double>(fan_in)) * input.rms_real * weights.rms_real;
    Activation output;
    output.shape = shape;
    std::tie(output.scale, output.zero_point) = AffineForRange(0.0, kRangeDeviations * *accumulator_real);
    output.rms_real = *accumulator_real / std::sqrt(2.0);
    return output;
  }

  // Adds weights [channels, kernel_h, kernel_w, in_channels] and int32 biases.
  std::pair<int32_t, int32_t> AddFilterAndBias(const std::string& prefix, const std::vector<int32_t>& filter_shape,
                                               const Weights& weights, int32_t quantized_dimension,
                                               float input_scale, double accumulator_real, int32_t channel_count) {
    const size_t scale_count = weights.channel_scales.size();
    const int32_t filter = builder_.AddConstantTensor(
        {prefix + "/weights", TensorType::kInt8, filter_shape, 0,
         QuantizationSpec::PerChannel(weights.channel_scales, Zeros(scale_count), quantized_dimension), false},
        BytesOf(weights.values));
    auto [bias_values, bias_scales] = DrawBiases(random_, channel_count, input_scale, weights, accumulator_real);
    const int32_t bias = builder_.AddConstantTensor(
        {prefix + "/bias", TensorType::kInt32, {channel_count}, 0,
         QuantizationSpec::PerChannel(bias_scales, Zeros(scale_count), 0), false},
        BytesOf(bias_values));
    return {filter, bias};
  }

  Activation AddConv(const std::string& prefix, const Activation& input, int32_t kernel_h, int32_t kernel_w,
                     int32_t stride, const std::vector<int32_t>& output_shape) {
    const int32_t in_channels = input.shape[3];
    const int32_t fan_in = kernel_h * kernel_w * in_channels;
    // Filter [out, kh, kw, in]: channel c holds fan_in consecutive values.
    const Weights weights = DrawWeights(random_, kChannels, fan_in, fan_in, 1, /*per_channel=*/true);
    double accumulator_real = 0.0;
    Activation output = ReluOutput(output_shape, fan_in, input, weights, &accumulator_real);
    auto [filter, bias] = AddFilterAndBias(prefix, {kChannels, kernel_h, kernel_w, in_channels}, weights, 0,
                                           input.scale, accumulator_real, kChannels);
    output.tensor_index = AddActivationTensor(prefix + "/output", output);

    tflite::Conv2DOptionsT options;
    options.padding = tflite::Padding::SAME;
    options.stride_w = stride;
    options.stride_h = stride;
    options.fused_activation_function = tflite::ActivationFunctionType::RELU;
    AddOp(BuiltinOp::kConv2d, kConvVersion, {input.tensor_index, filter, bias}, output.tensor_index,
          MakeBuiltinOptions(std::move(options)));
    return output;
  }

  Activation AddDepthwise(const std::string& prefix, const Activation& input) {
    constexpr int32_t kKernel = 3;
    const int32_t fan_in = kKernel * kKernel;
    // Filter [1, kh, kw, channels]: tap k of channel c sits at k * channels + c.
    const Weights weights = DrawWeights(random_, kChannels, fan_in, 1, kChannels, /*per_channel=*/true);
    double accumulator_real = 0.0;
    Activation output = ReluOutput(input.shape, fan_in, input, weights, &accumulator_real);
    auto [filter, bias] = AddFilterAndBias(prefix, {1, kKernel, kKernel, kChannels}, weights, 3, input.scale,
                                           accumulator_real, kChannels);
    output.tensor_index = AddActivationTensor(prefix + "/output", output);

    tflite::DepthwiseConv2DOptionsT options;
    options.padding = tflite::Padding::SAME;
    options.stride_w = 1;
    options.stride_h = 1;
    options.depth_multiplier = 1;
    options.fused_activation_function = tflite::ActivationFunctionType::RELU;
    AddOp(BuiltinOp::kDepthwiseConv2d, kDepthwiseVersion, {input.tensor_index, filter, bias}, output.tensor_index,
          MakeBuiltinOptions(std::move(options)));
    return output;
  }

  Activation AddAveragePool(const Activation& input) {
    // Pooling keeps the input's quantization. The mean of a RELU output is about
    // s / sqrt(2 pi) = rms * sqrt(2) / sqrt(2 pi) = rms / sqrt(pi); it varies little.
    Activation output = input;
    output.shape = {1, 1, 1, kChannels};
    output.rms_real = input.rms_real / std::sqrt(3.141592653589793);
    output.tensor_index = AddActivationTensor("pool/output", output);

    tflite::Pool2DOptionsT options;
    options.padding = tflite::Padding::VALID;
    options.stride_w = 1;
    options.stride_h = 1;
    options.filter_width = input.shape[2];
    options.filter_height = input.shape[1];
    options.fused_activation_function = tflite::ActivationFunctionType::NONE;
    AddOp(BuiltinOp::kAveragePool2d, kAveragePoolVersion, {input.tensor_index}, output.tensor_index,
          MakeBuiltinOptions(std::move(options)));
    return output;
  }

  Activation AddReshape(const Activation& input) {
    const std::vector<int32_t> new_shape = {1, kChannels};
    const int32_t shape_tensor = builder_.AddConstantTensor(
        {"reshape/shape", TensorType::kInt32, {2}, 0, QuantizationSpec(), false}, BytesOf(new_shape));
    Activation output = input;
    output.shape = new_shape;
    output.tensor_index = AddActivationTensor("reshape/output", output);

    tflite::ReshapeOptionsT options;
    options.new_shape = new_shape;
    AddOp(BuiltinOp::kReshape, kReshapeVersion, {input.tensor_index, shape_tensor}, output.tensor_index,
          MakeBuiltinOptions(std::move(options)));
    return output;
  }

  Activation AddFullyConnected(const Activation& input) {
    const int32_t fan_in = kChannels;
    // Weights [keywords, channels], per tensor.
    const Weights weights = DrawWeights(random_, kKeywords, fan_in, fan_in, 1, /*per_channel=*/false);
    const double accumulator_real = std::sqrt(static_cast<double>(fan_in)) * input.rms_real * weights.rms_real;
    Activation output;
    output.shape = {1, kKeywords};
    // Logits: no activation; a little more room on top, where the winning keyword is.
    std::tie(output.scale, output.zero_point) =
        AffineForRange(-kRangeDeviations * accumulator_real, (kRangeDeviations + 0.5) * accumulator_real);
    output.rms_real = accumulator_real;
    auto [filter, bias] = AddFilterAndBias("fc", {kKeywords, kChannels}, weights, 0, input.scale, accumulator_real,
                                           kKeywords);
    output.tensor_index = AddActivationTensor("fc/output", output);

    tflite::FullyConnectedOptionsT options;
    options.fused_activation_function = tflite::ActivationFunctionType::NONE;
    options.weights_format = tflite::FullyConnectedOptionsWeightsFormat::DEFAULT;
    options.keep_num_dims = false;
    AddOp(BuiltinOp::kFullyConnected, kFullyConnectedVersion, {input.tensor_index, filter, bias},
          output.tensor_index, MakeBuiltinOptions(std::move(options)));
    return output;
  }

  Activation AddSoftmax(const Activation& input) {
    // TFLite requires int8 softmax outputs to have scale 1/256 and zero point -128.
    Activation output;
    output.shape = input.shape;
    output.scale = 1.0f / 256.0f;
    output.zero_point = -128;
    output.tensor_index = AddActivationTensor("softmax/output", output);

    tflite::SoftmaxOptionsT options;
    options.beta = 1.0f;
    AddOp(BuiltinOp::kSoftmax, kSoftmaxVersion, {input.tensor_index}, output.tensor_index,
          MakeBuiltinOptions(std::move(options)));
    return output;
  }

  void AddOp(BuiltinOp op, int32_t version, std::vector<int32_t> inputs, int32_t output,
             tflite::BuiltinOptionsUnion options) {
    OperatorSpec spec;
    spec.op = op;
    spec.version = version;
    spec.inputs = std::move(inputs);
    spec.outputs = {output};
    spec.options = std::move(options);
    builder_.AddOperator(std::move(spec));
  }

  ModelBuilder builder_;
  Lcg random_{kSeed};
};

}  // namespace

std::vector<uint8_t> BuildDemoModel() { return DemoModelWriter().Write(); }

}  // namespace microarena
