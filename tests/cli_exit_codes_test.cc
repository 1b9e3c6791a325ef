// The CLI's exit-code contract (tools/microarena/commands.h, README.md "Exit
// codes"), held to one real case or more per code, each with the exact code
// and the stderr line naming the problem:
//   0 ok (also --help, --version), 1 error, 2 usage (a bad command line,
//   whether CLI11 or the command refuses it), 3 does not fit, 4 undecided.
// No case needs ../shared: the models come from `demo-model`, the planning
// problems are written here.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace microarena {
namespace {

using testing::CommandResult;
using testing::RunCli;

// The contract's codes, spelled out here so a change to commands.h that
// renumbers them fails this test.
constexpr int kOk = 0;
constexpr int kError = 1;
constexpr int kUsage = 2;
constexpr int kDoesNotFit = 3;
constexpr int kUndecided = 4;

// One command line and what its stderr must contain.
struct Case {
  std::vector<std::string> args;
  std::string stderr_names;
};

std::string Line(const std::vector<std::string>& args) {
  std::string line = "microarena";
  for (const std::string& arg : args) line += " " + arg;
  return line;
}

// Runs every case and expects `exit_code` and its text on stderr, which
// starts "error: " (every case but budget's verdict, which is on stdout).
void ExpectExit(const std::vector<Case>& cases, int exit_code) {
  for (const Case& c : cases) {
    SCOPED_TRACE(Line(c.args));
    const CommandResult result = RunCli(c.args);
    EXPECT_EQ(result.exit_code, exit_code) << result.stderr_text;
    if (!c.stderr_names.empty()) EXPECT_EQ(result.stderr_text.rfind("error: ", 0), 0u) << result.stderr_text;
    EXPECT_NE(result.stderr_text.find(c.stderr_names), std::string::npos)
        << "stderr should name '" << c.stderr_names << "':\n"
        << result.stderr_text;
  }
}

// A folder with the demo model and two small planning problems.
struct Files {
  std::string dir;
  std::string model;        // the demo model (about 64 KB of arena)
  std::string overlapping;  // two 8-byte buffers live together: lower bound 16 B
  std::string sequential;   // two 100-byte buffers one after the other: lower bound 100 B
};

Files MakeFiles(const std::string& name) {
  Files files;
  files.dir = testing::TempDir(name);
  files.model = files.dir + "/demo.tflite";
  EXPECT_EQ(RunCli({"demo-model", "-o", files.model}).exit_code, kOk);
  files.overlapping = files.dir + "/overlapping.csv";
  std::ofstream(files.overlapping) << "id,lower,upper,size\nb1,0,2,8\nb2,1,3,8\n";
  files.sequential = files.dir + "/sequential.csv";
  std::ofstream(files.sequential) << "id,lower,upper,size\nb1,0,1,100\nb2,1,2,100\n";
  return files;
}

TEST(CliExitCodesTest, OkIsZeroAndHelpAndVersionAreOk) {
  const Files files = MakeFiles("cli_exit_ok");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"inspect", files.model},
           {"plan", files.model, "--planner", "greedy"},
           {"budget", files.model, "--ram", "1M"},
           {"ops"},
           {"solve", files.overlapping, "--capacity", "16"},
       }) {
    SCOPED_TRACE(Line(args));
    const CommandResult result = RunCli(args);
    EXPECT_EQ(result.exit_code, kOk) << result.stderr_text;
    EXPECT_TRUE(result.stderr_text.empty()) << result.stderr_text;
  }
  const CommandResult help = RunCli({"--help"});
  EXPECT_EQ(help.exit_code, kOk);
  EXPECT_NE(help.stdout_text.find("Exit codes: 0 ok"), std::string::npos) << help.stdout_text;
  // A line naming no command registers every command: the help lists all nine.
  for (const char* command :
       {"inspect", "plan", "run", "demo-model", "solve", "budget", "embed", "optimize", "ops"}) {
    EXPECT_NE(help.stdout_text.find(std::string("\n  ") + command + " "), std::string::npos)
        << command << " missing from:\n" << help.stdout_text;
  }
  const CommandResult plan_help = RunCli({"plan", "--help"});
  EXPECT_EQ(plan_help.exit_code, kOk);
  EXPECT_NE(plan_help.stdout_text.find("--planner"), std::string::npos) << plan_help.stdout_text;
  const CommandResult version = RunCli({"--version"});
  EXPECT_EQ(version.exit_code, kOk);
  EXPECT_NE(version.stdout_text.find("microarena"), std::string::npos);
}

