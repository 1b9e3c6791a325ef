// Small helpers shared by the subcommands.
#pragma once

#include "microarena/base/status.h"

namespace microarena::cli {

// Prints "error: <message>" on one line to stderr and returns kExitError.
// Messages from file-reading calls already start with the file name.
int PrintError(const Status& status);

}  // namespace microarena::cli
