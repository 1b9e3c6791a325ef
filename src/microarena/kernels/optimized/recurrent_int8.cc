#include "microarena/kernels/optimized/recurrent_int8.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

#include "microarena/kernels/fixed_point.h"
#include "microarena/kernels/optimized/int8_dot.h"
#include "microarena/kernels/optimized/requantize.h"

namespace microarena::optimized {
namespace {

// The bias of unit o as the accumulator's start (sums are modulo 2^32).
MICROARENA_ALWAYS_INLINE uint32_t BiasStart(const int32_t* bias, int32_t o) {
  return bias != nullptr ? static_cast<uint32_t>(bias[o]) : 0U;
}

// Dot1x4Strided in a frame of its own. Inlined into the loops below at
// -O2, its assembly (eleven registers) leaves GCC too few for the values
// the callers keep live ("impossible constraints"). -Os calls
// Dot1x4Strided out of line by itself: there the wrapper is inlined, so as
// not to add a frame to Invoke's deepest stack.
#ifdef __OPTIMIZE_SIZE__
MICROARENA_ALWAYS_INLINE
#else
[[gnu::noinline]]
#endif
void Dot1x4(const int8_t* x, const int8_t* w, int32_t stride, int32_t count, int32_t offset, uint32_t* acc) {
  Dot1x4Strided(x, w, stride, count, offset, acc);
}

// One input row x (depth values) against `units` weight rows of depth
// values each: store(o, sum) receives unit o's sum, bias included. Four
// rows per pass of x (Dot1x4), then one at a time: with only these
// two loops the caller's frame stays small on Invoke's deepest stack.
template <typename Store>
MICROARENA_ALWAYS_INLINE void RowTimesWeights(const int8_t* x, const int8_t* weights, int32_t depth, int32_t units,
                                              int32_t offset, const int32_t* bias, const Store& store) {
  int32_t o = 0;
  for (; o + 4 <= units; o += 4) {
    uint32_t acc[4] = {BiasStart(bias, o), BiasStart(bias, o + 1), BiasStart(bias, o + 2), BiasStart(bias, o + 3)};
    Dot1x4(x, weights + static_cast<ptrdiff_t>(o) * depth, depth, depth, offset, acc);
    for (int32_t i = 0; i < 4; ++i) store(o + i, acc[i]);
  }
  for (; o < units; ++o) {
    store(o, Dot1x1(x, weights + static_cast<ptrdiff_t>(o) * depth, depth, offset, BiasStart(bias, o)));
  }
}

// value clamped to [low, high]. (std::min and std::max return references:
// at -Os GCC then keeps the bounds in stack slots.)
MICROARENA_ALWAYS_INLINE int32_t Saturate(int32_t value, int32_t low, int32_t high) {
  value = value < low ? low : value;
  return value > high ? high : value;
}

// The output stages of RowTimesWeights, inlined at every optimisation level
// (at -Os a lambda would be called once per output, and its captures would
// widen the caller's frame on Invoke's deepest stack).

// SVDF's step 2: the sum requantized and saturated to StateT, then the
// zero point added and narrowed (wrapping, as the reference), into the
// newest column of filter f's memory.
template <typename StateT>
struct StoreNewestState {
  StateT* newest;  // filter 0's newest value; filter f's is memory_size further each
  int32_t memory_size;
  int32_t multiplier;
  int32_t shift;
  int32_t zero_point;
  MICROARENA_ALWAYS_INLINE void operator()(int32_t f, uint32_t acc) const {
    constexpr int32_t kMin = std::numeric_limits<StateT>::min();
    constexpr int32_t kMax = std::numeric_limits<StateT>::max();
    const int32_t value = MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), multiplier, shift);
    newest[static_cast<ptrdiff_t>(f) * memory_size] = static_cast<StateT>(zero_point + Saturate(value, kMin, kMax));
  }
};

