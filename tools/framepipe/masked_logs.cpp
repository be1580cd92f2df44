#include "tools/framepipe/masked_logs.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

extern "C" {
#include <libavutil/log.h>
}

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "media/stream_uri.hpp"

namespace fp::cli {

namespace {

// The usual pattern formatter, its line then masked.
class MaskingFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    spdlog::memory_buf_t line;
    pattern_.format(msg, line);
    const std::string masked = mask_uris_in_text(std::string_view(line.data(), line.size()));
    dest.append(masked.data(), masked.data() + masked.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<MaskingFormatter>(); }

 private:
  spdlog::pattern_formatter pattern_{"framepipe: %v"};
};

// FFmpeg's default callback, with the line masked (its protocols name the URL they open).
// Streams log from their own threads: one line at a time, as FFmpeg's default callback does.
void masked_av_log(void* avcl, int level, const char* format, va_list args) {
  if (level > av_log_get_level()) return;
  static std::mutex mutex;
  static int print_prefix = 1;  // FFmpeg's own state for lines written in pieces
  const std::lock_guard<std::mutex> lock(mutex);
  char line[2048];
  av_log_format_line2(avcl, level, format, args, line, sizeof line, &print_prefix);
  std::fputs(mask_uris_in_text(line).c_str(), stderr);
}

}  // namespace

void install_masked_logs(bool verbose) {
  av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET);
  av_log_set_callback(masked_av_log);
  auto logger = spdlog::stderr_color_mt("framepipe");
  logger->set_formatter(std::make_unique<MaskingFormatter>());
  spdlog::set_default_logger(logger);
  spdlog::set_level(verbose ? spdlog::level::info : spdlog::level::warn);
}

}  // namespace fp::cli
