// The `microarena solve` command, run as a process.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "microarena/plan/check.h"
#include "microarena/plan/problem_csv.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

std::string WriteText(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kExample =
    "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

TEST(SolveCommand, MinimisesAndWritesCheckedPlan) {
  const std::string dir = testing::TempDir("solve_minimise");
  const std::string problem = WriteText(dir, "p.csv", kExample);
  const std::string out = dir + "/out.csv";
  const testing::CommandResult result = testing::RunCli({"solve", problem, "-o", out});
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("head:        12 bytes"), std::string::npos)
      << result.stdout_text;
  EXPECT_NE(result.stdout_text.find("proven:      yes"), std::string::npos);
  Result<ProblemCsv> solved = ReadProblemCsv(out);
  ASSERT_TRUE(solved.ok()) << solved.status().message();
  PlanningProblem plan_problem;
  plan_problem.buffers = Span<const BufferRequest>(solved->buffers.data(), solved->buffers.size());
  plan_problem.alignment_bytes = 1;
  EXPECT_TRUE(CheckPlan(plan_problem,
                        Span<const size_t>(solved->offsets_bytes.data(),
                                           solved->offsets_bytes.size()),
                        12)
                  .ok());
}

TEST(SolveCommand, CapacityInfeasibleExitsThree) {
  const std::string dir = testing::TempDir("solve_infeasible");
  const std::string problem = WriteText(dir, "p.csv", kExample);
  const testing::CommandResult result = testing::RunCli({"solve", problem, "--capacity", "11"});
  EXPECT_EQ(result.exit_code, 3);  // does not fit
  EXPECT_NE(result.stdout_text.find("infeasible"), std::string::npos) << result.stdout_text;
  EXPECT_EQ(result.stderr_text.rfind("error: ", 0), 0u) << result.stderr_text;
}

TEST(SolveCommand, OtherPlannersAndAlignment) {
  const std::string dir = testing::TempDir("solve_planners");
  const std::string problem = WriteText(dir, "p.csv", kExample);
  for (const char* planner : {"linear", "greedy-tflm", "greedy", "optimal"}) {
    const testing::CommandResult result =
        testing::RunCli({"solve", problem, "--planner", planner, "--align", "8"});
    EXPECT_EQ(result.exit_code, 0) << planner << ": " << result.stderr_text;
    EXPECT_NE(result.stdout_text.find(std::string("planner:     ") + planner), std::string::npos);
  }
  const testing::CommandResult linear = testing::RunCli({"solve", problem, "--planner", "linear"});
  EXPECT_NE(linear.stdout_text.find("head:        20 bytes"), std::string::npos)
      << linear.stdout_text;
}

TEST(SolveCommand, ErrorsAreOneLineNamingTheFile) {
  const std::string dir = testing::TempDir("solve_errors");
  const std::string bad = WriteText(dir, "bad.csv", "id,lower,upper,size\nb1,0,zz,4\n");
  testing::CommandResult result = testing::RunCli({"solve", bad});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.stderr_text, "error: " + bad +
                                    ": line 2, column 3 (upper): expected an integer step in [0, "
                                    "2147483647], got 'zz'\n");
  result = testing::RunCli({"solve", dir + "/missing.csv"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.stderr_text.rfind("error: " + dir + "/missing.csv: ", 0), 0u)
      << result.stderr_text;
  const std::string good = WriteText(dir, "good.csv", kExample);
  result = testing::RunCli({"solve", good, "--planner", "nope"});
  EXPECT_EQ(result.exit_code, 2);  // usage
  EXPECT_NE(result.stderr_text.find("unknown planner 'nope'"), std::string::npos);
  result = testing::RunCli({"solve", "--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.stdout_text.find("--capacity"), std::string::npos);
}

}  // namespace
}  // namespace microarena
