// Tiled execution of a run of spatial ops, band by band (docs/tiling.md).
//
// A segment is a contiguous run of ops [first_op, last_op] of subgraph 0
// whose feature maps flow row by row: CONV_2D, DEPTHWISE_CONV_2D, the 2-D
// pools, PAD/PADV2, ADD of two maps of one shape and RELU/RELU6. The last
// op's output (the sink) is pulled `band_rows` rows at a time; to make rows
// of a map, its op first pulls the input rows they read, then computes at
// most `band_rows` rows in one call (no row is computed twice: no extra
// MACs). A map made and used inside the segment is kept as a window of
// rows, not whole: the rows some consumer still reads (the halo) and the
// rows just made. So the segment holds its inputs (whole), its sink (whole)
// and one small window per inner map at once.
//
// Integer kernels compute each output row from the same input rows with the
// same arithmetic whether the rest of the map exists or not: a tiled run is
// bit-exact with an untiled one by construction; tests prove it.
//
// SegmentWalk is the one description of the schedule: analysis walks it to
// size the windows (WindowRowsOf, ApplyTiling), the interpreter walks it to
// run the ops; both see the same ranges.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/analysis/planning_problem.h"
#include "microarena/base/result.h"
#include "microarena/base/span.h"
#include "microarena/base/status.h"
#include "microarena/model/model_view.h"

namespace microarena {

struct TiledSegment {
  int32_t first_op = 0;
  int32_t last_op = 0;    // inclusive
  int32_t band_rows = 1;  // sink rows per band
};

// Bounds of a segment: ops, and maps its ops read by rows or write.
constexpr size_t kMaxSegmentOps = 40;
constexpr size_t kMaxSegmentTensors = 56;

// Rows [first, end) of a map.
struct RowRange {
  int32_t first = 0;
  int32_t end = 0;
  bool empty() const { return end <= first; }
  int32_t rows() const { return end - first; }
};

// How an op's output rows depend on its inputs' rows.
enum class BandOpKind : uint8_t {
  kWindow,       // CONV_2D, DEPTHWISE_CONV_2D, the pools: rows of a sliding window
  kPad,          // PAD/PADV2: shifted by the rows padded above
  kElementwise,  // the same rows
};

struct BandOp {
  BandOpKind kind = BandOpKind::kElementwise;
  int32_t stride = 1;
  int32_t before = 0;  // rows of padding above the input (window, pad)
  int32_t extent = 1;  // (filter height - 1) * dilation + 1 (window)
  uint8_t spatial_inputs = 0;  // bit i: input i carries rows
};

// What the op of `op` does to rows, or an error naming why it cannot run in
// a band (the op, its type or options, the tensor and its shape).
Status DescribeBandOp(const ModelView& model, int32_t op, BandOp* band_op);

// The input rows output rows `rows` read (clipped to the input's `height`).
RowRange InputRowsOf(const BandOp& op, RowRange rows, int32_t height);

enum class SegmentRole : uint8_t {
  kInput,   // made before the segment (or the model's input): whole
  kWindow,  // made and used inside: a window of rows
  kSink,    // the last op's output: whole
};

// One map the segment reads or writes.
struct SegmentTensor {
  int32_t tensor = 0;
  int32_t height = 0;
  int32_t first_row = 0;  // the row at the start of its buffer
  int32_t done = 0;       // rows [0, done) computed
  SegmentRole role = SegmentRole::kInput;
};

// One op's work in one band.
struct BandStep {
  int32_t op = 0;
  RowRange output;
  RowRange inputs[2];        // per input slot 0 and 1 (spatial inputs only)
  int16_t input_slot[2] = {-1, -1};  // index into the walk's tensors; -1: not spatial
  int16_t output_slot = -1;
};

// What a walk does at each step (analysis: count; runtime: move rows, run).
class BandVisitor {
 public:
  virtual ~BandVisitor() = default;
  // Before `step` writes its output rows: the output's rows above
  // `keep_first` are no longer needed (its window may drop them).
  virtual Status BeforeWrite(SegmentTensor& output, int32_t keep_first, const BandStep& step) = 0;
  virtual Status Run(const BandStep& step, const SegmentTensor* tensors) = 0;
};

// One op of a walk: how it maps rows, and its maps' slots.
struct WalkOp {
  BandOp op;
  int16_t output_slot = -1;
  int16_t input_slot[2] = {-1, -1};  // -1: not spatial
};

// The memory a walk works in: per op, and per map (its state, the op that
// makes it, the rows its window needs). Given to the walk, not inside it:
// the host's analysis keeps it on the stack (BoundedSegmentWalk), a device
// in its arena's persistent area, sized for the model's segments
// (TilingStateBytes), so that neither AllocateTensors nor Invoke puts
// kilobytes of it on the stack.
struct WalkMemory {
  Span<WalkOp> ops;
  Span<SegmentTensor> tensors;
  Span<int16_t> producers;    // per slot: its op (index in the segment), -1 for inputs
  Span<int32_t> window_rows;  // per slot (WindowRowsOf)
};

// Bytes of walk memory for `segments` of `model` (0 for none): room for
// the ops of the longest and the maps of the widest (each op's output and
// its first two inputs that are not constants, counted once); a multiple of 4.
size_t TilingStateBytes(const ModelView& model, Span<const TiledSegment> segments);
// The walk memory in `bytes` (4-byte aligned, TilingStateBytes of them).
WalkMemory WalkMemoryIn(Span<uint8_t> bytes, const ModelView& model, Span<const TiledSegment> segments);

class SegmentWalk {
 public:
  explicit SegmentWalk(const WalkMemory& memory) : memory_(memory) {}
  SegmentWalk(const SegmentWalk&) = delete;
  SegmentWalk& operator=(const SegmentWalk&) = delete;

