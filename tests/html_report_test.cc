// The HTML plan report in a real browser: headless Chromium loads the page,
// runs its scripts and dumps the DOM. The page counts its buffer rectangles
// into <body data-buffer-rects> and records script errors in
// data-script-errors; the count must equal the number of planned buffers in
// `plan --json`, and neither the DOM nor the browser's console log may show
// an error. A screenshot of each page is kept under the build tree
// (test_tmp/html_report/<test>/<model>.png) for a person to look at.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCli;
using testing::RunCommand;

// The browser: $MICROARENA_CHROMIUM, else the first of the usual names on PATH.
std::string FindBrowser() {
  if (const char* given = std::getenv("MICROARENA_CHROMIUM"); given != nullptr && *given != '\0') return given;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    CommandResult found = RunCommand(std::string("command -v ") + name);
    if (found.exit_code == 0 && !found.stdout_text.empty()) return name;
  }
  return "";
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct BrowserRun {
  CommandResult result;
  std::string body_tag;  // the <body ...> start tag after the scripts ran
};

BrowserRun LoadPage(const std::string& browser, const std::string& dir, const std::string& html_path,
                    const std::string& screenshot_path) {
  const std::string common = browser + " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run " +
                             "--user-data-dir=" + dir + "/profile --enable-logging=stderr --v=0 ";
  BrowserRun run;
  run.result = RunCommand("timeout 120 " + common + "--virtual-time-budget=3000 --dump-dom file://" + html_path);
  std::smatch match;
  if (std::regex_search(run.result.stdout_text, match, std::regex("<body[^>]*>"))) run.body_tag = match[0];
  if (!screenshot_path.empty()) {
    CommandResult shot =
        RunCommand("timeout 120 " + common + "--window-size=1280,2400 --screenshot=" + screenshot_path + " file://" +
                   html_path);
    EXPECT_EQ(shot.exit_code, 0) << shot.stderr_text;
  }
  return run;
}

// Console messages Chromium logs for the page that are errors.
std::vector<std::string> ConsoleErrors(const std::string& log) {
  std::vector<std::string> errors;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("CONSOLE") != std::string::npos &&
        (line.find("ERROR") != std::string::npos || line.find("Uncaught") != std::string::npos)) {
      errors.push_back(line);
    }
  }
  return errors;
}

class HtmlReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    browser_ = FindBrowser();
    MICROARENA_REQUIRE(browser_.empty() ? "a headless browser (install Debian's chromium, as scripts/deps.sh does, "
                                          "or set MICROARENA_CHROMIUM)"
                                        : "");
    // One folder per test (TempDir empties it first), so every screenshot stays.
    dir_ = testing::TempDir(std::string("html_report/") +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // Writes the page for `model_path` (plan with `extra` options too), loads
  // it, and checks it; the plan's JSON and the page's DOM after its scripts ran.
  std::pair<json, std::string> CheckModel(const std::string& label, const std::string& model_path,
                                          const std::vector<std::string>& extra = {}) {
    SCOPED_TRACE(label);
    const std::string html = dir_ + "/" + label + ".html";
    std::vector<std::string> args = {"plan", model_path, "--planner", "greedy", "--json", "--html", html};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult plan = RunCli(args);
    EXPECT_EQ(plan.exit_code, 0) << plan.stderr_text;
    if (plan.exit_code != 0) return {};
    const json doc = json::parse(plan.stdout_text);
    const size_t buffers = doc["buffers"].size();
    EXPECT_GT(buffers, 0u);

    // Self-contained: nothing to fetch.
    const std::string page = ReadText(html);
    for (const char* reference : {"src=", "href=", "url(", "@import", "http://", "https://"}) {
      EXPECT_EQ(page.find(reference), std::string::npos) << "the page refers to something outside: " << reference;
    }

    BrowserRun run = LoadPage(browser_, dir_, html, dir_ + "/" + label + ".png");
    EXPECT_EQ(run.result.exit_code, 0) << run.result.stderr_text;
    EXPECT_NE(run.body_tag.find("data-buffer-rects=\"" + std::to_string(buffers) + "\""), std::string::npos)
        << run.body_tag;
    EXPECT_EQ(run.body_tag.find("data-script-errors"), std::string::npos) << run.body_tag;
    EXPECT_TRUE(ConsoleErrors(run.result.stderr_text).empty()) << ConsoleErrors(run.result.stderr_text)[0];
    std::ifstream screenshot(dir_ + "/" + label + ".png", std::ios::binary | std::ios::ate);
    EXPECT_GT(static_cast<long>(screenshot.tellg()), 10000L) << "screenshot missing or empty";
    return {doc, run.result.stdout_text};
  }

  std::string browser_;
  std::string dir_;
};

