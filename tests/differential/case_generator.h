// Random small models for differential testing against TFLM: each case is a
// model (ModelBuilder) and its input bytes, drawn from a seed. The same seed
// gives the same case on every machine (a generator of our own, no standard
// distributions, whose output the C++ library leaves unspecified).
//
// Covered: ADD, SUB, MUL (with broadcasting and fused activations), RELU,
// RELU6, LEAKY_RELU, HARD_SWISH, LOGISTIC, TANH, SOFTMAX, CONV_2D and
// DEPTHWISE_CONV_2D (strides, dilations, SAME/VALID, per-channel filters,
// depth multipliers), FULLY_CONNECTED, AVERAGE_POOL_2D, MAX_POOL_2D and MEAN,
// int8 with random shapes, scales and zero points, plus float32 forms of the
// ops whose kernels take float. EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER
// and GREATER_EQUAL (int8 with scales below 1, float32, int32; broadcasting;
// values drawn to tie often). IF (one shape-keeping op per branch) and WHILE
// (a float counter below a limit of 0..4 and one shape-keeping op in the
// body), int8 and float32. Shapes stay small (a few KB per tensor) so that
// thousands of cases run in minutes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace microarena::differential {

struct GeneratedCase {
  uint64_t seed = 0;
  std::string op;           // e.g. "CONV_2D int8"
  std::string description;  // shapes and parameters, for a failure message
  std::vector<uint8_t> model;
  std::vector<std::vector<uint8_t>> inputs;
};

// The case for `seed`; its kind is seed % the number of case kinds.
GeneratedCase GenerateCase(uint64_t seed);

// How many kinds of case there are (each seed picks one).
uint64_t CaseKindCount();

}  // namespace microarena::differential
