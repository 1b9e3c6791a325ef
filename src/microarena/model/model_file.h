// ModelFile (host): a .tflite file read into memory and verified.
//
//   Result<ModelFile> file = ModelFile::Open("kws.tflite");
//   if (!file.ok()) { fprintf(stderr, "error: %s\n", file.status().message()); return 1; }
//   ModelView model = file->view();
//
// The file owns the bytes; views stay valid while the ModelFile lives (moving
// the ModelFile keeps them valid: the byte storage does not move).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/model/model_view.h"

namespace microarena {

// Reads a whole file. Errors name the path: missing, a directory, unreadable.
Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

// Creates the folder `dir` and its missing parents (nothing when it exists).
// A kIoError naming `dir` and the reason when it cannot be made or is a file.
Status MakeDirectories(const std::string& dir);

class ModelFile {
 public:
  // Reads and verifies `path`. The error message starts with the path.
  static Result<ModelFile> Open(const std::string& path);
  // Verifies bytes already in memory (copied into 16-byte aligned storage).
  static Result<ModelFile> FromBytes(const std::vector<uint8_t>& bytes, const std::string& label);

  const std::string& path() const { return path_; }
  size_t size_bytes() const { return size_bytes_; }
  const ModelView& view() const { return view_; }
  // The file's bytes, as read.
  Span<const uint8_t> bytes() const {
    return Span<const uint8_t>(reinterpret_cast<const uint8_t*>(storage_.get()), size_bytes_);
  }

 private:
  ModelFile(std::string path, std::unique_ptr<uint64_t[]> storage, size_t size_bytes, ModelView view)
      : path_(std::move(path)), storage_(std::move(storage)), size_bytes_(size_bytes), view_(view) {}

  std::string path_;
  std::unique_ptr<uint64_t[]> storage_;  // 8-byte aligned copy of the file
  size_t size_bytes_;
  ModelView view_;
};

}  // namespace microarena
