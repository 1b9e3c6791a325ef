#include "microarena/runtime/input_generator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

// The recurrence by hand, then the golden input files written by TFLM's harness.
TEST(InputGeneratorTest, FirstBytesFollowTheRecurrence) {
  uint8_t bytes[2];
  GenerateInput(1, TensorType::kInt8, bytes, 2);
  uint32_t x1 = 1u * 1664525u + 1013904223u;
  uint32_t x2 = x1 * 1664525u + 1013904223u;
  EXPECT_EQ(bytes[0], static_cast<uint8_t>(x1 >> 24));
  EXPECT_EQ(bytes[1], static_cast<uint8_t>(x2 >> 24));
  // x1 = 1 * 1,664,525 + 1,013,904,223 = 1,015,568,748; / 2^24 = 60.53 -> top byte 60.
  EXPECT_EQ(bytes[0], 60);
}

TEST(InputGeneratorTest, MatchesTheGoldenInputs) {
  MICROARENA_REQUIRE_SHARED();
  struct Case {
    const char* model;
    TensorType type;
    size_t bytes;
  };
  // kws: 1x49x10x1 int8; hello_world_float: one float32.
  for (const Case& c : {Case{"kws_ref_model", TensorType::kInt8, 490}, Case{"hello_world_float", TensorType::kFloat32, 4}}) {
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      std::vector<uint8_t> golden = testing::ReadFileBytes(testing::SharedDir() + "/golden/" + c.model + "/seed" +
                                                           std::to_string(seed) + "/input_0.bin");
      ASSERT_EQ(golden.size(), c.bytes) << c.model;
      std::vector<uint8_t> ours(c.bytes);
      GenerateInput(seed, c.type, ours.data(), ours.size());
      EXPECT_EQ(ours, golden) << c.model << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace microarena
