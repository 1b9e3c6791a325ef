// Arena: where each area's bytes come from, rounding and alignment, the
// out-of-memory message and its numbers, and how temp, head and tail share the
// buffer. Every address and figure is worked out by hand from the layout in
// arena.h:
//
//   buffer                                            buffer + size
//   | pad | head / temp ->          free        <- tail | pad |
#include "microarena/arena/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace microarena {
namespace {

constexpr size_t kSize = 256;

// An out-of-memory error, with its whole message.
void ExpectOutOfMemory(const Status& status, const char* message) {
  EXPECT_EQ(status.code(), ErrorCode::kOutOfMemory);
  EXPECT_STREQ(status.message(), message);
}
void ExpectOutOfMemory(const Result<uint8_t*>& allocated, const char* message) {
  ASSERT_FALSE(allocated.ok());
  ExpectOutOfMemory(allocated.status(), message);
}

// An allocation that succeeded at `where`.
void ExpectAt(const Result<uint8_t*>& allocated, const uint8_t* where) {
  ASSERT_TRUE(allocated.ok()) << allocated.status().message();
  EXPECT_EQ(*allocated, where);
}

// The common case: 256 bytes aligned to 64, the default alignment 16 (so the
// granule is 16 too and there is no start padding).
class ArenaTest : public ::testing::Test {
 protected:
  alignas(64) uint8_t buffer_[kSize] = {};
  Arena arena_{buffer_, kSize};
};

TEST_F(ArenaTest, AreaNames) {
  EXPECT_STREQ(ArenaAreaName(ArenaArea::kPersistent), "persistent");
  EXPECT_STREQ(ArenaAreaName(ArenaArea::kHead), "head");
  EXPECT_STREQ(ArenaAreaName(ArenaArea::kTemp), "temp");
}

TEST_F(ArenaTest, TailGrowsDownAndTempUpInWholeGranules) {
  EXPECT_EQ(arena_.head_start(), buffer_);
  EXPECT_EQ(arena_.start_padding_bytes(), 0u);
  EXPECT_EQ(arena_.usable_bytes(), kSize);
  EXPECT_EQ(arena_.alignment(), 16u);
  EXPECT_EQ(arena_.granule(), 16u);

  // 10 B round up to 16 and come from the very end: 256 - 16 = 240.
  ExpectAt(arena_.AllocatePersistent(10), buffer_ + 240);
  ExpectAt(arena_.AllocatePersistent(16), buffer_ + 224);
  EXPECT_EQ(arena_.persistent_bytes(), 32u);

  // Temp from the start: 1 B takes [0, 16), 20 B take [16, 48).
  ExpectAt(arena_.AllocateTemp(1), buffer_);
  ExpectAt(arena_.AllocateTemp(20), buffer_ + 16);
  EXPECT_EQ(arena_.temp_bytes(), 48u);
  EXPECT_EQ(arena_.temp_peak_bytes(), 48u);
  // padding 0 + tail 32 + max(head 0, temp peak 48).
  EXPECT_EQ(arena_.used_bytes(), 80u);

  arena_.ResetTemp();
  EXPECT_EQ(arena_.temp_bytes(), 0u);
  EXPECT_EQ(arena_.temp_peak_bytes(), 48u);    // the peak is remembered
  ExpectAt(arena_.AllocateTemp(16), buffer_);  // released bytes are handed out again
}

TEST_F(ArenaTest, TheHeadRoundsUpAndOnlyGrows) {
  ASSERT_TRUE(arena_.AllocatePersistent(32).ok());
  ASSERT_TRUE(arena_.CommitHead(40).ok());
  EXPECT_EQ(arena_.head_bytes(), 48u);  // 40 rounded up to 16
  ASSERT_TRUE(arena_.CommitHead(20).ok());
  EXPECT_EQ(arena_.head_bytes(), 48u);  // a smaller head leaves the larger one
  ASSERT_TRUE(arena_.CommitHead(100).ok());
  EXPECT_EQ(arena_.head_bytes(), 112u);
  // padding 0 + tail 32 + max(head 112, temp peak 0).
  EXPECT_EQ(arena_.used_bytes(), 144u);
}

TEST_F(ArenaTest, CommittingTheHeadWithTempInUseIsAnInternalError) {
  ASSERT_TRUE(arena_.AllocateTemp(5).ok());
  const Status status = arena_.CommitHead(16);
  EXPECT_EQ(status.code(), ErrorCode::kInternal);
  EXPECT_STREQ(status.message(), "the head is committed while 16 temp bytes are in use");
  EXPECT_EQ(arena_.head_bytes(), 0u);
  arena_.ResetTemp();
  EXPECT_TRUE(arena_.CommitHead(16).ok());
}

TEST_F(ArenaTest, OutOfMemorySaysTheAreaRequestedAvailableAndMissing) {
  ASSERT_TRUE(arena_.AllocatePersistent(32).ok());
  // Temp: 300 B round up to 304; free are 256 - 32 = 224; missing 80; the
  // arena would need at least 256 + 80 = 336 B.
  ExpectOutOfMemory(
      arena_.AllocateTemp(300),
      "arena too small: the temp area needs 80 more bytes (requested 304, available 224, missing 80); "
      "arena 256 B holds persistent 32 B, head 0 B, temp 0 B; this model needs an arena of at least 336 B");
  // Head: 240 B asked, 224 free, 16 missing, 272 B needed.
  ExpectOutOfMemory(
      arena_.CommitHead(240),
      "arena too small: the head area needs 16 more bytes (requested 240, available 224, missing 16); "
      "arena 256 B holds persistent 32 B, head 0 B, temp 0 B; this model needs an arena of at least 272 B");
  // A refusal takes nothing.
  EXPECT_EQ(arena_.temp_bytes(), 0u);
  EXPECT_EQ(arena_.temp_peak_bytes(), 0u);
  EXPECT_EQ(arena_.head_bytes(), 0u);
  EXPECT_EQ(arena_.persistent_bytes(), 32u);

  // With a head of 112 B, the tail may take 256 - 32 - 112 = 112 B more,
  // exactly: its new bytes, [112, 224), start where the head ends.
  ASSERT_TRUE(arena_.CommitHead(112).ok());
  ExpectAt(arena_.AllocatePersistent(112), buffer_ + 112);
  ExpectOutOfMemory(
      arena_.AllocatePersistent(1),
      "arena too small: the persistent area needs 16 more bytes (requested 16, available 0, missing 16); "
      "arena 256 B holds persistent 144 B, head 112 B, temp 0 B; this model needs an arena of at least 272 B");
}

TEST_F(ArenaTest, TempFillsTheFreeBytesExactlyAndThenBlocksTheTail) {
  ASSERT_TRUE(arena_.AllocatePersistent(32).ok());
  ExpectAt(arena_.AllocateTemp(224), buffer_);  // every free byte
  Result<uint8_t*> temp = arena_.AllocateTemp(1);
  ASSERT_FALSE(temp.ok());
  EXPECT_NE(std::string(temp.status().message()).find("(requested 16, available 0, missing 16)"), std::string::npos)
      << temp.status().message();
  Result<uint8_t*> tail = arena_.AllocatePersistent(1);
  ASSERT_FALSE(tail.ok());
  EXPECT_NE(std::string(tail.status().message()).find("the persistent area needs 16 more bytes"), std::string::npos)
      << tail.status().message();
  // Once temp is released the tail has the room again.
  arena_.ResetTemp();
  ExpectAt(arena_.AllocatePersistent(1), buffer_ + 208);  // 256 - 32 - 16
}

TEST_F(ArenaTest, TempReusesTheHeadBytes) {
  // The minimum arena is padding + tail + max(head, temp peak): temp and the
  // head lie on the same bytes at the start, so a committed head does not
  // shrink what temp may take (a second interpreter prepares over the first
  // one's head), only the tail does.
  ASSERT_TRUE(arena_.AllocatePersistent(32).ok());
  ASSERT_TRUE(arena_.CommitHead(112).ok());
  ExpectAt(arena_.AllocateTemp(224), arena_.head_start());
  EXPECT_EQ(arena_.used_bytes(), 32u + 224u);
}

TEST_F(ArenaTest, ReleaseTempToAndShrinkTailToGiveBackTheNewestBytes) {
  ASSERT_TRUE(arena_.AllocateTemp(16).ok());
  const size_t mark = arena_.temp_bytes();  // 16
  ExpectAt(arena_.AllocateTemp(32), buffer_ + 16);
  arena_.ReleaseTempTo(mark);
  EXPECT_EQ(arena_.temp_bytes(), 16u);
  ExpectAt(arena_.AllocateTemp(8), buffer_ + 16);
  arena_.ReleaseTempTo(1000);  // never grows
  EXPECT_EQ(arena_.temp_bytes(), 32u);
  EXPECT_EQ(arena_.temp_peak_bytes(), 48u);  // 16 + 32 before the release

  ASSERT_TRUE(arena_.AllocatePersistent(16).ok());  // [240, 256)
  const size_t tail_mark = arena_.persistent_bytes();
  ASSERT_TRUE(arena_.AllocatePersistent(16).ok());  // [224, 240)
  arena_.ShrinkTailTo(tail_mark);
  EXPECT_EQ(arena_.persistent_bytes(), 16u);
  ExpectAt(arena_.AllocatePersistent(16), buffer_ + 224);
  arena_.ShrinkTailTo(1000);  // never grows
  EXPECT_EQ(arena_.persistent_bytes(), 32u);
}

TEST_F(ArenaTest, MarkTempPeakRestartsOnlyTheMarkedPeak) {
  ASSERT_TRUE(arena_.AllocateTemp(64).ok());
  arena_.ResetTemp();
  arena_.MarkTempPeak();
  EXPECT_EQ(arena_.temp_peak_since_mark_bytes(), 0u);
  ASSERT_TRUE(arena_.AllocateTemp(20).ok());  // 32 after rounding
  EXPECT_EQ(arena_.temp_peak_since_mark_bytes(), 32u);
  EXPECT_EQ(arena_.temp_peak_bytes(), 64u);
}

TEST_F(ArenaTest, AMisalignedBufferLosesOnlyThePaddingAndTheTailRemainder) {
  alignas(64) uint8_t storage[128];
  // Start at storage + 3: 13 bytes of padding reach storage + 16; of the
  // remaining 100 - 13 = 87 bytes, whole granules give 80.
  Arena arena(storage + 3, 100);
  EXPECT_EQ(arena.start_padding_bytes(), 13u);
  EXPECT_EQ(arena.head_start(), storage + 16);
  EXPECT_EQ(arena.usable_bytes(), 80u);
  ExpectAt(arena.AllocatePersistent(1), storage + 16 + 80 - 16);
  ExpectAt(arena.AllocateTemp(1), storage + 16);
  EXPECT_EQ(arena.used_bytes(), 13u + 16u + 16u);
}

TEST_F(ArenaTest, ABufferSmallerThanItsPaddingHoldsNothing) {
  alignas(64) uint8_t storage[64];
  // 13 bytes of padding would be needed, only 10 are there: all padding.
  Arena arena(storage + 3, 10);
  EXPECT_EQ(arena.start_padding_bytes(), 10u);
  EXPECT_EQ(arena.usable_bytes(), 0u);
  Result<uint8_t*> result = arena.AllocatePersistent(1);
  ASSERT_FALSE(result.ok());
  // The arena is 10 B; 16 more are missing: at least 26 B.
  ExpectOutOfMemory(result.status(),
                    "arena too small: the persistent area needs 16 more bytes (requested 16, available 0, missing 16); "
                    "arena 10 B holds persistent 0 B, head 0 B, temp 0 B; this model needs an arena of at least 26 B");
}

TEST_F(ArenaTest, ANullBufferHoldsNothing) {
  Arena arena(nullptr, 1024);
  EXPECT_EQ(arena.usable_bytes(), 0u);
  EXPECT_EQ(arena.used_bytes(), 0u);
  Result<uint8_t*> result = arena.AllocateTemp(1);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kOutOfMemory);
}

