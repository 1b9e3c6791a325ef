// Span<T>: a non-owning view of contiguous elements (C++17 has no std::span).
// The viewed memory must outlive the span.
#pragma once

#include <cstddef>

namespace microarena {

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  // Precondition: index < size().
  constexpr T& operator[](size_t index) const { return data_[index]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace microarena