  // Checks the segment against the model: every op can run in a band, the
  // maps are NHWC with batch 1, inner maps are read only inside, the sink is
  // the only map read after the segment; errors name the op and tensor
  // (and a segment larger than the walk's memory).
  Status Start(const ModelView& model, const TiledSegment& segment);
  // Walks every band; the visitor sees each op's step.
  Status Walk(BandVisitor& visitor);

  const TiledSegment& segment() const { return segment_; }
  Span<const SegmentTensor> tensors() const { return Span<const SegmentTensor>(memory_.tensors.data(), tensor_count_); }
  // The slot of `tensor` in tensors(), -1 when the segment does not touch it.
  int32_t SlotOf(int32_t tensor) const;
  // Per slot of tensors(): the rows its window needs (after WindowRowsOf).
  Span<int32_t> window_rows() const { return Span<int32_t>(memory_.window_rows.data(), tensor_count_); }

 private:
  Status AddTensor(int32_t tensor, SegmentRole role, int16_t* slot);
  // Makes rows of slot `slot` until `end` (its inputs' rows first).
  Status Pull(int16_t slot, int32_t end, BandVisitor& visitor);
  // The lowest row of slot `slot` any consumer reads from now on.
  int32_t KeepFirst(int16_t slot) const;

  WalkMemory memory_;
  const ModelView* model_ = nullptr;
  TiledSegment segment_;
  size_t tensor_count_ = 0;
  int32_t sink_ = 0;
};

// A walk with its memory inside it, at the bounds (about 3.6 KB): for the
// host's analysis, where the stack is plentiful.
class BoundedSegmentWalk final : public SegmentWalk {
 public:
  BoundedSegmentWalk() : SegmentWalk(WalkMemory{ops_, tensors_, producers_, window_rows_}) {}

 private:
  WalkOp ops_[kMaxSegmentOps];
  SegmentTensor tensors_[kMaxSegmentTensors];
  int16_t producers_[kMaxSegmentTensors] = {};
  int32_t window_rows_[kMaxSegmentTensors] = {};
};

// Rows of each window the walk needs at once, by slot (0 for whole maps),
// into walk.window_rows().
Status WindowRowsOf(SegmentWalk& walk);

// The planning problem under a tiling: each window buffer shrinks to its
// rows, and every map of a segment lives through the whole segment (its
// inputs until its last op, its windows and sink from its first). Buffers
// of subgraph 0 only; `alignment_bytes` rounds the window sizes.
// The functions below walk in `memory` when given (a device's arena), else
// in a BoundedSegmentWalk on the stack.
Status ApplyTiling(const ModelView& model, Span<const TiledSegment> segments, size_t alignment_bytes,
                   Span<BufferRequest> buffers, const WalkMemory* memory = nullptr);

// Overlaps the walk's order makes safe (used with overlap permissions):
// the sink is written from its first row on while each input is read from
// its first row on, so the sink may take the bytes of input rows no later
// step reads. For each input of a segment that dies there (its buffer's
// lifetime ends with the segment), the least displacement D
// (planning_problem.h: offset(input) - offset(sink) >= D) that keeps every
// step's reads clear of the sink bytes written up to that step:
//     D = max over steps that read the input of
//         (sink rows written by the end of the step x sink row bytes
//          - first input row the step reads x input row bytes),  at least 0.
// Buffers of subgraph 0 after ApplyTiling; writes at most `permissions.size()`
// and returns how many (TilingOverlapCount bounds it).
Result<size_t> TilingOverlaps(const ModelView& model, Span<const TiledSegment> segments,
                              Span<const BufferRequest> buffers, Span<OverlapPermission> permissions,
                              const WalkMemory* memory = nullptr);

// The most permissions TilingOverlaps can write: the segments' inputs.
Result<size_t> TilingOverlapCount(const ModelView& model, Span<const TiledSegment> segments,
                                  const WalkMemory* memory = nullptr);

// The bytes `tensor`'s buffer has under the tiling: its window's rows
// (aligned) when it is a segment's window, else its whole size. SIZE_MAX
// (fits no head) when a segment does not walk (CheckTiling says why).
size_t TiledBufferBytes(const ModelView& model, Span<const TiledSegment> segments, int32_t tensor,
                        size_t alignment_bytes, const WalkMemory* memory = nullptr);

// Whether an op of a segment reads or writes `tensor` (subgraph 0).
bool IsTiledTensor(const ModelView& model, Span<const TiledSegment> segments, int32_t tensor);

// Checks that the segments are in order and do not overlap, and each walks.
Status CheckTiling(const ModelView& model, Span<const TiledSegment> segments, const WalkMemory* memory = nullptr);

}  // namespace microarena
