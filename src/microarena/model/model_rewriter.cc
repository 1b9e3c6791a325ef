#include "microarena/model/model_rewriter.h"

#include <algorithm>
#include <cstring>

#include "microarena/model/model_view.h"

namespace microarena {

namespace {

// Field ids of the tables we touch (those of the TFLite schema).
constexpr int kModelVersion = 0;
constexpr int kModelOperatorCodes = 1;
constexpr int kModelSubgraphs = 2;
constexpr int kModelBuffers = 4;
constexpr int kModelMetadata = 6;
constexpr int kModelKnownFields = 8;  // ... metadata (6), signature_defs (7)
constexpr int kSubgraphOperators = 3;
constexpr int kMetadataName = 0;
constexpr int kBufferOffset = 1;
constexpr size_t kOriginalAlignment = 64;

uint32_t ReadU32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, sizeof(v));
  return v;
}
// 0 when fewer than 4 bytes remain at `at`.
uint32_t ReadU32Span(Span<const uint8_t> b, size_t at) {
  uint32_t v = 0;
  if (at <= b.size() && b.size() - at >= 4) std::memcpy(&v, b.data() + at, sizeof(v));
  return v;
}
uint16_t ReadU16(const std::vector<uint8_t>& b, size_t at) {
  uint16_t v;
  std::memcpy(&v, b.data() + at, sizeof(v));
  return v;
}
void WriteU32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, sizeof(v)); }
void WriteU16(std::vector<uint8_t>& b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, sizeof(v)); }

// A table of the original file (positions relative to its start).
struct Table {
  size_t pos = 0;
  size_t vtable = 0;
  int field_count = 0;
};

Table ReadTable(const std::vector<uint8_t>& b, size_t pos) {
  Table t;
  t.pos = pos;
  int32_t soffset;
  std::memcpy(&soffset, b.data() + pos, sizeof(soffset));
  t.vtable = static_cast<size_t>(static_cast<int64_t>(pos) - soffset);
  t.field_count = (ReadU16(b, t.vtable) - 4) / 2;
  return t;
}
// Position of field `id`, 0 when absent.
size_t FieldPos(const std::vector<uint8_t>& b, const Table& t, int id) {
  if (id >= t.field_count) return 0;
  uint16_t offset = ReadU16(b, t.vtable + 4 + 2 * static_cast<size_t>(id));
  return offset == 0 ? 0 : t.pos + offset;
}
// Follows the offset stored at `at`.
size_t Deref(const std::vector<uint8_t>& b, size_t at) { return at + ReadU32(b, at); }

std::string ReadString(const std::vector<uint8_t>& b, size_t pos) {
  uint32_t length = ReadU32(b, pos);
  return std::string(reinterpret_cast<const char*>(b.data() + pos + 4), length);
}

// Appends to the new front part and remembers offsets to fill in once their
// targets are known. Targets are absolute positions in the new file.
class FrontWriter {
 public:
  FrontWriter() : bytes_(8, 0) {}  // root offset + file identifier
  size_t size() const { return bytes_.size(); }
  std::vector<uint8_t>& bytes() { return bytes_; }

  void AlignTo(size_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(0);
  }
  size_t Reserve(size_t n) {
    size_t at = bytes_.size();
    bytes_.resize(at + n, 0);
    return at;
  }
  // A table of `field_count` 4-byte fields, `present[i]` saying which exist;
  // returns the table position; field i sits at FieldAt(table, i).
  size_t AddTable(const std::vector<bool>& present) {
    const auto field_count = static_cast<uint16_t>(present.size());
    AlignTo(4);
    const size_t vtable = Reserve(4 + 2 * size_t{field_count});
    AlignTo(4);
    const size_t table = Reserve(4);
    uint16_t next = 4;
    WriteU16(bytes_, vtable, static_cast<uint16_t>(4 + 2 * field_count));
    for (uint16_t i = 0; i < field_count; ++i) {
      if (!present[i]) continue;
      WriteU16(bytes_, vtable + 4 + 2 * size_t{i}, next);
      next = static_cast<uint16_t>(next + 4);
    }
    WriteU16(bytes_, vtable + 2, next);
    Reserve(next - 4u);
    const auto soffset = static_cast<int32_t>(table - vtable);
    std::memcpy(bytes_.data() + table, &soffset, sizeof(soffset));
    tables_.push_back({table, vtable});
    return table;
  }
  size_t FieldAt(size_t table, int id) const {
    for (const auto& [t, vtable] : tables_) {
      if (t != table) continue;
      uint16_t offset = ReadU16(bytes_, vtable + 4 + 2 * static_cast<size_t>(id));
      return offset == 0 ? 0 : table + offset;
    }
    return 0;
  }
  // Offset at `at` to be aimed at `target` (absolute, in the new file).
  void Refer(size_t at, size_t target) { refs_.push_back({at, target, false}); }
  // Offset at `at` to be aimed at `original_pos` of the original file.
  void ReferOriginal(size_t at, size_t original_pos) { refs_.push_back({at, original_pos, true}); }

