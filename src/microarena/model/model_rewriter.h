// ModelRewriter (host): edits a .tflite file without understanding all of it.
//
// `microarena optimize` must store the operators in a new order and attach a
// memory plan as metadata, and must not lose anything it does not know about
// (options fields newer than our schema subset, signature defs, sparsity,
// vendor metadata). Unpacking into generated objects and packing again would
// drop every such field, so the rewriter never re-encodes the original:
//
//   new file:  | root | "TFL3" | new Model table | metadata vector | buffers
//              | vector | new Metadata / Buffer tables, names, data | pad |
//              | the original file, byte for byte (at a 64-byte boundary) |
//
// FlatBuffers offsets are relative and point forward, so every original table
// stays valid where it is; the new Model table copies the original's fields
// (the scalar version, and the offsets re-aimed at the original objects) and
// points at new metadata/buffers vectors that list the original entries plus
// the added ones. The only in-place edit is the order of subgraph 0's
// operators vector: its entries are re-aimed at the operator tables in the new
// order (the tables themselves do not move).
//
// Rewriting a file this rewriter wrote rewrites the original it embeds
// (found by structure: at a 64-byte boundary, its subgraphs and operator
// codes the outer model's own, its buffers the first of the outer list),
// with the outer file's metadata list and operator order, so a file
// optimized again does not keep the earlier additions' bytes.
//
// The result is checked by LoadModel (flatbuffers verifier + semantic checks)
// before it is returned. Cost: one copy of the file plus the added bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/base/span.h"

namespace microarena {

struct MetadataEntry {
  std::string name;
  std::vector<uint8_t> data;  // stored 16-byte aligned
};

struct ModelEdits {
  // New order of subgraph 0's operators: new position i holds the operator
  // that was at order[i]. Empty: keep the order.
  std::vector<int32_t> operator_order;
  // Metadata to add; an existing entry with the same name is dropped.
  std::vector<MetadataEntry> metadata;
  // Metadata names to drop (e.g. a stale plan), whether or not replaced.
  std::vector<std::string> drop_metadata;
};

Result<std::vector<uint8_t>> RewriteModel(Span<const uint8_t> original, const ModelEdits& edits);

// An OfflineMemoryAllocation buffer (analysis/offline_plan.h): version 0,
// the subgraph count, the tensor count, then the offsets of every tensor,
// subgraph after subgraph.
std::vector<uint8_t> EncodeOfflinePlan(const std::vector<int32_t>& tensor_offsets, size_t subgraph_count = 1);

}  // namespace microarena
