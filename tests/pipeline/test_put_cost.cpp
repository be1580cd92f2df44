// The cost of a change to `framepipe serve`'s streams does not grow with their number:
// one put makes as many file-system look-ups among 1,000 or 10,000 streams as among 10 (the
// clash check looks its files up in StreamFileIndex instead of stat'ing every other
// stream's), and writes the state file once; a batch of 10,000 (a stream list) writes it
// once too.
// Counted, not timed: this binary interposes the C library's stat family and renameat
// (the state file's atomic replace), counting the calls the test's own thread makes.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "pipeline/streams/manager.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace {

// Only this thread's calls count: the manager's supervisor and the runs' threads do their own.
thread_local bool counting = false;
std::atomic<long> stat_calls{0};
std::atomic<long> state_writes{0};

template <typename Function>
Function next_definition(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {
int stat(const char* __restrict path, struct stat* __restrict buf) noexcept {
  static const auto real = next_definition<int (*)(const char*, struct stat*)>("stat");
  if (counting) ++stat_calls;
  return real(path, buf);
}
int lstat(const char* __restrict path, struct stat* __restrict buf) noexcept {
  static const auto real = next_definition<int (*)(const char*, struct stat*)>("lstat");
  if (counting) ++stat_calls;
  return real(path, buf);
}
int fstatat(int dir, const char* __restrict path, struct stat* __restrict buf, int flags) noexcept {
  static const auto real = next_definition<int (*)(int, const char*, struct stat*, int)>("fstatat");
  if (counting) ++stat_calls;
  return real(dir, path, buf, flags);
}
int statx(int dir, const char* __restrict path, int flags, unsigned int mask, struct statx* __restrict buf) noexcept {
  static const auto real = next_definition<int (*)(int, const char*, int, unsigned int, struct statx*)>("statx");
  if (counting) ++stat_calls;
  return real(dir, path, flags, mask, buf);
}
int renameat(int from_dir, const char* from, int to_dir, const char* to) noexcept {
  static const auto real = next_definition<int (*)(int, const char*, int, const char*)>("renameat");
  if (counting) ++state_writes;
  return real(from_dir, from, to_dir, to);
}
}

namespace fp {
namespace {

namespace fs = std::filesystem;

// A live list stream beyond the cap waits for a place: streams that exist without running.
constexpr const char* kTemplate = R"(input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mkv', preset: ultrafast}
)";

struct Cost {
  long stats = 0;
  long writes = 0;
};

class PutCostTest : public ::testing::Test {
 protected:
  PutCostTest() : dir_("put-cost") {
    fs::create_directories(dir_ / "outputs");
    std::ofstream(dir_ / "smooth.yaml") << kTemplate;
    options_.pipelines = {{"smooth", dir_ / "smooth.yaml"}};
    options_.roots.output_root = dir_ / "outputs";
    options_.max_streams = 1;  // the first runs, every other one waits
    options_.state_file = dir_ / "state.json";
  }

  static StreamSpec spec(const std::string& name) {
    return StreamSpec{.name = name, .pipeline = "smooth", .uri = "testsrc://64x48@30?frames=0", .sets = {}, .decode = {},
                      .source = StreamSource::List};
  }

  // `streams` streams made in one batch, then what one more put costs.
  Cost put_among(std::size_t streams) {
    StreamManager manager(options_);
    std::vector<StreamChange> batch;
    for (std::size_t i = 0; i < streams; ++i) batch.push_back({.spec = spec("cam" + std::to_string(i)), .remove = false});
    const Cost applied = counted([&] {
      for (const auto& result : manager.apply(batch))
        EXPECT_EQ(result.outcome, StreamChangeResult::Outcome::Created) << result.error;
    });
    EXPECT_EQ(applied.writes, 1) << "a batch of " << streams << " streams writes the state once";
    EXPECT_EQ(manager.list().size(), streams);
    return counted([&] { EXPECT_EQ(manager.put(spec("new")), StreamManager::PutOutcome::Created); });
  }

  template <typename Action>
  static Cost counted(Action action) {
    const long stats_before = stat_calls, writes_before = state_writes;
    counting = true;
    action();
    counting = false;
    return {stat_calls - stats_before, state_writes - writes_before};
  }

  test::TempDir dir_;
  StreamManagerOptions options_;
};

TEST_F(PutCostTest, APutAmongTenThousandStreamsCostsWhatItDoesAmongTen) {
  const Cost among_10 = put_among(10);
  EXPECT_GT(among_10.stats, 0) << "the interposed stat family counts nothing: the test measures nothing";
  EXPECT_EQ(among_10.writes, 1);
  for (const std::size_t streams : {1000, 10000}) {
    fs::remove(options_.state_file);
    const Cost among_many = put_among(streams);
    std::cout << "one put: " << among_10.stats << " stat calls among 10 streams, " << among_many.stats << " among "
              << streams << "\n";
    EXPECT_EQ(among_many.writes, 1) << streams << " streams";
    EXPECT_LE(among_many.stats, among_10.stats) << "file-system look-ups of one put: " << among_10.stats
                                                << " among 10 streams, " << among_many.stats << " among " << streams;
  }
}

}  // namespace
}  // namespace fp
