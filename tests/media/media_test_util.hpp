// Helpers shared by the media tests: a scratch folder per test, whole-stream reads and
// picture comparisons.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/frame.hpp"
#include "media/frame_sink.hpp"
#include "media/frame_source.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace fp::test {

// A fresh folder under the build tree, named after the running test (and the process, so
// concurrent runs of one build never share it). Removed when the test passed; kept for a
// look when it failed.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name() + "." + std::to_string(::getpid());
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::path(FRAMEPIPE_BINARY_DIR) / "test-output" / "media" / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    if (!::testing::Test::HasFailure()) {
      std::error_code ignored;
      std::filesystem::remove_all(path_, ignored);
    }
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::vector<Frame> read_all(FrameSource& source, std::size_t limit = 100000) {
  std::vector<Frame> frames;
  while (frames.size() < limit) {
    auto frame = source.read();
    if (!frame) break;
    frames.push_back(std::move(*frame));
  }
  return frames;
}

inline std::vector<Frame> read_all(const std::string& uri) {
  auto source = open_source(uri);
  return read_all(*source);
}

// FNV-1a over the visible pixels of all three planes (not the row padding).
inline std::uint64_t checksum(const Frame& frame) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const Plane& plane : frame.planes) {
    const ConstImageU8 view = plane.cview();
    for (int y = 0; y < view.height; ++y)
      for (int x = 0; x < view.width; ++x) hash = (hash ^ view(x, y)) * 0x100000001b3ULL;
  }
  return hash;
}

inline bool same_pixels(const Frame& a, const Frame& b) {
  if (a.width != b.width || a.height != b.height) return false;
  for (int p = 0; p < 3; ++p) {
    const ConstImageU8 va = a.planes[p].cview();
    const ConstImageU8 vb = b.planes[p].cview();
    if (va.width != vb.width || va.height != vb.height) return false;
    for (int y = 0; y < va.height; ++y)
      if (!std::equal(va.row(y), va.row(y) + va.width, vb.row(y))) return false;
  }
  return true;
}

// Peak signal-to-noise ratio of one plane, in dB (infinity when identical).
inline double psnr(const Plane& a, const Plane& b) {
  const ConstImageU8 va = a.cview();
  const ConstImageU8 vb = b.cview();
  double sse = 0;
  for (int y = 0; y < va.height; ++y)
    for (int x = 0; x < va.width; ++x) {
      const double d = static_cast<double>(va(x, y)) - vb(x, y);
      sse += d * d;
    }
  if (sse == 0) return std::numeric_limits<double>::infinity();
  const double mse = sse / (static_cast<double>(va.width) * va.height);
  return 10 * std::log10(255.0 * 255.0 / mse);
}

// Reads every frame of `uri` and writes it to `options.path`; returns the frames written.
// A written file's packets as its demuxer reads them (an .m3u8: every segment's, in order).
struct PacketInfo {
  std::int64_t pts;
  bool key;
  int size;
};

inline std::vector<PacketInfo> video_packets(const std::string& path) {
  AVFormatContext* format = nullptr;
  EXPECT_EQ(avformat_open_input(&format, path.c_str(), nullptr, nullptr), 0) << path;
  std::vector<PacketInfo> packets;
  if (format == nullptr) return packets;
  AVPacket* packet = av_packet_alloc();
  while (av_read_frame(format, packet) >= 0) {
    packets.push_back({packet->pts, (packet->flags & AV_PKT_FLAG_KEY) != 0, packet->size});
    av_packet_unref(packet);
  }
  av_packet_free(&packet);
  avformat_close_input(&format);
  return packets;
}

inline std::vector<Frame> transcode(const std::string& uri, const SinkOptions& options) {
  auto source = open_source(uri);
  std::vector<Frame> frames = read_all(*source);
  auto sink = open_sink(options, source->info());
  for (const Frame& frame : frames) sink->write(frame);
  sink->close();
  EXPECT_EQ(sink->frames_written(), static_cast<std::int64_t>(frames.size()));
  return frames;
}

inline void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace fp::test
