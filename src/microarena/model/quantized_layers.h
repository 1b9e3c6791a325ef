// Int8 layers for the models microarena generates from code (host only): the
// demo model (demo_model.h) and MobileNetV2 (mobilenet_v2_model.h).
//
//   QuantizedModelWriter writer(/*seed=*/7);
//   QuantizedActivation x = writer.AddInput("input", {1, 32, 32, 3}, -1.0, 1.0, rms);
//   x = writer.AddConv2d("conv", x, {3, 3, 2, tflite::Padding::SAME, 16, tflite::ActivationFunctionType::RELU6});
//   x = writer.AddAveragePool("pool", x);
//   ...
//   std::vector<uint8_t> file = writer.Finish(x, "description");
//
// Each layer is written as the TFLite converter writes it after full-integer
// post-training quantization:
//  - weights: symmetric (zero point 0), values in [-127, 127], one scale per output
//    channel (quantized_dimension 0 for CONV_2D filters, 3 for DEPTHWISE_CONV_2D
//    filters); FULLY_CONNECTED weights per tensor, the converter's default
//  - biases: int32, zero point 0, scale = input scale x weight scale (per channel)
//  - activations: asymmetric per tensor; PAD, AVERAGE_POOL_2D and RESHAPE keep
//    their input's parameters; SOFTMAX output has scale 1/256 and zero point -128
//  - operator code versions: the ones the converter assigns with int8 tensors
// Weights and biases are pseudo-random (an LCG seeded by the caller).
//
// How the activation ranges are chosen. Calibration in the converter runs sample
// data through the float model and records each tensor's range. Here the range is
// predicted instead, from the statistics of an accumulator: an output value is a
// sum of K products x * w with weights independent of the inputs and of mean zero,
// so its standard deviation is
//
//   s = sqrt(K) * rms(x) * rms(w)          (real units; K = fan-in of one output)
//
// and the layer's output range is taken as 3 s: [0, 3 s] after RELU (zero point
// -128), [0, min(6, 3 s)] after RELU6, [-3 s, 3 s] for a linear layer and
// [-3 s, 3.5 s] for the logits of FULLY_CONNECTED. After RELU the next layer's
// input has rms = s / sqrt(2) (half of a zero-mean bell curve; min(s, 6) / sqrt(2)
// after RELU6, whose clipped values sit at 6). Weight maxima are drawn around
// sqrt(6 / K) (He initialisation), which keeps s about constant from layer to
// layer, as in a trained network (or a layer asks for its s, see
// FilterLayer::output_spread). ADD sums two independent values: the rms and each
// end of the range add as squares.
//
// Only integer arithmetic and IEEE-exact double operations (+ - * / sqrt) are
// used, so the bytes are the same on every host.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "microarena/model/model_builder.h"

namespace microarena {

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

// TFLite's asymmetric int8 parameters (scale, zero point) for the real range
// [min_real, max_real], widened to contain 0 so that 0 is exactly representable.
std::pair<float, int32_t> AffineForRange(double min_real, double max_real);

// A quantized activation tensor and what the next layer needs to know about it.
struct QuantizedActivation {
  int32_t tensor_index = -1;
  std::vector<int32_t> shape;
  float scale = 1.0f;
  int32_t zero_point = 0;
  double rms_real = 0.0;  // expected root-mean-square of the real values

  // The real values int8 -128 and 127 stand for.
  double min_real() const { return static_cast<double>(scale) * (-128.0 - zero_point); }
  double max_real() const { return static_cast<double>(scale) * (127.0 - zero_point); }
};

// A CONV_2D or DEPTHWISE_CONV_2D (depth multiplier 1) layer.
struct FilterLayer {
  int32_t kernel_h = 1;
  int32_t kernel_w = 1;
  int32_t stride = 1;  // the same along H and W
  tflite::Padding padding = tflite::Padding::SAME;
  int32_t channels = 0;  // output channels of CONV_2D; DEPTHWISE_CONV_2D keeps its input's
  // NONE (linear), RELU or RELU6: the output range follows (see above).
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::RELU;
  // 0: the weights as drawn (He initialisation: s follows the input's rms). Above
  // 0: the s the weights are rescaled to (their scales; the int8 values stay), as
  // a batch normalization folded into them sets it. Without it the residual sums
  // of a deep network grow from block to block until RELU6 clips most values.
  double output_spread = 0.0;
};

// Adds quantized layers, in execution order, to one subgraph. Tensor names are
// "<prefix>/<role>": "/weights", "/bias", "/output", "/paddings", "/shape".
class QuantizedModelWriter {
 public:
  explicit QuantizedModelWriter(uint64_t seed) : random_(seed) {}

  // The model's input: real values in [min_real, max_real] with the given rms.
  QuantizedActivation AddInput(const std::string& name, std::vector<int32_t> shape, double min_real,
                               double max_real, double rms_real);
  QuantizedActivation AddConv2d(const std::string& prefix, const QuantizedActivation& input, const FilterLayer& layer);
  QuantizedActivation AddDepthwiseConv2d(const std::string& prefix, const QuantizedActivation& input,
                                         const FilterLayer& layer);
  // PAD of an NHWC tensor with zeros (the output keeps the input's quantization,
  // so the padding is the zero point: real 0).
  QuantizedActivation AddPad(const std::string& prefix, const QuantizedActivation& input, int32_t top,
                             int32_t bottom, int32_t left, int32_t right);
  // ADD of two tensors of one shape, with its own output range.
  QuantizedActivation AddAdd(const std::string& prefix, const QuantizedActivation& a, const QuantizedActivation& b);
  // AVERAGE_POOL_2D over the whole H x W map (VALID): 1x1x1xC.
  QuantizedActivation AddAveragePool(const std::string& prefix, const QuantizedActivation& input);
  // RESHAPE of a 1x1x1xC tensor to 1xC.
  QuantizedActivation AddReshape(const std::string& prefix, const QuantizedActivation& input);
  // FULLY_CONNECTED to `units` logits (weights per tensor, no activation).
  QuantizedActivation AddFullyConnected(const std::string& prefix, const QuantizedActivation& input,
                                        int32_t units);
  QuantizedActivation AddSoftmax(const std::string& prefix, const QuantizedActivation& input);

  // Makes `output` the model's output, adds the converter's metadata and the
  // description, and packs the file.
  std::vector<uint8_t> Finish(const QuantizedActivation& output, std::string description);
  // The same with several outputs, in order.
  std::vector<uint8_t> Finish(const std::vector<QuantizedActivation>& outputs, std::string description);

 private:
  int32_t AddActivationTensor(const std::string& name, const QuantizedActivation& activation);
  void AddOp(BuiltinOp op, int32_t version, std::vector<int32_t> inputs, int32_t output,
             tflite::BuiltinOptionsUnion options);

  ModelBuilder builder_;
  Lcg random_;
};

}  // namespace microarena
