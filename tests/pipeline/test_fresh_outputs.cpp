// pipeline/streams/fresh_outputs.hpp: a served stream writes beside the files it finds, with the first
// free suffix, and says so everywhere the path appears (the stage, the file uses, the outputs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pipeline/streams/fresh_outputs.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;

TEST(FreshOutputs, TheSuffixGoesBeforeTheExtension) {
  EXPECT_EQ(suffixed_output("/o/cam1.mkv", 1), "/o/cam1~1.mkv");
  EXPECT_EQ(suffixed_output("/o/cam1.hist.jsonl", 12), "/o/cam1.hist~12.jsonl");
  EXPECT_EQ(suffixed_output("/o/cam1", 2), "/o/cam1~2");
}

StreamPlan plan_writing(const std::vector<std::string>& paths) {
  StreamPlan plan;
  int i = 0;
  for (const auto& path : paths) {
    StageDefinition stage;
    stage.id = "out" + std::to_string(i++);
    stage.type = "encode";
    stage.params.set("output", path);
    plan.definition.stages.push_back(stage);
    plan.files.push_back({.written = true, .path = path, .what = stage.id, .where = {}});
    plan.outputs.push_back(path);
  }
  plan.files.push_back({.written = false, .path = paths.front(), .what = "an input of the same name", .where = {}});
  return plan;
}

TEST(FreshOutputs, APathTakenOnDiskOrInUseMovesToTheFirstFreeSuffix) {
  test::TempDir dir("fresh-outputs");
  const std::string cam = (dir / "cam1.mkv").string();
  const std::string other = (dir / "other.mkv").string();
  const std::string free = (dir / "free.mkv").string();
  std::ofstream(cam) << "an earlier run's recording";
  std::ofstream(suffixed_output(cam, 1)) << "and another";
  fs::create_symlink(dir / "nowhere", suffixed_output(cam, 2));  // a dangling link is something there too
  StreamPlan plan = plan_writing({cam, other, free});
  move_outputs_beside_existing(plan, [&](const std::string& path) { return path == other; });
  const std::string cam_fresh = suffixed_output(cam, 3);
  const std::string other_fresh = suffixed_output(other, 1);
  EXPECT_EQ(plan.outputs, (std::vector<std::string>{cam_fresh, other_fresh, free}));
  EXPECT_EQ(plan.definition.stages[0].params.text("output"), cam_fresh);
  EXPECT_EQ(plan.definition.stages[1].params.text("output"), other_fresh);
  EXPECT_EQ(plan.definition.stages[2].params.text("output"), free);
  EXPECT_EQ(plan.files[0].path, cam_fresh);
  EXPECT_EQ(plan.files[1].path, other_fresh);
  EXPECT_EQ(plan.files[3].path, cam) << "an input is not an output";
  std::ifstream kept(cam);
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "an earlier run's recording");
}

TEST(FreshOutputs, TwoOutputsOfOnePlanNeverMoveOntoEachOther) {
  test::TempDir dir("fresh-outputs-own");
  const std::string a = (dir / "a.mkv").string();
  std::ofstream(a) << "x";
  // a.mkv is taken, and a~1.mkv is this plan's own second output: a.mkv moves to a~2.mkv.
  StreamPlan plan = plan_writing({a, suffixed_output(a, 1)});
  move_outputs_beside_existing(plan, [](const std::string&) { return false; });
  EXPECT_EQ(plan.outputs, (std::vector<std::string>{suffixed_output(a, 2), suffixed_output(a, 1)}));
}

TEST(FreshOutputs, NetworkOutputsAreLeftAlone) {
  StreamPlan plan = plan_writing({"udp://127.0.0.1:5000"});
  move_outputs_beside_existing(plan, [](const std::string&) { return true; });
  EXPECT_EQ(plan.outputs.front(), "udp://127.0.0.1:5000");
}

}  // namespace
}  // namespace fp
