#include "microarena/runtime/kernel_data_writer.h"

#include <cstring>

#include "microarena/base/align.h"
#include "microarena/runtime/host_runner.h"

namespace microarena {

size_t ComputedKernelData::data_bytes() const {
  size_t total = 0;
  for (const KernelDataRecord& record : records) total += record.bytes.size();
  return total;
}

namespace {

class Recorder final : public KernelDataObserver {
 public:
  explicit Recorder(std::vector<KernelDataRecord>* records) : records_(records) {}
  void OnKernelData(size_t op, const uint8_t* data, size_t bytes, size_t alignment) override {
    records_->push_back(
        KernelDataRecord{static_cast<uint32_t>(op), static_cast<uint32_t>(alignment), std::vector<uint8_t>(data, data + bytes)});
  }

 private:
  std::vector<KernelDataRecord>* records_;
};

void PutU32(std::vector<uint8_t>& out, size_t at, uint32_t value) { std::memcpy(out.data() + at, &value, 4); }
void PutU64(std::vector<uint8_t>& out, size_t at, uint64_t value) { std::memcpy(out.data() + at, &value, 8); }

}  // namespace

Result<ComputedKernelData> ComputeKernelData(const ModelView& model, const OpResolver& resolver,
                                             InterpreterOptions options) {
  options.use_kernel_data = false;
  options.figures_for = nullptr;
  Result<size_t> arena_bytes = MeasureArenaBytes(model, resolver, options);
  if (!arena_bytes.ok()) return arena_bytes.status();
  ComputedKernelData computed;
  Recorder recorder(&computed.records);
  options.kernel_data_observer = &recorder;
  HostArena arena(*arena_bytes + 64);
  Interpreter interpreter(model, resolver, arena.data(), arena.size(), options);
  MICROARENA_RETURN_IF_ERROR(interpreter.AllocateTensors());
  for (size_t sg = 0; sg < model.subgraph_count(); ++sg) computed.op_count += model.subgraph(sg).operator_count();
  computed.fingerprint = ModelFingerprint(model);
  return computed;
}

std::vector<uint8_t> EncodeKernelData(const ComputedKernelData& data) {
  const size_t entries = data.records.size();
  size_t size = kKernelDataHeaderBytes + entries * kKernelDataEntryBytes;
  std::vector<size_t> offsets;
  for (const KernelDataRecord& record : data.records) {
    const size_t alignment = record.alignment < 4 ? 4 : record.alignment;
    size = AlignUpUnchecked(size, alignment);
    offsets.push_back(size);
    size += record.bytes.size();
  }
  std::vector<uint8_t> blob(AlignUpUnchecked(size, 4), 0);
  PutU32(blob, 0, kKernelDataMagic);
  PutU32(blob, 4, kKernelDataVersion);
  PutU32(blob, 8, static_cast<uint32_t>(data.op_count));
  PutU32(blob, 12, static_cast<uint32_t>(entries));
  PutU64(blob, 16, data.fingerprint);
  for (size_t i = 0; i < entries; ++i) {
    const KernelDataRecord& record = data.records[i];
    const size_t at = kKernelDataHeaderBytes + i * kKernelDataEntryBytes;
    PutU32(blob, at, record.op);
    PutU32(blob, at + 4, static_cast<uint32_t>(offsets[i]));
    PutU32(blob, at + 8, static_cast<uint32_t>(record.bytes.size()));
    PutU32(blob, at + 12, record.alignment);
    if (!record.bytes.empty()) std::memcpy(blob.data() + offsets[i], record.bytes.data(), record.bytes.size());
  }
  PutU64(blob, 24, Fnv1a64(blob.data() + kKernelDataHeaderBytes, blob.size() - kKernelDataHeaderBytes));
  return blob;
}

std::vector<uint8_t> EncodeStoredPlan(const ModelView& model, const PrecomputedPlanData& plan, size_t alignment_bytes,
                                      bool uses_overlap, size_t lower_bound_bytes, Span<const TiledSegment> tiling) {
  const bool tiled = !tiling.empty();
  const size_t words = plan.tensor_offsets.size() + plan.scratch_offsets.size();
  std::vector<uint8_t> blob(kStoredPlanHeaderBytes + 4 * words, 0);
  PutU32(blob, 0, kStoredPlanMagic);
  PutU32(blob, 4, kStoredPlanVersion);
  PutU32(blob, 8, static_cast<uint32_t>(alignment_bytes));
  PutU32(blob, 12, (uses_overlap ? kStoredPlanUsesOverlap : 0u) | (tiled ? kStoredPlanTiled : 0u));
  PutU64(blob, 16, tiled ? TilingFingerprint(ModelFingerprint(model), tiling) : ModelFingerprint(model));
  PutU32(blob, 32, static_cast<uint32_t>(plan.tensor_offsets.size()));
  PutU32(blob, 36, static_cast<uint32_t>(plan.scratch_offsets.size()));
  PutU32(blob, 40, static_cast<uint32_t>(plan.head_bytes));
  PutU32(blob, 44, static_cast<uint32_t>(lower_bound_bytes));
  size_t at = kStoredPlanHeaderBytes;
  for (uint32_t offset : plan.tensor_offsets) PutU32(blob, (at += 4) - 4, offset);
  for (uint32_t offset : plan.scratch_offsets) PutU32(blob, (at += 4) - 4, offset);
  PutU64(blob, 24, Fnv1a64(blob.data() + 32, blob.size() - 32));
  return blob;
}

std::vector<uint8_t> EncodeStoredTiling(const ModelView& model, Span<const TiledSegment> segments) {
  std::vector<uint8_t> blob(kStoredTilingHeaderBytes + sizeof(TiledSegment) * segments.size(), 0);
  PutU32(blob, 0, kStoredTilingMagic);
  PutU32(blob, 4, kStoredTilingVersion);
  PutU64(blob, 8, ModelFingerprint(model));
  PutU32(blob, 24, static_cast<uint32_t>(segments.size()));
  size_t at = kStoredTilingHeaderBytes;
  for (const TiledSegment& segment : segments) {
    PutU32(blob, at, static_cast<uint32_t>(segment.first_op));
    PutU32(blob, at + 4, static_cast<uint32_t>(segment.last_op));
    PutU32(blob, at + 8, static_cast<uint32_t>(segment.band_rows));
    at += sizeof(TiledSegment);
  }
  PutU64(blob, 16, Fnv1a64(blob.data() + 24, blob.size() - 24));
  return blob;
}

}  // namespace microarena
