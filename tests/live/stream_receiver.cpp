#include "tests/live/stream_receiver.hpp"


#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

namespace fp::test {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string run_and_read(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  std::string out;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe.get())) out.append(buffer.data(), n);
  return out;
}

// "0100007F:15B3" -> 5555: the local port of a /proc/net/udp line.
bool line_binds_port(const std::string& line, int port) {
  const auto colon = line.find(':', line.find(':') + 1);  // after "sl:", the address's colon
  if (colon == std::string::npos || colon + 5 > line.size()) return false;
  char* end = nullptr;
  const long value = std::strtol(line.substr(colon + 1, 4).c_str(), &end, 16);
  return value == port;
}

}  // namespace

std::string ffmpeg_programs_unavailable_reason() {
  static const std::string reason = [] {
    if (std::system("ffmpeg -hide_banner -version >/dev/null 2>&1") != 0 ||
        std::system("ffprobe -hide_banner -version >/dev/null 2>&1") != 0)
      return std::string("the ffmpeg and ffprobe programs are not on PATH (tools/setup.sh installs Debian's ffmpeg)");
    return std::string();
  }();
  return reason;
}

nlohmann::json ffprobe_video(const std::filesystem::path& media) {
  const std::string out = run_and_read(
      "ffprobe -v error -count_frames -select_streams v:0 "
      "-show_entries stream=codec_name,width,height,nb_read_frames -of json '" +
      media.string() + "' 2>/dev/null");
  const auto parsed = nlohmann::json::parse(out, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("streams") || parsed["streams"].empty()) return nullptr;
  return parsed["streams"][0];
}

long long ffprobe_frame_count(const std::filesystem::path& media) {
  const auto stream = ffprobe_video(media);
  if (stream.is_null() || !stream.contains("nb_read_frames")) return -1;
  return std::stoll(stream["nb_read_frames"].get<std::string>());
}

bool wait_for_udp_port(int port, double seconds) {
  const auto until = after(seconds);
  while (Clock::now() < until) {
    for (const char* table : {"/proc/net/udp", "/proc/net/udp6"}) {
      std::ifstream in(table);
      std::string line;
      std::getline(in, line);  // the header
      while (std::getline(in, line))
        if (line_binds_port(line, port)) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

bool wait_until_file_settles(const std::filesystem::path& file, int quiet_ms, double seconds) {
  const auto until = after(seconds);
  std::uintmax_t last_size = 0;
  auto last_change = Clock::now();
  bool seen = false;
  while (Clock::now() < until) {
    std::error_code error;
    const auto size = std::filesystem::file_size(file, error);
    if (!error) {
      if (!seen || size != last_size) {
        seen = true;
        last_size = size;
        last_change = Clock::now();
      } else if (Clock::now() - last_change >= std::chrono::milliseconds(quiet_ms)) {
        return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace fp::test
