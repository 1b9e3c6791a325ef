#include "microarena/report/format.h"

#include <algorithm>

namespace microarena::report {

std::string Thousands(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  size_t lead = digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && i % 3 == lead) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Bytes(uint64_t value) { return Thousands(value) + " B"; }

std::string ShapeText(const int32_t* dims, size_t rank) {
  if (rank == 0) return "scalar";
  std::string out;
  for (size_t i = 0; i < rank; ++i) {
    if (i != 0) out += 'x';
    out += std::to_string(dims[i]);
  }
  return out;
}

std::string Clip(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  return text.substr(0, width - 3) + "...";
}

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {
  right_aligned_.resize(headers_.size(), false);
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::AddRule() { rows_.emplace_back(); }

std::string TextTable::Render(const std::string& indent) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) widths[c] = headers_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  auto render_row = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      size_t pad = widths[c] - row[c].size();
      bool last = c + 1 == row.size();
      if (right_aligned_[c]) line += std::string(pad, ' ') + row[c];
      else line += row[c] + (last ? "" : std::string(pad, ' '));
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  size_t total = 0;
  for (size_t w : widths) total += w + 2;
  std::string rule = indent + std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  std::string out = render_row(headers_) + rule;
  for (const auto& row : rows_) out += row.empty() ? rule : render_row(row);
  return out;
}

}  // namespace microarena::report
