#include "cpu/host_frame_slots.hpp"

#include <chrono>
#include <vector>

namespace fp::cpu {

namespace {

// The CPU runs each stage to completion inside its call: one slot, nothing to wait for.
class HostFrameSlots final : public FrameSlots {
 public:
  explicit HostFrameSlots(int nodes) : started_(static_cast<std::size_t>(nodes)), ms_(static_cast<std::size_t>(nodes)) {}

  int count() const override { return 1; }
  FrameContext& context(int) override { return context_; }
  Frame to_device(const Frame& frame, int, bool) override { return frame; }
  Frame to_host(const Frame& frame, int) override { return frame; }
  Plane plane_to_host(const Frame& frame, int plane, int) override { return frame.planes[plane]; }
  std::int64_t bytes_uploaded() const override { return 0; }
  std::int64_t bytes_downloaded() const override { return 0; }
  void begin_stage(int, int node) override { started_[node] = Clock::now(); }
  void end_stage(int, int node) override {
    ms_[node] += std::chrono::duration<double, std::milli>(Clock::now() - started_[node]).count();
  }
  void submit(int) override {}
  void wait(int, std::vector<double>& stage_ms) override {
    for (std::size_t i = 0; i < ms_.size(); ++i) {
      stage_ms[i] += ms_[i];
      ms_[i] = 0;
    }
  }
  void wait_idle() noexcept override {}

 private:
  using Clock = std::chrono::steady_clock;
  FrameContext context_;
  std::vector<Clock::time_point> started_;
  std::vector<double> ms_;
};

}  // namespace

std::unique_ptr<FrameSlots> make_host_frame_slots(int nodes) { return std::make_unique<HostFrameSlots>(nodes); }

}  // namespace fp::cpu
