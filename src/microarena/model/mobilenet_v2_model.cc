#include "microarena/model/mobilenet_v2_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "microarena/model/quantized_layers.h"

namespace microarena {
namespace {

// One stage of inverted residual blocks: expansion t, output channels c (before
// the width scaling), block count n, stride s of its first block.
struct Stage {
  int32_t expansion;
  int32_t channels;
  int32_t blocks;
  int32_t stride;
};
constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
constexpr int32_t kStageCount = sizeof(kStages) / sizeof(kStages[0]);
constexpr int32_t kStemChannels = 32;
constexpr int32_t kHeadChannels = 1280;
constexpr int32_t kChannelDivisor = 8;

constexpr int32_t kMinInputSize = 32;
constexpr int32_t kMaxInputSize = 1024;
constexpr int32_t kMinWidthPercent = 10;
constexpr int32_t kMaxWidthPercent = 200;
constexpr int32_t kMaxClasses = 100000;

constexpr tflite::ActivationFunctionType kRelu6 = tflite::ActivationFunctionType::RELU6;
constexpr tflite::ActivationFunctionType kLinear = tflite::ActivationFunctionType::NONE;
// The accumulator spreads the folded batch normalizations give (FilterLayer::
// output_spread): RELU6 layers span [0, 6] with 3 s, as calibrated MobileNetV2s
// do; the linear projections, the residual stream, are about half that.
constexpr double kRelu6Spread = 2.0;
constexpr double kProjectionSpread = 1.0;

// Keras's _make_divisible(v, 8) of v = hundredths / 100, in integers so that no
// float rounding decides a channel count: the nearest multiple of 8 (halves up),
// at least 8, raised by 8 when that lost more than 10% of v.
int32_t MakeDivisible(int64_t hundredths) {
  int64_t channels = (hundredths + 100 * kChannelDivisor / 2) / 100 / kChannelDivisor * kChannelDivisor;
  channels = std::max<int64_t>(kChannelDivisor, channels);
  if (channels * 1000 < 9 * hundredths) channels += kChannelDivisor;
  return static_cast<int32_t>(channels);
}

// A block's output channels: Keras truncates channels x alpha to an integer first.
int32_t BlockChannels(int32_t channels, int32_t width_percent) {
  return MakeDivisible(int64_t{channels} * width_percent / 100 * 100);
}

Status CheckRange(const char* name, int64_t value, int64_t low, int64_t high) {
  if (value >= low && value <= high) return OkStatus();
  return Status::Error(ErrorCode::kInvalidArgument, "MobileNetV2Options::%s is %lld, outside [%lld, %lld]", name,
                       static_cast<long long>(value), static_cast<long long>(low), static_cast<long long>(high));
}

class MobileNetV2Writer {
 public:
  explicit MobileNetV2Writer(const MobileNetV2Options& options) : options_(options), writer_(options.seed) {}

  std::vector<uint8_t> Write() {
    const int32_t size = options_.input_size;
    // preprocess_input maps pixels to [-1, 1]; uniform there: rms = 1 / sqrt(3).
    QuantizedActivation x = writer_.AddInput("input", {1, size, size, 3}, -1.0, 1.0, 1.0 / std::sqrt(3.0));
    x = AddStrideTwoPad("stem/pad", x);
    x = writer_.AddConv2d("stem/conv", x,
                          {3, 3, 2, tflite::Padding::VALID,
                           MakeDivisible(int64_t{kStemChannels} * options_.width_percent), kRelu6, kRelu6Spread});
    int block = 0;
    for (int32_t s = 0; s < options_.last_stage; ++s) {
      const Stage& stage = kStages[s];
      const int32_t channels = BlockChannels(stage.channels, options_.width_percent);
      for (int32_t i = 0; i < stage.blocks; ++i) {
        x = AddInvertedResidual("block" + std::to_string(block++), x, stage.expansion, channels,
                                i == 0 ? stage.stride : 1);
      }
    }
    if (options_.last_stage == kStageCount) {
      // The head keeps its 1280 channels for narrow models (Keras: only alpha > 1 scales it).
      const int32_t channels = options_.width_percent > 100
                                   ? MakeDivisible(int64_t{kHeadChannels} * options_.width_percent)
                                   : kHeadChannels;
      x = writer_.AddConv2d("head/conv", x, {1, 1, 1, tflite::Padding::SAME, channels, kRelu6, kRelu6Spread});
    }
    x = writer_.AddAveragePool("pool", x);
    x = writer_.AddReshape("reshape", x);
    x = writer_.AddFullyConnected("fc", x, options_.classes);
    const QuantizedActivation output = writer_.AddSoftmax("softmax", x);
    const std::string description = "microarena MobileNetV2: " + std::to_string(size) + "x" + std::to_string(size) +
                                    ", width " + std::to_string(options_.width_percent) + "%, " +
                                    std::to_string(options_.last_stage) + " of 7 stages, " +
                                    std::to_string(options_.classes) + " classes, int8";
    return writer_.Finish(output, description);
  }

 private:
  // Keras's correct_pad before a stride-2 3x3 'valid' window.
  QuantizedActivation AddStrideTwoPad(const std::string& prefix, const QuantizedActivation& input) {
    return writer_.AddPad(prefix, input, input.shape[1] % 2, 1, input.shape[2] % 2, 1);
  }

  QuantizedActivation AddInvertedResidual(const std::string& prefix, const QuantizedActivation& input,
                                          int32_t expansion, int32_t channels, int32_t stride) {
    QuantizedActivation x = input;
    const int32_t in_channels = input.shape[3];
    if (expansion != 1) {
      x = writer_.AddConv2d(prefix + "/expand", x,
                            {1, 1, 1, tflite::Padding::SAME, in_channels * expansion, kRelu6, kRelu6Spread});
    }
    tflite::Padding padding = tflite::Padding::SAME;
    if (stride == 2) {
      x = AddStrideTwoPad(prefix + "/pad", x);
      padding = tflite::Padding::VALID;
    }
    x = writer_.AddDepthwiseConv2d(prefix + "/depthwise", x, {3, 3, stride, padding, x.shape[3], kRelu6, kRelu6Spread});
    x = writer_.AddConv2d(prefix + "/project", x,
                          {1, 1, 1, tflite::Padding::SAME, channels, kLinear, kProjectionSpread});
    if (stride == 1 && in_channels == channels) x = writer_.AddAdd(prefix + "/add", input, x);
    return x;
  }

  MobileNetV2Options options_;
  QuantizedModelWriter writer_;
};

}  // namespace

Result<std::vector<uint8_t>> BuildMobileNetV2Model(const MobileNetV2Options& options) {
  MICROARENA_RETURN_IF_ERROR(CheckRange("input_size", options.input_size, kMinInputSize, kMaxInputSize));
  MICROARENA_RETURN_IF_ERROR(CheckRange("width_percent", options.width_percent, kMinWidthPercent, kMaxWidthPercent));
  MICROARENA_RETURN_IF_ERROR(CheckRange("classes", options.classes, 1, kMaxClasses));
  MICROARENA_RETURN_IF_ERROR(CheckRange("last_stage", options.last_stage, 1, kStageCount));
  return MobileNetV2Writer(options).Write();
}

}  // namespace microarena
