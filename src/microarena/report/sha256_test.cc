// SHA-256 against the examples published with FIPS 180-2 (appendix B) and the
// digest of the empty string; lengths around the padding boundary are checked
// against a one-shot split (55/56/63/64 bytes need one or two tail blocks).
#include "microarena/report/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace microarena::report {
namespace {

std::string HexOf(const std::string& text) {
  return Sha256Hex(Sha256(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

TEST(Sha256Test, PublishedExamples) {
  EXPECT_EQ(HexOf(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HexOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first tail block.
  EXPECT_EQ(HexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // One million 'a' (FIPS 180-2 B.3): many full blocks.
  EXPECT_EQ(HexOf(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, DifferentInputsDiffer) {
  // Every length from 0 to 130 bytes gives a distinct digest (padding paths).
  std::vector<std::string> seen;
  for (size_t n = 0; n <= 130; ++n) {
    std::string hex = HexOf(std::string(n, 'x'));
    for (const std::string& other : seen) ASSERT_NE(hex, other) << n;
    seen.push_back(hex);
  }
}

}  // namespace
}  // namespace microarena::report
