// Memory-plan parity for SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM: our prepare
// must ask for exactly the scratch TFLM's reference kernels ask for, in the
// same order and sizes, because TFLM's plans (golden/tflm_plans/<model>.txt,
// lines with kind=scratch, sizes rounded up to 16, step = op index + 1)
// record them. Runs prepare for every op of keyword_scrambled_8bit and
// trained_lstm_int8 that has a kernel, recording each request.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "tests/support/kernel_harness.h"
#include "tests/support/recording_prepare_context.h"
#include "tests/support/test_support.h"
#include "tests/support/tflm_golden.h"

namespace microarena {
namespace {

struct ScratchRequest {
  int32_t op_index;
  size_t size_bytes;
  bool operator==(const ScratchRequest& other) const {
    return op_index == other.op_index && size_bytes == other.size_bytes;
  }
};

std::ostream& operator<<(std::ostream& os, const ScratchRequest& request) {
  return os << "{op " << request.op_index << ", " << request.size_bytes << " B}";
}

size_t RoundUp16(size_t bytes) { return (bytes + 15) / 16 * 16; }

// The kind=scratch lines of a TFLM plan: (first_used - 1, size).
std::vector<ScratchRequest> TflmScratch(const std::string& model_name) {
  std::vector<ScratchRequest> result;
  for (const testing::TflmPlanBuffer& buffer : testing::ReadTflmPlan(model_name)) {
    if (buffer.kind == "scratch") result.push_back({buffer.first_used - 1, buffer.size_bytes});
  }
  return result;
}

void CheckModel(const std::string& name, BuiltinOp op_code, size_t max_persistent_bytes_per_op) {
  Result<ModelFile> file = ModelFile::Open(testing::SharedDir() + "/models/" + name + ".tflite");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const ModelView& model = file->view();
  std::vector<ScratchRequest> ours;
  for (size_t o = 0; o < model.subgraph(0).operator_count(); ++o) {
    const OperatorView op = model.subgraph(0).op(o);
    const KernelRegistration* kernel = AllOpsResolver().Find(op.code());
    if (op.code() != op_code) continue;  // other ops belong to other kernels' tests
    ASSERT_NE(kernel, nullptr) << name << " op " << o;
    testing::RecordingPrepareContext context(model, static_cast<int32_t>(o));
    const void* op_data = nullptr;
    const Status status = kernel->prepare(context, &op_data);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_LE(context.persistent_bytes(), max_persistent_bytes_per_op) << name << " op " << o;
    for (size_t bytes : context.scratch_sizes()) ours.push_back({static_cast<int32_t>(o), RoundUp16(bytes)});
    // KernelHarness sees the same total.
    testing::KernelHarness harness(model, static_cast<int32_t>(o), AllOpsResolver());
    ASSERT_TRUE(harness.Prepare().ok());
    size_t total = 0;
    for (size_t bytes : context.scratch_sizes()) total += bytes;
    EXPECT_EQ(harness.scratch_bytes(), total);
  }
  const std::vector<ScratchRequest> tflm = TflmScratch(name);
  ASSERT_FALSE(tflm.empty()) << "no scratch lines in the TFLM plan of " << name;
  EXPECT_EQ(ours, tflm) << name;
}

TEST(RecurrentScratchParityTest, SvdfMatchesTflmPlanOfKeywordScrambled) {
  MICROARENA_REQUIRE_SHARED();
  // TFLM's whole model spends 832 B on op data; ours stays within 40 B per SVDF.
  CheckModel("keyword_scrambled_8bit", BuiltinOp::kSvdf, 40);
}

TEST(RecurrentScratchParityTest, LstmMatchesTflmPlanOfTrainedLstm) {
  MICROARENA_REQUIRE_SHARED();
  // TFLM's OpDataLSTM alone is several hundred bytes of the model's 864 B.
  CheckModel("trained_lstm_int8", BuiltinOp::kUnidirectionalSequenceLstm, 192);
}

}  // namespace
}  // namespace microarena
