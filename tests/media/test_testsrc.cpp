// testsrc://: parameters, determinism, noise statistics, odd sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "media/media_error.hpp"
#include "media_test_util.hpp"

namespace fp {
namespace {

using test::checksum;
using test::read_all;
using test::same_pixels;

TEST(TestSource, DefaultsWhenNothingIsGiven) {
  auto source = open_source("testsrc://");
  const VideoInfo& info = source->info();
  EXPECT_EQ(info.width, 640);
  EXPECT_EQ(info.height, 360);
  EXPECT_EQ(info.frame_rate, (Rational{30, 1}));
  EXPECT_EQ(info.time_base, (Rational{1, 30}));
  EXPECT_EQ(info.frame_count, 300);
  EXPECT_FALSE(info.live);
  EXPECT_EQ(source->decoder_name(), "testsrc");
}

TEST(TestSource, ReadsExactlyTheFramesAskedForWithIndexPts) {
  auto source = open_source("testsrc://320x240@25?noise=5&frames=7");
  EXPECT_EQ(source->info().time_base, (Rational{1, 25}));
  const auto frames = read_all(*source);
  ASSERT_EQ(frames.size(), 7u);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].pts, static_cast<std::int64_t>(i));
    EXPECT_EQ(frames[i].sequence, static_cast<std::int64_t>(i));
    EXPECT_EQ(frames[i].time_base, (Rational{1, 25}));
    EXPECT_EQ(frames[i].width, 320);
    EXPECT_EQ(frames[i].height, 240);
    EXPECT_EQ(frames[i].location, MemoryLocation::Host);
  }
  EXPECT_FALSE(source->read().has_value());  // and stays at the end
}

TEST(TestSource, FractionalRatesAreExactRationals) {
  auto ntsc = open_source("testsrc://64x48@30000/1001?frames=1");
  EXPECT_EQ(ntsc->info().frame_rate, (Rational{30000, 1001}));
  EXPECT_EQ(ntsc->info().time_base, (Rational{1001, 30000}));
  auto decimal = open_source("testsrc://64x48@29.97?frames=1");
  EXPECT_EQ(decimal->info().frame_rate, (Rational{2997, 100}));
  EXPECT_EQ(decimal->info().time_base, (Rational{100, 2997}));
  auto half = open_source("testsrc://64x48@12.5?frames=1");
  EXPECT_EQ(half->info().frame_rate, (Rational{25, 2}));
  auto reduced = open_source("testsrc://64x48@60/2?frames=1");
  EXPECT_EQ(reduced->info().frame_rate, (Rational{30, 1}));
}

TEST(TestSource, ZeroFramesIsEndless) {
  auto source = open_source("testsrc://32x18@30?frames=0");
  EXPECT_EQ(source->info().frame_count, -1);
  EXPECT_FALSE(source->info().live);
  for (int i = 0; i < 400; ++i) {  // beyond the default of 300
    auto frame = source->read();
    ASSERT_TRUE(frame.has_value()) << "frame " << i;
    EXPECT_EQ(frame->pts, i);
  }
}

TEST(TestSource, TwoOpensGiveIdenticalBytes) {
  const std::string uri = "testsrc://320x240@30?noise=10&frames=6";
  const auto first = read_all(uri);
  const auto second = read_all(uri);
  ASSERT_EQ(first.size(), 6u);
  ASSERT_EQ(second.size(), 6u);
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(same_pixels(first[i], second[i])) << "frame " << i;
  auto third = open_source(uri);
  EXPECT_EQ(checksum(*third->read()), checksum(first[0]));
}

// The bytes are the same on every machine (integer geometry, a fixed Gaussian table): a few
// frames' checksums (FNV-1a over every sample of Y, U and V, row by row; test::checksum) are
// pinned to the values computed when this test was written (2026-11-25, x86-64, g++ 12), so a
// change of the pattern or the noise anywhere fails here.
TEST(TestSource, ChecksumsArePinned) {
  struct Pinned {
    const char* uri;
    int frame;
    std::uint64_t checksum;
  };
  const Pinned pinned[] = {
      {"testsrc://320x240@30?noise=10&frames=6", 0, 3594878605998094739ULL},
      {"testsrc://320x240@30?noise=10&frames=6", 5, 16523947519849702739ULL},
      {"testsrc://640x360@30?noise=20&frames=4", 3, 17854769078078126652ULL},
      {"testsrc://17x13@25?frames=2", 1, 9549790088875080637ULL},
      {"testsrc://1x1@30?noise=5&frames=1", 0, 4844924433708378620ULL},
  };
  for (const auto& p : pinned) {
    const auto frames = read_all(p.uri);
    ASSERT_GT(frames.size(), static_cast<std::size_t>(p.frame)) << p.uri;
    EXPECT_EQ(checksum(frames[static_cast<std::size_t>(p.frame)]), p.checksum) << p.uri << " frame " << p.frame;
  }
}

