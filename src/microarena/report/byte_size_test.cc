// ParseByteSize: the forms the budget command accepts, each worked out by
// hand (K = 1024), and the inputs it must refuse with a message naming them.
#include "microarena/report/byte_size.h"

#include <gtest/gtest.h>

namespace microarena::report {
namespace {

TEST(ByteSizeTest, AcceptsDigitsAndBinaryUnits) {
  EXPECT_EQ(*ParseByteSize("65536"), 65536u);
  EXPECT_EQ(*ParseByteSize("64K"), 64u * 1024u);
  EXPECT_EQ(*ParseByteSize("64KiB"), 65536u);
  EXPECT_EQ(*ParseByteSize("64KB"), 65536u);
  EXPECT_EQ(*ParseByteSize("0.5M"), 524288u);        // 1024 * 1024 / 2
  EXPECT_EQ(*ParseByteSize("1.25MiB"), 1310720u);    // 1048576 * 5 / 4
  EXPECT_EQ(*ParseByteSize("2G"), 2147483648u);
  EXPECT_EQ(*ParseByteSize("100B"), 100u);
  EXPECT_EQ(*ParseByteSize("18446744073709551615"), UINT64_MAX);
}

TEST(ByteSizeTest, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "64Q", "-1", "+5", "0x", "0x100", "K", ".", "1.", "0", "0K", "1.5", "0.0001K",
                          "18446744073709551616", "99999999999999999999999", "17179869184G", "64 K", "64k B"}) {
    Result<uint64_t> parsed = ParseByteSize(bad);
    ASSERT_FALSE(parsed.ok()) << "'" << bad << "' was accepted as " << *parsed;
    EXPECT_NE(std::string(parsed.status().message()).find(std::string("'") + bad + "'"), std::string::npos)
        << parsed.status().message();
    EXPECT_NE(std::string(parsed.status().message()).find("64KiB"), std::string::npos);
  }
}

}  // namespace
}  // namespace microarena::report