  size_t AddString(const std::string& text) {
    AlignTo(4);
    const size_t at = Reserve(4 + text.size() + 1);
    WriteU32(bytes_, at, static_cast<uint32_t>(text.size()));
    std::memcpy(bytes_.data() + at + 4, text.data(), text.size());
    return at;
  }
  size_t AddBytes(const std::vector<uint8_t>& data) {
    // The elements (after the length) 16-byte aligned, as TFLite buffers are.
    while ((bytes_.size() + 4) % 16 != 0) bytes_.push_back(0);
    const size_t at = Reserve(4 + data.size());
    WriteU32(bytes_, at, static_cast<uint32_t>(data.size()));
    if (!data.empty()) std::memcpy(bytes_.data() + at + 4, data.data(), data.size());
    return at;
  }

  // Fills every offset, with the original placed at `original_start`.
  Status Resolve(std::vector<uint8_t>& file, size_t original_start) const {
    for (const Ref& ref : refs_) {
      const size_t target = ref.original ? original_start + ref.target : ref.target;
      if (target <= ref.at || target - ref.at > UINT32_MAX) {
        return Status::Error(ErrorCode::kInternal, "rewrite: offset at %zu cannot reach %zu", ref.at, target);
      }
      WriteU32(file, ref.at, static_cast<uint32_t>(target - ref.at));
    }
    return OkStatus();
  }

 private:
  struct Ref {
    size_t at;
    size_t target;
    bool original;
  };
  std::vector<uint8_t> bytes_;
  std::vector<std::pair<size_t, size_t>> tables_;
  std::vector<Ref> refs_;
};

}  // namespace

