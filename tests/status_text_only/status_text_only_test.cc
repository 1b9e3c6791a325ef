// base/status.cc built with MICROARENA_STATUS_TEXT_ONLY (what the Cortex-M
// firmware uses): a message is its format text, placeholders unfilled, with
// the code intact; FormatText copies the format, cut to fit; Prefix still
// prepends its context. The test binary compiles status.cc itself with the
// option, apart from the library the other tests use.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "microarena/base/status.h"

#ifndef MICROARENA_STATUS_TEXT_ONLY
#error "this test must be built with MICROARENA_STATUS_TEXT_ONLY"
#endif

namespace microarena {
namespace {

TEST(StatusTextOnlyTest, TheMessageIsTheFormatText) {
  Status status = Status::Error(ErrorCode::kOutOfMemory, "arena of %zu B is too small by %zu B", size_t{100}, size_t{8});
  EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory);
  EXPECT_STREQ(status.message(), "arena of %zu B is too small by %zu B");
  status.Prefix("AllocateTensors");
  EXPECT_STREQ(status.message(), "AllocateTensors: arena of %zu B is too small by %zu B");
  EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory);
}

TEST(StatusTextOnlyTest, FormatTextCopiesTheFormatCutToFit) {
  char text[8];
  EXPECT_EQ(FormatText(text, sizeof(text), "op %d (%s)", 3, "CONV_2D"), 7);
  EXPECT_STREQ(text, "op %d (");
  EXPECT_EQ(FormatText(text, sizeof(text), "[%d]", 1), 4);
  EXPECT_STREQ(text, "[%d]");
  EXPECT_EQ(FormatText(text, 0, "x"), 0);
}

}  // namespace
}  // namespace microarena
