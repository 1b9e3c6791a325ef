// Writes a MobileNetV2-style int8 model (model/mobilenet_v2_model.h) for the
// benchmarks: bench/tiling_versus_tflm.py runs it in TFLM and in microarena.
//
//   write_mobilenet_v2 -o mnv2.tflite [--input-size 224] [--width-percent 100]
//                      [--classes 1000] [--last-stage 7]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "microarena/model/mobilenet_v2_model.h"

int main(int argc, char** argv) {
  CLI::App app{"Write a MobileNetV2-style int8 .tflite model (weights drawn from a fixed seed)."};
  std::string output;
  microarena::MobileNetV2Options options;
  app.add_option("-o,--output", output, "the .tflite file to write")->required();
  app.add_option("--input-size", options.input_size, "input height and width, 32-1024")->default_val(224);
  app.add_option("--width-percent", options.width_percent, "width multiplier in percent, 10-200")->default_val(100);
  app.add_option("--classes", options.classes, "classifier outputs")->default_val(1000);
  app.add_option("--last-stage", options.last_stage, "bottleneck stages built, 1-7")->default_val(7);
  CLI11_PARSE(app, argc, argv);
  microarena::Result<std::vector<uint8_t>> bytes = microarena::BuildMobileNetV2Model(options);
  if (!bytes.ok()) {
    std::fprintf(stderr, "error: %s\n", bytes.status().message());
    return 2;
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "error: %s: cannot write the model\n", output.c_str());
    return 1;
  }
  std::printf("%s: %zu bytes\n", output.c_str(), bytes->size());
  return 0;
}
