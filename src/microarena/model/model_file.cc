#include "microarena/model/model_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace microarena {

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Status::Error(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError, "%s: %s",
                         path.c_str(), errno == ENOENT ? "no such file" : std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    return Status::Error(ErrorCode::kInvalidArgument, "%s: is a directory, not a file", path.c_str());
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::Error(ErrorCode::kIoError, "%s: cannot open: %s", path.c_str(), std::strerror(errno));
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) bytes.insert(bytes.end(), chunk, chunk + got);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return Status::Error(ErrorCode::kIoError, "%s: read error", path.c_str());
  return bytes;
}

Result<ModelFile> ModelFile::FromBytes(const std::vector<uint8_t>& bytes, const std::string& label) {
  // Copy into 8-byte aligned storage: the flatbuffer's scalars and constant
  // data (int32 biases, float scales) are read in place.
  size_t words = bytes.size() / sizeof(uint64_t) + 1;
  std::unique_ptr<uint64_t[]> storage(new uint64_t[words]());
  if (!bytes.empty()) std::memcpy(storage.get(), bytes.data(), bytes.size());
  Span<const uint8_t> span(reinterpret_cast<const uint8_t*>(storage.get()), bytes.size());
  Result<ModelView> view = LoadModel(span);
  if (!view.ok()) {
    Status status = view.status();
    status.Prefix(label.c_str());
    return status;
  }
  return ModelFile(label, std::move(storage), bytes.size(), *view);
}

Result<ModelFile> ModelFile::Open(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return FromBytes(*bytes, path);
}

Status MakeDirectories(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (!error && !std::filesystem::is_directory(dir, error)) error = std::make_error_code(std::errc::not_a_directory);
  if (error) {
    return Status::Error(ErrorCode::kIoError, "%s: cannot create the folder (%s)", dir.c_str(),
                         error.message().c_str());
  }
  return OkStatus();
}

}  // namespace microarena