TEST(CliExitCodesTest, AFailedJobIsOne) {
  const Files files = MakeFiles("cli_exit_error");
  const std::string junk = files.dir + "/junk.tflite";
  std::ofstream(junk) << "not a model at all";
  const std::string bad_csv = files.dir + "/bad.csv";
  std::ofstream(bad_csv) << "id,lower,upper,size\nb1,0,x,8\n";
  ExpectExit(
      {
          {{"inspect", "/nonexistent/model.tflite"}, "error: /nonexistent/model.tflite"},  // missing file
          {{"plan", junk}, "error: " + junk + ": "},                                       // malformed model
          {{"run", junk}, "error: " + junk + ": "},
          {{"solve", bad_csv}, "line 2"},                                                      // malformed problem
          {{"run", files.model, "--output-dir", files.model + "/out"}, files.model + "/out"},  // folder under a file
          {{"demo-model", "-o", files.dir + "/no/such/folder/demo.tflite"}, "no/such/folder/demo.tflite"},
          // Found before the search, not after it.
          {{"solve", files.overlapping, "-o", files.dir + "/no/such/folder/plan.csv"},
           "the folder " + files.dir + "/no/such/folder does not exist"},
          {{"plan", files.model, "--html", files.dir}, files.dir + ": is a folder, not a file (--html)"},
      },
      kError);
}

// A command that fails on one of its outputs writes none of them (each
// output is checked before the first is written).
TEST(CliExitCodesTest, AnOutputThatCannotBeWrittenLeavesTheOthersUnwritten) {
  const Files files = MakeFiles("cli_exit_outputs");
  const std::string csv = files.dir + "/plan.csv";
  const CommandResult plan =
      RunCli({"plan", files.model, "--csv", csv, "--html", files.dir + "/missing/plan.html"});
  EXPECT_EQ(plan.exit_code, kError) << plan.stderr_text;
  EXPECT_FALSE(std::ifstream(csv).good()) << csv << " was written";
  const std::string source = files.dir + "/model.cc";
  const CommandResult embed =
      RunCli({"embed", files.model, "--source", source, "--header", files.dir + "/missing/model.h"});
  EXPECT_EQ(embed.exit_code, kError) << embed.stderr_text;
  EXPECT_FALSE(std::ifstream(source).good()) << source << " was written";
  const std::string out_dir = files.dir + "/run_out";
  const CommandResult run = RunCli({"run", files.model, "--output-dir", out_dir, "--dump-tensors", files.model + "/x"});
  EXPECT_EQ(run.exit_code, kError) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("--dump-tensors"), std::string::npos) << run.stderr_text;
  EXPECT_FALSE(std::ifstream(out_dir + "/output_0.bin").good()) << "output_0.bin was written";
  // Not collisions: a device written twice, and solve's solution over its
  // own problem (the problem plus an offset column).
  EXPECT_EQ(RunCli({"plan", files.model, "--csv", "/dev/null", "--html", "/dev/null"}).exit_code, kOk);
  const std::string problem = files.dir + "/in_place.csv";
  std::ofstream(problem) << "id,lower,upper,size\nb1,0,2,8\nb2,1,3,8\n";
  const CommandResult solved = RunCli({"solve", problem, "-o", problem});
  EXPECT_EQ(solved.exit_code, kOk) << solved.stderr_text;
  std::ifstream written(problem);
  std::string header;
  std::getline(written, header);
  EXPECT_EQ(header, "id,lower,upper,size,offset");
}

