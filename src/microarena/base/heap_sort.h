// HeapSort: an in-place O(n log n) sort without recursion, for the planners,
// which run inside AllocateTensors on the device: it takes one small frame
// whatever n, where std::sort's introsort recurses (a frame per level).
// Not stable: a caller whose order has ties must not depend on how they come
// out (with a strict total order, e.g. ties broken by index, the result is
// the one std::sort gives).
#pragma once

#include <cstddef>

namespace microarena {

template <typename T, typename Less>
void HeapSort(T* data, size_t count, Less less) {
  if (count < 2) return;
  // Moves data[root] down the max-heap data[0, end) to its place.
  auto sift_down = [&](size_t root, size_t end) {
    const T value = data[root];
    for (size_t child = 2 * root + 1; child < end; child = 2 * root + 1) {
      if (child + 1 < end && less(data[child], data[child + 1])) ++child;
      if (!less(value, data[child])) break;
      data[root] = data[child];
      root = child;
    }
    data[root] = value;
  };
  for (size_t i = count / 2; i-- > 0;) sift_down(i, count);
  for (size_t end = count - 1; end > 0; --end) {
    const T top = data[0];
    data[0] = data[end];
    data[end] = top;
    sift_down(0, end);
  }
}

}  // namespace microarena
