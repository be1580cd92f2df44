#include "pipeline/engine/progress.hpp"

#include <fmt/format.h>

namespace fp {

namespace {
constexpr auto kRedrawInterval = std::chrono::milliseconds(250);

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}
}  // namespace

ProgressLine::ProgressLine(bool enabled, std::int64_t total_frames, std::FILE* out)
    : enabled_(enabled), total_(total_frames), out_(out), start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(std::int64_t frames, std::int64_t dropped, double latency_ms) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double fps = elapsed > 0 ? static_cast<double>(frames) / elapsed : 0.0;
  std::string line = total_ > 0 ? fmt::format("frame {}/{}", frames, total_) : fmt::format("frame {}", frames);
  line += fmt::format("  {:.1f} fps  elapsed {}", fps, clock_text(elapsed));
  if (total_ > 0 && fps > 0 && frames <= total_) line += "  ETA " + clock_text(static_cast<double>(total_ - frames) / fps);
  if (latency_ms >= 0) line += fmt::format("  latency {:.0f} ms", latency_ms);
  if (dropped > 0) line += fmt::format("  dropped {}", dropped);
  // stdio, not fmt::print: a progress line must never throw (e.g. when stderr is closed).
  std::fputs(fmt::format("\r{:<72}", line).c_str(), out_);
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (!enabled_ || !drawn_) return;
  std::fputs(fmt::format("\r{:<72}\r", "").c_str(), out_);
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace fp
