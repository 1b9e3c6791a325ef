// Result<T>: a value or the Status that explains why there is none.
//
//   Result<ModelView> model = Load(bytes);
//   if (!model.ok()) return model.status();
//   use(*model);
#pragma once

#include <optional>
#include <utility>

#include "microarena/base/status.h"

namespace microarena {

template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value or from an error Status, so `return value;` and
  // `return Status::Error(...);` both work.
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(status) {      // NOLINT(google-explicit-constructor)
    if (status_.ok()) {
      status_ = Status::Error(ErrorCode::kInternal, "Result built from an OK status without a value");
    }
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // Precondition: ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace microarena

#define MICROARENA_CONCAT_INNER_(a, b) a##b
#define MICROARENA_CONCAT_(a, b) MICROARENA_CONCAT_INNER_(a, b)
// `MICROARENA_ASSIGN_OR_RETURN(auto x, Compute());` assigns the value or returns the error.
#define MICROARENA_ASSIGN_OR_RETURN(lhs, expr)                                  \
  auto MICROARENA_CONCAT_(microarena_result_, __LINE__) = (expr);               \
  if (!MICROARENA_CONCAT_(microarena_result_, __LINE__).ok())                   \
    return MICROARENA_CONCAT_(microarena_result_, __LINE__).status();           \
  lhs = std::move(MICROARENA_CONCAT_(microarena_result_, __LINE__)).value()
