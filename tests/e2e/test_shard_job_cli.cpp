// The Indexed Job of issue 20 simulated with real processes: a Kubernetes Indexed Job runs
// one pod per index, each `framepipe run job.yaml --shard $(JOB_COMPLETION_INDEX)/N` over the
// same file list. Here 3 framepipe processes at once over a list of 20 small files: every
// file's output exists exactly once, named after the file, complete; the indexes' inputs are
// disjoint and together the list; a retried index rewrites only its own outputs. Also
// --shard over a glob, an index that owns nothing, one -i, and a bad --shard.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/stream_list/shard.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/time_bound.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

constexpr int kFiles = 20;
// Seconds one framepipe process may take (each takes well under one): a hang fails the test.
int limit_seconds() { return static_cast<int>(time_bound(60)); }
constexpr std::uint32_t kIndexes = 3;

// in/clip-00.y4m ... in/clip-19.y4m, tiny and of different lengths, so that a frame count
// tells each output's input apart.
std::string stem(int i) {
  char name[16];
  std::snprintf(name, sizeof name, "clip-%02d", i);
  return name;
}
int frames_of(int i) { return 2 + i % 4; }

std::set<std::string> all_stems() {
  std::set<std::string> stems;
  for (int i = 0; i < kFiles; ++i) stems.insert(stem(i));
  return stems;
}

// The files in `folder`, by name.
std::set<std::string> files_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// Where each test runs: the 20 inputs (made once, by framepipe itself from testsrc), the
// list of them (newest first, with a comment and a blank line, as people write lists), and
// the Job's pipeline.
class ShardJob : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("shard-job");
    std::string yaml = "inputs:\n";
    for (int i = 0; i < kFiles; ++i)
      yaml += "  - {uri: 'testsrc://32x32@25?frames=" + std::to_string(frames_of(i)) + "&noise=" + std::to_string(i) +
              "', name: " + stem(i) + "}\n";
    yaml += "stages:\n  - {id: out, type: encode, output: 'in/{stream}.y4m'}\n";
    std::ofstream(*dir_ / "make-inputs.yaml") << yaml;
    fs::create_directories(*dir_ / "in");
    const auto made = run_framepipe_with_timeout({"run", "make-inputs.yaml", "-q"}, dir_->path(), limit_seconds());
    ASSERT_EQ(made.exit_code, 0) << made.output;
    std::ofstream list(*dir_ / "files.txt");
    list << "# the batch\n\n";
    for (int i = kFiles - 1; i >= 0; --i) list << "in/" << stem(i) << ".y4m\n";
    list.close();
    std::ofstream(*dir_ / "job.yaml") << "inputs: {list: files.txt}\n"
                                         "stages:\n"
                                         "  - {id: smooth, type: mean_smooth, radius: 1}\n"
                                         "  - {id: out, type: encode, output: 'out/{stream}.y4m'}\n";
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(dir_, nullptr);
    fs::remove_all(out());
    fs::create_directories(out());
  }
  static fs::path out() { return *dir_ / "out"; }
  static const fs::path& dir() { return dir_->path(); }

  // One index of the Job: `framepipe run PIPELINE --shard I/N`, its statistics in stats-I.json.
  static std::vector<std::string> index_args(const std::string& pipeline, std::uint32_t index, std::uint32_t count) {
    return {"run",
            pipeline,
            "-q",
            "--shard",
            std::to_string(index) + "/" + std::to_string(count),
            "--stats-json",
            "stats-" + std::to_string(index) + ".json"};
  }

  // Every index at once, as the Job's pods run (parallelism = completions).
  static std::vector<CommandResult> run_job(const std::string& pipeline, std::uint32_t count) {
    std::vector<CommandResult> results(count);
    std::vector<std::thread> pods;
    for (std::uint32_t index = 0; index < count; ++index)
      pods.emplace_back([&, index] {
        results[index] = run_framepipe_with_timeout(index_args(pipeline, index, count), dir(), limit_seconds());
      });
    for (auto& pod : pods) pod.join();
    return results;
  }

  static nlohmann::json stats_of(std::uint32_t index) {
    return nlohmann::json::parse(read_text(dir() / ("stats-" + std::to_string(index) + ".json")));
  }

  // What each index ran, by its --stats-json; checks that each says its shard and that every
  // stream it ran ended well and belongs to it.
  static std::vector<std::set<std::string>> ran_by_index(std::uint32_t count) {
    std::vector<std::set<std::string>> ran(count);
    for (std::uint32_t index = 0; index < count; ++index) {
      const auto stats = stats_of(index);
      EXPECT_EQ(stats["shard"]["ordinal"], index);
      EXPECT_EQ(stats["shard"]["replicas"], count);
      EXPECT_EQ(stats["shard"]["inputs"], kFiles);
      EXPECT_EQ(stats["shard"]["selected"], stats["streams"].size());
      for (const auto& stream : stats["streams"]) {
        const std::string name = stream["name"];
        EXPECT_TRUE(stream["started"].get<bool>()) << name;
        EXPECT_FALSE(stream.contains("error")) << name << ": " << stream.dump();
        EXPECT_EQ(rendezvous_owner(name, count), index) << name << " ran on index " << index;
        EXPECT_TRUE(ran[index].insert(name).second) << name << " twice on index " << index;
      }
    }
    return ran;
  }

  // Pairwise disjoint, and together every file of the list.
  static void expect_partition(const std::vector<std::set<std::string>>& ran) {
    std::multiset<std::string> together;
    for (const auto& names : ran) together.insert(names.begin(), names.end());
    const auto stems = all_stems();
    EXPECT_EQ(together, std::multiset<std::string>(stems.begin(), stems.end()));
  }

  // out/ holds exactly one output per input file, named after it, with the file's frames.
  static void expect_one_complete_output_per_file() {
    std::set<std::string> expected;
    for (const auto& name : all_stems()) expected.insert(name + ".y4m");
    EXPECT_EQ(files_in(out()), expected);
    for (int i = 0; i < kFiles; ++i) EXPECT_EQ(count_frames(out() / (stem(i) + ".y4m")), frames_of(i)) << stem(i);
  }

  static TempDir* dir_;
};

