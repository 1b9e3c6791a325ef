#include "microarena/runtime/kernel_data.h"

#include <cstring>

#include "microarena/base/align.h"

namespace microarena {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "kernel data is stored little-endian and read in place");

const char* KernelDataStateName(KernelDataState state) {
  switch (state) {
    case KernelDataState::kAbsent: return "absent";
    case KernelDataState::kUsed: return "used";
    case KernelDataState::kMalformed: return "malformed";
    case KernelDataState::kCorrupted: return "corrupted";
    case KernelDataState::kStale: return "stale";
    case KernelDataState::kVersion: return "unknown version";
    case KernelDataState::kMisaligned: return "misaligned";
  }
  return "unknown";
}

uint64_t Fnv1a64(const uint8_t* bytes, size_t size, uint64_t hash) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001B3ull;
  }
  return hash;
}

namespace {

uint64_t HashValue(uint64_t hash, uint64_t value) {
  uint8_t bytes[8];
  std::memcpy(bytes, &value, sizeof(bytes));
  return Fnv1a64(bytes, sizeof(bytes), hash);
}

uint64_t HashList(uint64_t hash, Span<const int32_t> list) {
  hash = HashValue(hash, list.size());
  for (int32_t v : list) hash = HashValue(hash, static_cast<uint32_t>(v));
  return hash;
}

}  // namespace

uint64_t ModelFingerprint(const ModelView& model) {
  uint64_t hash = HashValue(Fnv1a64(nullptr, 0), model.subgraph_count());
  for (size_t sg = 0; sg < model.subgraph_count(); ++sg) {
    SubgraphView subgraph = model.subgraph(sg);
    hash = HashValue(hash, subgraph.tensor_count());
    for (size_t t = 0; t < subgraph.tensor_count(); ++t) {
      TensorView tensor = subgraph.tensor(t);
      hash = HashValue(hash, static_cast<uint64_t>(tensor.type()) | (uint64_t{tensor.is_constant()} << 8) |
                                 (uint64_t{tensor.is_variable()} << 9));
      hash = HashList(hash, tensor.shape());
      hash = HashValue(hash, tensor.byte_size());
      QuantizationView quantization = tensor.quantization();
      const size_t channels = quantization.is_quantized() ? quantization.channel_count() : 0;
      hash = HashValue(hash, channels);
      hash = HashValue(hash, static_cast<uint32_t>(quantization.quantized_dimension()));
      for (size_t c = 0; c < channels; ++c) {
        const float scale = quantization.scale(c);
        uint32_t scale_bits = 0;
        std::memcpy(&scale_bits, &scale, sizeof(scale_bits));
        hash = HashValue(hash, scale_bits);
        hash = HashValue(hash, static_cast<uint64_t>(quantization.zero_point(c)));
      }
    }
    hash = HashList(hash, subgraph.inputs());
    hash = HashList(hash, subgraph.outputs());
    hash = HashValue(hash, subgraph.operator_count());
    for (size_t o = 0; o < subgraph.operator_count(); ++o) {
      OperatorView op = subgraph.op(o);
      hash = HashValue(hash, static_cast<uint64_t>(op.code()) | (static_cast<uint64_t>(op.version()) << 32));
      const char* name = op.name();
      hash = Fnv1a64(reinterpret_cast<const uint8_t*>(name), std::strlen(name) + 1, hash);
      hash = HashList(hash, op.inputs());
      hash = HashList(hash, op.outputs());
      hash = HashList(hash, op.intermediates());
      Span<const uint8_t> custom = op.custom_options();
      hash = Fnv1a64(custom.data(), custom.size(), HashValue(hash, custom.size()));
      // Builtin options: the table's bytes as stored (their vtable and fields).
      const tflite::Operator* raw = op.raw();
      if (raw->builtin_options() != nullptr) {
        hash = HashValue(hash, static_cast<uint64_t>(raw->builtin_options_type()));
      }
    }
  }
  return hash;
}

KernelDataView KernelDataView::Parse(Span<const uint8_t> blob, size_t op_count, uint64_t fingerprint) {
  KernelDataView view;
  if (blob.empty()) return view;
  view.state_ = KernelDataState::kMalformed;
  if (blob.size() < kKernelDataHeaderBytes || LoadU32(blob.data()) != kKernelDataMagic) return view;
  if (LoadU32(blob.data() + 4) != kKernelDataVersion) {
    view.state_ = KernelDataState::kVersion;
    return view;
  }
  if (reinterpret_cast<uintptr_t>(blob.data()) % 16 != 0) {
    view.state_ = KernelDataState::kMisaligned;
    return view;
  }
  const uint64_t payload_hash = LoadU64(blob.data() + 24);
  if (Fnv1a64(blob.data() + kKernelDataHeaderBytes, blob.size() - kKernelDataHeaderBytes) != payload_hash) {
    view.state_ = KernelDataState::kCorrupted;
    return view;
  }
  if (LoadU32(blob.data() + 8) != op_count || LoadU64(blob.data() + 16) != fingerprint) {
    view.state_ = KernelDataState::kStale;
    return view;
  }
  const size_t entries = LoadU32(blob.data() + 12);
  const size_t table_end_limit = (blob.size() - kKernelDataHeaderBytes) / kKernelDataEntryBytes;
  if (entries > table_end_limit || entries > op_count) return view;
  const size_t table_end = kKernelDataHeaderBytes + entries * kKernelDataEntryBytes;
  view.blob_ = blob.data();
  view.blob_bytes_ = blob.size();
  view.entry_count_ = entries;
  for (size_t i = 0; i < entries; ++i) {
    const KernelDataEntry e = view.entry(i);
    const bool ordered = i == 0 || e.op > view.entry(i - 1).op;
    if (!ordered || e.op >= op_count || !IsPowerOfTwo(e.alignment) || e.alignment > 64 || e.offset < table_end ||
        e.offset % e.alignment != 0 || e.offset > blob.size() || e.bytes > blob.size() - e.offset) {
      view.blob_ = nullptr;
      view.blob_bytes_ = 0;
      view.entry_count_ = 0;
      return view;
    }
  }
  view.state_ = KernelDataState::kUsed;
  return view;
}

KernelDataEntry KernelDataView::entry(size_t i) const {
  const uint8_t* at = blob_ + kKernelDataHeaderBytes + i * kKernelDataEntryBytes;
  return KernelDataEntry{LoadU32(at), LoadU32(at + 4), LoadU32(at + 8), LoadU32(at + 12)};
}

}  // namespace microarena
