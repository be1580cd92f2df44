// run_pipeline on its own thread with a RunMonitor, as the stream manager runs it, for tests
// that watch a run from outside. The destructor stops the run and joins it.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {

inline std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

class BackgroundPipeline {
 public:
  // `options` as given, with the monitor and a stop flag of this object's.
  BackgroundPipeline(RunOptions options, const std::string& yaml, RunMonitor& monitor, Device device = {})
      : definition_(parse_pipeline(yaml, "monitor-test.yaml")), options_(std::move(options)), device_(device) {
    options_.monitor = &monitor;
    options_.stop = &stop_;
    thread_ = std::thread([this] {
      try {
        stats_ = run_pipeline(definition_, device_, options_);
      } catch (...) {
        error_ = std::current_exception();
      }
      done_ = true;
    });
  }
  ~BackgroundPipeline() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  BackgroundPipeline(const BackgroundPipeline&) = delete;
  BackgroundPipeline& operator=(const BackgroundPipeline&) = delete;

  bool done() const { return done_; }
  void stop() { stop_ = true; }
  // The run's stats once it ended (rethrows its error). A run still going after `bound`
  // seconds (scaled) fails the test and is stopped.
  RunStats finish(double bound) {
    const auto until = std::chrono::steady_clock::now() + seconds(time_bound(bound));
    while (!done_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!done_) {
      ADD_FAILURE() << "the run did not end within " << time_bound(bound) << " s";
      stop_ = true;
    }
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return stats_;
  }

 private:
  PipelineDefinition definition_;
  RunOptions options_;
  Device device_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  RunStats stats_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace fp::test
