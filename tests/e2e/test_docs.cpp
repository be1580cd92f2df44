// The documentation names every stage, parameter and example, so it cannot silently fall
// behind the parameter tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "stages/registry.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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

TEST(Docs, ReadmeListsEveryExamplePipeline) {
  const std::string readme = read_text(fs::path(FRAMEPIPE_SOURCE_DIR) / "README.md");
  for (const auto& entry : fs::directory_iterator(fs::path(FRAMEPIPE_SOURCE_DIR) / "config")) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NE(readme.find("config/" + entry.path().filename().string()), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace fp::test
