// Writes the control-flow test models (tests/control_flow) into a folder, as
// seeds for the fuzzers: scripts/fuzz.sh adds them to the seed corpus so the
// fuzzers start from IF, WHILE, CALL_ONCE and resource variables.
//   write_fuzz_seeds DIR
#include <cstdio>
#include <fstream>

#include "tests/control_flow/control_flow_models.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_fuzz_seeds DIR\n");
    return 2;
  }
  for (const auto& m : microarena::control_flow::AllControlFlowModels()) {
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
