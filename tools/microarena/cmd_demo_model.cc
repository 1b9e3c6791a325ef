// `microarena demo-model -o FILE.tflite`: writes the generated demo model.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "microarena/base/span.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_view.h"
#include "tools/microarena/cli_util.h"
#include "tools/microarena/commands.h"

namespace microarena::cli {
namespace {

// Writes `bytes` to `path`, replacing the file. Errors start with the path.
Status WriteFileBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return Status::Error(ErrorCode::kIoError, "%s: cannot open for writing: %s", path.c_str(),
                         std::strerror(errno));
  }
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  const int write_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (written != bytes.size()) {
    return Status::Error(ErrorCode::kIoError, "%s: wrote %zu of %zu bytes: %s", path.c_str(), written,
                         bytes.size(), std::strerror(write_errno));
  }
  if (!closed) {
    return Status::Error(ErrorCode::kIoError, "%s: cannot finish writing: %s", path.c_str(), std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace

Command RegisterDemoModelCommand(CLI::App& app) {
  auto output_path = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "demo-model",
      "Write the demo model, generated from code: a keyword-spotting DS-CNN of the classic\n"
      "64 KB Cortex-M4 size. Input 1x49x10x1 int8 (49 frames x 10 MFCC features); CONV_2D\n"
      "10x4 stride 2 SAME with 64 channels and RELU (1x25x5x64); 4 depthwise-separable\n"
      "blocks (DEPTHWISE_CONV_2D 3x3 + CONV_2D 1x1, 64 channels, RELU); AVERAGE_POOL_2D to\n"
      "1x1x1x64; RESHAPE to 1x64; FULLY_CONNECTED to 12 keywords; SOFTMAX. 13 ops, int8\n"
      "with per-channel weight scales, pseudo-random weights from a fixed seed: the same\n"
      "bytes on every run. Prints the path, its size and the op count.");
  sub->add_option("-o,--output", *output_path, "the .tflite file to write (replaced if it exists)")->required();
  return {sub, [output_path, sub]() -> int {
            if (int code = CheckOutputPaths(*sub, {{"--output", *output_path}}, {}); code != kExitOk) return code;
            const std::vector<uint8_t> bytes = BuildDemoModel();
            // Our own output goes through the same checks as any other model.
            Result<ModelView> model = LoadModel(Span<const uint8_t>(bytes.data(), bytes.size()));
            if (!model.ok()) {
              Status status = model.status();
              return PrintError(status.Prefix("internal: the demo model fails to load"));
            }
            Status written = WriteFileBytes(*output_path, bytes);
            if (!written.ok()) return PrintError(written);
            std::printf("%s: %zu bytes, %zu ops\n", output_path->c_str(), bytes.size(),
                        model->subgraph(0).operator_count());
            return kExitOk;
          }};
}

}  // namespace microarena::cli
