// The other end of framepipe's network outputs in tests: FFmpeg's own programs, as a user
// would receive and check a stream (ffmpeg listening on UDP or SRT and writing what comes
// to a file, ffprobe counting its frames).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace fp::test {

// "" when the ffmpeg and ffprobe programs are on PATH, else why not. Asked once.
std::string ffmpeg_programs_unavailable_reason();

// Skips the test when they are missing (tools/setup.sh installs them).
#define FP_REQUIRE_FFMPEG_PROGRAMS()                                                              \
  do {                                                                                            \
    if (const auto reason = ::fp::test::ffmpeg_programs_unavailable_reason(); !reason.empty()) \
      GTEST_SKIP() << reason;                                                                     \
  } while (0)

// The first video stream of a file or playlist as ffprobe sees it, every frame decoded:
// {"codec_name", "width", "height", "nb_read_frames" (a string)}; null when ffprobe fails.
nlohmann::json ffprobe_video(const std::filesystem::path& media);
long long ffprobe_frame_count(const std::filesystem::path& media);  // -1 when unreadable

// Waits until some socket is bound to the UDP port (a receiver is ready), at most `seconds`.
bool wait_for_udp_port(int port, double seconds);

// Waits until the file exists and has stopped growing for `quiet_ms`, at most `seconds`.
bool wait_until_file_settles(const std::filesystem::path& file, int quiet_ms, double seconds);

}  // namespace fp::test
