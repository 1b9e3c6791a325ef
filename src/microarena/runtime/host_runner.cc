#include "microarena/runtime/host_runner.h"

#include <chrono>
#include <cstring>

#include "microarena/runtime/input_generator.h"

namespace microarena {

HostArena::HostArena(size_t size_bytes) : storage_(size_bytes + 64), size_bytes_(size_bytes) {
  auto address = reinterpret_cast<uintptr_t>(storage_.data());
  data_ = storage_.data() + ((64 - (address & 63)) & 63);
}

Result<size_t> MeasureArenaBytes(const ModelView& model, const OpResolver& resolver,
                                 const InterpreterOptions& options) {
  // Start from a size that holds most MCU models and grow on "out of memory".
  size_t size = size_t{1} << 20;
  for (;;) {
    HostArena arena(size);
    Interpreter interpreter(model, resolver, arena.data(), arena.size(), options);
    Status status = interpreter.AllocateTensors();
    if (status.ok()) return interpreter.arena_used_bytes();
    if (status.code() != ErrorCode::kOutOfMemory || size >= (size_t{1} << 31)) return status;
    size *= 4;
  }
}

Result<RunResult> RunModel(const ModelView& model, const OpResolver& resolver, const RunOptions& options) {
  RunResult result;
  result.arena_bytes = options.arena_bytes;
  if (result.arena_bytes == 0) {
    MICROARENA_ASSIGN_OR_RETURN(result.arena_bytes, MeasureArenaBytes(model, resolver, options.interpreter));
  }
  HostArena arena(result.arena_bytes);
  Interpreter interpreter(model, resolver, arena.data(), arena.size(), options.interpreter);
  MICROARENA_RETURN_IF_ERROR(interpreter.AllocateTensors());
  result.used_bytes = interpreter.arena_used_bytes();
  result.persistent_bytes = interpreter.arena_persistent_size();
  result.head_bytes = interpreter.arena_scratch_size();
  result.temp_peak_bytes = interpreter.arena_temp_peak();
  result.lower_bound_bytes = interpreter.lower_bound_bytes();
  result.planner = interpreter.planner_used();

  if (options.inputs.size() > interpreter.inputs_size()) {
    return Status::Error(ErrorCode::kInvalidArgument, "%zu input files given but the model has %zu inputs",
                         options.inputs.size(), interpreter.inputs_size());
  }
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    const size_t bytes = interpreter.input_bytes(i);
    std::vector<uint8_t> data(bytes);
    if (i < options.inputs.size()) {
      if (options.inputs[i].size() != bytes) {
        return Status::Error(ErrorCode::kInvalidArgument, "input %zu: %zu bytes given but the tensor holds %zu", i,
                             options.inputs[i].size(), bytes);
      }
      data = options.inputs[i];
    } else {
      GenerateInput(options.seed, interpreter.input(i)->type, data.data(), data.size());
    }
    result.inputs.push_back(data);
  }

  const int repeat = options.repeat < 1 ? 1 : options.repeat;
  double total = 0.0;
  for (int r = 0; r < repeat; ++r) {
    MICROARENA_RETURN_IF_ERROR(interpreter.ResetVariableTensors());
    for (size_t i = 0; i < result.inputs.size(); ++i) {
      if (!result.inputs[i].empty()) std::memcpy(interpreter.input(i)->data, result.inputs[i].data(), result.inputs[i].size());
    }
    auto start = std::chrono::steady_clock::now();
    MICROARENA_RETURN_IF_ERROR(interpreter.Invoke());
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total += seconds;
    if (r == 0 || seconds < result.invoke_seconds_min) result.invoke_seconds_min = seconds;
    if (r == 0) {
      for (size_t o = 0; o < interpreter.outputs_size(); ++o) {
        const uint8_t* data = interpreter.output(o)->data;
        const size_t bytes = interpreter.output_bytes(o);
        result.outputs.emplace_back(data, data + bytes);
      }
    }
  }
  result.invoke_seconds = total / repeat;
  return result;
}

}  // namespace microarena