TempDir* ShardJob::dir_ = nullptr;

TEST_F(ShardJob, ThreeIndexesAtOnceProcessEveryFileExactlyOnce) {
  const auto results = run_job("job.yaml", kIndexes);
  for (std::uint32_t index = 0; index < kIndexes; ++index)
    ASSERT_EQ(results[index].exit_code, 0) << "index " << index << ":\n" << results[index].output;
  const auto ran = ran_by_index(kIndexes);
  expect_partition(ran);
  expect_one_complete_output_per_file();
}

// A pod that failed is replaced by one with the same index: it must redo exactly its own
// files, leaving the other indexes' outputs as they were.
TEST_F(ShardJob, ARetriedIndexRewritesOnlyItsOwnOutputs) {
  for (const auto& result : run_job("job.yaml", kIndexes)) ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto ran = ran_by_index(kIndexes);
  ASSERT_FALSE(ran[1].empty()) << "index 1 owns none of the 20 files: the test would prove nothing";
  // Index 1's outputs emptied (as a pod killed mid-write might leave them), so that
  // rewriting them shows whatever the file system's time stamps' resolution.
  std::map<std::string, std::string> others;
  std::map<std::string, fs::file_time_type> others_times;
  for (const auto& name : all_stems()) {
    const fs::path output = out() / (name + ".y4m");
    if (ran[1].count(name) > 0) {
      fs::resize_file(output, 0);
    } else {
      others[name] = read_text(output);
      others_times[name] = fs::last_write_time(output);
    }
  }
  const auto retried = run_framepipe_with_timeout(index_args("job.yaml", 1, kIndexes), dir(), limit_seconds());
  ASSERT_EQ(retried.exit_code, 0) << retried.output;
  EXPECT_EQ(ran_by_index(kIndexes)[1], ran[1]);  // the same files again
  expect_one_complete_output_per_file();         // its own rewritten, nothing added
  for (const auto& [name, bytes] : others) {
    EXPECT_EQ(read_text(out() / (name + ".y4m")), bytes)
        << name << " (index " << rendezvous_owner(name, kIndexes) << ")";
    EXPECT_EQ(fs::last_write_time(out() / (name + ".y4m")), others_times[name]) << name << " was written again";
  }
}

