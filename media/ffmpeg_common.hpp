// Small helpers shared by the FFmpeg-based sources, sinks and probe (private to media/).
#pragma once

#include <string>

#include "core/frame.hpp"
#include "media/ffmpeg_raii.hpp"

namespace fp::ff {

// Registers devices and network protocols and quiets FFmpeg's console logging, once per
// process. Our errors travel as MediaError; FFmpeg's own log lines would only repeat them.
void global_init();

// "<name>: <what>" as a MediaError.
[[noreturn]] void fail(const std::string& name, const std::string& what);
// "<name>: <what>: <FFmpeg's text for errnum>" as a MediaError.
[[noreturn]] void fail(const std::string& name, const std::string& what, int errnum);

inline Rational to_rational(AVRational r) { return {r.num, r.den}; }
inline AVRational to_av(Rational r) { return {r.num, r.den}; }
inline bool positive(Rational r) { return r.num > 0 && r.den > 0; }

// "30", "29.97", "23.976": frames per second for people.
std::string format_fps(Rational fps);

// After an open call (avcodec_open2, avformat_write_header) took its options: the ones it
// left in `options`, which it did not know. framepipe sets every option itself and sets
// only options the encoder or muxer takes, so a leftover would be a setting silently
// ignored: the open fails instead, "<name>: <what> did not take the option(s) KEY=VALUE".
// Sets an option of an input's demuxer or an output's encoder or muxer; a failure is
// "<name>: cannot set option <key>: <FFmpeg's text>" as a MediaError.
void set_option(const std::string& name, DictionaryPtr& options, const char* key, const char* value);

void require_all_taken(const std::string& name, const std::string& what, const DictionaryPtr& options);

}  // namespace fp::ff
