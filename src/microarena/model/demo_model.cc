#include "microarena/model/demo_model.h"

#include <cmath>
#include <string>

#include "microarena/model/quantized_layers.h"

// The layers, their quantization and how the activation scales are predicted are
// quantized_layers.h's; this file only says which layers, in which order.

namespace microarena {
namespace {

constexpr uint64_t kSeed = 20240601;
constexpr int32_t kChannels = 64;
constexpr int32_t kKeywords = 12;
constexpr int kBlockCount = 4;

}  // namespace

std::vector<uint8_t> BuildDemoModel() {
  QuantizedModelWriter writer(kSeed);
  // MFCC features, real range [-6, 10], uniform: rms = sqrt((10^3 + 6^3) / (3 * 16)).
  QuantizedActivation x = writer.AddInput("input", {1, 49, 10, 1}, -6.0, 10.0, std::sqrt((1000.0 + 216.0) / 48.0));
  x = writer.AddConv2d("conv1", x,
                       {/*kernel_h=*/10, /*kernel_w=*/4, /*stride=*/2, tflite::Padding::SAME, kChannels,
                        tflite::ActivationFunctionType::RELU});
  for (int block = 1; block <= kBlockCount; ++block) {
    x = writer.AddDepthwiseConv2d("dw" + std::to_string(block), x,
                                  {3, 3, 1, tflite::Padding::SAME, kChannels, tflite::ActivationFunctionType::RELU});
    x = writer.AddConv2d("pw" + std::to_string(block), x,
                         {1, 1, 1, tflite::Padding::SAME, kChannels, tflite::ActivationFunctionType::RELU});
  }
  x = writer.AddAveragePool("pool", x);
  x = writer.AddReshape("reshape", x);
  x = writer.AddFullyConnected("fc", x, kKeywords);
  const QuantizedActivation output = writer.AddSoftmax("softmax", x);
  return writer.Finish(output, "microarena demo model: keyword-spotting DS-CNN, int8");
}

}  // namespace microarena
