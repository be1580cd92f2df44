// The documentation names every stage, parameter and example, so it cannot silently fall
// behind the parameter tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "stages/registry.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

TEST(Docs, StageReferenceCoversEveryStageAndParameter) {
  const std::string doc = read_text(fs::path(FRAMEPIPE_SOURCE_DIR) / "docs" / "stages.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& spec : stage_registry()) {
    const auto section = doc.find("## " + spec.type + "\n");
    ASSERT_NE(section, std::string::npos) << "docs/stages.md has no section for " << spec.type;
    const auto end = doc.find("\n## ", section + 1);
    const std::string body = doc.substr(section, end == std::string::npos ? std::string::npos : end - section);
    for (const auto& param : spec.params) {
      EXPECT_NE(body.find("`" + param.name + "`"), std::string::npos) << spec.type << "." << param.name;
      // A backend's own limit is part of the reference too.
      if (param.cuda_max) {
        EXPECT_NE(body.find("CUDA"), std::string::npos) << spec.type << "." << param.name;
        EXPECT_NE(body.find(std::to_string(*param.cuda_max)), std::string::npos) << spec.type << "." << param.name;
      }
    }
  }
}

// A GPU test that compares with the CPU is named for it (MatchesCpuOnTestSizes,
// MatchesTheCpuForEveryLayout, ...).
const std::regex kTestAgainstTheCpu(R"(\bTEST(_F|_P)?\(\s*\w+\s*,\s*\w*Cpu\w*\s*\))");

// The functions a cpu/ header declares: `RESULT NAME(` at the start of a line.
std::set<std::string> cpu_functions(const std::string& header) {
  static const std::regex declaration(R"(^[A-Za-z_][\w:<>, ]*[\s&*](\w+)\()");
  std::set<std::string> names;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, declaration)) names.insert(m[1]);
  }
  return names;
}

// Whether `source` calls one of `functions` as cpu::NAME(...).
bool calls_one_of(const std::string& source, const std::set<std::string>& functions) {
  for (const auto& name : functions)
    if (source.find("cpu::" + name + "(") != std::string::npos) return true;
  return false;
}

// The recipe of docs/ARCHITECTURE.md ("Adding a processing stage"): every registered
// processing stage has its CPU definition, its CUDA kernel, GPU tests that compare the two,
// and a case in `framepipe bench`. A stage added without one of them fails here.
TEST(Docs, EveryProcessingStageFollowsTheRecipe) {
  const fs::path root(FRAMEPIPE_SOURCE_DIR);
  const std::string bench = read_text(root / "tools/framepipe/bench/bench_cases.cpp");
  int processing = 0;
  for (const auto& spec : stage_registry()) {
    if (spec.role != StageRole::Process) continue;
    ++processing;
    EXPECT_TRUE(fs::exists(root / "cpu" / (spec.type + ".cpp"))) << spec.type << ": no cpu/" << spec.type << ".cpp";
    // A kernel (.cu), or host code that enqueues copies (.cpp) where no kernel is needed.
    EXPECT_TRUE(fs::exists(root / "cuda" / (spec.type + ".cu")) || fs::exists(root / "cuda" / (spec.type + ".cpp")))
        << spec.type << ": no cuda/" << spec.type << ".cu (or .cpp)";
    const std::string gpu_tests = read_text(root / "tests/cuda" / ("test_" + spec.type + ".cpp"));
    EXPECT_TRUE(std::regex_search(gpu_tests, kTestAgainstTheCpu))
        << spec.type << ": tests/cuda/test_" << spec.type << ".cpp has no TEST named for the CPU (...MatchesCpu...)";
    const auto cpu_definition = cpu_functions(read_text(root / "cpu" / (spec.type + ".hpp")));
    EXPECT_TRUE(calls_one_of(gpu_tests, cpu_definition))
        << spec.type << ": tests/cuda/test_" << spec.type << ".cpp never calls the CPU definition (one of the "
        << cpu_definition.size() << " functions of cpu/" << spec.type << ".hpp) to compare with";
    EXPECT_NE(bench.find("wanted(\"" + spec.type + "\")"), std::string::npos)
        << spec.type << ": no case in tools/framepipe/bench/bench_cases.cpp";
    // The stage's op from each backend's factory (core/ops/frame_op.hpp).
    for (const char* backend : {"cpu", "cuda"}) {
      const std::string factories = read_text(root / backend / "frame_ops.hpp");
      EXPECT_NE(factories.find(" make_" + spec.type + "_op("), std::string::npos)
          << spec.type << ": no make_" << spec.type << "_op in " << backend << "/frame_ops.hpp";
    }
  }
  EXPECT_GE(processing, 5);
}

// A stage file reads as parameters, checks, prepare and process: backend code lives in cpu/
// and cuda/, and the one #ifdef on CUDA in stages/backend.hpp, where the factories are chosen.
TEST(Docs, StageFilesHaveNoBackendIfdef) {
  for (const auto& entry : fs::directory_iterator(fs::path(FRAMEPIPE_SOURCE_DIR) / "stages")) {
    const auto name = entry.path().filename().string();
    if (name == "backend.hpp" || (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp")) continue;
    EXPECT_EQ(read_text(entry.path()).find("FRAMEPIPE_WITH_CUDA"), std::string::npos) << "stages/" << name;
  }
}

TEST(Docs, ReadmeListsEveryExamplePipeline) {
  const std::string readme = read_text(fs::path(FRAMEPIPE_SOURCE_DIR) / "README.md");
  for (const auto& entry : fs::directory_iterator(fs::path(FRAMEPIPE_SOURCE_DIR) / "config")) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NE(readme.find("config/" + entry.path().filename().string()), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace fp::test
