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
  if (subgraph().index() != 0) {
    return Status::Error(code, "subgraph %d, op %d (%s): %s", subgraph().index(), op().index(), op().name(), detail);
  }
  return Status::Error(code, "op %d (%s): %s", op().index(), op().name(), detail);
}

}  // namespace microarena
