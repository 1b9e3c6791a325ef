// Writes the control-flow test models (tests/control_flow) and the demo model
// carrying its kernel data (runtime/kernel_data.h) into a folder, as seeds
// for the fuzzers: scripts/fuzz.sh adds them to the seed corpus so the
// fuzzers start from IF, WHILE, CALL_ONCE, resource variables and a kernel
// data blob.
//   write_fuzz_seeds DIR
#include <cstdio>
#include <fstream>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_rewriter.h"
#include "microarena/runtime/kernel_data_writer.h"
#include "tests/control_flow/control_flow_models.h"

namespace {

// The demo model with its kernel data stored, as `optimize` writes it.
std::vector<uint8_t> DemoWithKernelData() {
  using namespace microarena;
  const std::vector<uint8_t> demo = BuildDemoModel();
  Result<ModelView> view = LoadModel(Span<const uint8_t>(demo.data(), demo.size()));
  if (!view.ok()) return {};
  Result<ComputedKernelData> computed = ComputeKernelData(*view, AllOpsResolver());
  if (!computed.ok()) return {};
  ModelEdits edits;
  edits.metadata.push_back({kKernelDataMetadataName, EncodeKernelData(*computed)});
  Result<std::vector<uint8_t>> bytes = RewriteModel(Span<const uint8_t>(demo.data(), demo.size()), edits);
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_fuzz_seeds DIR\n");
    return 2;
  }
  std::vector<microarena::control_flow::ControlFlowModel> models = microarena::control_flow::AllControlFlowModels();
  models.push_back({"demo_kernel_data", DemoWithKernelData(), {}});
  if (models.back().model.empty()) {
    std::fprintf(stderr, "write_fuzz_seeds: the demo model's kernel data could not be computed\n");
    return 1;
  }
  for (const auto& m : models) {
    const std::string path = std::string(argv[1]) + "/" + m.name + ".tflite";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(m.model.data()), static_cast<std::streamsize>(m.model.size()));
    if (!out) {
      std::fprintf(stderr, "write_fuzz_seeds: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