std::vector<uint8_t> EncodeOfflinePlan(const std::vector<int32_t>& tensor_offsets, size_t subgraph_count) {
  std::vector<int32_t> words = {0, static_cast<int32_t>(subgraph_count), static_cast<int32_t>(tensor_offsets.size())};
  words.insert(words.end(), tensor_offsets.begin(), tensor_offsets.end());
  std::vector<uint8_t> bytes(words.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

namespace {

// The target of field `id` of the table at `table` (an offset field), with
// every read bounds-checked: `bytes` past the start of a candidate need not
// be a model. 0 when absent or out of range.
size_t CheckedFieldTarget(Span<const uint8_t> bytes, size_t table, int id) {
  auto u32 = [&](size_t at, uint32_t* v) {
    if (at > bytes.size() || bytes.size() - at < 4) return false;
    std::memcpy(v, bytes.data() + at, 4);
    return true;
  };
  uint32_t raw = 0;
  if (!u32(table, &raw)) return 0;
  const int64_t vtable = static_cast<int64_t>(table) - static_cast<int32_t>(raw);
  if (vtable < 0 || static_cast<size_t>(vtable) + 4 > bytes.size()) return 0;
  uint16_t vtable_bytes = 0;
  std::memcpy(&vtable_bytes, bytes.data() + vtable, 2);
  const size_t slot = static_cast<size_t>(vtable) + 4 + 2 * static_cast<size_t>(id);
  if (vtable_bytes < 4 + 2 * (id + 1) || slot + 2 > bytes.size()) return 0;
  uint16_t field = 0;
  std::memcpy(&field, bytes.data() + slot, 2);
  uint32_t offset = 0;
  if (field == 0 || !u32(table + field, &offset)) return 0;
  const size_t target = table + field + offset;
  return target < bytes.size() ? target : 0;
}

// The original a rewrite embeds, when `bytes` is a file this rewriter wrote:
// a model at a kOriginalAlignment boundary whose subgraphs and operator
// codes are the very objects the outer model refers to, and whose buffers
// open the outer buffer list. Empty otherwise. (No marker is stored: the
// structure identifies it, at no cost in the file.)
Span<const uint8_t> EmbeddedOriginal(Span<const uint8_t> bytes) {
  const size_t root = ReadU32Span(bytes, 0);
  const size_t subgraphs = CheckedFieldTarget(bytes, root, kModelSubgraphs);
  if (subgraphs == 0) return {};
  const size_t codes = CheckedFieldTarget(bytes, root, kModelOperatorCodes);
  const size_t outer_buffers = CheckedFieldTarget(bytes, root, kModelBuffers);
  for (size_t at = kOriginalAlignment; at <= subgraphs; at += kOriginalAlignment) {
    const Span<const uint8_t> inner(bytes.data() + at, bytes.size() - at);
    const size_t inner_root = ReadU32Span(inner, 0);
    if (inner_root >= inner.size() || CheckedFieldTarget(inner, inner_root, kModelSubgraphs) + at != subgraphs) {
      continue;
    }
    if (CheckedFieldTarget(inner, inner_root, kModelOperatorCodes) + (codes == 0 ? 0 : at) != codes) continue;
    if (!LoadModel(inner).ok()) continue;
    // The inner buffer tables open the outer buffer list, in order.
    const size_t inner_buffers = CheckedFieldTarget(inner, inner_root, kModelBuffers);
    if ((inner_buffers == 0) != (outer_buffers == 0)) continue;
    bool same = true;
    if (inner_buffers != 0) {
      const uint32_t inner_count = ReadU32Span(inner, inner_buffers);
      same = inner_count <= ReadU32Span(bytes, outer_buffers);
      for (uint32_t i = 0; same && i < inner_count; ++i) {
        const size_t inner_entry = inner_buffers + 4 + 4 * size_t{i};
        const size_t outer_entry = outer_buffers + 4 + 4 * size_t{i};
        same = at + inner_entry + ReadU32Span(inner, inner_entry) == outer_entry + ReadU32Span(bytes, outer_entry);
      }
    }
    if (same) return inner;
  }
  return {};
}

bool Named(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Result<std::vector<uint8_t>> RewriteModel(Span<const uint8_t> original_span, const ModelEdits& requested) {
  MICROARENA_ASSIGN_OR_RETURN(ModelView view, LoadModel(original_span));
  // A file this rewriter wrote: rewrite the model it embeds instead, with
  // the outer file's metadata list (entries it added carried over, entries
  // it dropped dropped again), so that rewriting again does not nest one
  // more copy of every earlier addition.
  if (const Span<const uint8_t> inner = EmbeddedOriginal(original_span); inner.size() > 0) {
    MICROARENA_ASSIGN_OR_RETURN(ModelView inner_view, LoadModel(inner));
    std::vector<std::string> outer_names;
    for (size_t i = 0; i < view.metadata_count(); ++i) outer_names.emplace_back(view.metadata_name(i));
    std::vector<std::string> inner_names;
    for (size_t i = 0; i < inner_view.metadata_count(); ++i) inner_names.emplace_back(inner_view.metadata_name(i));
    ModelEdits edits;
    edits.operator_order = requested.operator_order;
    edits.drop_metadata = requested.drop_metadata;
    for (const std::string& name : inner_names) {
      if (!Named(outer_names, name)) edits.drop_metadata.push_back(name);
    }
    for (const std::string& name : outer_names) {
      const bool replaced = std::any_of(requested.metadata.begin(), requested.metadata.end(),
                                        [&](const MetadataEntry& e) { return e.name == name; });
      if (Named(inner_names, name) || replaced || Named(requested.drop_metadata, name)) continue;
      const Span<const uint8_t> data = view.metadata(name.c_str());
      edits.metadata.push_back({name, std::vector<uint8_t>(data.begin(), data.end())});
    }
    edits.metadata.insert(edits.metadata.end(), requested.metadata.begin(), requested.metadata.end());
    return RewriteModel(inner, edits);
  }
  const ModelEdits& edits = requested;
  const std::vector<uint8_t> original(original_span.begin(), original_span.end());

  const Table model = ReadTable(original, ReadU32(original, 0));
  if (model.field_count > kModelKnownFields) {
    return Status::Error(ErrorCode::kUnsupported,
                         "the model table has %d fields; this rewriter knows %d and will not guess what the "
                         "others hold",
                         model.field_count, kModelKnownFields);
  }

  // The original buffers and metadata entries.
  std::vector<size_t> buffer_tables;
  if (size_t at = FieldPos(original, model, kModelBuffers); at != 0) {
    const size_t vector = Deref(original, at);
    for (uint32_t i = 0; i < ReadU32(original, vector); ++i) {
      const size_t table = Deref(original, vector + 4 + 4 * size_t{i});
      const Table buffer = ReadTable(original, table);
      if (size_t offset_at = FieldPos(original, buffer, kBufferOffset); offset_at != 0) {
        uint64_t offset;
        std::memcpy(&offset, original.data() + offset_at, sizeof(offset));
        if (offset > 1) {
          return Status::Error(ErrorCode::kUnsupported,
                               "buffer %u keeps its data outside the flatbuffer (offset %llu); such models "
                               "cannot be rewritten yet",
                               i, static_cast<unsigned long long>(offset));
        }
      }
      buffer_tables.push_back(table);
    }
  }
  std::vector<size_t> kept_metadata;
  if (size_t at = FieldPos(original, model, kModelMetadata); at != 0) {
    const size_t vector = Deref(original, at);
    for (uint32_t i = 0; i < ReadU32(original, vector); ++i) {
      const size_t table = Deref(original, vector + 4 + 4 * size_t{i});
      const size_t name_at = FieldPos(original, ReadTable(original, table), kMetadataName);
      const std::string name = name_at == 0 ? std::string() : ReadString(original, Deref(original, name_at));
      auto named = [&](const std::string& other) { return other == name; };
      const bool replaced = std::any_of(edits.metadata.begin(), edits.metadata.end(),
                                        [&](const MetadataEntry& e) { return named(e.name); });
      const bool dropped = std::any_of(edits.drop_metadata.begin(), edits.drop_metadata.end(), named);
      if (!replaced && !dropped) kept_metadata.push_back(table);
    }
  }

  // Operator order: a permutation of subgraph 0's operators.
  const size_t op_count = view.subgraph_count() == 0 ? 0 : view.subgraph(0).operator_count();
  if (!edits.operator_order.empty()) {
    if (edits.operator_order.size() != op_count) {
      return Status::Error(ErrorCode::kInvalidArgument, "the new order lists %zu operators but subgraph 0 has %zu",
                           edits.operator_order.size(), op_count);
    }
    std::vector<bool> seen(op_count, false);
    for (int32_t o : edits.operator_order) {
      if (o < 0 || static_cast<size_t>(o) >= op_count || seen[static_cast<size_t>(o)]) {
        return Status::Error(ErrorCode::kInvalidArgument, "the new order is not a permutation (op %d)", o);
      }
      seen[static_cast<size_t>(o)] = true;
    }
  }

  // The front part: new Model table, vectors, added tables and data.
  FrontWriter front;
  std::vector<bool> present(static_cast<size_t>(std::max(model.field_count, kModelMetadata + 1)), false);
  for (int id = 0; id < model.field_count; ++id) present[static_cast<size_t>(id)] = FieldPos(original, model, id) != 0;
  present[kModelBuffers] = true;
  present[kModelMetadata] = true;
  const size_t model_table = front.AddTable(present);
  WriteU32(front.bytes(), 0, static_cast<uint32_t>(model_table));
  std::memcpy(front.bytes().data() + 4, "TFL3", 4);
  for (int id = 0; id < model.field_count; ++id) {
    const size_t at = FieldPos(original, model, id);
    if (at == 0 || id == kModelBuffers || id == kModelMetadata) continue;
    if (id == kModelVersion) {
      WriteU32(front.bytes(), front.FieldAt(model_table, id), ReadU32(original, at));
    } else {
      front.ReferOriginal(front.FieldAt(model_table, id), Deref(original, at));
    }
  }

  const size_t metadata_count = kept_metadata.size() + edits.metadata.size();
  const size_t buffer_count = buffer_tables.size() + edits.metadata.size();
  front.AlignTo(4);
  const size_t metadata_vector = front.Reserve(4 + 4 * metadata_count);
  WriteU32(front.bytes(), metadata_vector, static_cast<uint32_t>(metadata_count));
  front.Refer(front.FieldAt(model_table, kModelMetadata), metadata_vector);
  const size_t buffers_vector = front.Reserve(4 + 4 * buffer_count);
  WriteU32(front.bytes(), buffers_vector, static_cast<uint32_t>(buffer_count));
  front.Refer(front.FieldAt(model_table, kModelBuffers), buffers_vector);
  for (size_t i = 0; i < kept_metadata.size(); ++i) front.ReferOriginal(metadata_vector + 4 + 4 * i, kept_metadata[i]);
  for (size_t i = 0; i < buffer_tables.size(); ++i) front.ReferOriginal(buffers_vector + 4 + 4 * i, buffer_tables[i]);

  for (size_t e = 0; e < edits.metadata.size(); ++e) {
    const size_t buffer_index = buffer_tables.size() + e;
    const size_t metadata_table = front.AddTable({true, true});
    front.Refer(metadata_vector + 4 + 4 * (kept_metadata.size() + e), metadata_table);
    WriteU32(front.bytes(), front.FieldAt(metadata_table, 1), static_cast<uint32_t>(buffer_index));
    const size_t buffer_table = front.AddTable({true});
    front.Refer(buffers_vector + 4 + 4 * buffer_index, buffer_table);
    const size_t name = front.AddString(edits.metadata[e].name);
    front.Refer(front.FieldAt(metadata_table, 0), name);
    const size_t data = front.AddBytes(edits.metadata[e].data);
    front.Refer(front.FieldAt(buffer_table, 0), data);
  }

  // The original, at an alignment that keeps every alignment it had.
  front.AlignTo(kOriginalAlignment);
  const size_t original_start = front.size();
  std::vector<uint8_t> file = std::move(front.bytes());
  file.insert(file.end(), original.begin(), original.end());
  MICROARENA_RETURN_IF_ERROR(front.Resolve(file, original_start));

  if (!edits.operator_order.empty()) {
    const size_t subgraphs = Deref(original, FieldPos(original, model, kModelSubgraphs));
    const Table subgraph = ReadTable(original, Deref(original, subgraphs + 4));
    const size_t operators = Deref(original, FieldPos(original, subgraph, kSubgraphOperators));
    std::vector<size_t> targets(op_count);
    for (size_t i = 0; i < op_count; ++i) targets[i] = Deref(original, operators + 4 + 4 * i);
    for (size_t i = 0; i < op_count; ++i) {
      const size_t entry = operators + 4 + 4 * i;
      const size_t target = targets[static_cast<size_t>(edits.operator_order[i])];
      if (target <= entry) {
        return Status::Error(ErrorCode::kUnsupported,
                             "operator %zu's table lies before the operators vector; this file's layout cannot "
                             "be reordered in place",
                             static_cast<size_t>(edits.operator_order[i]));
      }
      WriteU32(file, original_start + entry, static_cast<uint32_t>(target - entry));
    }
  }

  Result<ModelView> check = LoadModel(Span<const uint8_t>(file.data(), file.size()));
  if (!check.ok()) {
    Status status = check.status();
    return status.Prefix("the rewritten model does not load (internal error)");
  }
  return file;
}

}  // namespace microarena
