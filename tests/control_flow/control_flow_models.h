// Models with control flow and resource variables, built with ModelBuilder,
// for tests against TFLM (tests/control_flow_test.cc), the fuzz seed corpus
// and the differential suite. Each comes with inputs; see the .cc for what
// each computes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace microarena::control_flow {

using Bytes = std::vector<uint8_t>;

struct ControlFlowModel {
  std::string name;
  Bytes model;
  std::vector<Bytes> inputs;
};

// IF with two branches (then: ADD, else: RELU and MUL), its inputs used
// again after it; `condition` picks the branch.
ControlFlowModel IfModel(bool condition);
// WHILE that adds a constant to a vector until a counter reaches `limit`
// (cond: LESS; body: two ADDs): a float32 counter and an int8 vector.
ControlFlowModel WhileModel(int32_t limit);
// CALL_ONCE whose init subgraph sets a resource variable (int8) that the
// main subgraph reads, adds its input to and writes back.
ControlFlowModel CallOnceModel();
// A streaming model in float32: the state (a resource variable, zero at
// start) accumulates the input on every Invoke; the output is the new state.
ControlFlowModel StreamingModel();

// What CallOnceModel computes in `invokes` Invoke calls, as one model
// without resource variables (ADD of the init constant and `invokes` ADDs of
// the input), so TFLM can give the golden: the oracle has no resource
// variables.
ControlFlowModel CallOnceEquivalent(int invokes);

// The models TFLM's oracle runs: IF (both branches) and WHILE (0, 1, 5 turns).
std::vector<ControlFlowModel> OracleControlFlowModels();
// Every model above, for the fuzz corpus.
std::vector<ControlFlowModel> AllControlFlowModels();

}  // namespace microarena::control_flow
