// arena_check MODEL.tflite: loads a model, allocates it in a static arena,
// runs it once on zero inputs and prints the arena it used. Built against an
// installed microarena (find_package(microarena), microarena::core).
#include <cstdio>
#include <cstring>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/interpreter.h"

namespace {

alignas(16) uint8_t g_arena[1 << 20];

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: arena_check MODEL.tflite\n");
    return 2;
  }
  std::FILE* file = std::fopen(argv[1], "rb");
  if (file == nullptr) {
    std::fprintf(stderr, "error: %s: cannot open\n", argv[1]);
    return 1;
  }
  // uint32_t words keep the model bytes 4-byte aligned, as LoadModel asks.
  std::vector<uint32_t> words;
  std::vector<uint8_t> bytes;
  uint8_t chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), file)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
  std::fclose(file);
  words.resize((bytes.size() + 3) / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());

  microarena::Result<microarena::ModelView> model =
      microarena::LoadModel({reinterpret_cast<const uint8_t*>(words.data()), bytes.size()});
  if (!model.ok()) {
    std::fprintf(stderr, "error: %s\n", model.status().message());
    return 1;
  }
  microarena::Interpreter interpreter(*model, microarena::AllOpsResolver(), g_arena, sizeof(g_arena));
  microarena::Status status = interpreter.AllocateTensors();
  if (status.ok()) status = interpreter.Invoke();
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.message());
    return 1;
  }
  std::printf("arena_used_bytes=%zu\n", interpreter.arena_used_bytes());
  return 0;
}
