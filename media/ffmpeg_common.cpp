#include "media/ffmpeg_common.hpp"

#include <fmt/format.h>

#include <mutex>

#include "media/media_error.hpp"

extern "C" {
#include <libavdevice/avdevice.h>
#include <libavutil/dict.h>
#include <libavutil/log.h>
}

namespace fp::ff {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    avdevice_register_all();
    // Returns 0 or an error; without network support rtsp/http fail later with a clear
    // "cannot open" from avformat_open_input, so a failure here needs no separate report.
    if (avformat_network_init() < 0) av_log(nullptr, AV_LOG_WARNING, "avformat_network_init failed\n");
    // Only lower FFmpeg's default verbosity: a program that chose a level keeps it.
    if (av_log_get_level() == AV_LOG_INFO) av_log_set_level(AV_LOG_ERROR);
  });
}

void fail(const std::string& name, const std::string& what) { throw MediaError(name + ": " + what); }

void fail(const std::string& name, const std::string& what, int errnum) {
  throw MediaError(name + ": " + what + ": " + av_error_text(errnum), errnum);
}

void set_option(const std::string& name, DictionaryPtr& options, const char* key, const char* value) {
  if (const int ret = dict_set(options, key, value); ret < 0) fail(name, std::string("cannot set option ") + key, ret);
}

void require_all_taken(const std::string& name, const std::string& what, const DictionaryPtr& options) {
  std::string left;
  const AVDictionaryEntry* entry = nullptr;
  while ((entry = av_dict_get(options.get(), "", entry, AV_DICT_IGNORE_SUFFIX)) != nullptr)
    left += fmt::format("{}{}={}", left.empty() ? "" : ", ", entry->key, entry->value);
  if (!left.empty())
    fail(name, fmt::format("{} did not take the option{} {}", what, av_dict_count(options.get()) == 1 ? "" : "s", left));
}

std::string format_fps(Rational fps) {
  if (fps.den == 0) return "0";
  if (fps.den == 1 || fps.num % fps.den == 0) return std::to_string(fps.num / fps.den);
  std::string text = fmt::format("{:.3f}", fps.value());
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace fp::ff
