// Status and Result: codes, formatted messages, the message ring, Prefix and
// the two propagation macros. Expected texts are written out by hand from the
// format strings.
#include "microarena/base/status.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "microarena/base/result.h"

namespace microarena {
namespace {

TEST(StatusTest, DefaultIsOkWithAnEmptyMessage) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kOk);
  EXPECT_STREQ(status.message(), "");
  EXPECT_TRUE(OkStatus().ok());
}

TEST(StatusTest, ErrorFormatsItsMessage) {
  const Status status = Status::Error(ErrorCode::kOutOfMemory, "op %d (%s) needs %zu B", 3, "CONV_2D", size_t{4096});
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory);
  EXPECT_STREQ(status.message(), "op 3 (CONV_2D) needs 4096 B");
}

TEST(StatusTest, AnErrorMadeWithTheOkCodeIsAnInternalError) {
  // An "error" that claims success would let a caller go on with nothing.
  const Status status = Status::Error(ErrorCode::kOk, "oops");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kInternal);
  EXPECT_STREQ(status.message(), "oops");
}

TEST(StatusTest, EveryCodeHasItsName) {
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kOk), "ok");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kInvalidArgument), "invalid argument");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kMalformedModel), "malformed model");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kUnsupported), "unsupported");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kNotFound), "not found");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kOutOfMemory), "out of memory");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kInfeasible), "infeasible");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kTimeout), "timeout");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kIoError), "i/o error");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kInternal), "internal error");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kStoppedEarly), "stopped early");
  EXPECT_STREQ(ErrorCodeName(static_cast<ErrorCode>(99)), "unknown error");
}

TEST(StatusTest, ALongMessageIsCutToTheSlot) {
  const std::string long_text(Status::kMaxMessageBytes + 50, 'x');
  const Status status = Status::Error(ErrorCode::kInternal, "%s", long_text.c_str());
  // The slot keeps kMaxMessageBytes including the NUL.
  EXPECT_EQ(std::strlen(status.message()), Status::kMaxMessageBytes - 1);
  EXPECT_EQ(std::string(status.message()), long_text.substr(0, Status::kMaxMessageBytes - 1));
}

TEST(StatusTest, TheLastSlotsCountMessagesStayReadable) {
  // Each error takes the next slot of the ring, so the newest kMessageSlots
  // messages are all intact at once; one more reuses the oldest slot.
  Status statuses[Status::kMessageSlots];
  for (size_t i = 0; i < Status::kMessageSlots; ++i) {
    statuses[i] = Status::Error(ErrorCode::kNotFound, "message %zu", i);
  }
  for (size_t i = 0; i < Status::kMessageSlots; ++i) {
    EXPECT_EQ(std::string(statuses[i].message()), "message " + std::to_string(i));
  }
  const Status newer = Status::Error(ErrorCode::kNotFound, "newer");
  EXPECT_STREQ(newer.message(), "newer");
  EXPECT_STREQ(statuses[0].message(), "newer");  // the oldest slot, reused
  EXPECT_STREQ(statuses[1].message(), "message 1");
}

TEST(StatusTest, PrefixPrependsTheContextAndKeepsTheCode) {
  Status status = Status::Error(ErrorCode::kMalformedModel, "tensor %d has no buffer", 7);
  status.Prefix("model.tflite");
  EXPECT_EQ(status.code(), ErrorCode::kMalformedModel);
  EXPECT_STREQ(status.message(), "model.tflite: tensor 7 has no buffer");
  status.Prefix("load");
  EXPECT_STREQ(status.message(), "load: model.tflite: tensor 7 has no buffer");
}

TEST(StatusTest, PrefixLeavesOkAndNullContextAlone) {
  Status ok;
  ok.Prefix("context");
  EXPECT_TRUE(ok.ok());
  EXPECT_STREQ(ok.message(), "");
  Status error = Status::Error(ErrorCode::kIoError, "cannot read");
  error.Prefix(nullptr);
  EXPECT_STREQ(error.message(), "cannot read");
}

