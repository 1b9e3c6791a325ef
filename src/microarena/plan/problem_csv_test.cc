#include "microarena/plan/problem_csv.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

TEST(ProblemCsv, ParsesIdsLifetimesSizes) {
  Result<ProblemCsv> csv = ParseProblemCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,8\n", "p.csv");
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  ASSERT_EQ(csv->buffers.size(), 2u);
  EXPECT_EQ(csv->ids[1], "b2");
  EXPECT_EQ(csv->buffers[1].lifetime.first_op, 3);
  EXPECT_EQ(csv->buffers[1].lifetime.end_op, 9);
  EXPECT_EQ(csv->buffers[1].size_bytes, 8u);
  EXPECT_TRUE(csv->offsets_bytes.empty());
}

TEST(ProblemCsv, ColumnsInAnyOrderWithOffsets) {
  Result<ProblemCsv> csv =
      ParseProblemCsv("size,offset,id,upper,lower\r\n4,8,x,2,1\r\n\r\n", "p.csv");
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  EXPECT_EQ(csv->buffers[0].lifetime.first_op, 1);
  EXPECT_EQ(csv->buffers[0].lifetime.end_op, 2);
  EXPECT_EQ(csv->offsets_bytes, (std::vector<size_t>{8}));
}

// MiniMalloc's newer benchmark files (its benchmarks/asplos2024) head their
// columns buffer,start,end,size; the same meaning as id,lower,upper,size.
TEST(ProblemCsv, ReadsMiniMallocNewerColumnNames) {
  Result<ProblemCsv> csv = ParseProblemCsv("buffer,start,end,size\n0,105,267,25600\n", "p.csv");
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  EXPECT_EQ(csv->ids[0], "0");
  EXPECT_EQ(csv->buffers[0].lifetime.first_op, 105);
  EXPECT_EQ(csv->buffers[0].lifetime.end_op, 267);
  EXPECT_EQ(csv->buffers[0].size_bytes, 25600u);
  // One column under both of its names is named twice.
  Result<ProblemCsv> twice = ParseProblemCsv("id,buffer,lower,upper,size\n", "p.csv");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(std::string(twice.status().message()).find("line 1, column 2 (header): column named twice"),
            std::string::npos)
      << twice.status().message();
}

std::string ErrorOf(const std::string& text) {
  Result<ProblemCsv> csv = ParseProblemCsv(text, "p.csv");
  EXPECT_FALSE(csv.ok());
  return csv.ok() ? std::string() : std::string(csv.status().message());
}

TEST(ProblemCsv, ErrorsNameLineAndColumn) {
  EXPECT_EQ(ErrorOf("id,lower,upper,size\nb1,0,x,4\n"),
            "p.csv: line 2, column 3 (upper): expected an integer step in [0, 2147483647], got 'x'");
  EXPECT_EQ(ErrorOf("id,lower,upper,size\nb1,0,3,-4\n"),
            "p.csv: line 2, column 4 (size): expected a non-negative integer, got '-4'");
  EXPECT_NE(ErrorOf("id,lower,upper,size\nb1,5,5,4\n").find("line 2, column 3 (upper): upper 5 must "
                                                            "be greater than lower 5"),
            std::string::npos);
  EXPECT_NE(ErrorOf("id,lower,upper,size\nb1,0,1,4\nb1,0,1,4\n").find("line 3, column 1 (id)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("id,lower,upper\n").find("no 'size' column"), std::string::npos);
  EXPECT_NE(ErrorOf("id,lower,upper,size,color\n").find("line 1, column 5"), std::string::npos);
  EXPECT_NE(ErrorOf("id,lower,upper,size\nb1,0,1\n").find("line 2: 3 fields, the header has 4"),
            std::string::npos);
  EXPECT_NE(ErrorOf("").find("empty file"), std::string::npos);
  // More fields than any valid header or row can have: the count is still exact.
  EXPECT_NE(ErrorOf("id,lower,upper,size,offset,id,x\n").find("line 1, column 6 (header): column named twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf("id,lower,upper,size\nb1,0,1,4,5,6,7,8,9\n").find("line 2: 9 fields, the header has 4"),
            std::string::npos);
}

// Ids are compared as text, through a table of rows: many ids (colliding in
// the table's slots) are all kept apart, and a repeat is caught on its own line.
TEST(ProblemCsv, ManyIdsAndALateRepeat) {
  std::string text = "id,lower,upper,size\n";
  for (int i = 0; i < 3000; ++i) text += "buffer_" + std::to_string(i) + ",0,1,4\n";
  Result<ProblemCsv> csv = ParseProblemCsv(text, "p.csv");
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  ASSERT_EQ(csv->ids.size(), 3000u);
  EXPECT_EQ(csv->ids[2999], "buffer_2999");
  // Line 1 is the header, so buffer_1234 was line 1236; the repeat is line 3002.
  EXPECT_EQ(ErrorOf(text + "buffer_1234,0,1,4\n"),
            "p.csv: line 3002, column 1 (id): id used by an earlier row, got 'buffer_1234'");
  // The same text with a different case is another id.
  EXPECT_TRUE(ParseProblemCsv(text + "BUFFER_1234,0,1,4\n", "p.csv").ok());
}

TEST(ProblemCsv, WritesAndReadsBack) {
  Result<ProblemCsv> csv = ParseProblemCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,8\n", "p.csv");
  ASSERT_TRUE(csv.ok());
  const std::vector<size_t> offsets = {0, 4};
  EXPECT_EQ(FormatProblemCsv(*csv, Span<const size_t>(offsets.data(), 2)),
            "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,8,4\n");
  const std::string path = testing::TempDir("problem_csv") + "/out.csv";
  ASSERT_TRUE(WriteProblemCsv(path, *csv, Span<const size_t>(offsets.data(), 2)).ok());
  Result<ProblemCsv> back = ReadProblemCsv(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->offsets_bytes, offsets);
  EXPECT_EQ(back->ids, csv->ids);
  EXPECT_EQ(ReadProblemCsv(path + ".missing").status().code(), ErrorCode::kIoError);
}

// A file that has no size to read at once (a pipe, as `solve <(...)` gives)
// is read as a stream; a directory is an error that says so, not a crash.
TEST(ProblemCsv, ReadsAPipeAndRefusesADirectory) {
  const std::string dir = testing::TempDir("problem_csv_pipe");
  const std::string fifo = dir + "/problem.csv";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  std::thread writer([&fifo] {
    std::ofstream out(fifo, std::ios::binary);
    out << "id,lower,upper,size\nb1,0,3,4\nb2,3,9,8\n";
  });
  Result<ProblemCsv> csv = ReadProblemCsv(fifo);
  writer.join();
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  ASSERT_EQ(csv->buffers.size(), 2u);
  EXPECT_EQ(csv->buffers[1].size_bytes, 8u);
  Result<ProblemCsv> directory = ReadProblemCsv(dir);
  EXPECT_EQ(directory.status().code(), ErrorCode::kIoError);
  EXPECT_NE(std::string(directory.status().message()).find("is a directory"), std::string::npos);
}

}  // namespace
}  // namespace microarena
