// `microarena embed`: the generated array must hold the model's bytes exactly
// (read back here by parsing the 0x.. literals, independently of the writer),
// be 16-byte aligned, and a file that is not a valid model must be refused.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "tests/test_support.h"

namespace microarena {
namespace {

using testing::RunCli;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(EmbedCommandTest, ArrayHoldsTheModelBytesExactly) {
  const std::string dir = testing::TempDir("embed_command");
  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(RunCli({"demo-model", "-o", model}).exit_code, 0);
  const std::vector<uint8_t> bytes = testing::ReadFileBytes(model);
  ASSERT_FALSE(bytes.empty());

  auto result = RunCli({"embed", model, "--source", dir + "/demo_model.cc", "--header", dir + "/demo_model.h",
                        "--name", "g_demo_model"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string source = ReadText(dir + "/demo_model.cc");
  const std::string header = ReadText(dir + "/demo_model.h");

  std::vector<uint8_t> parsed;
  const size_t open = source.find('{');
  const size_t close = source.find("};");
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  const std::string body = source.substr(open + 1, close - open - 1);
  std::regex literal("0x([0-9a-f]{2})");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), literal); it != std::sregex_iterator(); ++it) {
    parsed.push_back(static_cast<uint8_t>(std::stoul((*it)[1].str(), nullptr, 16)));
  }
  EXPECT_EQ(parsed, bytes);
  const std::string size_text = std::to_string(bytes.size());
  EXPECT_NE(source.find("#include \"demo_model.h\""), std::string::npos) << source.substr(0, 200);
  EXPECT_NE(source.find("alignas(16) const unsigned char g_demo_model[" + size_text + "]"), std::string::npos);
  EXPECT_NE(source.find("const unsigned int g_demo_model_size = " + size_text + "u;"), std::string::npos);
  EXPECT_NE(header.find("alignas(16) extern const unsigned char g_demo_model[" + size_text + "];"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("extern const unsigned int g_demo_model_size;"), std::string::npos) << header;
}

TEST(EmbedCommandTest, RefusesAFileThatIsNotAModelAndABadName) {
  const std::string dir = testing::TempDir("embed_command_bad");
  const std::string junk = dir + "/junk.tflite";
  std::ofstream(junk) << "not a model at all";
  auto result = RunCli({"embed", junk, "--source", dir + "/a.cc", "--header", dir + "/a.h"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.stderr_text.rfind("error: " + junk + ": ", 0), 0u) << result.stderr_text;
  EXPECT_FALSE(std::ifstream(dir + "/a.cc").good()) << "nothing is written for a refused model";

  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(RunCli({"demo-model", "-o", model}).exit_code, 0);
  result = RunCli({"embed", model, "--source", dir + "/b.cc", "--header", dir + "/b.h", "--name", "9lives"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("not a C identifier"), std::string::npos) << result.stderr_text;
}

}  // namespace
}  // namespace microarena
