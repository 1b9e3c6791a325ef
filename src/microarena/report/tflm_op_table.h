// What stock TFLM's reference kernels allocate for one operator, per target:
// the parsed builtin options (tail), the op data Init allocates (tail), and
// what Prepare does in order — temporary TfLiteTensors (temp section),
// persistent buffers (tail) and scratch buffer requests (planned in the
// head). The arena predictor (tflm_arena.h) replays these steps.
//
// Facts come from TFLM's sources at the pinned commit and are confirmed on
// one-op models with the oracle (tests/tflm_arena_predict_test.cc). An op
// not in the table, or in a form the table does not cover, is reported as
// unknown: the predictor then refuses to print a number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "microarena/model/model_view.h"

namespace microarena::report {

// Sizes and alignments of TFLM's structs on one target (bytes).
struct TflmLayout {
  const char* name = "";            // "host" or "cortex-m"
  size_t pointer_bytes = 8;         // also alignof of structs holding pointers
  size_t enum_bytes = 4;            // C enums; 1 with arm-none-eabi's short enums
  size_t eval_tensor_bytes = 24;    // TfLiteEvalTensor
  size_t tflite_tensor_bytes = 64;  // TfLiteTensor (TF_LITE_STATIC_MEMORY form)
  size_t affine_quantization_bytes = 24;
  size_t node_and_registration_bytes = 64;
  size_t subgraph_allocations_bytes = 16;
  size_t scratch_request_bytes = 16;    // internal::ScratchBufferRequest
  size_t scratch_handle_bytes = 8;      // ScratchBufferHandle
  size_t allocation_info_bytes = 32;    // AllocationInfo (planning, temp)
  size_t arena_allocator_bytes = 72;    // SingleArenaBufferAllocator
  size_t memory_planner_bytes = 72;     // GreedyMemoryPlanner
  size_t micro_allocator_bytes = 72;    // MicroAllocator
  size_t builtin_allocator_bytes = 16;  // MicroBuiltinDataAllocator
  // Kernel op data that holds pointers.
  size_t fully_connected_op_data_bytes = 64;  // OpDataFullyConnected
  size_t conv_op_data_bytes = 72;             // OpDataConv (CONV_2D, DEPTHWISE_CONV_2D)
  size_t softmax_op_data_bytes = 80;          // SoftmaxParams: a double, 7 ints, 5 pointers
};

// The 64-bit host build the oracle and golden/tflm_arena.csv come from.
const TflmLayout& TflmHostLayout();
// A 32-bit Cortex-M build (arm-none-eabi-gcc, bare-metal AAPCS: 4-byte
// pointers and size_t, 8-byte alignment for int64 and double, and enums as
// small as their values, which shrinks TfLiteTensor and the op options).
const TflmLayout& TflmCortexMLayout();

// One allocation a kernel's Prepare makes, in the kernel's order.
struct TflmPrepareStep {
  enum class Kind : uint8_t {
    kTempInput,   // AllocateTempInputTensor(node, index): TfLiteTensor + quantization in temp
    kTempOutput,  // AllocateTempOutputTensor(node, index)
    kPersistent,  // AllocatePersistentBuffer(bytes), 16-byte aligned, in the tail
    kScratch,     // RequestScratchBufferInArena(bytes): one more buffer for the planner
  };
  Kind kind = Kind::kTempInput;
  int32_t index = 0;  // the op's input or output slot (temp kinds)
  size_t bytes = 0;   // kPersistent, kScratch
};

struct TflmOpFacts {
  bool known = false;
  std::string unknown_reason;     // why not, when !known
  size_t builtin_data_bytes = 0;  // the parsed options struct; 0: the parser allocates none
  size_t builtin_data_align = 4;
  size_t init_bytes = 0;  // op data allocated by Init; 0: none
  std::vector<TflmPrepareStep> prepare;
};

// What TFLM allocates for op `op_index` of subgraph `subgraph_index`.
// `kernel_scratch_bytes`: the scratch requests microarena's own kernel
// makes for this op, used only for the ops whose requests are known to
// match TFLM's (SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM).
TflmOpFacts TflmFactsForOp(const ModelView& model, size_t subgraph_index, size_t op_index, const TflmLayout& layout,
                           const std::vector<size_t>& kernel_scratch_bytes);

}  // namespace microarena::report
