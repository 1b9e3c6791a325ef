// SplitMix64: a small deterministic 64-bit generator (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014). The same
// sequence on every platform, unlike <random>'s distributions: what seeded
// problem generators and corruption tests need. Not for cryptography.
#pragma once

#include <cstdint>

namespace microarena {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix(state_ += 0x9E3779B97F4A7C15ULL); }

  // The output function alone: a strong 64-bit mixer (for hashing too).
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace microarena