TEST_F(ShardJob, AGlobIsShardedByTheFilesNamesToo) {
  std::ofstream(dir() / "glob.yaml") << "inputs: {glob: 'in/clip-*.y4m'}\n"
                                        "stages:\n  - {id: out, type: encode, output: 'out/{stream}.y4m'}\n";
  const auto results = run_job("glob.yaml", 2);
  for (const auto& result : results) ASSERT_EQ(result.exit_code, 0) << result.output;
  std::vector<std::set<std::string>> ran(2);
  for (std::uint32_t index = 0; index < 2; ++index) {
    const auto stats = stats_of(index);
    for (const auto& stream : stats["streams"]) {
      const std::string name = stream["name"];
      EXPECT_EQ(rendezvous_owner(name, 2), index) << name;
      ran[index].insert(name);
    }
  }
  expect_partition(ran);
  expect_one_complete_output_per_file();
}

// More indexes than a list has files (or an unlucky draw): an index with nothing to do ends
// well at once, says so, and writes nothing but its statistics.
TEST_F(ShardJob, AnIndexThatOwnsNoFileEndsWellAndSaysSo) {
  std::ofstream(dir() / "three.txt") << "in/clip-00.y4m\nin/clip-01.y4m\nin/clip-02.y4m\n";
  std::ofstream(dir() / "three.yaml") << "inputs: {list: three.txt}\n"
                                         "stages:\n  - {id: out, type: encode, output: 'out/{stream}.y4m'}\n";
  constexpr std::uint32_t kCount = 8;
  std::uint32_t idle = kCount;
  for (std::uint32_t index = 0; index < kCount && idle == kCount; ++index) {
    bool owns = false;
    for (int i = 0; i < 3; ++i) owns = owns || rendezvous_owner(stem(i), kCount) == index;
    if (!owns) idle = index;
  }
  ASSERT_LT(idle, kCount);
  const std::string shard = std::to_string(idle) + "/" + std::to_string(kCount);
  const auto result = run_framepipe_with_timeout({"run", "three.yaml", "--shard", shard, "--stats-json", "idle.json"},
                                                 dir(), limit_seconds());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("shard " + shard + ": none of the 3 inputs is this shard's"), std::string::npos)
      << result.output;
  EXPECT_TRUE(files_in(out()).empty());
  const auto stats = nlohmann::json::parse(read_text(dir() / "idle.json"));
  EXPECT_EQ(stats["shard"]["selected"], 0);
  EXPECT_EQ(stats["shard"]["inputs"], 3);
  EXPECT_TRUE(stats["streams"].empty());
}

// One -i (a Job that hands each pod one file, or a person trying one): the input is named
// after its file and runs on exactly the index that owns that name.
TEST_F(ShardJob, OneInputRunsOnlyOnTheIndexThatOwnsItsFile) {
  const std::string file = "in/" + stem(7) + ".y4m";
  for (std::uint32_t index = 0; index < kIndexes; ++index) {
    const auto result = run_framepipe_with_timeout(
        {"run", "job.yaml", "-i", file, "--shard", std::to_string(index) + "/" + std::to_string(kIndexes)}, dir(),
        limit_seconds());
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const bool owner = rendezvous_owner(stem(7), kIndexes) == index;
    EXPECT_NE(result.output.find("its one input, " + stem(7) + ", is " + (owner ? "" : "not ") + "this shard's"),
              std::string::npos)
        << result.output;
  }
  EXPECT_EQ(files_in(out()), std::set<std::string>{stem(7) + ".y4m"});
  EXPECT_EQ(count_frames(out() / (stem(7) + ".y4m")), frames_of(7));
}

TEST_F(ShardJob, ABadShardIsAUsageErrorNamingTheFlag) {
  for (const std::string shard : {"3/3", "1", "a/3", "0/0", "-1/3"}) {
    const auto result = run_framepipe_with_timeout({"run", "job.yaml", "--shard", shard}, dir(), limit_seconds());
    EXPECT_EQ(result.exit_code, 2) << shard << ": " << result.output;
    EXPECT_NE(result.output.find("--shard " + shard + ": expected I/N"), std::string::npos) << result.output;
  }
  EXPECT_TRUE(files_in(out()).empty());
}

}  // namespace
}  // namespace fp::test
