#include "microarena/kernels/kernel.h"

#include <cstdarg>
#include <cstdio>

namespace microarena {

Status PrepareContext::Error(ErrorCode code, const char* format, ...) const {
  va_list args;
  va_start(args, format);
  Status status = Status::ErrorV(code, format, args);
  va_end(args);
  char where[96];
  if (subgraph().index() != 0) {
    std::snprintf(where, sizeof(where), "subgraph %d, op %d (%s)", subgraph().index(), op().index(), op().name());
  } else {
    std::snprintf(where, sizeof(where), "op %d (%s)", op().index(), op().name());
  }
  return status.Prefix(where);
}

}  // namespace microarena
