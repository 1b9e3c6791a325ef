#include "tests/support/tflm_golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "tests/support/test_support.h"

namespace microarena::testing {
namespace {

int64_t Number(const std::string& text) { return std::strtoll(text.c_str(), nullptr, 10); }

}  // namespace

std::vector<TflmPlanBuffer> ReadTflmPlanFile(const std::string& path) {
  std::vector<TflmPlanBuffer> plan;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    TflmPlanBuffer buffer;
    buffer.line = line;
    // name= is last and is the rest of the line: tensor names may hold spaces.
    const size_t name_at = line.find(" name=");
    if (name_at != std::string::npos) buffer.name = line.substr(name_at + 6);
    std::istringstream tokens(line.substr(0, name_at));
    for (std::string token; tokens >> token;) {
      const size_t eq = token.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = token.substr(0, eq);
      const std::string value = token.substr(eq + 1);
      if (key == "id") buffer.id = Number(value);
      if (key == "size") buffer.size_bytes = static_cast<size_t>(Number(value));
      if (key == "first_used") buffer.first_used = static_cast<int32_t>(Number(value));
      if (key == "last_used") buffer.last_used = static_cast<int32_t>(Number(value));
      if (key == "offset") buffer.offset_bytes = static_cast<size_t>(Number(value));
      if (key == "offline_offset") buffer.offline_offset = Number(value);
      if (key == "kind") buffer.kind = value;
      if (key == "subgraph") buffer.subgraph = static_cast<int32_t>(Number(value));
      if (key == "tensor") buffer.tensor_index = static_cast<int32_t>(Number(value));
    }
    plan.push_back(buffer);
  }
  return plan;
}

std::vector<TflmPlanBuffer> ReadTflmPlan(const std::string& model) {
  return ReadTflmPlanFile(SharedDir() + "/golden/tflm_plans/" + model + ".txt");
}

std::vector<TflmPlannedModel> TflmPlannedModels() {
  std::vector<TflmPlannedModel> models;
  for (const std::string& name : SharedModelNames()) {
    std::vector<TflmPlanBuffer> plan = ReadTflmPlan(name);
    if (!plan.empty()) models.push_back({name, std::move(plan)});
  }
  return models;
}

size_t TflmPlanHeadBytes(const std::vector<TflmPlanBuffer>& plan) {
  size_t head = 0;
  for (const TflmPlanBuffer& buffer : plan) {
    if (buffer.offset_bytes + buffer.size_bytes > head) head = buffer.offset_bytes + buffer.size_bytes;
  }
  return head;
}

std::vector<TflmArenaCsvRow> ReadTflmArenaCsv(const std::string& file_name) {
  std::vector<TflmArenaCsvRow> rows;
  std::ifstream in(SharedDir() + "/golden/" + file_name);
  std::string line;
  if (!std::getline(in, line)) return rows;
  std::vector<std::string> header;
  std::istringstream header_cells(line);
  for (std::string cell; std::getline(header_cells, cell, ',');) header.push_back(cell);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    TflmArenaCsvRow row;
    std::istringstream cells(line);
    std::string cell;
    for (size_t i = 0; i < header.size() && std::getline(cells, cell, ','); ++i) row[header[i]] = cell;
    rows.push_back(row);
  }
  return rows;
}

TflmArenaCsvRow TflmArenaRow(const std::string& model) {
  for (TflmArenaCsvRow& row : ReadTflmArenaCsv()) {
    if (row["model"] == model) return row;
  }
  return {};
}

size_t TflmArenaFigure(const TflmArenaCsvRow& row, const std::string& column) {
  const auto cell = row.find(column);
  return cell == row.end() ? 0 : static_cast<size_t>(std::strtoull(cell->second.c_str(), nullptr, 10));
}

size_t TflmMinArena(const std::string& model) { return TflmArenaFigure(TflmArenaRow(model), "min_arena_bytes"); }

std::vector<std::string> GoldenOutputModels() {
  std::vector<std::string> names;
  for (const std::string& name : SharedModelNames()) {
    if (std::ifstream(SharedDir() + "/golden/" + name + "/seed1/output_0.bin")) names.push_back(name);
  }
  return names;
}

}  // namespace microarena::testing