TEST(CliExitCodesTest, BadCommandLinesAreTwo) {
  const Files files = MakeFiles("cli_exit_usage");
  const std::string& model = files.model;
  ExpectExit(
      {
          // CLI11 refuses these.
          {{}, "A subcommand is required"},                           // no command
          {{"--bogus"}, "unknown option '--bogus' before the command"},
          {{"plan"}, "MODEL is required"},                            // missing argument
          {{"budget", model}, "--ram is required"},                   // missing option
          {{"plan", model, "--no-such-option"}, "--no-such-option"},  // unknown option
          {{"plan", model, "--align"}, "--align"},                    // option without its value
          {{"plan", model, "--align", "3"}, "--align"},               // value outside the set
          {{"plan", model, "--align", "many"}, "--align"},            // not a number
          {{"run", model, "--repeat", "0"}, "--repeat"},              // out of range
          {{"run", model, "--overlap", "--dump-tensors", "d"}, "--dump-tensors excludes --overlap"},
          {{"ops", "--json", "--markdown"}, "--markdown excludes --json"},
          // main refuses a first word that names no command; the commands these, before reading any file.
          {{"no-such-command"}, "unknown command 'no-such-command' (one of: inspect, plan,"},
          {{"budget", model, "--ram", "64Q"}, "--ram: size '64Q'"},
          {{"budget", model, "--ram", "1M", "--target", "z80"}, "--target 'z80' is unknown"},
          {{"plan", model, "--target", "z80"}, "--target 'z80' is unknown"},
          {{"plan", model, "--precomputed-plan"}, "give --header FILE"},
          {{"plan", model, "--header-namespace", "fw"}, "--header-namespace names the header's namespace"},
          {{"plan", model, "--runtime", "tflm", "--planner", "greedy"}, "--planner does not apply with --runtime tflm"},
          {{"plan", model, model, "--timeline"}, "take one model"},
          {{"optimize", model, "-o", files.dir + "/out.tflite", "--target", "z80"}, "--target 'z80' is unknown"},
          {{"embed", model, "--source", files.dir + "/m.cc", "--header", files.dir + "/m.h", "--name", "9lives"},
           "--name '9lives' is not a usable C identifier"},
          {{"embed", model, "--source", files.dir + "/m.cc", "--header", files.dir + "/m.h", "--name", "int"},
           "--name 'int' is not a usable C identifier"},  // a keyword: the header would not compile
          // Outputs that would replace an input or each other.
          {{"embed", model, "--source", files.dir + "/m.cc", "--header", files.dir + "/m.cc"},
           "--source and --header name the same file"},
          {{"plan", model, "--csv", model}, "--csv " + model + " is an input of the command"},
          {{"plan", model, "--header", files.dir + "/p.h", "--html", files.dir + "/./p.h"},
           "--header and --html name the same file"},
          // Values CLI11 would take: a minus sign read into an unsigned option
          // (-1 is SIZE_MAX, solve's "no capacity"), NaN in a range, sizes
          // beyond what the option can use.
          {{"run", model, "--arena", "-1"}, "--arena: must not be negative, got -1"},
          {{"run", model, "--arena", "100000000000"}, "--arena: Value 100000000000 not in range"},
          {{"run", model, "--seed", "-3"}, "--seed: must not be negative"},
          {{"run", model, "--dump-tensors", ""}, "--dump-tensors is empty"},
          {{"solve", files.overlapping, "--capacity", "-1"}, "--capacity: must not be negative"},
          {{"solve", files.overlapping, "--capacity", "18446744073709551615"}, "--capacity: Value"},
          {{"solve", files.overlapping, "--node-limit", "-1"}, "--node-limit: must not be negative"},
          {{"solve", files.overlapping, "--time-limit", "nan"}, "--time-limit: must be a number of seconds"},
          {{"solve", files.overlapping, "--time-limit", "-1"}, "--time-limit: must be a number of seconds"},
          {{"solve", files.overlapping, "--align", "2147483648"}, "--align: must be at most 2^30"},
          {{"plan", model, "--time-limit", "nan"}, "--time-limit: must be a number of seconds"},
          {{"demo-model", "-o", ""}, "--output is empty"},
          {{"plan", model, "--json", "--format", "text"}, "--json asks for JSON and --format for text"},
          {{"solve", files.overlapping, "--node-limit", "\n-1"}, "--node-limit: must not be negative"},
          {{"embed", model, "--source", files.dir + "/m.cc", "--header", files.dir + "/m.h", "--name", "main"},
           "--name 'main' is not a usable C identifier"},
          // Empty output paths, and usage errors found before a path that is
          // wrong on this machine (the command line alone decides exit 2).
          {{"optimize", model, "-o", ""}, "--output is empty"},
          {{"plan", model, "--csv", ""}, "--csv is empty"},
          {{"solve", files.overlapping, "-o", ""}, "--output is empty"},
          {{"solve", files.overlapping, "-o", files.dir + "/no/such/folder/x.csv", "--planner", "bogus"},
           "--planner: unknown planner 'bogus'"},
          {{"plan", model, "--csv", files.dir + "/no/such/folder/x.csv", "--precomputed-plan"}, "give --header FILE"},
          {{"budget", model, "--ram", "20K", "--planner", "linear", "--overlap"},
           "--overlap is planned by the greedy and optimal planners only"},
          {{"solve", files.overlapping, "--planner", "best"}, "--planner: unknown planner 'best' (one of: "},
          {{"run", model, "--output-dir", ""}, "--output-dir is empty"},
      },
      kUsage);
  // The commands' own refusals end with CLI11's hint, as CLI11's do.
  const CommandResult refused = RunCli({"plan", model, "--precomputed-plan"});
  EXPECT_NE(refused.stderr_text.find("Run with --help for more information."), std::string::npos)
      << refused.stderr_text;
}

TEST(CliExitCodesTest, TooSmallIsThree) {
  const Files files = MakeFiles("cli_exit_does_not_fit");
  ExpectExit(
      {
          {{"budget", files.model, "--ram", "1K"}, ""},  // the verdict is on stdout
          {{"run", files.model, "--arena", "1024"}, "the exact minimum arena for this model is"},
          {{"solve", files.overlapping, "--capacity", "8"}, "no plan exists within capacity 8 bytes"},
      },
      kDoesNotFit);
  const CommandResult budget = RunCli({"budget", files.model, "--ram", "1K"});
  EXPECT_NE(budget.stdout_text.find("does not fit"), std::string::npos) << budget.stdout_text;
}

TEST(CliExitCodesTest, NoPlanFoundButNoneDisprovenIsFour) {
  const Files files = MakeFiles("cli_exit_undecided");
  // The lower bound (100 B) fits 150 B, but linear (no reuse) needs 200 B and proves nothing.
  ExpectExit({{{"solve", files.sequential, "--planner", "linear", "--capacity", "150"},
               "no plan found within capacity 150 bytes (best head 200 bytes)"}},
             kUndecided);
  // The exact planner settles the same question.
  EXPECT_EQ(RunCli({"solve", files.sequential, "--capacity", "150"}).exit_code, kOk);
}

}  // namespace
}  // namespace microarena
