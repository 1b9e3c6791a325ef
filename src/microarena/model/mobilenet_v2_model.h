// MobileNetV2 generated from code (host only): an int8 image classifier the size
// of the ones people put on large microcontrollers, without shipping a
// third-party file.
//
// The graph is the one the TFLite converter writes for Keras's MobileNetV2
// (include_top=True) after full-integer post-training quantization, with every
// batch normalization folded into the convolution before it:
//
//   input 1xHxWx3 (real range [-1, 1], what preprocess_input gives)
//   stem/pad, stem/conv        PAD correct_pad + CONV_2D 3x3 /2 VALID, RELU6 -> 32 ch
//   block0 .. block16          the inverted residual blocks of stages (t, c, n, s):
//       (1, 16, 1, 1) (6, 24, 2, 2) (6, 32, 3, 2) (6, 64, 4, 2)
//       (6, 96, 3, 1) (6, 160, 3, 2) (6, 320, 1, 1)
//     blockN/expand            CONV_2D 1x1 to in x t channels, RELU6 (not when t = 1)
//     blockN/pad               PAD correct_pad (stride 2 only)
//     blockN/depthwise         DEPTHWISE_CONV_2D 3x3, RELU6: /2 VALID after the pad,
//                              /1 SAME otherwise
//     blockN/project           CONV_2D 1x1 to c channels, linear
//     blockN/add               ADD of the block's input (stride 1, in = c only)
//   head/conv                  CONV_2D 1x1 to 1280, RELU6 (after stage 7 only)
//   pool                       AVERAGE_POOL_2D over the whole map, VALID
//   reshape                    RESHAPE to 1xC
//   fc                         FULLY_CONNECTED to `classes`
//   softmax                    SOFTMAX
//
// correct_pad is Keras's padding for a stride-2 3x3 'valid' window: one row and
// column after, plus one before when the size is odd. Channel counts are scaled
// by width_percent and rounded as Keras's _make_divisible does (a multiple of 8,
// at least 8, at most 10% below the scaled count); the 1280 of head/conv only
// grows (width above 100). Tensor names are "<layer>/<role>", as in demo_model.h.
//
// Quantization and the prediction of activation ranges are quantized_layers.h's:
// per-channel int8 weights, int32 biases, RELU6 outputs in [0, min(6, predicted)],
// linear projections symmetric around 0, ADD with its own range from its two
// inputs', PAD keeping its input's parameters. Each convolution's weights are
// scaled as its folded batch normalization would leave them: a predicted spread
// of 2 before RELU6 (so its range is [0, 6], as in calibrated MobileNetV2s) and
// of 1 for the projections, so the residual sums stay in range however deep.
// Generation is deterministic: the same options give the same bytes on every host.
#pragma once

#include <cstdint>
#include <vector>

#include "microarena/base/result.h"

namespace microarena {

struct MobileNetV2Options {
  int32_t input_size = 224;     // H = W, in [32, 1024] (Keras's minimum is 32)
  int32_t width_percent = 100;  // Keras's alpha in percent, in [10, 200]
  int32_t classes = 1000;       // outputs of the classifier, in [1, 100000]
  // The bottleneck stages built, in [1, 7]: the first `last_stage` ones. Below 7
  // the head's 1x1 CONV_2D is left out too and the pool reads the stage's output,
  // so tests can build a small, fast variant.
  int32_t last_stage = 7;
  uint64_t seed = 20180113;  // of the weights and biases
};

// The model as a .tflite file (4.0 MB with the defaults: 3.47 M int8 weights,
// 18 K int32 biases, the rest mostly per-channel scales); kInvalidArgument naming
// the option when one is out of range.
Result<std::vector<uint8_t>> BuildMobileNetV2Model(const MobileNetV2Options& options = MobileNetV2Options());

}  // namespace microarena
