// The CLI on malformed models: every bad file gets exit code 1 and exactly one
// line on stderr, "error: FILE: ...", and no crash (a signal would show as
// exit code -1 here). The library-level proof over 10,000+ variants is
// model_corruption_test.cc; this one checks what a user sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::RunCli;

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(CliMalformedTest, EveryBadFileGetsOneLineAndExitOne) {
  MICROARENA_REQUIRE_SHARED();
  const std::vector<uint8_t> model = testing::ReadFileBytes(testing::SharedDir() + "/models/kws_ref_model.tflite");
  ASSERT_FALSE(model.empty());
  const std::string dir = testing::TempDir("cli_malformed");
  std::vector<std::vector<uint8_t>> variants;
  for (size_t i = 1; i <= 12; ++i) {  // truncations spread over the file
    variants.emplace_back(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(model.size() * i / 13));
  }
  uint32_t state = 12345;
  for (int i = 0; i < 24; ++i) {  // bursts of flipped bytes at pseudo-random places
    std::vector<uint8_t> flipped = model;
    state = state * 1664525u + 1013904223u;
    size_t at = state % (flipped.size() - 8);
    for (size_t k = 0; k < 8; ++k) flipped[at + k] ^= 0xA5;
    variants.push_back(flipped);
  }
  int rejected = 0;
  for (size_t v = 0; v < variants.size(); ++v) {
    const std::string path = dir + "/variant_" + std::to_string(v) + ".tflite";
    WriteFile(path, variants[v]);
    for (const char* command : {"inspect", "plan", "run"}) {
      SCOPED_TRACE(std::string(command) + " " + path);
      std::vector<std::string> args = {command, path};
      if (std::string(command) == "run") args = {command, path, "--output-dir", dir};
      auto result = RunCli(args);
      ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << "exit " << result.exit_code << "\n"
                                                                   << result.stderr_text;
      if (result.exit_code == 1) {
        EXPECT_EQ(result.stderr_text.rfind("error: " + path + ": ", 0), 0u) << result.stderr_text;
        EXPECT_EQ(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n'), 1) << result.stderr_text;
        if (std::string(command) == "inspect") ++rejected;
      }
    }
  }
  // All truncations and most flips must be rejected by the loader.
  EXPECT_GE(rejected, 12);
}

}  // namespace
}  // namespace microarena
