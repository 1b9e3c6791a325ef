#include "microarena/plan/time_index.h"

#include <algorithm>

#include "microarena/base/heap_sort.h"

namespace microarena {

TimeIndex::TimeIndex(Span<const BufferRequest> buffers, uint32_t* by_start, int32_t* max_end)
    : buffers_(buffers), by_start_(by_start), max_end_(max_end) {
  const uint32_t count = static_cast<uint32_t>(buffers.size());
  for (uint32_t i = 0; i < count; ++i) by_start_[i] = i;
  // Ties by index, a total order; no recursion (HeapSort): the planners run
  // inside AllocateTensors.
  HeapSort(by_start_, count, [&buffers](uint32_t a, uint32_t b) {
    const int32_t first_a = buffers[a].lifetime.first_op;
    const int32_t first_b = buffers[b].lifetime.first_op;
    return first_a != first_b ? first_a < first_b : a < b;
  });
  Build(0, count);
}

int32_t TimeIndex::Build(uint32_t lo, uint32_t hi) {
  if (lo >= hi) return INT32_MIN;
  const uint32_t mid = lo + (hi - lo) / 2;
  int32_t best = buffers_[by_start_[mid]].lifetime.end_op;
  best = std::max(best, Build(lo, mid));
  best = std::max(best, Build(mid + 1, hi));
  max_end_[mid] = best;
  return best;
}

}  // namespace microarena
