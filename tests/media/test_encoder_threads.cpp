// x264's threads come from one budget of the process's cores shared by its open encoders
// (media/encoder_threads.hpp), not x264's own 1.5 threads a core for each of them; an
// encode stage's `threads` sets them outright.
#include <gtest/gtest.h>

#include <dirent.h>

#include <cmath>
#include <memory>
#include <vector>

#include "media/encoder_threads.hpp"
#include "media/video_encoder.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace fp {
namespace {

TEST(EncoderThreadBudget, EachEncoderTakesItsShareWhenItOpens) {
  EncoderThreadBudget budget(16);
  auto first = budget.lease();
  EXPECT_EQ(first.threads(), 24);  // alone: x264's own 1.5 a core
  auto second = budget.lease();
  EXPECT_EQ(second.threads(), 12);
  auto third = budget.lease(3);  // a stage's own `threads:`, counted among the encoders
  EXPECT_EQ(third.threads(), 3);
  EXPECT_EQ(budget.encoders(), 3);
  std::vector<EncoderThreadBudget::Lease> many;
  for (int i = 0; i < 13; ++i) many.push_back(budget.lease());
  EXPECT_EQ(many.back().threads(), 2);  // 16 encoders on 16 cores: 1.5 threads a core, rounded
  for (int i = 0; i < 40; ++i) many.push_back(budget.lease());
  EXPECT_EQ(many.back().threads(), 1);  // at least one, however many share
  many.clear();
  { auto gone = std::move(first); }  // an encoder closes: the next one takes the new share
  EXPECT_EQ(budget.encoders(), 2);
  EXPECT_EQ(budget.lease().threads(), 8);  // 1.5 x 16 cores / 3 encoders
  EXPECT_EQ(budget.encoders(), 2);
}

TEST(EncoderThreadBudget, AFractionOfACoreCountsAsOne) {
  EncoderThreadBudget budget(0.5);  // a cgroup quota of half a core
  auto first = budget.lease();
  EXPECT_EQ(first.threads(), 2);  // 1.5, rounded
  EXPECT_EQ(budget.lease().threads(), 1);
}

int thread_count() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
    closedir(dir);
  }
  return count;
}

std::unique_ptr<VideoEncoder> open_x264(int threads) {
  SinkOptions options;
  options.path = "threads.mkv";
  options.threads = threads;
  EncodedVideo video;
  video.width = 320;
  video.height = 240;
  video.frame_rate = Rational{30, 1};
  video.time_base = Rational{1, 30};
  return std::make_unique<VideoEncoder>("threads.mkv", options, video, true);
}

// What x264 is told is what runs: its frame threads are threads of this process.
TEST(EncoderThreads, X264RunsTheThreadsItIsGiven) {
  if (avcodec_find_encoder_by_name("libx264") == nullptr) GTEST_SKIP() << "this FFmpeg has no libx264";
  const int before = thread_count();
  auto one = open_x264(1);
  EXPECT_EQ(one->threads(), 1);
  const int with_one = thread_count() - before;
  one.reset();
  auto six = open_x264(6);
  EXPECT_EQ(six->threads(), 6);
  const int with_six = thread_count() - before;
  EXPECT_GE(with_six - with_one, 5) << "x264 at 6 threads runs " << with_six << " threads, at 1 " << with_one;
  six.reset();
  // Left to the budget: the process's share, counted while it is open.
  const int open_before = EncoderThreadBudget::process().encoders();
  auto shared = open_x264(0);
  EXPECT_EQ(EncoderThreadBudget::process().encoders(), open_before + 1);
  EXPECT_EQ(shared->threads(), std::max(1, static_cast<int>(std::lround(1.5 * EncoderThreadBudget::process().cores() /
                                                                        (open_before + 1)))));
  shared->close();
  EXPECT_EQ(EncoderThreadBudget::process().encoders(), open_before);
}

}  // namespace
}  // namespace fp
