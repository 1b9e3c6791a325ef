// Builders and input generators for the one-op oracle tests of the
// elementwise, shape and data-movement kernels: models with any number of
// inputs (activations or constants) and outputs, and deterministic values of
// every tensor type with its extremes first.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "microarena/model/model_builder.h"
#include "microarena/model/tensor_type.h"
#include "tests/support/oracle_support.h"

namespace microarena::testing {

// The values of an INT32 tensor, as its bytes.
inline Bytes Int32s(const std::vector<int32_t>& values) { return BytesOf(values); }

// A type's name in test names and messages ("INT8", ...).
inline std::string Name(TensorType type) { return TensorTypeName(type); }

// A reduction (MEAN, SUM, REDUCE_MAX, ...): input shape and reduced axes.
struct ReduceCase {
  std::vector<int32_t> shape;
  std::vector<int32_t> axes;
};

// The output shape of reducing `c` (TFLite's rule; negative axes count from the end).
inline std::vector<int32_t> ReducedShape(const ReduceCase& c, bool keep_dims) {
  std::vector<bool> reduced(c.shape.size(), false);
  for (int32_t a : c.axes) reduced[static_cast<size_t>(a < 0 ? a + static_cast<int32_t>(c.shape.size()) : a)] = true;
  std::vector<int32_t> out;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(c.shape[d]);
    } else if (keep_dims) {
      out.push_back(1);
    }
  }
  return out;
}

// One operand: type and shape, a per-tensor quantization when scale > 0, and
// constant data when `constant` is non-empty. `scale_only` writes the scale
// without a zero point (TFLM's loader then records no quantization).
struct Operand {
  TensorType type;
  std::vector<int32_t> shape;
  float scale = 0.0f;
  int64_t zero_point = 0;
  Bytes constant = {};
  bool scale_only = false;
};

