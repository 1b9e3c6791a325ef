// TflmArena: the tensor arena stock TFLM needs for a model, predicted to the
// byte without running TFLM — for TFLM at the pinned commit with its
// reference kernels, the default GreedyMemoryPlanner and a MicroInterpreter
// built with a MicroMutableOpResolver, arena start 16-byte aligned.
//
// How: TFLM's AllocateTensors is replayed allocation by allocation on a
// model of its arena (head grows up, temp above the head, tail grows down),
// with the struct sizes of the chosen target (tflm_op_table.h) and the
// per-op facts of the reference kernels. The head is the plan of
// GreedyTflmPlanner, which reproduces TFLM's planner byte for byte. The
// smallest arena is the smallest size for which every allocation of the
// replay succeeds:
//
//   low addresses                                             high addresses
//   [ head: scratch requests | temp: TfLiteTensors, plan info ->   <- tail ]
//
// While ops are prepared the head holds the scratch requests (12 slots
// ahead), temp the kernels' temporary TfLiteTensors; while planning, temp
// holds the allocation info and all the free memory goes to the planner
// (40 bytes per buffer). Either can need more than the final head, which is
// why min_arena_bytes can exceed arena_used_bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "microarena/base/result.h"
#include "microarena/model/model_view.h"
#include "microarena/report/tflm_op_table.h"

namespace microarena::report {

// The tail by use, in bytes; alignment padding is counted with the
// allocation it precedes, so the parts add up to the tail exactly.
struct TflmTailBreakdown {
  // Arena allocator, planner, MicroAllocator, builtin-data allocator, subgraph table.
  size_t allocator_object_bytes = 0;
  size_t eval_tensor_bytes = 0;  // one TfLiteEvalTensor per tensor of every subgraph
  size_t node_and_registration_bytes = 0;
  size_t builtin_data_bytes = 0;  // parsed op options
  size_t op_data_bytes = 0;       // kernels' Init op data + Prepare's persistent buffers
  size_t scratch_handle_bytes = 0;
  size_t variable_tensor_bytes = 0;  // LSTM/SVDF state
  size_t io_tensor_bytes = 0;        // persistent TfLiteTensors of the inputs/outputs + the pointer arrays
  size_t io_quantization_bytes = 0;  // their quantization structs and zero-point arrays
};

// One op's share.
struct TflmOpArena {
  int32_t subgraph_index = 0;
  int32_t op_index = 0;
  std::string op_name;
  size_t builtin_data_bytes = 0;  // tail
  size_t op_data_bytes = 0;       // tail: Init + Prepare persistent buffers
  size_t prepare_temp_bytes = 0;  // temp during its Prepare (freed after it)
  size_t scratch_buffers = 0;     // scratch requests (planned in the head)
  size_t scratch_bytes = 0;
};

struct TflmArenaPrediction {
  std::string target;        // "host" or "cortex-m"
  size_t pointer_bytes = 8;  // the target's
  size_t tensor_count = 0;   // of the model (every one has a TfLiteEvalTensor)
  size_t op_count = 0;
  size_t min_arena_bytes = 0;   // smallest arena for which AllocateTensors succeeds
  size_t arena_used_bytes = 0;  // MicroInterpreter::arena_used_bytes() at that size = head + tail
  size_t head_bytes = 0;        // the planned tensors and scratch buffers
  size_t tail_bytes = 0;
  TflmTailBreakdown tail;
  size_t planned_tensor_buffers = 0;
  size_t planned_scratch_buffers = 0;
  // Temporary memory (freed before AllocateTensors returns), at min_arena_bytes.
  size_t prepare_peak_bytes = 0;     // largest head + temp while an op is prepared
  int32_t prepare_peak_op = -1;      // that op
  size_t planning_info_bytes = 0;    // allocation info + subgraph offsets, in temp while planning
  size_t planner_working_bytes = 0;  // the planner's arrays: 40 bytes per planned buffer
  size_t planning_peak_bytes = 0;    // head + temp while planning (scratch requests + the two above)
  // What runs out first one byte below min_arena_bytes.
  std::string limited_by;
  std::vector<TflmOpArena> ops;
};

// Predicts TFLM's arena for `model` on the target whose struct sizes are
// `layout`. Errors (kUnsupported) name every op the table cannot model
// exactly, rather than return a number that may be wrong.
// `arena_start_offset_bytes`: how far the arena's first byte lies past a
// 16-byte boundary (0 for an alignas(16) arena); TFLM skips to the boundary.
Result<TflmArenaPrediction> PredictTflmArena(const ModelView& model, const TflmLayout& layout,
                                             size_t arena_start_offset_bytes = 0);

// What `microarena plan MODEL --runtime tflm` prints, and its --json form.
std::string TflmArenaText(const std::string& model_label, const TflmArenaPrediction& prediction);
nlohmann::json TflmArenaJson(const std::string& model_label, const TflmArenaPrediction& prediction);

}  // namespace microarena::report
