// The demo model: a keyword-spotting DS-CNN generated from code (host only).
//
// The classic "fits a 64 KB Cortex-M4" keyword spotter: 49 frames x 10 MFCC
// features in, 12 keyword scores out, int8 throughout, shaped like the DS-CNN of
// Arm's ML-KWS-for-MCU and written exactly as the TFLite converter would write it
// after full-integer post-training quantization. It lets examples, benchmarks and
// tests use a realistic model without shipping a third-party file.
//
//   op  operator                     output           activation bytes
//   0   CONV_2D 10x4 /2 SAME, RELU   1x25x5x64        8000
//   1   DEPTHWISE_CONV_2D 3x3 SAME   1x25x5x64        8000   } block 1
//   2   CONV_2D 1x1, RELU            1x25x5x64        8000   }
//   3..8  blocks 2..4, the same      1x25x5x64        8000 each
//   9   AVERAGE_POOL_2D 25x5 VALID   1x1x1x64         64
//   10  RESHAPE                      1x64             64
//   11  FULLY_CONNECTED              1x12             12
//   12  SOFTMAX                      1x12             12
//
// Tensor names are "<layer>/<role>": "input", "conv1/weights", "conv1/bias",
// "conv1/output", "dw1/..", "pw1/..", ..., "pool/output", "reshape/shape",
// "reshape/output", "fc/weights", "fc/bias", "fc/output", "softmax/output".
//
// Quantization follows TFLite's int8 rules:
//  - weights: symmetric (zero point 0), values in [-127, 127], one scale per output
//    channel (quantized_dimension 0 for CONV_2D filters, 3 for DEPTHWISE_CONV_2D
//    filters); FULLY_CONNECTED weights per tensor, the converter's default
//  - biases: int32, zero point 0, scale = input scale x weight scale (per channel)
//  - activations: asymmetric per tensor; RELU outputs have zero point -128;
//    AVERAGE_POOL_2D and RESHAPE keep their input's parameters; SOFTMAX output has
//    scale 1/256 and zero point -128
// Weights and biases are pseudo-random (a fixed-seed LCG). Each activation scale
// is derived from the layer's expected accumulator range (see demo_model.cc), the
// way calibration would set it, so activations neither vanish nor all saturate.
//
// Generation is deterministic: every call returns the same bytes on every host
// (integer arithmetic plus IEEE-exact double operations only).
#pragma once

#include <cstdint>
#include <vector>

namespace microarena {

// The demo model as a .tflite file (about 43 KB: 24 KB of weights and biases, the
// rest mostly per-channel quantization parameters).
std::vector<uint8_t> BuildDemoModel();

}  // namespace microarena
