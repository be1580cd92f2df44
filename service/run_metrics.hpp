// `framepipe run --metrics ADDR`: the streams of a batch run, watched through the RunMonitor
// each stream's executor publishes to, served as the same /metrics as `framepipe serve`'s
// (the families come from the same StreamCollector; a batch run has no stream manager, so
// this class keeps each stream's state: waiting for its place, starting, running, ended).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/engine/run_monitor.hpp"
#include "service/metrics.hpp"
#include "service/metrics_server.hpp"

namespace fp::service {

struct RunMetricsOptions {
  ListenAddress listen;
  std::vector<std::string> streams;  // the run's streams' names, in order
  std::size_t capacity = 1;          // streams at once (--jobs)
  std::vector<int> gpus;             // CUDA ordinals the streams run on
  std::string version;
};

class RunMetrics {
 public:
  // Listens before returning (throws std::runtime_error as MetricsServer does).
  explicit RunMetrics(RunMetricsOptions options);
  ~RunMetrics();
  RunMetrics(const RunMetrics&) = delete;
  RunMetrics& operator=(const RunMetrics&) = delete;

  int port() const;
  // framepipe_stream_capacity: the run's --jobs, once resolved.
  void set_capacity(std::size_t capacity) { capacity_ = capacity; }
  // Stream `index`'s monitor, to give to its run (RunOptions::monitor).
  RunMonitor* monitor(std::size_t index);
  // The stream got its place and its run begins (any thread).
  void started(std::size_t index);
  // Its run returned (finished, or stopped by a signal) or threw (failed).
  void ended(std::size_t index, bool failed);

  std::vector<StreamStatus> streams() const;  // what a scrape reads

 private:
  struct Stream;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::atomic<std::size_t> capacity_;
  Metrics metrics_;
  MetricsServer server_;  // last: stops answering before the rest goes
};

}  // namespace fp::service