// An LSTM gate's output: the sum requantized and saturated to int16.
struct StoreGate {
  int16_t* out;
  int32_t multiplier;
  int32_t shift;
  MICROARENA_ALWAYS_INLINE void operator()(int32_t o, uint32_t acc) const {
    const int32_t value = MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), multiplier, shift);
    out[o] = static_cast<int16_t>(Saturate(value, -32768, 32767));
  }
};

// sum over m of weights[m] * (state[m] - zero_point), modulo 2^32.
MICROARENA_ALWAYS_INLINE uint32_t TimeDot(const int8_t* state, const int8_t* weights, int32_t count,
                                          int32_t zero_point) {
  return Dot1x1(state, weights, count, -zero_point, 0U);
}

MICROARENA_ALWAYS_INLINE uint32_t TimeDot(const int16_t* state, const int16_t* weights, int32_t count,
                                          int32_t zero_point) {
#if MICROARENA_ARM_DSP
  // Two halves per word: SMLAD sums w * s over a pair, and over the
  // weights alone (times 1 in both halves) when the zero point needs
  // sum(w). Both wrap modulo 2^32, as the reference's sum.
  int32_t products = 0;
  int32_t weight_sum = 0;
  int32_t m = 0;
  if (zero_point == 0) {
    for (; m + 2 <= count; m += 2) {
      Packed s, w;
      std::memcpy(&s, state + m, sizeof(s));
      std::memcpy(&w, weights + m, sizeof(w));
      products = Mac2(s, w, products);
    }
  } else {
    constexpr Packed kOnes = 0x00010001;
    for (; m + 2 <= count; m += 2) {
      Packed s, w;
      std::memcpy(&s, state + m, sizeof(s));
      std::memcpy(&w, weights + m, sizeof(w));
      products = Mac2(s, w, products);
      weight_sum = Mac2(w, kOnes, weight_sum);
    }
  }
  auto sum = static_cast<uint32_t>(products) - static_cast<uint32_t>(zero_point) * static_cast<uint32_t>(weight_sum);
#else
  uint32_t sum = 0;
  int32_t m = 0;
#endif
  // |w| <= 2^15 and |s - zp| < 2^16: each product fits in int32.
  for (; m < count; ++m) sum += static_cast<uint32_t>(int32_t{weights[m]} * (int32_t{state[m]} - zero_point));
  return sum;
}

}  // namespace

template <typename StateT>
void SvdfInteger(const reference::SvdfIntegerParams& params, const reference::SvdfShape& shape, const int8_t* input,
                 const int8_t* weights_feature, const StateT* weights_time, const int32_t* bias, StateT* state,
                 int32_t* scratch, int32_t* scratch_output, int8_t* output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::SvdfInteger<StateT>(params, shape, input, weights_feature, weights_time, bias, state, scratch,
                                 scratch_output, output);
  return;
#endif
  (void)scratch;
  (void)scratch_output;
  const int32_t memory = shape.memory_size;
  const auto filter_values = static_cast<ptrdiff_t>(shape.filters) * memory;  // one batch's state
  // Step 1: every value moves one place towards the front.
  const ptrdiff_t total = filter_values * shape.batches;
  if (total > 1) std::memmove(state, state + 1, static_cast<size_t>(total - 1) * sizeof(StateT));

  // Step 2: the newest column.
  for (int32_t b = 0; b < shape.batches; ++b) {
    const StoreNewestState<StateT> store{state + b * filter_values + (memory - 1), memory, params.feature_multiplier,
                                         params.feature_shift, params.state_zero_point};
    RowTimesWeights(input + static_cast<ptrdiff_t>(b) * shape.input_size, weights_feature, shape.input_size,
                    shape.filters, -params.input_zero_point, nullptr, store);
  }

  // Steps 3-5: per unit, the bias and its rank filters' time dot products,
  // then the output requantization.
  const int32_t rank = shape.rank;
  const int32_t output_multiplier = params.output_multiplier;
  const int32_t output_shift = params.output_shift;
  const int32_t output_zero_point = params.output_zero_point;
  const int32_t state_zero_point = params.state_zero_point;
  for (int32_t b = 0; b < shape.batches; ++b) {
    const StateT* filter_state = state + b * filter_values;
    const StateT* filter_weights = weights_time;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * shape.units;
    for (int32_t u = 0; u < shape.units; ++u) {
      uint32_t sum = BiasStart(bias, u);
      for (int32_t r = 0; r < rank; ++r, filter_state += memory, filter_weights += memory) {
        sum += TimeDot(filter_state, filter_weights, memory, state_zero_point);
      }
      out[u] = ClampOutput(MultiplyByQuantizedMultiplier(static_cast<int32_t>(sum), output_multiplier, output_shift),
                           output_zero_point, -128, 127);
    }
  }
}

