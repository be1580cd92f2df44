#include "media/decode_errors.hpp"

#include <fmt/format.h>

namespace fp {

std::string DecodeErrorPosition::where() const {
  std::string text = frame >= 0 ? fmt::format("frame {}", frame)
                     : packet >= 0 ? fmt::format("packet {}", packet)
                                   : std::string("an unknown position");
  if (has_time()) text += fmt::format(" ({:.3f} s)", seconds());
  return text;
}

void DecodeErrors::add_packet(DecodeErrorPosition position) {
  ++packets;
  keep(std::move(position));
}

void DecodeErrors::add_frame(DecodeErrorPosition position) {
  ++frames;
  keep(std::move(position));
}

void DecodeErrors::keep(DecodeErrorPosition position) {
  if (first.size() < kPositionsKept) first.push_back(position);
  last = std::move(position);
}

void DecodeErrors::merge(const DecodeErrors& other) {
  packets += other.packets;
  frames += other.frames;
  for (const auto& position : other.first)
    if (first.size() < kPositionsKept) first.push_back(position);
  if (other.total() > 0) last = other.last;
}

std::string DecodeErrors::summary() const {
  std::string text;
  if (packets > 0) text = fmt::format("{} damaged packet{}", packets, packets == 1 ? "" : "s");
  if (frames > 0) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} frame{} with concealed errors", frames, frames == 1 ? "" : "s");
  }
  return text;
}

}  // namespace fp