TEST(StatusTest, PrefixCutsTheEndOfAFullMessage) {
  // A message of kMaxMessageBytes - 1 'x' with "ab: " in front: 4 bytes more
  // than the slot holds, so the last 4 'x' go.
  const std::string long_text(Status::kMaxMessageBytes - 1, 'x');
  Status status = Status::Error(ErrorCode::kInternal, "%s", long_text.c_str());
  status.Prefix("ab");
  const std::string message = status.message();
  EXPECT_EQ(message.size(), Status::kMaxMessageBytes - 1);
  EXPECT_EQ(message, "ab: " + long_text.substr(0, Status::kMaxMessageBytes - 5));
}

TEST(StatusTest, PrefixCutsAContextLongerThanTheSlot) {
  // The context keeps kMaxMessageBytes - 3 bytes so that ": " and the NUL
  // still fit; nothing of the message is left.
  const std::string context(Status::kMaxMessageBytes + 10, 'c');
  Status status = Status::Error(ErrorCode::kInternal, "lost");
  status.Prefix(context.c_str());
  EXPECT_EQ(std::string(status.message()), context.substr(0, Status::kMaxMessageBytes - 3) + ": ");
}

TEST(StatusTest, FormatTextReturnsTheBytesWrittenCutToFit) {
  char text[8];
  EXPECT_EQ(FormatText(text, sizeof(text), "op %d", 12), 5);
  EXPECT_STREQ(text, "op 12");
  // "op 12345678" is 11 bytes; 7 fit beside the NUL.
  EXPECT_EQ(FormatText(text, sizeof(text), "op %d", 12345678), 7);
  EXPECT_STREQ(text, "op 1234");
  EXPECT_EQ(FormatText(text, 0, "x"), 0);
}

Status FailsWhen(bool fail) {
  if (fail) return Status::Error(ErrorCode::kInvalidArgument, "asked to fail");
  return OkStatus();
}

Status ReturnIfErrorThenMark(bool fail, bool* reached_end) {
  MICROARENA_RETURN_IF_ERROR(FailsWhen(fail));
  *reached_end = true;
  return OkStatus();
}

TEST(StatusTest, ReturnIfErrorReturnsTheErrorAndGoesOnAfterOk) {
  bool reached_end = false;
  Status status = ReturnIfErrorThenMark(true, &reached_end);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_STREQ(status.message(), "asked to fail");
  EXPECT_FALSE(reached_end);
  EXPECT_TRUE(ReturnIfErrorThenMark(false, &reached_end).ok());
  EXPECT_TRUE(reached_end);
}

TEST(ResultTest, HoldsAValue) {
  Result<std::string> result = std::string("weights");
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.status().ok());
  EXPECT_EQ(*result, "weights");
  EXPECT_EQ(result->size(), 7u);
  result.value() += "!";
  EXPECT_EQ(result.value(), "weights!");
  const std::string moved = std::move(result).value();
  EXPECT_EQ(moved, "weights!");
}

TEST(ResultTest, HoldsAnError) {
  const Result<int> result = Status::Error(ErrorCode::kNotFound, "no tensor '%s'", "input");
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kNotFound);
  EXPECT_STREQ(result.status().message(), "no tensor 'input'");
}

TEST(ResultTest, AnOkStatusWithoutAValueIsAnInternalError) {
  const Result<int> result = OkStatus();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kInternal);
  EXPECT_STREQ(result.status().message(), "Result built from an OK status without a value");
}

Result<int> Half(int value) {
  if (value % 2 != 0) return Status::Error(ErrorCode::kInvalidArgument, "%d is odd", value);
  return value / 2;
}

// value / 4 through two Halfs; `steps` counts the Halfs that succeeded.
Result<int> Quarter(int value, int* steps) {
  MICROARENA_ASSIGN_OR_RETURN(const int half, Half(value));
  ++*steps;
  MICROARENA_ASSIGN_OR_RETURN(const int quarter, Half(half));
  ++*steps;
  return quarter;
}

TEST(ResultTest, AssignOrReturnPassesTheFirstError) {
  int steps = 0;
  Result<int> quarter = Quarter(12, &steps);
  ASSERT_TRUE(quarter.ok());
  EXPECT_EQ(*quarter, 3);
  EXPECT_EQ(steps, 2);
  // 6 / 2 = 3 is odd: the second Half fails and its message comes back.
  steps = 0;
  quarter = Quarter(6, &steps);
  ASSERT_FALSE(quarter.ok());
  EXPECT_STREQ(quarter.status().message(), "3 is odd");
  EXPECT_EQ(steps, 1);
}

}  // namespace
}  // namespace microarena
