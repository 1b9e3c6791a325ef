#include "microarena/plan/problem_csv.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <sstream>

namespace microarena {
namespace {

enum Column { kId, kLower, kUpper, kSize, kOffset, kColumnCount };
constexpr const char* kColumnNames[kColumnCount] = {"id", "lower", "upper", "size", "offset"};
// MiniMalloc's newer files name the same columns buffer,start,end,size.
constexpr const char* kColumnAliases[kColumnCount] = {"buffer", "start", "end", nullptr, nullptr};

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Splits `line` at commas into out[0, max) (trimmed) and returns how many
// fields it has (which may exceed max: the caller reports that count).
size_t SplitFields(std::string_view line, std::string_view* out, size_t max) {
  size_t count = 0;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    const size_t end = comma == std::string_view::npos ? line.size() : comma;
    if (count < max) out[count] = Trim(line.substr(start, end - start));
    ++count;
    if (comma == std::string_view::npos) return count;
    start = comma + 1;
  }
}

// The ids seen so far, for "id used by an earlier row": an open-addressing
// table of row indices into `ids` (no string copies; sized from the number
// of lines, so it never fills past half).
class IdTable {
 public:
  explicit IdTable(size_t rows) {
    size_t slots = 16;
    while (slots < 2 * rows) slots *= 2;
    slots_.assign(slots, kEmpty);
  }
  // False when `id` is already in; otherwise adds it as ids[row].
  bool Insert(const std::vector<std::string>& ids, std::string_view id, uint32_t row) {
    size_t slot = std::hash<std::string_view>()(id) & (slots_.size() - 1);
    while (slots_[slot] != kEmpty) {
      if (ids[slots_[slot]] == id) return false;
      slot = (slot + 1) & (slots_.size() - 1);
    }
    slots_[slot] = row;
    return true;
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> slots_;
};

Status FieldError(const std::string& source, size_t line, size_t column, const char* name,
                  const char* what, std::string_view got) {
  return Status::Error(ErrorCode::kInvalidArgument, "%s: line %zu, column %zu (%s): %s, got '%.*s'",
                       source.c_str(), line, column, name, what,
                       static_cast<int>(std::min<size_t>(got.size(), 64)), got.data());
}

// Parses a non-negative decimal integer no larger than `max_value`.
bool ParseUnsigned(std::string_view text, uint64_t max_value, uint64_t* value) {
  if (text.empty()) return false;
  uint64_t result = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (result > (max_value - digit) / 10) return false;
    result = result * 10 + digit;
  }
  *value = result;
  return true;
}

}  // namespace

Result<ProblemCsv> ParseProblemCsv(std::string_view text, const std::string& source_name) {
  ProblemCsv problem;
  int column_of[kColumnCount] = {-1, -1, -1, -1, -1};
  size_t header_fields = 0;
  bool have_header = false;
  // Every row is a line: reserve for all of them at once.
  size_t lines = 1;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  if (lines >= UINT32_MAX) {
    return Status::Error(ErrorCode::kInvalidArgument, "%s: %zu lines, more than a problem may have",
                         source_name.c_str(), lines);
  }
  problem.ids.reserve(lines);
  problem.buffers.reserve(lines);
  IdTable seen_ids(lines);
  // A valid header has at most kColumnCount fields; one more is enough to
  // report the first field too many.
  std::string_view fields[kColumnCount + 1];
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) newline = text.size();
    const std::string_view line = text.substr(start, newline - start);
    start = newline + 1;
    ++line_number;
    if (Trim(line).empty()) continue;
    const size_t field_count = SplitFields(line, fields, kColumnCount + 1);
    if (!have_header) {
      have_header = true;
      header_fields = field_count;
      for (size_t f = 0; f < std::min<size_t>(field_count, kColumnCount + 1); ++f) {
        int found = -1;
        for (int c = 0; c < kColumnCount; ++c) {
          if (fields[f] == kColumnNames[c] ||
              (kColumnAliases[c] != nullptr && fields[f] == kColumnAliases[c])) {
            found = c;
          }
        }
        if (found < 0) {
          return FieldError(source_name, line_number, f + 1, "header",
                            "expected one of id (or buffer), lower (or start), upper (or end), "
                            "size, offset",
                            fields[f]);
        }
        if (column_of[found] >= 0) {
          return FieldError(source_name, line_number, f + 1, "header", "column named twice",
                            fields[f]);
        }
        column_of[found] = static_cast<int>(f);
      }
      for (int c = 0; c < kOffset; ++c) {
        if (column_of[c] < 0) {
          return Status::Error(ErrorCode::kInvalidArgument,
                               "%s: line %zu: the header has no '%s' column (expected "
                               "id,lower,upper,size[,offset])",
                               source_name.c_str(), line_number, kColumnNames[c]);
        }
      }
      continue;
    }
    if (field_count != header_fields) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "%s: line %zu: %zu fields, the header has %zu", source_name.c_str(),
                           line_number, field_count, header_fields);
    }
    uint64_t values[kColumnCount] = {};
    for (int c = kLower; c < kColumnCount; ++c) {
      if (column_of[c] < 0) continue;
      const size_t f = static_cast<size_t>(column_of[c]);
      const uint64_t max_value = (c == kLower || c == kUpper)
                                     ? static_cast<uint64_t>(INT32_MAX)
                                     : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      if (!ParseUnsigned(fields[f], max_value, &values[c])) {
        return FieldError(source_name, line_number, f + 1, kColumnNames[c],
                          (c == kLower || c == kUpper)
                              ? "expected an integer step in [0, 2147483647]"
                              : "expected a non-negative integer",
                          fields[f]);
      }
    }
    const std::string_view id = fields[static_cast<size_t>(column_of[kId])];
    if (id.empty()) {
      return FieldError(source_name, line_number, static_cast<size_t>(column_of[kId]) + 1, "id",
                        "expected a buffer id", id);
    }
    if (!seen_ids.Insert(problem.ids, id, static_cast<uint32_t>(problem.ids.size()))) {
      return FieldError(source_name, line_number, static_cast<size_t>(column_of[kId]) + 1, "id",
                        "id used by an earlier row", id);
    }
    if (values[kUpper] <= values[kLower]) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           "%s: line %zu, column %zu (upper): upper %llu must be greater than "
                           "lower %llu (lifetimes are half-open [lower, upper))",
                           source_name.c_str(), line_number,
                           static_cast<size_t>(column_of[kUpper]) + 1,
                           static_cast<unsigned long long>(values[kUpper]),
                           static_cast<unsigned long long>(values[kLower]));
    }
    BufferRequest buffer;
    buffer.size_bytes = static_cast<size_t>(values[kSize]);
    buffer.lifetime.first_op = static_cast<int32_t>(values[kLower]);
    buffer.lifetime.end_op = static_cast<int32_t>(values[kUpper]);
    problem.ids.emplace_back(id);  // the row Insert recorded above
    problem.buffers.push_back(buffer);
    if (column_of[kOffset] >= 0) problem.offsets_bytes.push_back(static_cast<size_t>(values[kOffset]));
  }
  if (!have_header) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "%s: empty file (expected the header id,lower,upper,size[,offset])",
                         source_name.c_str());
  }
  return problem;
}

