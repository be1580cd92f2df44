// The null sink: takes frames and drops them, counting. For benchmarks and dry runs.
#include "media/sinks.hpp"

namespace fp {

namespace {

class NullSink final : public FrameSink {
 public:
  void write(const Frame&) override { ++frames_; }
  void close() override {}
  std::string encoder_name() const override { return "null"; }
  std::int64_t frames_written() const override { return frames_; }

 private:
  std::int64_t frames_ = 0;
};

}  // namespace

std::unique_ptr<FrameSink> open_null_sink() { return std::make_unique<NullSink>(); }

}  // namespace fp
