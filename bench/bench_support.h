// Where the benchmarks find ../shared (models, DSA problems).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace microarena::bench {

// $MICROARENA_SHARED_DIR, else ../shared beside the source tree.
inline std::string SharedDir() {
  if (const char* env = std::getenv("MICROARENA_SHARED_DIR")) return env;
  return std::string(MICROARENA_SOURCE_DIR) + "/../shared";
}

// Paths of <shared>/models/*.tflite, sorted; empty when the folder is absent.
inline std::vector<std::string> SharedModelPaths() {
  std::vector<std::string> paths;
  const std::filesystem::path dir = std::filesystem::path(SharedDir()) / "models";
  if (!std::filesystem::is_directory(dir)) return paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".tflite") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace microarena::bench
