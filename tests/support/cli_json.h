// The CLI's --json output in tests: runs `microarena ARGS...`, expects exit 0
// (a gtest failure with its stderr otherwise) and parses stdout.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace microarena::testing {

inline nlohmann::json RunCliJson(const std::vector<std::string>& args) {
  const CommandResult result = RunCli(args);
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  return nlohmann::json::parse(result.stdout_text);
}

}  // namespace microarena::testing