inline size_t Count(const std::vector<int32_t>& shape) {
  size_t n = 1;
  for (int32_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// A model of one op; graph inputs are the non-constant inputs, in order.
inline Bytes OpModel(BuiltinOp op, tflite::BuiltinOptionsUnion options, const std::vector<Operand>& inputs,
                     const std::vector<Operand>& outputs) {
  ModelBuilder builder;
  auto spec_of = [](const std::string& name, const Operand& operand) {
    QuantizationSpec quantization;
    if (operand.scale > 0.0f) quantization = QuantizationSpec::PerTensor(operand.scale, operand.zero_point);
    if (operand.scale_only) quantization.zero_points.clear();
    return TensorSpec{name, operand.type, operand.shape, 0, quantization};
  };
  OperatorSpec spec;
  spec.op = op;
  std::vector<int32_t> graph_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    if (!inputs[i].constant.empty()) {
      spec.inputs.push_back(builder.AddConstantTensor(spec_of(name, inputs[i]), inputs[i].constant));
    } else {
      const int32_t t = builder.AddTensor(spec_of(name, inputs[i]));
      spec.inputs.push_back(t);
      graph_inputs.push_back(t);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    spec.outputs.push_back(builder.AddTensor(spec_of("out" + std::to_string(i), outputs[i])));
  }
  const std::vector<int32_t> graph_outputs = spec.outputs;
  spec.options = std::move(options);
  builder.AddOperator(std::move(spec));
  builder.SetInputs(graph_inputs);
  builder.SetOutputs(graph_outputs);
  return builder.Build();
}

inline uint32_t NextRandom(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

// n values of `type`: its extremes and small values first, then a
// deterministic spread (`seed` varies it). `nonzero` leaves out zeros (for
// divisors of ops that fail or trap on them).
inline Bytes Values(TensorType type, size_t n, uint32_t seed, bool nonzero = false) {
  uint32_t state = seed * 2654435761u + 7;
  switch (type) {
    case TensorType::kFloat32: {
      const float inf = std::numeric_limits<float>::infinity();
      std::vector<float> v = {0.0f,
                              -0.0f,
                              1.0f,
                              -1.0f,
                              2.5f,
                              -2.5f,
                              7.0f,
                              -7.0f,
                              3.0f,
                              -3.0f,
                              inf,
                              -inf,
                              std::numeric_limits<float>::quiet_NaN(),
                              1e30f,
                              -1e-30f,
                              0.1f,
                              -0.75f};
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(seed % 5));  // vary the pairs
      while (v.size() < n) {
        const uint32_t r = NextRandom(&state);
        // Integers (exact quotients and remainders) and fractions, both signs.
        const float value = r % 3 == 0 ? static_cast<float>(static_cast<int>(r % 41) - 20)
                                       : (static_cast<float>(r % 20001) - 10000.0f) / 997.0f;
        v.push_back(value);
      }
      v.resize(n);
      if (nonzero) {
        for (float& f : v) {
          if (f == 0.0f) f = 0.5f;
        }
      }
      return BytesOf(v);
    }
    case TensorType::kInt8:
    case TensorType::kUInt8: {
      std::vector<int8_t> v = {-128, 127, 0, 1, -1, -127, 126, 64, -64};
      while (v.size() < n) v.push_back(static_cast<int8_t>(NextRandom(&state)));
      v.resize(n);
      return BytesOf(v);
    }
    case TensorType::kBool: {
      Bytes v(n);
      for (auto& b : v) b = static_cast<uint8_t>(NextRandom(&state) & 1u);
      return v;
    }
    case TensorType::kInt16: {
      std::vector<int16_t> v = {-32768, 32767, 0, 1, -1, 16384, -16384, 255, -256};
      while (v.size() < n) {
        const auto r = static_cast<int16_t>(NextRandom(&state));
        v.push_back(v.size() % 3 == 0 ? static_cast<int16_t>(r % 64) : r);
      }
      v.resize(n);
      return BytesOf(v);
    }
    case TensorType::kInt32:
    case TensorType::kUInt32: {
      std::vector<int32_t> v = {std::numeric_limits<int32_t>::min() + 1,
                                std::numeric_limits<int32_t>::max(),
                                0,
                                1,
                                -1,
                                7,
                                -7,
                                46341,
                                -46341,
                                100000};
      while (v.size() < n) {
        const auto r = static_cast<int32_t>(NextRandom(&state) * 2654435761u);
        v.push_back(v.size() % 2 == 0 ? static_cast<int32_t>(r % 1000) : r);
      }
      v.resize(n);
      if (nonzero) {
        for (int32_t& x : v) {
          if (x == 0) x = 3;
        }
      }
      return BytesOf(v);
    }
    case TensorType::kInt64: {
      std::vector<int64_t> v = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 0, 1, -1};
      while (v.size() < n) {
        const uint64_t r = (static_cast<uint64_t>(NextRandom(&state)) << 40) ^ NextRandom(&state);
        v.push_back(v.size() % 2 == 0 ? static_cast<int64_t>(r % 100) - 50 : static_cast<int64_t>(r));
      }
      v.resize(n);
      return BytesOf(v);
    }
    default: {
      // Other fixed-size types (FLOAT16, FLOAT64, UINT16, ...): byte patterns.
      const size_t bytes = TensorTypeBits(type) / 8;
      Bytes v(n * bytes);
      for (auto& b : v) b = static_cast<uint8_t>(NextRandom(&state));
      return v;
    }
  }
}

// Runs `model` in microarena and in TFLM; both must fail, and ours with a
// message containing `fragment`.
inline void ExpectBothRefuse(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                             const std::string& fragment, size_t arena_bytes = size_t{1} << 20) {
  EXPECT_FALSE(RunOracleOn(name, model, inputs, arena_bytes).ok) << name;
  const Outcome ours = RunOursOn(model, inputs);
  ASSERT_FALSE(ours.ok) << name;
  EXPECT_NE(ours.error.find(fragment), std::string::npos) << name << ": " << ours.error;
}

// Ours must refuse (TFLM crashes or reads out of bounds on this model).
inline void ExpectWeRefuse(const Bytes& model, const std::vector<Bytes>& inputs, const std::string& fragment) {
  const Outcome ours = RunOursOn(model, inputs);
  ASSERT_FALSE(ours.ok);
  EXPECT_NE(ours.error.find(fragment), std::string::npos) << ours.error;
}

}  // namespace microarena::testing
