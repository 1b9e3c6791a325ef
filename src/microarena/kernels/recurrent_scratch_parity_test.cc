// Memory-plan parity for SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM: our prepare
// must ask for exactly the scratch TFLM's reference kernels ask for, in the
// same order and sizes, because TFLM's plans (golden/tflm_plans/<model>.txt,
// lines with kind=scratch, sizes rounded up to 16, step = op index + 1)
// record them. Runs prepare for every op of keyword_scrambled_8bit and
// trained_lstm_int8 that has a kernel, recording each request.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/model_file.h"
#include "tests/support/kernel_harness.h"
#include "tests/support/test_support.h"

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

// A prepare context that records scratch requests (heap-backed persistent memory).
class RecordingContext final : public PrepareContext {
 public:
  RecordingContext(const ModelView& model, int32_t op_index) : model_(model), op_index_(op_index) {}
  const ModelView& model() const override { return model_; }
  SubgraphView subgraph() const override { return model_.subgraph(0); }
  OperatorView op() const override { return subgraph().op(static_cast<size_t>(op_index_)); }
  void* AllocatePersistent(size_t bytes, size_t /*alignment*/) override {
    persistent_.emplace_back(new uint64_t[bytes / 8 + 1]());
    persistent_bytes += bytes;
    return persistent_.back().get();
  }
  Status OutOfMemory() const override { return Status::Error(ErrorCode::kOutOfMemory, "never"); }
  Status RequestScratch(size_t bytes, int32_t* scratch_index) override {
    *scratch_index = static_cast<int32_t>(requests.size());
    requests.push_back({op_index_, bytes});
    return OkStatus();
  }

  std::vector<ScratchRequest> requests;
  size_t persistent_bytes = 0;

 private:
  const ModelView& model_;
  int32_t op_index_;
  std::vector<std::unique_ptr<uint64_t[]>> persistent_;
};

// The kind=scratch lines of a TFLM plan: (first_used - 1, size).
std::vector<ScratchRequest> TflmScratch(const std::string& model_name) {
  std::vector<ScratchRequest> result;
  std::ifstream plan(testing::SharedDir() + "/golden/tflm_plans/" + model_name + ".txt");
  std::string line;
  while (std::getline(plan, line)) {
    if (line.find("kind=scratch") == std::string::npos) continue;
    size_t size = 0;
    int first_used = 0;
    const size_t size_at = line.find("size=");
    const size_t first_at = line.find("first_used=");
    if (size_at == std::string::npos || first_at == std::string::npos) continue;
    std::sscanf(line.c_str() + size_at, "size=%zu", &size);
    std::sscanf(line.c_str() + first_at, "first_used=%d", &first_used);
    result.push_back({first_used - 1, size});
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
    RecordingContext context(model, static_cast<int32_t>(o));
    const void* op_data = nullptr;
    const Status status = kernel->prepare(context, &op_data);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_LE(context.persistent_bytes, max_persistent_bytes_per_op) << name << " op " << o;
    for (ScratchRequest request : context.requests) {
      request.size_bytes = RoundUp16(request.size_bytes);
      ours.push_back(request);
    }
    // KernelHarness sees the same total.
    testing::KernelHarness harness(model, static_cast<int32_t>(o), AllOpsResolver());
    ASSERT_TRUE(harness.Prepare().ok());
    size_t total = 0;
    for (const ScratchRequest& request : context.requests) total += request.size_bytes;
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
