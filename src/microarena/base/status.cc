#include "microarena/base/status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace microarena {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kMalformedModel: return "malformed model";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kOutOfMemory: return "out of memory";
    case ErrorCode::kInfeasible: return "infeasible";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kIoError: return "i/o error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown error";
}

Status Status::Error(ErrorCode code, const char* format, ...) {
  Status status;
  status.code_ = code == ErrorCode::kOk ? ErrorCode::kInternal : code;
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(status.message_, sizeof(status.message_), format, args);
  va_end(args);
  if (written < 0) status.message_[0] = '\0';
  return status;
}

Status& Status::Prefix(const char* context) {
  if (ok() || context == nullptr) return *this;
  // Shift the message right to make room for "context: ", cutting its end if needed.
  size_t context_bytes = std::strlen(context);
  if (context_bytes + 2 >= kMaxMessageBytes) context_bytes = kMaxMessageBytes - 3;
  size_t shift = context_bytes + 2;
  size_t kept = std::strlen(message_);
  if (kept > kMaxMessageBytes - 1 - shift) kept = kMaxMessageBytes - 1 - shift;
  std::memmove(message_ + shift, message_, kept);
  message_[shift + kept] = '\0';
  std::memcpy(message_, context, context_bytes);
  message_[context_bytes] = ':';
  message_[context_bytes + 1] = ' ';
  return *this;
}

}  // namespace microarena
