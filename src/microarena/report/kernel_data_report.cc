#include "microarena/report/kernel_data_report.h"

#include <fmt/format.h>

#include "microarena/report/format.h"

namespace microarena::report {

nlohmann::json KernelDataJson(const KernelDataUse& use) {
  return {{"state", KernelDataStateName(use.state)}, {"ops_in_flash", use.ops_in_flash},
          {"flash_bytes", use.flash_bytes},           {"ram_bytes_saved", use.ram_bytes_saved},
          {"ops_recomputed", use.ops_recomputed},     {"blob_bytes", use.blob_bytes}};
}

std::string KernelDataText(const KernelDataUse& use) {
  switch (use.state) {
    case KernelDataState::kAbsent: return "";
    case KernelDataState::kUsed: {
      std::string text =
          fmt::format("kernel data  {} ops' data read from the model's flash ({}; {} of RAM saved)\n", use.ops_in_flash,
                      Bytes(use.flash_bytes), Bytes(use.ram_bytes_saved));
      if (use.ops_recomputed > 0) {
        text += fmt::format(
            "note         {} ops' stored data differs from what their Prepare computes (stale): kept in RAM; run "
            "`microarena optimize` again\n",
            use.ops_recomputed);
      }
      return text;
    }
    default:
      return fmt::format(
          "note         the model's kernel data ({}, {}) is {}: every op's data kept in RAM; run `microarena "
          "optimize` again\n",
          kKernelDataMetadataName, Bytes(use.blob_bytes), KernelDataStateName(use.state));
  }
}

}  // namespace microarena::report
