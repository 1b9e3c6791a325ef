// Status: the error value every fallible call in microarena returns.
//
// No exceptions and no heap: a Status is a code plus a message that says what
// failed, where (op index and name, tensor index and name) and the numbers
// involved. It is two words (8 bytes on a 32-bit MCU), so returning it by
// value through every frame costs no stack: the message text lives in a small
// ring of static buffers (kMessageSlots of kMaxMessageBytes; per thread on
// the host), each new error takes the next one. A message stays readable
// until kMessageSlots newer errors were made, far more than any caller keeps:
// callers that store a message for longer copy it (e.g. into a std::string).
// Success, the common path, touches no buffer at all.
//
//   Status s = interpreter.AllocateTensors();
//   if (!s.ok()) printf("%s\n", s.message());
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>

namespace microarena {

// Error codes, grouped by who is at fault.
enum class ErrorCode : uint8_t {
  kOk = 0,
  // The caller's input is wrong.
  kInvalidArgument = 1,  // bad parameter or option
  kMalformedModel = 2,   // the model bytes fail verification or a semantic check
  kUnsupported = 3,      // valid, but not something microarena handles (yet)
  kNotFound = 4,         // a named thing (file, tensor, metadata) is missing
  // The resources are not enough.
  kOutOfMemory = 10,     // an arena area (persistent, head, temp) is too small
  kInfeasible = 11,      // a planning problem has no solution within capacity
  kTimeout = 12,         // a time limit ran out before an answer was proven
  // The environment failed.
  kIoError = 20,         // reading or writing a file failed
  // A bug in microarena: an invariant did not hold.
  kInternal = 30,
  // Not a failure: an op ended this Invoke early on purpose (CIRCULAR_BUFFER
  // waiting for more input, TFLM's kTfLiteAbort); the outputs are not new.
  kStoppedEarly = 40,
};

// A stable, lower-case name for an error code ("malformed model").
const char* ErrorCodeName(ErrorCode code);

// The ring's shape: 8 slots of 320 bytes by default; a device build sets
// fewer and shorter (examples/cortex_m: 2 of 192, 384 bytes of .bss).
#ifndef MICROARENA_STATUS_SLOTS
#define MICROARENA_STATUS_SLOTS 8
#endif
#ifndef MICROARENA_STATUS_MESSAGE_BYTES
#define MICROARENA_STATUS_MESSAGE_BYTES 320
#endif

// MICROARENA_STATUS_TEXT_ONLY (a device build option, CMake
// MICROARENA_STATUS_TEXT_ONLY=ON): an error's message is its format text as
// written, placeholders unfilled ("arena of %zu B is too small ..."), and
// FormatText copies its format the same way, so the runtime and kernels call
// no printf-family function and the firmware links none unless the
// application itself does. The code says what failed; the text says which
// check; the numbers come back by rebuilding without the option (the host
// tools always have them).

// printf-style text into `out` (at most `size` bytes, NUL-terminated); with
// MICROARENA_STATUS_TEXT_ONLY the format itself, cut to fit. Returns the
// bytes written without the NUL (never negative).
int FormatText(char* out, size_t size, const char* format, ...) __attribute__((format(printf, 3, 4)));

class [[nodiscard]] Status {
 public:
  // Longest message kept, including the terminating NUL; longer ones are cut.
  static constexpr size_t kMaxMessageBytes = MICROARENA_STATUS_MESSAGE_BYTES;
  // Messages readable at once (see above).
  static constexpr size_t kMessageSlots = MICROARENA_STATUS_SLOTS;

  // An OK status.
  constexpr Status() : code_(ErrorCode::kOk), message_("") {}

  // An error with a printf-style message.
  static Status Error(ErrorCode code, const char* format, ...)
      __attribute__((format(printf, 2, 3)));
  // As Error, with the arguments as a va_list.
  static Status ErrorV(ErrorCode code, const char* format, va_list args);

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  // Never null; empty for OK.
  const char* message() const { return message_; }

  // Prepends "context: " to the message (e.g. the file name), keeping the code.
  Status& Prefix(const char* context);

  // Documents that the caller deliberately drops this status.
  void IgnoreError() const {}

 private:
  ErrorCode code_;
  const char* message_;  // "" for OK, else a slot of the message ring (or the format text)
};

inline Status OkStatus() { return Status(); }

}  // namespace microarena

// Returns from the current function if `expr` yields an error Status.
#define MICROARENA_RETURN_IF_ERROR(expr)           \
  do {                                             \
    ::microarena::Status microarena_status_ = (expr); \
    if (!microarena_status_.ok()) return microarena_status_; \
  } while (false)
