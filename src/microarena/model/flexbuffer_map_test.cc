#include "microarena/model/flexbuffer_map.h"

#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace microarena {
namespace {

using Bytes = std::vector<uint8_t>;

Result<FlexbufferMap> Parse(const Bytes& bytes) {
  return FlexbufferMap::Parse(Span<const uint8_t>(bytes.data(), bytes.size()));
}

Bytes MapOf(const std::function<void(flexbuffers::Builder&)>& fill) {
  flexbuffers::Builder fbb;
  fbb.Map([&]() { fill(fbb); });
  fbb.Finish();
  return fbb.GetBuffer();
}

TEST(FlexbufferMapTest, ReadsEveryScalarEncodingAsFlexBuffersDoes) {
  const Bytes bytes = MapOf([](flexbuffers::Builder& b) {
    b.Int("i8", -5);
    b.Int("i16", -3000);
    b.Int("i32", 2000000000);
    b.UInt("u", 77);
    b.Float("f", 2.5f);
    b.Double("d", 0.1);
    b.Bool("t", true);
    b.Bool("n", false);
    b.IndirectInt("ii", -123456);
    b.IndirectUInt("iu", 4000000000u);
    b.IndirectFloat("if", 1.25f);
    b.IndirectDouble("id", -7.1);  // not a float: stored in 8 bytes
    b.Null("null");
  });
  Result<FlexbufferMap> map = Parse(bytes);
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->size(), 13u);
  // What FlexBuffers' AsInt32 / AsFloat give (floats truncated toward zero).
  struct Expected {
    const char* key;
    int32_t as_int;
    float as_float;
  };
  const Expected expected[] = {{"i8", -5, -5.0f}, {"i16", -3000, -3000.0f}, {"i32", 2000000000, 2e9f},
                               {"u", 77, 77.0f},  {"f", 2, 2.5f},           {"d", 0, 0.1f},
                               {"t", 1, 1.0f},    {"n", 0, 0.0f},           {"ii", -123456, -123456.0f},
                               {"if", 1, 1.25f},  {"id", -7, -7.1f}};
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.key);
    int32_t i = -1;
    float f = -1.0f;
    bool present = false;
    ASSERT_TRUE(map->GetInt32(e.key, &i, &present).ok());
    EXPECT_TRUE(present);
    EXPECT_EQ(i, e.as_int);
    ASSERT_TRUE(map->GetFloat(e.key, &f, &present).ok());
    EXPECT_TRUE(present);
    EXPECT_EQ(f, e.as_float);
  }
  float f = 0.0f;
  bool present = false;
  ASSERT_TRUE(map->GetFloat("iu", &f, &present).ok());
  EXPECT_EQ(f, 4e9f);
  int32_t i = 0;
  EXPECT_FALSE(map->GetInt32("iu", &i, &present).ok());  // beyond int32
  const std::pair<const char*, bool> bools[] = {{"t", true}, {"n", false}, {"u", true}, {"i8", true}, {"ii", true}};
  for (const auto& [key, expected_value] : bools) {
    bool value = !expected_value;
    ASSERT_TRUE(map->GetBool(key, &value, &present).ok()) << key;
    EXPECT_EQ(value, expected_value) << key;
  }
}

TEST(FlexbufferMapTest, AbsentAndNullKeysAreNotPresent) {
  const Bytes bytes = MapOf([](flexbuffers::Builder& b) {
    b.Int("a", 1);
    b.Null("b");
    b.Int("c", 3);
  });
  Result<FlexbufferMap> map = Parse(bytes);
  ASSERT_TRUE(map.ok());
  for (const char* key : {"b", "", "aa", "0", "d", "zzzz"}) {
    int32_t value = 42;
    bool present = true;
    ASSERT_TRUE(map->GetInt32(key, &value, &present).ok()) << key;
    EXPECT_FALSE(present) << key;
    EXPECT_EQ(value, 42) << key;
  }
}

