// `microarena embed`: the generated array must hold the model's bytes exactly
// (read back here by parsing the 0x.. literals, independently of the writer),
// be 16-byte aligned, and a file that is not a valid model must be refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "microarena/model/model_builder.h"
#include "tests/support/oracle_support.h"
#include "tests/support/test_support.h"

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
  EXPECT_EQ(result.exit_code, 2);  // a bad option value: usage
  EXPECT_NE(result.stderr_text.find("not a usable C identifier"), std::string::npos) << result.stderr_text;
}

// --resolver: an OpResolver with the kernels of the model's ops and no
// other, in op-code order (the demo model: CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED, RESHAPE, SOFTMAX and AVERAGE_POOL_2D, read back from
// `inspect --json`), and a header that compiles. The firmware stage
// (scripts/cortex_m.sh) runs it on the device.
TEST(EmbedCommandTest, ResolverHoldsTheModelsKernelsOnlyAndCompiles) {
  const std::string dir = testing::TempDir("embed_resolver");
  const std::string model = dir + "/demo.tflite";
  ASSERT_EQ(RunCli({"demo-model", "-o", model}).exit_code, 0);
  auto result = RunCli({"embed", model, "--source", dir + "/m.cc", "--header", dir + "/m.h", "--resolver",
                        dir + "/resolver.h", "--resolver-namespace", "demo_ops"});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string header = ReadText(dir + "/resolver.h");
  std::regex entry("&microarena::k(\\w+)Kernel,  // (\\w+)");
  std::vector<std::string> ops;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), entry); it != std::sregex_iterator(); ++it) {
    ops.push_back((*it)[2].str());
  }
  auto inspect = RunCli({"inspect", model, "--json"});
  ASSERT_EQ(inspect.exit_code, 0);
  std::vector<std::string> model_ops;
  std::regex op_count("\"(\\w+)\": \\d+");
  const size_t counts = inspect.stdout_text.find("\"op_counts\"");
  ASSERT_NE(counts, std::string::npos);
  const std::string counts_text = inspect.stdout_text.substr(counts, inspect.stdout_text.find('}', counts) - counts);
  for (auto it = std::sregex_iterator(counts_text.begin(), counts_text.end(), op_count); it != std::sregex_iterator(); ++it) {
    model_ops.push_back((*it)[1].str());
  }
  std::sort(ops.begin(), ops.end());
  std::sort(model_ops.begin(), model_ops.end());
  EXPECT_EQ(ops, model_ops) << header;
  EXPECT_EQ(ops.size(), 6u);
  EXPECT_NE(header.find("namespace demo_ops"), std::string::npos);

  std::ofstream(dir + "/program.cc") << "#include \"resolver.h\"\n"
                                        "int main() { return demo_ops::ModelOpResolver().kernels().size() == 6 ? 0 : 1; }\n";
  const std::string command = std::string(MICROARENA_CXX_COMPILER) + " -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I" +
                              dir + " -I" + MICROARENA_SOURCE_DIR + "/src -I" + MICROARENA_BINARY_DIR + "/generated " +
                              dir + "/program.cc > " + dir + "/compile.log 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << ReadText(dir + "/compile.log");
}

// A model with an op microarena has no kernel for gets no resolver and no
// files: the firmware could not run it.
TEST(EmbedCommandTest, ResolverRefusesAModelWithoutKernelsAndWritesNothing) {
  // One LSH_PROJECTION op: a builtin TFLM Micro has no kernel for either.
  ModelBuilder builder;
  const int32_t in = builder.AddTensor({"in", TensorType::kFloat32, {1, 4}});
  const int32_t out = builder.AddTensor({"out", TensorType::kFloat32, {1, 4}});
  OperatorSpec op;
  op.op = BuiltinOp::kLshProjection;
  op.inputs = {in};
  op.outputs = {out};
  builder.AddOperator(std::move(op));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  const std::string dir = testing::TempDir("embed_resolver_missing");
  const std::string model = dir + "/lsh.tflite";
  testing::WriteFile(model, builder.Build());
  auto result = RunCli({"embed", model, "--source", dir + "/m.cc", "--header", dir + "/m.h", "--resolver", dir + "/r.h"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("no kernel in microarena for LSH_PROJECTION"), std::string::npos)
      << result.stderr_text;
  EXPECT_FALSE(std::ifstream(dir + "/m.cc").good());
  EXPECT_FALSE(std::ifstream(dir + "/r.h").good());
}

}  // namespace
}  // namespace microarena