template void SvdfInteger<int8_t>(const reference::SvdfIntegerParams&, const reference::SvdfShape&, const int8_t*,
                                  const int8_t*, const int8_t*, const int32_t*, int8_t*, int32_t*, int32_t*, int8_t*);
template void SvdfInteger<int16_t>(const reference::SvdfIntegerParams&, const reference::SvdfShape&, const int8_t*,
                                   const int8_t*, const int16_t*, const int32_t*, int16_t*, int32_t*, int32_t*,
                                   int8_t*);

void FullyConnectedInt8ToInt16(reference::LstmMultiplier scale, int32_t input_offset, int rows, int input_size,
                               int output_size, const int8_t* input, const int8_t* weights, const int32_t* bias,
                               int16_t* output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::FullyConnectedInt8ToInt16(scale, input_offset, rows, input_size, output_size, input, weights, bias,
                                       output);
  return;
#endif
  for (int32_t b = 0; b < rows; ++b) {
    const StoreGate store{output + static_cast<ptrdiff_t>(b) * output_size, scale.multiplier, scale.shift};
    RowTimesWeights(input + static_cast<ptrdiff_t>(b) * input_size, weights, input_size, output_size, input_offset,
                    bias, store);
  }
}

void FullyConnectedInt16ToInt16(reference::LstmMultiplier scale, int32_t input_offset, int rows, int input_size,
                                int output_size, const int16_t* input, const int8_t* weights, const int64_t* bias,
                                int16_t* output) {
#ifdef MICROARENA_REFERENCE_INT8_KERNELS
  reference::FullyConnectedInt16ToInt16(scale, input_offset, rows, input_size, output_size, input, weights, bias,
                                        output);
  return;
#endif
  // |x + offset| <= 65,535 and |w| <= 128, so a product is below 2^23 and
  // 255 of them sum within int32: int32 runs added to the int64 sum give
  // the reference's int64 sum exactly (it never wraps at these sizes).
  constexpr int32_t kRun = 255;
  for (int32_t b = 0; b < rows; ++b) {
    const int16_t* x = input + static_cast<ptrdiff_t>(b) * input_size;
    int16_t* out = output + static_cast<ptrdiff_t>(b) * output_size;
    for (int32_t o = 0; o < output_size; ++o) {
      const int8_t* w = weights + static_cast<ptrdiff_t>(o) * input_size;
      uint64_t sum = 0;  // modulo 2^64, as the reference's WrappingAdd64
      for (int32_t start = 0; start < input_size; start += kRun) {
        const int32_t end = input_size - start < kRun ? input_size : start + kRun;
        int32_t run = 0;
        for (int32_t k = start; k < end; ++k) run += int32_t{w[k]} * (int32_t{x[k]} + input_offset);
        sum += static_cast<uint64_t>(static_cast<int64_t>(run));
      }
      if (bias != nullptr) {
        int64_t value;  // a model's int64 bias may sit at a 4-byte offset
        std::memcpy(&value, bias + o, sizeof(value));
        sum += static_cast<uint64_t>(value);
      }
      const int32_t value =
          fixed_point::MultiplyByQuantizedMultiplier64(static_cast<int64_t>(sum), scale.multiplier, scale.shift);
      out[o] = static_cast<int16_t>(Saturate(value, -32768, 32767));
    }
  }
}

}  // namespace microarena::optimized
