#include "microarena/model/model_rewriter.h"

#include <algorithm>
#include <cstring>

#include "microarena/model/model_view.h"
#include "microarena/schema/tflite_schema_generated.h"

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

// Bounds-checked reads for candidate slices, which have not passed the
// verifier: every position is checked, sums are taken in 64 bits.
// The position of field `id` of the table at `table`; 0 when absent or out
// of range. `field_count`, when given, receives the table's field count.
uint64_t CheckedFieldPos(Span<const uint8_t> bytes, uint64_t table, int id, int* field_count = nullptr) {
  if (table + 4 > bytes.size()) return 0;
  int32_t soffset = 0;
  std::memcpy(&soffset, bytes.data() + table, 4);
  const int64_t vtable = static_cast<int64_t>(table) - soffset;
  if (vtable < 0 || static_cast<uint64_t>(vtable) + 4 > bytes.size()) return 0;
  uint16_t vtable_bytes = 0;
  std::memcpy(&vtable_bytes, bytes.data() + vtable, 2);
  if (field_count != nullptr) *field_count = vtable_bytes < 4 ? 0 : (vtable_bytes - 4) / 2;
  const uint64_t slot = static_cast<uint64_t>(vtable) + 4 + 2 * static_cast<uint64_t>(id);
  if (vtable_bytes < 4 + 2 * (id + 1) || slot + 2 > bytes.size()) return 0;
  uint16_t field = 0;
  std::memcpy(&field, bytes.data() + slot, 2);
  return field == 0 || table + field + 4 > bytes.size() ? 0 : table + field;
}

// The target of offset field `id`; 0 when absent or out of range.
uint64_t CheckedFieldTarget(Span<const uint8_t> bytes, uint64_t table, int id) {
  const uint64_t at = CheckedFieldPos(bytes, table, id);
  if (at == 0) return 0;
  const uint64_t target = at + ReadU32Span(bytes, static_cast<size_t>(at));
  return target < bytes.size() ? target : 0;
}

// Where the original a rewrite embeds starts in `bytes` (a verified model),
// or 0 when `bytes` is not a file this rewriter wrote. The original sits at
// a kOriginalAlignment boundary after the outer root; it loads; every field
// of the outer Model table but buffers and metadata is present in both
// alike and refers to the same object (version: the same value); the outer
// buffer list opens with the original's buffer tables, and each buffer past
// them holds the data of exactly one metadata entry the rewrite added.
// Anything else (a file another tool built alike, or edited since) is not
// taken apart: it is embedded whole, as any file is. No marker is stored.
size_t EmbeddedOriginalAt(Span<const uint8_t> bytes) {
  const uint64_t root = ReadU32Span(bytes, 0);
  int outer_fields = 0;
  CheckedFieldPos(bytes, root, 0, &outer_fields);
  const uint64_t subgraphs = CheckedFieldTarget(bytes, root, kModelSubgraphs);
  if (outer_fields > kModelKnownFields || subgraphs == 0) return 0;
  const tflite::Model* outer = tflite::GetModel(bytes.data());
  for (uint64_t at = kOriginalAlignment; at <= subgraphs; at += kOriginalAlignment) {
    if (root >= at) continue;
    const Span<const uint8_t> inner(bytes.data() + at, bytes.size() - static_cast<size_t>(at));
    const uint64_t inner_root = ReadU32Span(inner, 0);
    int inner_fields = 0;
    CheckedFieldPos(inner, inner_root, 0, &inner_fields);
    if (inner_root == 0 || inner_fields > kModelKnownFields) continue;
    bool same = true;
    for (int id = 0; same && id < kModelKnownFields; ++id) {
      if (id == kModelBuffers || id == kModelMetadata) continue;
      if (id == kModelVersion) {
        const uint64_t a = CheckedFieldPos(bytes, root, id);
        const uint64_t b = CheckedFieldPos(inner, inner_root, id);
        same = (a == 0) == (b == 0) &&
               (a == 0 || ReadU32Span(bytes, static_cast<size_t>(a)) == ReadU32Span(inner, static_cast<size_t>(b)));
        continue;
      }
      const uint64_t a = CheckedFieldTarget(bytes, root, id);
      const uint64_t b = CheckedFieldTarget(inner, inner_root, id);
      same = (a == 0) == (b == 0) && (a == 0 || b + at == a);
    }
    if (!same || !LoadModel(inner).ok()) continue;
    // The buffer lists: the original's first, then one per added entry.
    const tflite::Model* original = tflite::GetModel(inner.data());
    const size_t inner_count = original->buffers() != nullptr ? original->buffers()->size() : 0;
    const size_t outer_count = outer->buffers() != nullptr ? outer->buffers()->size() : 0;
    if (inner_count > outer_count) continue;
    for (size_t i = 0; same && i < inner_count; ++i) {
      const auto* a = reinterpret_cast<const uint8_t*>(outer->buffers()->Get(static_cast<uint32_t>(i)));
      const auto* b = reinterpret_cast<const uint8_t*>(original->buffers()->Get(static_cast<uint32_t>(i)));
      same = a == b;  // the same table: both point into the shared bytes
    }
    std::vector<int> uses(outer_count, 0);
    if (outer->metadata() != nullptr) {
      for (const tflite::Metadata* entry : *outer->metadata()) {
        if (entry->buffer() < outer_count) ++uses[entry->buffer()];
      }
    }
    for (size_t i = inner_count; same && i < outer_count; ++i) same = uses[i] == 1;
    if (same) return static_cast<size_t>(at);
  }
  return 0;
}

