// How reports show what the runtime did with a model's kernel data
// (runtime/kernel_data.h): read from flash, or kept in RAM and why.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "microarena/runtime/kernel_data.h"

namespace microarena::report {

// {"state", "ops_in_flash", "flash_bytes", "ram_bytes_saved", "ops_recomputed", "blob_bytes"}.
nlohmann::json KernelDataJson(const KernelDataUse& use);
// One line for text reports ("kernel data  12 ops' data read from flash (...)\n"),
// or a note when the model's data was refused; "" when the model carries none.
std::string KernelDataText(const KernelDataUse& use);

}  // namespace microarena::report