TEST(TestSource, ThePatternMovesAndTheNoiseIsFreshEachFrame) {
  const auto clean = read_all("testsrc://320x240?frames=3");
  EXPECT_NE(checksum(clean[0]), checksum(clean[1]));
  EXPECT_NE(checksum(clean[1]), checksum(clean[2]));
  // Noise of frame 1 is not noise of frame 0 shifted along: the differences disagree.
  const auto noisy = read_all("testsrc://320x240?noise=8&frames=2");
  int same = 0;
  const ConstImageU8 c0 = clean[0].luma().cview(), c1 = clean[1].luma().cview();
  const ConstImageU8 n0 = noisy[0].luma().cview(), n1 = noisy[1].luma().cview();
  for (int x = 0; x < 320; ++x) same += (n0(x, 120) - c0(x, 120)) == (n1(x, 120) - c1(x, 120));
  EXPECT_LT(same, 160);
}

TEST(TestSource, HasEdgesTextLikeDetailAndColor) {
  const auto frames = read_all("testsrc://640x360?frames=1");
  const ConstImageU8 y = frames[0].luma().cview();
  int strong_edges = 0;
  for (int r = 0; r < y.height; ++r)
    for (int x = 1; x < y.width; ++x) strong_edges += std::abs(y(x, r) - y(x - 1, r)) > 64;
  EXPECT_GT(strong_edges, 2000);  // rectangles, disk, lines and glyph strokes
  for (int p = 1; p < 3; ++p) {
    const ConstImageU8 c = frames[0].planes[p].cview();
    std::set<int> values;
    for (int r = 0; r < c.height; ++r)
      for (int x = 0; x < c.width; ++x) values.insert(c(x, r));
    EXPECT_GT(values.size(), 40u) << "plane " << p;
  }
}

// The luma noise is Gaussian with the requested sigma: compare with the same frames
// without noise, away from the clamping at 0 and 255.
TEST(TestSource, NoiseMatchesSigma) {
  for (double sigma : {3.0, 12.0, 25.0}) {
    const std::string size = "testsrc://320x240@30?frames=2";
    const auto clean = read_all(size);
    const auto noisy = read_all(size + "&noise=" + std::to_string(sigma));
    const double margin = 4 * sigma + 1;  // beyond 4 sigma: 6e-5 of the mass, no visible clamping bias
    double sum = 0, sum2 = 0, count = 0, beyond_2sigma = 0;
    for (std::size_t f = 0; f < clean.size(); ++f) {
      const ConstImageU8 c = clean[f].luma().cview();
      const ConstImageU8 n = noisy[f].luma().cview();
      for (int r = 0; r < c.height; ++r)
        for (int x = 0; x < c.width; ++x) {
          if (c(x, r) < margin || c(x, r) > 255 - margin) continue;
          const double d = static_cast<double>(n(x, r)) - c(x, r);
          sum += d;
          sum2 += d * d;
          count += 1;
          beyond_2sigma += std::abs(d) > 2 * sigma;
        }
    }
    ASSERT_GT(count, 20000) << "sigma " << sigma;
    const double mean = sum / count;
    const double sd = std::sqrt(sum2 / count - mean * mean);
    EXPECT_NEAR(mean, 0.0, 0.05 * sigma) << "sigma " << sigma;
    EXPECT_NEAR(sd, sigma, 0.05 * sigma) << "sigma " << sigma;
    // The tail of a Gaussian: |round(sigma g)| > 2 sigma when |sigma g| >= floor(2 sigma) + 1/2.
    const double expected_tail = std::erfc((std::floor(2 * sigma) + 0.5) / sigma / std::sqrt(2.0));
    EXPECT_NEAR(beyond_2sigma / count, expected_tail, 0.006) << "sigma " << sigma;
  }
}

