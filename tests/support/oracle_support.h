// Differential testing against TFLM itself (<shared>/tools/tflm_oracle):
// one model, run by the oracle and by microarena with the same inputs, and
// what each made of it; plus OneOp, a builder of one-op models for such tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "microarena/model/model_builder.h"

namespace microarena::testing {

using Bytes = std::vector<uint8_t>;

void WriteFile(const std::string& path, const Bytes& bytes);

// The arena the one-op oracle tests give the oracle and the runtime: far
// more than any of their models needs (the oracle runs faster in a small
// arena than in its 64 MiB default).
inline constexpr size_t kSmallArena = size_t{1} << 20;

// What one runtime made of a model: outputs, or the reason it refused.
struct Outcome {
  bool ok = false;
  std::string error;
  std::vector<Bytes> outputs;
  // The arena the run used: TFLM's arena_used_bytes() in the arena it was
  // given; microarena's minimum (the arena it measured and ran in).
  size_t arena_used_bytes = 0;
};

// TFLM: one Invoke in an arena of `arena_bytes` with the given inputs (raw
// bytes each); files go to a temp folder named `name`. (A large arena costs
// the oracle page faults: small models run faster in a small one.)
Outcome RunOracleOn(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                    size_t arena_bytes = size_t{64} << 20);
// microarena: the same inputs, or seed-1 generated ones when none are given.
Outcome RunOursOn(const Bytes& model, const std::vector<Bytes>& inputs);

// Runs `model` in both with `inputs` and expects both to run, every output
// to be equal byte for byte, and microarena's arena to be no larger than
// what TFLM used (gtest failures name `name`).
void ExpectSameAsOracle(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                        size_t oracle_arena_bytes = size_t{64} << 20);

// The numbers of an oracle summary line ("min_arena_bytes=1608 arena_used_bytes=...")
// by key; words without '=' are skipped.
std::map<std::string, size_t> ParseOracleSummary(const std::string& text);

// The oracle's "key=value" summary of `model` (its default search run, with
// `inputs` or generated ones): min_arena_bytes, arena_used_bytes, head_bytes, ...
std::map<std::string, size_t> OracleSummary(const std::string& name, const Bytes& model,
                                            const std::vector<Bytes>& inputs = {});

// TFLM's minimum arena for `model` with `inputs` (the oracle's binary
// search), or 0 with what the oracle said in `why`.
size_t OracleMinimumArena(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                          std::string* why);

// Expects microarena's minimum arena `ours` to be no larger than TFLM's:
// against the arena TFLM used in a run (`tflm_used`, free), and only when
// above that against TFLM's minimum (a search). TFLM's minimum exceeds its
// used bytes when its prepare needs temp memory beyond them (WHILE does).
void ExpectArenaNoLargerThanTflms(const std::string& name, const Bytes& model, const std::vector<Bytes>& inputs,
                                  size_t ours, size_t tflm_used);

// A one-op model: activations in `inputs` (their specs), constants after them.
struct OneOp {
  ModelBuilder builder;
  std::vector<int32_t> op_inputs;
  std::vector<int32_t> graph_inputs;

  int32_t Input(TensorType type, std::vector<int32_t> shape, float scale, int64_t zero_point) {
    const int32_t t = builder.AddTensor({"in" + std::to_string(graph_inputs.size()), type, std::move(shape), 0,
                                         QuantizationSpec::PerTensor(scale, zero_point)});
    graph_inputs.push_back(t);
    op_inputs.push_back(t);
    return t;
  }
  int32_t FloatInput(std::vector<int32_t> shape) {
    const int32_t t =
        builder.AddTensor({"in" + std::to_string(graph_inputs.size()), TensorType::kFloat32, std::move(shape), 0, {}});
    graph_inputs.push_back(t);
    op_inputs.push_back(t);
    return t;
  }
  void Constant(const std::string& name, TensorType type, std::vector<int32_t> shape, Bytes data,
                QuantizationSpec quantization) {
    op_inputs.push_back(
        builder.AddConstantTensor({name, type, std::move(shape), 0, std::move(quantization)}, std::move(data)));
  }
  Bytes Finish(BuiltinOp op, tflite::BuiltinOptionsUnion options, TensorType out_type, std::vector<int32_t> shape,
               float scale, int64_t zero_point) {
    const int32_t out = builder.AddTensor(
        {"out", out_type, std::move(shape), 0,
         out_type == TensorType::kFloat32 ? QuantizationSpec{} : QuantizationSpec::PerTensor(scale, zero_point)});
    OperatorSpec spec;
    spec.op = op;
    spec.inputs = op_inputs;
    spec.outputs = {out};
    spec.options = std::move(options);
    builder.AddOperator(std::move(spec));
    builder.SetInputs(graph_inputs);
    builder.SetOutputs({out});
    return builder.Build();
  }
};

}  // namespace microarena::testing