TEST(FlexbufferMapTest, FindsEveryKeyOfALargeMap) {
  std::vector<std::string> keys;
  for (int k = 0; k < 300; ++k) keys.push_back("key_" + std::to_string(k * 7919 % 1000));
  const Bytes bytes = MapOf([&](flexbuffers::Builder& b) {
    for (size_t k = 0; k < keys.size(); ++k) b.Int(keys[k].c_str(), static_cast<int64_t>(k) * 1000);
  });
  Result<FlexbufferMap> map = Parse(bytes);
  ASSERT_TRUE(map.ok());
  for (size_t k = 0; k < keys.size(); ++k) {
    int32_t value = -1;
    bool present = false;
    ASSERT_TRUE(map->GetInt32(keys[k].c_str(), &value, &present).ok());
    EXPECT_TRUE(present) << keys[k];
    EXPECT_EQ(value, static_cast<int32_t>(k) * 1000);
  }
}

TEST(FlexbufferMapTest, NonNumbersAreErrorsNamingTheKey) {
  const Bytes bytes = MapOf([](flexbuffers::Builder& b) {
    b.String("s", "12");
    b.Vector("v", [&]() { b.Int(1); });
    b.Blob("blob", "xy", 2);
    b.Float("f", 2.5f);
    b.Double("huge", 1e20);
    b.Double("nan", std::numeric_limits<double>::quiet_NaN());
  });
  Result<FlexbufferMap> map = Parse(bytes);
  ASSERT_TRUE(map.ok());
  int32_t i = 0;
  float f = 0;
  bool flag = false;
  bool present = false;
  Status s = map->GetInt32("s", &i, &present);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_STREQ(s.message(), "option 's' is a string, a number is expected");
  EXPECT_NE(std::string(map->GetFloat("v", &f, &present).message()).find("'v' is a vector"), std::string::npos);
  EXPECT_NE(std::string(map->GetFloat("blob", &f, &present).message()).find("'blob' is a blob"), std::string::npos);
  EXPECT_NE(std::string(map->GetBool("f", &flag, &present).message()).find("'f' is a float"), std::string::npos);
  EXPECT_FALSE(map->GetInt32("huge", &i, &present).ok());
  EXPECT_FALSE(map->GetInt32("nan", &i, &present).ok());
  ASSERT_TRUE(map->GetFloat("huge", &f, &present).ok());
  EXPECT_EQ(f, 1e20f);
}

TEST(FlexbufferMapTest, MalformedHeadersAreErrors) {
  EXPECT_FALSE(Parse({}).ok());
  EXPECT_FALSE(Parse({0x00, 0x24}).ok());
  // Root width 3.
  EXPECT_NE(std::string(Parse({0x00, 0x24, 0x03}).status().message()).find("root width 3"), std::string::npos);
  // A map root whose offset points before the bytes.
  EXPECT_NE(std::string(Parse({0x09, 0x24, 0x01}).status().message()).find("outside the bytes"), std::string::npos);
  // Root is an int.
  EXPECT_NE(std::string(Parse({0x05, 0x04, 0x01}).status().message()).find("root is a int"), std::string::npos);
}

TEST(FlexbufferMapTest, EveryTruncationAndByteFlipStaysInBounds) {
  const Bytes full = MapOf([](flexbuffers::Builder& b) {
    b.Int("max_detections", 10);
    b.Float("nms_iou_threshold", 0.5f);
    b.IndirectFloat("y_scale", 10.0f);
    b.Bool("use_regular_nms", true);
  });
  auto probe = [](const Bytes& bytes) {
    // A copy of exactly the bytes, so ASan sees any read past them.
    std::vector<uint8_t>* heap = new std::vector<uint8_t>(bytes);
    Result<FlexbufferMap> map = FlexbufferMap::Parse(Span<const uint8_t>(heap->data(), heap->size()));
    if (map.ok()) {
      for (const char* key : {"max_detections", "nms_iou_threshold", "y_scale", "use_regular_nms", "x"}) {
        int32_t i = 0;
        float f = 0;
        bool flag = false;
        bool present = false;
        map->GetInt32(key, &i, &present).IgnoreError();
        map->GetFloat(key, &f, &present).IgnoreError();
        map->GetBool(key, &flag, &present).IgnoreError();
      }
    }
    delete heap;
  };
  for (size_t n = 0; n <= full.size(); ++n) {
    probe(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    probe(Bytes(full.end() - static_cast<std::ptrdiff_t>(n), full.end()));
  }
  for (size_t i = 0; i < full.size(); ++i) {
    for (int value = 0; value < 256; value += 17) {
      Bytes bad = full;
      bad[i] = static_cast<uint8_t>(value);
      probe(bad);
    }
  }
}

}  // namespace
}  // namespace microarena
