// Number and table formatting shared by the human-readable reports (host).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace microarena::report {

// 1234567 -> "1,234,567".
std::string Thousands(uint64_t value);
// 1234567 -> "1,234,567 B"; with_unit false -> "1,234,567".
std::string Bytes(uint64_t value);
// {1,49,10,1} -> "1x49x10x1"; a scalar -> "scalar".
std::string ShapeText(const int32_t* dims, size_t rank);
// Cuts `text` to at most `width` characters, ending in "..." when cut.
std::string Clip(const std::string& text, size_t width);

// A plain-text table: columns padded to their widest cell; numeric columns
// right-aligned.
class TextTable {
 public:
  // `right_aligned[i]` says whether column i is right-aligned.
  TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned);
  void AddRow(std::vector<std::string> cells);
  // A rule line (dashes) before the next row, e.g. before a totals row.
  void AddRule();
  std::string Render(const std::string& indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_aligned_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a rule
};

}  // namespace microarena::report
