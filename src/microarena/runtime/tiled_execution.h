// Tiled execution in the interpreter: the segments of analysis/tiling.h run
// band by band, every other op as usual (docs/tiling.md).
//
//   const TiledSegment segments[] = {{0, 3, 1}};   // ops 0-3, one row per band
//   TiledExecution tiling(segments);
//   InterpreterOptions options;
//   options.tiling = &tiling;                      // borrowed: outlives the interpreter
//
// The plan then holds each inner map as a window of rows; Invoke moves the
// rows still needed to the start of a window before an op writes it (a
// memmove of the halo) and runs the op on views of its rows: CONV_2D,
// DEPTHWISE_CONV_2D, the pools and PAD through their kernels' eval_band,
// ADD and RELU through eval. A firmware that never makes a TiledExecution
// links none of this.
#pragma once

#include "microarena/analysis/tiling.h"
#include "microarena/runtime/interpreter.h"

namespace microarena {

class TiledExecution final : public TilingHooks {
 public:
  // `segments` in op order, not overlapping (borrowed).
  explicit TiledExecution(Span<const TiledSegment> segments) : segments_(segments) {}

  Status Start(Interpreter& interpreter) const override;
  Status Apply(const ModelView& model, size_t alignment_bytes, Span<BufferRequest> buffers,
               Span<uint8_t> state) const override;
  size_t BufferBytes(const ModelView& model, int32_t tensor, size_t alignment_bytes,
                     Span<uint8_t> state) const override;
  uint64_t PlanFingerprint(uint64_t model_fingerprint) const override;
  Result<size_t> OverlapCount(const ModelView& model, Span<uint8_t> state) const override;
  Result<size_t> Overlaps(const ModelView& model, Span<const BufferRequest> buffers,
                          Span<OverlapPermission> permissions, size_t resolved, bool add_own,
                          Span<uint8_t> state) const override;
  Status Invoke(Interpreter& interpreter, Span<uint8_t> state) const override;

  Span<const TiledSegment> segments() const { return segments_; }

 private:
  class BandRunner;
  [[gnu::noinline]] Status InvokeSegment(Interpreter& interpreter, const TiledSegment& segment,
                                         const WalkMemory& memory) const;

  Span<const TiledSegment> segments_;
};

}  // namespace microarena
