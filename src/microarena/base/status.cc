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
    case ErrorCode::kStoppedEarly: return "stopped early";
    case ErrorCode::kIoError: return "i/o error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown error";
}

namespace {

#ifdef MICROARENA_STATUS_SINGLE_THREADED
#define MICROARENA_STATUS_STORAGE static
#else
#define MICROARENA_STATUS_STORAGE static thread_local
#endif

// The message ring: each error takes the next slot.
char* NextSlot() {
  MICROARENA_STATUS_STORAGE char slots[Status::kMessageSlots][Status::kMaxMessageBytes];
  MICROARENA_STATUS_STORAGE size_t next = 0;
  char* slot = slots[next];
  next = (next + 1) % Status::kMessageSlots;
  return slot;
}

}  // namespace

int FormatText(char* out, size_t size, const char* format, ...) {
  if (size == 0) return 0;
#ifdef MICROARENA_STATUS_TEXT_ONLY
  size_t length = std::strlen(format);
  if (length > size - 1) length = size - 1;
  std::memcpy(out, format, length);
  out[length] = '\0';
  return static_cast<int>(length);
#else
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(out, size, format, args);
  va_end(args);
  if (written < 0) {
    out[0] = '\0';
    return 0;
  }
  return written < static_cast<int>(size) ? written : static_cast<int>(size - 1);
#endif
}

Status Status::ErrorV(ErrorCode code, const char* format, va_list args) {
  Status status;
  status.code_ = code == ErrorCode::kOk ? ErrorCode::kInternal : code;
#ifdef MICROARENA_STATUS_TEXT_ONLY
  (void)args;
  status.message_ = format;  // a string literal: static
#else
  char* slot = NextSlot();
  int written = std::vsnprintf(slot, kMaxMessageBytes, format, args);
  if (written < 0) slot[0] = '\0';
  status.message_ = slot;
#endif
  return status;
}

Status Status::Error(ErrorCode code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  Status status = ErrorV(code, format, args);
  va_end(args);
  return status;
}

Status& Status::Prefix(const char* context) {
  if (ok() || context == nullptr) return *this;
  // "context: message" in a new slot, cutting the end if needed. With one
  // slot (or when the ring came round to this message's own slot) the
  // message moves right in place.
  char* slot = NextSlot();
  size_t context_bytes = std::strlen(context);
  if (context_bytes + 2 >= kMaxMessageBytes) context_bytes = kMaxMessageBytes - 3;
  const size_t shift = context_bytes + 2;
  size_t kept = std::strlen(message_);
  if (kept > kMaxMessageBytes - 1 - shift) kept = kMaxMessageBytes - 1 - shift;
  std::memmove(slot + shift, message_, kept);
  slot[shift + kept] = '\0';
  std::memcpy(slot, context, context_bytes);
  slot[context_bytes] = ':';
  slot[context_bytes + 1] = ' ';
  message_ = slot;
  return *this;
}

}  // namespace microarena
