// Inputs and figures shared by the convolution oracle tests
// (conv_16x8_oracle_test.cc, transpose_conv_oracle_test.cc): deterministic
// value spreads, per-channel filter scales, and the oracle's minimum arena.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

namespace microarena::testing {

inline size_t ElementCount(const std::vector<int32_t>& shape) {
  size_t n = 1;
  for (int32_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// n values of T: the type's extremes and small values first, then a
// deterministic spread over the whole range (`seed` varies the order), every
// third one small.
template <typename T>
std::vector<T> SpreadValues(size_t n, uint32_t seed) {
  constexpr int64_t kMin = std::numeric_limits<T>::min();
  constexpr int64_t kMax = std::numeric_limits<T>::max();
  std::vector<T> values = {static_cast<T>(kMin), static_cast<T>(kMax), 0, 1, static_cast<T>(-1)};
  uint32_t state = seed * 2654435761u + 1;
  while (values.size() < n) {
    state = state * 1664525u + 1013904223u;
    const int64_t v = kMin + static_cast<int64_t>(state >> 8) % (kMax - kMin + 1);
    values.push_back(static_cast<T>(values.size() % 3 == 0 ? v % 16 : v));
  }
  values.resize(n);
  return values;
}

// n floats in [-2, 2) with a few exact zeros and negative zeros.
inline std::vector<float> SpreadFloats(size_t n, uint32_t seed) {
  std::vector<float> values;
  uint32_t state = seed * 2654435761u + 7;
  while (values.size() < n) {
    state = state * 1664525u + 1013904223u;
    const float v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
    values.push_back(values.size() % 11 == 0 ? (values.size() % 2 == 0 ? 0.0f : -0.0f) : v);
  }
  return values;
}

// `channels` filter scales around `base`, each a little different, so that
// every channel gets its own multiplier.
inline std::vector<float> ChannelScales(size_t channels, float base) {
  std::vector<float> scales;
  for (size_t c = 0; c < channels; ++c) scales.push_back(base * (1.0f + 0.37f * static_cast<float>(c % 5)));
  return scales;
}

// `count` INT4 values packed two per byte, low nibble first; every nibble
// 0x0-0xF (-8..7) appears, drawn from `seed`.
inline Bytes PackedInt4(size_t count, uint32_t seed) {
  Bytes packed((count + 1) / 2, 0);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1103515245u + 12345u;
    const auto nibble = static_cast<uint8_t>((seed >> 16) & 0xF);
    packed[i / 2] = static_cast<uint8_t>(packed[i / 2] | (i % 2 == 0 ? nibble : nibble << 4));
  }
  return packed;
}

// The oracle's `key=` figure (e.g. min_arena_bytes) from its default
// search run on `model` with generated inputs; 0 (with a gtest failure) when
// the oracle gives none.
inline size_t OracleFigure(const std::string& name, const Bytes& model, const std::string& key) {
  const std::map<std::string, size_t> summary = OracleSummary(name, model);
  const auto it = summary.find(key);
  EXPECT_NE(it, summary.end()) << name << ": no " << key << " from the oracle";
  return it == summary.end() ? 0 : it->second;
}

}  // namespace microarena::testing