bool Named(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Result<std::vector<uint8_t>> RewriteModel(Span<const uint8_t> original_span, const ModelEdits& requested) {
  MICROARENA_RETURN_IF_ERROR(LoadModel(original_span).status());
  // A file this rewriter wrote (possibly nested by an older version of it):
  // rewrite the original it embeds instead, with the outer file's metadata
  // list, so that rewriting again does not keep a copy of every earlier
  // addition. The outer file's operator order is already in the embedded
  // copy (a rewrite re-aims that copy's operators vector in place).
  ModelEdits edits = requested;
  Span<const uint8_t> base = original_span;
  for (size_t at = EmbeddedOriginalAt(base); at != 0; at = EmbeddedOriginalAt(base)) {
    const tflite::Model* outer = tflite::GetModel(base.data());
    const Span<const uint8_t> inner(base.data() + at, base.size() - at);
    const tflite::Model* original = tflite::GetModel(inner.data());
    auto name_of = [](const tflite::Metadata* entry) { return entry->name() != nullptr ? entry->name()->str() : std::string(); };
    auto named = [&](const std::string& name) {
      return Named(edits.drop_metadata, name) ||
             std::any_of(edits.metadata.begin(), edits.metadata.end(), [&](const MetadataEntry& e) { return e.name == name; });
    };
    // Entries of the original the outer list kept (the same tables), and
    // those it added (tables before the original), by entry, not by name.
    std::vector<const uint8_t*> kept;
    std::vector<MetadataEntry> added;
    if (outer->metadata() != nullptr) {
      for (const tflite::Metadata* entry : *outer->metadata()) {
        const auto* table = reinterpret_cast<const uint8_t*>(entry);
        if (table >= inner.data()) {
          kept.push_back(table);
          continue;
        }
        const std::string name = name_of(entry);
        if (named(name)) continue;  // replaced or dropped now
        const tflite::Buffer* buffer = outer->buffers()->Get(entry->buffer());
        MetadataEntry carried{name, {}};
        if (buffer->data() != nullptr) carried.data.assign(buffer->data()->begin(), buffer->data()->end());
        added.push_back(std::move(carried));
      }
    }
    if (original->metadata() != nullptr) {
      for (const tflite::Metadata* entry : *original->metadata()) {
        const auto* table = reinterpret_cast<const uint8_t*>(entry);
        if (std::find(kept.begin(), kept.end(), table) == kept.end()) edits.drop_metadata.push_back(name_of(entry));
      }
    }
    edits.metadata.insert(edits.metadata.begin(), added.begin(), added.end());
    base = inner;
  }
  MICROARENA_ASSIGN_OR_RETURN(ModelView view, LoadModel(base));
  const std::vector<uint8_t> original(base.begin(), base.end());

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
  // Custom options outside the flatbuffer are addressed from the file's
  // start, which the front part moves: refused, as external buffers are.
  const tflite::Model* base_model = tflite::GetModel(original.data());
  if (base_model->subgraphs() != nullptr) {
    for (uint32_t sg = 0; sg < base_model->subgraphs()->size(); ++sg) {
      const tflite::SubGraph* subgraph = base_model->subgraphs()->Get(sg);
      if (subgraph->operators() == nullptr) continue;
      for (uint32_t o = 0; o < subgraph->operators()->size(); ++o) {
        if (subgraph->operators()->Get(o)->large_custom_options_offset() > 1) {
          return Status::Error(ErrorCode::kUnsupported,
                               "subgraph %u, op %u keeps its custom options outside the flatbuffer; such models "
                               "cannot be rewritten yet",
                               sg, o);
        }
      }
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
