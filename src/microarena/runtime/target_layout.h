// TargetLayout: the sizes of the runtime's own structures on a target, so that
// the host can state the arena a device needs without running there.
//
// Everything a model puts in the arena is the same on every target except
// what holds pointers or size_t: the tensor and op tables, the temp records
// of planning and the planner's offsets. Kernels' op data holds neither (a
// rule of kernels/kernel.h), nor do tensors and scratch buffers. So the
// interpreter counts each allocation twice: as made here, and as `target`
// would make it (InterpreterOptions::figures_for), and the target's figures
// are exact, not bounds.
//
// kCortexMLayout's numbers are checked where they matter: interpreter.cc
// static_asserts them whenever it is compiled for a 32-bit Arm target (the
// firmware build), and the Cortex-M stage of scripts/test.sh checks under
// QEMU that the header's arena is the device's minimum for every model.
#pragma once

#include <cstddef>

namespace microarena {

struct TargetLayout {
  const char* name = "";         // what --target takes: "host", "cortex-m"
  const char* description = "";  // one line for reports
  size_t pointer_bytes = 0;      // pointers and size_t (size and alignment)
  size_t eval_tensor_bytes = 0;  // per tensor (EvalTensor)
  size_t node_bytes = 0;         // per op (kernel and op data pointers)
  size_t resource_bytes = 0;     // per resource variable
  size_t scratch_request_bytes = 0;      // ScratchRequest, a temp record per scratch request
  size_t overlap_record_bytes = 0;       // temp record per overlap declaration
  size_t overlap_declaration_bytes = 0;  // OverlapDeclaration
  size_t overlap_permission_bytes = 0;   // OverlapPermission
  size_t buffer_request_bytes = 0;       // BufferRequest, per planned buffer (temp)
  // RAM outside the arena, for the device's total (0: not known for this
  // target). Measured, not derived: the most stack any phase (LoadModel,
  // AllocateTensors, Invoke) took on the shared models, and the runtime's
  // own .data + .bss (the Status message ring). The Cortex-M stage of
  // scripts/test.sh fails when a firmware needs more than these.
  size_t stack_bytes = 0;
  size_t static_ram_bytes = 0;
  // A tiled run (InterpreterOptions::tiling) reaches deeper: the band walk
  // pulls rows through a segment with one frame per op of a chain
  // (SegmentWalk::Pull). Measured too: that frame, and the deepest tiled
  // phase less its walk frames. StackBytesFor combines them.
  size_t band_frame_bytes = 0;
  size_t tiled_stack_bytes = 0;
};

// The stack a run needs on `layout` when its longest tiled segment has
// `segment_ops` ops (0: not tiled): a chain is at most that deep, plus the
// frame that reaches the segment's input.
constexpr size_t StackBytesFor(const TargetLayout& layout, size_t segment_ops) {
  const size_t tiled =
      segment_ops == 0 ? 0 : layout.tiled_stack_bytes + layout.band_frame_bytes * (segment_ops + 1);
  return tiled > layout.stack_bytes ? tiled : layout.stack_bytes;
}

// Arm Cortex-M (AAPCS, 32-bit pointers; 64-bit integers 8-aligned, as on
// x86-64, so pointer-free structures have one layout on both).
// Stack and static RAM measured on the Cortex-M4F at -Os under QEMU. Tiled:
// SegmentWalk::Pull's frame is 152 B (-fstack-usage); the tiled Invoke of
// vww_96_int8 (scripts/cortex_m.sh, ops 0-3 in bands: a chain of 4, so 5
// walk frames, the last finding the model input whole) took 1,692 B,
// 1,692 - 5 x 152 = 932 B besides its walk frames, and 84 B more is added
// for kernels with deeper frames (the most any untiled phase took, 704 B,
// less vww's untiled Invoke, 620 B).
inline constexpr TargetLayout kCortexMLayout{
    "cortex-m", "Arm Cortex-M (32-bit pointers, AAPCS)", 4, 12, 8, 20, 12, 20, 16, 12, 32, 704, 412, 152, 932 + 84};

// This build's own layout (sizeof of the real structures).
const TargetLayout& HostLayout();

// "host" or "cortex-m"; nullptr for any other name.
const TargetLayout* FindTargetLayout(const char* name);
// "host, cortex-m": for --help texts and errors.
const char* TargetLayoutNames();

}  // namespace microarena