Result<ProblemCsv> ReadProblemCsv(const std::string& path) {
  struct stat info {};
  const bool known = stat(path.c_str(), &info) == 0;
  if (known && S_ISDIR(info.st_mode)) {
    return Status::Error(ErrorCode::kIoError, "%s: is a directory, not a problem file", path.c_str());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::Error(ErrorCode::kIoError, "%s: cannot open: %s", path.c_str(),
                         std::strerror(errno));
  }
  std::string text;
  if (known && S_ISREG(info.st_mode) && info.st_size > 0) {
    // A regular file: one read of the size it has (not character by character).
    text.resize(static_cast<size_t>(info.st_size));
    in.read(text.data(), info.st_size);
    text.resize(static_cast<size_t>(in.gcount()));
    // Grown since stat: the rest as a stream.
    if (in) text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    // A pipe, or a file whose size says nothing (/proc): as a stream.
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (in.bad()) return Status::Error(ErrorCode::kIoError, "%s: read failed", path.c_str());
  return ParseProblemCsv(text, path);
}

std::string FormatProblemCsv(const ProblemCsv& problem, Span<const size_t> offsets_bytes) {
  const bool with_offsets = !offsets_bytes.empty();
  const bool with_ids = problem.ids.size() == problem.buffers.size();
  std::string text = with_offsets ? "id,lower,upper,size,offset\n" : "id,lower,upper,size\n";
  // Numbers straight into the text (no temporary string per field).
  const auto append = [&text](auto value) {
    char digits[24];
    const std::to_chars_result end = std::to_chars(digits, digits + sizeof(digits), value);
    text.append(digits, end.ptr);
  };
  text.reserve(text.size() + problem.buffers.size() * 48);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferRequest& buffer = problem.buffers[i];
    if (with_ids) {
      text += problem.ids[i];
    } else {
      append(i);
    }
    text += ',';
    append(buffer.lifetime.first_op);
    text += ',';
    append(buffer.lifetime.end_op);
    text += ',';
    append(buffer.size_bytes);
    if (with_offsets) {
      text += ',';
      append(offsets_bytes[i]);
    }
    text += '\n';
  }
  return text;
}

Status WriteProblemCsv(const std::string& path, const ProblemCsv& problem,
                       Span<const size_t> offsets_bytes) {
  if (!offsets_bytes.empty() && offsets_bytes.size() != problem.buffers.size()) {
    return Status::Error(ErrorCode::kInvalidArgument, "%s: %zu offsets for %zu buffers",
                         path.c_str(), offsets_bytes.size(), problem.buffers.size());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return Status::Error(ErrorCode::kIoError, "%s: cannot create: %s", path.c_str(),
                         std::strerror(errno));
  }
  out << FormatProblemCsv(problem, offsets_bytes);
  out.close();
  if (!out) return Status::Error(ErrorCode::kIoError, "%s: write failed", path.c_str());
  return OkStatus();
}

}  // namespace microarena