TEST_F(HtmlReportTest, DemoModelPageRendersEveryBufferWithoutErrors) {
  const std::string model = dir_ + "/demo.tflite";
  std::vector<uint8_t> bytes = BuildDemoModel();
  std::ofstream(model, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                               static_cast<std::streamsize>(bytes.size()));
  CheckModel("demo", model);
}

TEST_F(HtmlReportTest, SharedModelPagesRenderEveryBufferWithoutErrors) {
  MICROARENA_REQUIRE_SHARED();
  // One without scratch, one with many buffers and kernel scratch.
  CheckModel("kws_ref_model", testing::SharedDir() + "/models/kws_ref_model.tflite");
  CheckModel("vww_96_int8", testing::SharedDir() + "/models/vww_96_int8.tflite");
}

// A tiled plan's page shades each segment's steps and names its bands: one
// band rectangle per segment, labelled with its ops and as many bands as
// the sink has rows over rows per band (counted here from the model).
TEST_F(HtmlReportTest, TiledPageShowsTheBands) {
  MICROARENA_REQUIRE_SHARED();
  const std::string model = testing::SharedDir() + "/models/vww_96_int8.tflite";
  const auto [doc, dom] = CheckModel("vww_96_int8_tiled", model, {"--tile"});
  ASSERT_TRUE(doc.contains("tiling")) << doc.dump();
  const json& segments = doc["tiling"]["segments"];
  ASSERT_FALSE(segments.empty());
  Result<ModelFile> file = ModelFile::Open(model);
  ASSERT_TRUE(file.ok());
  const SubgraphView subgraph = file->view().subgraph(0);
  size_t shaded = 0;
  for (size_t at = dom.find("class=\"band\""); at != std::string::npos; at = dom.find("class=\"band\"", at + 1)) ++shaded;
  EXPECT_EQ(shaded, segments.size());
  for (const json& s : segments) {
    const int last = s["last_op"].get<int>();
    const int rows = subgraph.tensor(static_cast<size_t>(subgraph.op(static_cast<size_t>(last)).outputs()[0])).shape()[1];
    const int band_rows = s["band_rows"].get<int>();
    const std::string label = "ops " + std::to_string(s["first_op"].get<int>()) + "-" + std::to_string(last) + " in " +
                              std::to_string((rows + band_rows - 1) / band_rows) + " bands of " +
                              std::to_string(band_rows) + " row";
    EXPECT_NE(dom.find("band by band: " + label), std::string::npos) << label;
  }
}

TEST_F(HtmlReportTest, ABrokenScriptIsVisibleInTheDom) {
  // The harness itself: the same page with a failing script appended must
  // come back with data-script-errors, so a silent failure cannot pass.
  const std::string model = dir_ + "/demo.tflite";
  std::vector<uint8_t> bytes = BuildDemoModel();
  std::ofstream(model, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                               static_cast<std::streamsize>(bytes.size()));
  const std::string html = dir_ + "/broken.html";
  ASSERT_EQ(RunCli({"plan", model, "--planner", "greedy", "--html", html}).exit_code, 0);
  std::string page = ReadText(html);
  const size_t end = page.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  page.insert(end, "<script>notDefinedAnywhere();</script>\n");
  std::ofstream(html, std::ios::binary | std::ios::trunc) << page;
  BrowserRun run = LoadPage(browser_, dir_, html, "");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.stderr_text;
  EXPECT_NE(run.body_tag.find("data-script-errors"), std::string::npos) << run.body_tag;
  EXPECT_FALSE(ConsoleErrors(run.result.stderr_text).empty()) << "the console log did not show the error";
}

}  // namespace
}  // namespace microarena