TEST(TestSource, OddAndTinySizes) {
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {1, 3}, {3, 2}, {17, 13}, {641, 479}}) {
    const std::string uri = "testsrc://" + std::to_string(w) + "x" + std::to_string(h) + "?noise=4&frames=3";
    auto source = open_source(uri);
    EXPECT_EQ(source->info().width, w);
    EXPECT_EQ(source->info().height, h);
    const auto frames = read_all(*source);
    ASSERT_EQ(frames.size(), 3u) << uri;
    for (const Frame& frame : frames) {
      EXPECT_EQ(frame.planes[0].width, w);
      EXPECT_EQ(frame.planes[0].height, h);
      for (int p = 1; p < 3; ++p) {
        EXPECT_EQ(frame.planes[p].width, (w + 1) / 2) << uri;
        EXPECT_EQ(frame.planes[p].height, (h + 1) / 2) << uri;
      }
    }
    const auto again = read_all(uri);
    for (std::size_t i = 0; i < frames.size(); ++i) EXPECT_TRUE(same_pixels(frames[i], again[i])) << uri;
  }
}

TEST(TestSource, FramesComeFromAPool) {
  auto source = open_source("testsrc://64x48?frames=10");
  const std::uint8_t* first = nullptr;
  {
    auto frame = source->read();
    first = frame->luma().data;
  }  // back to the pool
  auto next = source->read();
  EXPECT_EQ(next->luma().data, first);
}

// loop=K: the first K frames, exactly as drawn without it, then again and again; pts and
// sequence keep counting, so the stream still runs forward in time.
TEST(TestSource, LoopRepeatsTheFirstFramesAsDrawn) {
  auto drawn = open_source("testsrc://97x61@25?noise=15&frames=3");
  std::vector<std::uint64_t> first;
  while (auto frame = drawn->read()) first.push_back(checksum(*frame));
  ASSERT_EQ(first.size(), 3u);
  EXPECT_NE(first[0], first[1]);  // fresh noise every frame: a repeat would show

  auto looped = open_source("testsrc://97x61@25?noise=15&frames=8&loop=3");
  std::int64_t index = 0;
  std::vector<const std::uint8_t*> planes;  // each loop frame's luma, as first handed out
  while (auto frame = looped->read()) {
    EXPECT_EQ(checksum(*frame), first[static_cast<std::size_t>(index % 3)]) << "frame " << index;
    EXPECT_EQ(frame->pts, index);
    // A repeat is the drawn frame's own planes (shared, never written): no copy a frame,
    // so that many such sources feeding a benchmark cost no CPU.
    if (index < 3)
      planes.push_back(frame->luma().data);
    else
      EXPECT_EQ(frame->luma().data, planes[static_cast<std::size_t>(index % 3)]) << "frame " << index;
    ++index;
  }
  EXPECT_EQ(index, 8);
}

TEST(TestSource, BadUrisNameTheUriAndTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"testsrc://0x10", "at least 1"},
      {"testsrc://10x0", "at least 1"},
      {"testsrc://axb", "bad size"},
      {"testsrc://640", "bad size"},
      {"testsrc://99999x10", "too large"},
      {"testsrc://640x360@0", "frame rate"},
      {"testsrc://640x360@abc", "frame rate"},
      {"testsrc://640x360@30/0", "frame rate"},
      {"testsrc://640x360@", "frame rate"},
      {"testsrc://640x360?foo=1", "unknown parameter 'foo'"},
      {"testsrc://640x360?noise=abc", "noise"},
      {"testsrc://640x360?noise=-1", "noise"},
      {"testsrc://640x360?frames=-5", "frames"},
      {"testsrc://640x360?frames=2.5", "frames"},
      {"testsrc://640x360?frames", "no value"},
      {"testsrc://640x360?frames=1&frames=2", "twice"},
      {"testsrc://640x360?loop=0", "loop must be a whole number from 1 to 600"},
      {"testsrc://640x360?loop=601", "loop must be"},
      {"testsrc://640x360?loop=2&loop=3", "twice"},
  };
  for (const auto& [uri, reason] : cases) {
    try {
      open_source(uri);
      ADD_FAILURE() << uri << " was accepted";
    } catch (const MediaError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(uri), std::string::npos) << message;
      EXPECT_NE(message.find(reason), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace fp
