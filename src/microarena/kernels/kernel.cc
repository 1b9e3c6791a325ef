#include "microarena/kernels/kernel.h"

#include <cstdarg>
#include <cstdio>

namespace microarena {

Status PrepareContext::Error(ErrorCode code, const char* format, ...) const {
  char detail[Status::kMaxMessageBytes];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return Status::Error(code, "op %d (%s): %s", op().index(), op().name(), detail);
}

}  // namespace microarena