TEST_F(ArenaTest, AnUnrepresentableSizeIsRefusedWithASaturatedFigure) {
  // SIZE_MAX cannot be rounded up to 16: refused as SIZE_MAX requested, and
  // 256 + SIZE_MAX would wrap, so the needed arena says SIZE_MAX, not 255.
  Result<uint8_t*> result = arena_.AllocatePersistent(SIZE_MAX);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kOutOfMemory);
  const std::string message = result.status().message();
  const std::string max = std::to_string(SIZE_MAX);
  EXPECT_NE(message.find("(requested " + max + ", available 0, missing " + max + ")"), std::string::npos) << message;
  EXPECT_NE(message.find("at least " + max + " B"), std::string::npos) << message;
  EXPECT_FALSE(arena_.AllocateTemp(SIZE_MAX - 5).ok());
  EXPECT_FALSE(arena_.CommitHead(SIZE_MAX).ok());
  EXPECT_EQ(arena_.persistent_bytes(), 0u);
  EXPECT_EQ(arena_.temp_bytes(), 0u);
  EXPECT_EQ(arena_.head_bytes(), 0u);
}

TEST_F(ArenaTest, FourByteAlignmentStillGivesPointerAlignedAllocations) {
  ASSERT_EQ(alignof(void*), 8u) << "the figures below are for a host with 8-byte pointers";
  alignas(64) uint8_t buffer[kSize];
  Arena arena(buffer, kSize, 4);
  EXPECT_EQ(arena.alignment(), 4u);
  EXPECT_EQ(arena.granule(), 8u);                       // the host's pointers need 8
  ExpectAt(arena.AllocatePersistent(1), buffer + 248);  // 1 B rounded to the 8-byte granule
  Result<uint8_t*> temp = arena.AllocateTemp(12);
  ASSERT_TRUE(temp.ok());
  EXPECT_EQ(arena.temp_bytes(), 16u);
  arena.ResetTemp();
  // The head is rounded to the plan alignment, 4, not to the granule: 9 -> 12.
  ASSERT_TRUE(arena.CommitHead(9).ok());
  EXPECT_EQ(arena.head_bytes(), 12u);
}

TEST_F(ArenaTest, LargeAndInvalidAlignments) {
  alignas(64) uint8_t buffer[kSize];
  Arena wide(buffer, kSize, 64);
  EXPECT_EQ(wide.alignment(), 64u);
  EXPECT_EQ(wide.granule(), 64u);
  ExpectAt(wide.AllocatePersistent(1), buffer + 192);  // 256 - 64
  // Not a power of two, or below 4: the default 16.
  for (const size_t alignment : {size_t{0}, size_t{2}, size_t{3}, size_t{24}}) {
    EXPECT_EQ(Arena(buffer, kSize, alignment).alignment(), 16u) << alignment;
  }
}

}  // namespace
}  // namespace microarena
