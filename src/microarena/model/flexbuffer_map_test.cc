// FlexbufferMap against maps written by the flatbuffers library's own
// FlexBuffers builder: every scalar type and width it reads, and refusals.
#include "microarena/model/flexbuffer_map.h"

#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace microarena {
namespace {

std::vector<uint8_t> Build(const std::function<void(flexbuffers::Builder&)>& fill) {
  flexbuffers::Builder builder;
  builder.Map([&] { fill(builder); });
  builder.Finish();
  return builder.GetBuffer();
}

Span<const uint8_t> Of(const std::vector<uint8_t>& bytes) { return Span<const uint8_t>(bytes.data(), bytes.size()); }

TEST(FlexbufferMapTest, ReadsEveryScalarTypeAndWidth) {
  const std::vector<uint8_t> bytes = Build([](flexbuffers::Builder& b) {
    b.Int("small", -3);
    b.Int("wide", int64_t{-5000000000});
    b.UInt("unsigned", 70000);
    b.Float("ratio", 0.25f);
    b.Double("precise", 1.5);
    b.Bool("flag", true);
    b.IndirectInt("indirect", 123456);
    b.IndirectFloat("indirect_float", -2.5f);
  });
  FlexbufferMap map;
  ASSERT_TRUE(FlexbufferMap::Parse(Of(bytes), &map).ok());
  EXPECT_EQ(map.size(), 8u);
  int64_t i = 0;
  ASSERT_TRUE(map.GetInt("small", &i).ok());
  EXPECT_EQ(i, -3);
  ASSERT_TRUE(map.GetInt("wide", &i).ok());
  EXPECT_EQ(i, int64_t{-5000000000});
  ASSERT_TRUE(map.GetInt("unsigned", &i).ok());
  EXPECT_EQ(i, 70000);
  ASSERT_TRUE(map.GetInt("indirect", &i).ok());
  EXPECT_EQ(i, 123456);
  float f = 0.0f;
  ASSERT_TRUE(map.GetFloat("ratio", &f).ok());
  EXPECT_EQ(f, 0.25f);
  ASSERT_TRUE(map.GetFloat("precise", &f).ok());
  EXPECT_EQ(f, 1.5f);
  ASSERT_TRUE(map.GetFloat("indirect_float", &f).ok());
  EXPECT_EQ(f, -2.5f);
  ASSERT_TRUE(map.GetFloat("small", &f).ok());  // an integer read as a float
  EXPECT_EQ(f, -3.0f);
  bool flag = false;
  ASSERT_TRUE(map.GetBool("flag", &flag).ok());
  EXPECT_TRUE(flag);
  EXPECT_TRUE(map.Has("ratio"));
  EXPECT_FALSE(map.Has("rati"));
  EXPECT_EQ(map.GetInt("missing", &i).code(), ErrorCode::kNotFound);
  EXPECT_EQ(map.GetInt("ratio", &i).code(), ErrorCode::kMalformedModel);  // a float is not an integer
}

TEST(FlexbufferMapTest, RefusesWhatIsNotAMapAndValuesOfOtherTypes) {
  FlexbufferMap map;
  flexbuffers::Builder vector;
  vector.Vector([&] { vector.Int(1); });
  vector.Finish();
  EXPECT_EQ(FlexbufferMap::Parse(Of(vector.GetBuffer()), &map).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(FlexbufferMap::Parse(Span<const uint8_t>(), &map).code(), ErrorCode::kMalformedModel);
  const std::vector<uint8_t> text = Build([](flexbuffers::Builder& b) { b.String("name", "x"); });
  ASSERT_TRUE(FlexbufferMap::Parse(Of(text), &map).ok());
  int64_t i = 0;
  const Status status = map.GetInt("name", &i);
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(std::string(status.message()).find("'name'"), std::string::npos) << status.message();
}

// Every truncation and every single-byte change of a real map either parses
// and reads within the bytes or is refused (ASan and UBSan run this too).
TEST(FlexbufferMapTest, BrokenBytesAreRefusedOrReadInBounds) {
  const std::vector<uint8_t> bytes = Build([](flexbuffers::Builder& b) {
    b.Int("max_detections", 10);
    b.Float("nms_iou_threshold", 0.5f);
    b.Bool("use_regular_nms", false);
  });
  auto exercise = [](const std::vector<uint8_t>& broken) {
    FlexbufferMap map;
    if (!FlexbufferMap::Parse(Of(broken), &map).ok()) return;
    int64_t i = 0;
    float f = 0.0f;
    (void)map.GetInt("max_detections", &i);
    (void)map.GetFloat("nms_iou_threshold", &f);
    (void)map.GetInt("use_regular_nms", &i);
  };
  size_t refused = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    FlexbufferMap map;
    if (!FlexbufferMap::Parse(Span<const uint8_t>(bytes.data(), n), &map).ok()) ++refused;
    exercise(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n));
  }
  EXPECT_GT(refused, bytes.size() / 2);
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (int value : {0x00, 0x01, 0x7F, 0x80, 0xFF}) {
      std::vector<uint8_t> broken = bytes;
      broken[at] = static_cast<uint8_t>(value);
      exercise(broken);
    }
  }
}

}  // namespace
}  // namespace microarena
