#include "service/run_metrics.hpp"

#include <map>

namespace fp::service {

struct RunMetrics::Stream {
  std::string name;
  RunMonitor monitor;
  std::atomic<StreamState> state{StreamState::Waiting};
};

namespace {
StreamMetricsSource source_for(const RunMetrics& run, const RunMetricsOptions& options,
                               const std::atomic<std::size_t>& capacity) {
  StreamMetricsSource source;
  source.version = options.version;
  source.gpus = options.gpus;
  source.streams = [&run] { return run.streams(); };
  source.manager = [&run, &capacity] {
    ManagerInfo info;
    info.capacity = capacity.load();
    for (const auto& s : run.streams()) ++info.streams_by_state[stream_state_name(s.state)];
    info.ready = true;
    return info;
  };
  return source;
}
}  // namespace

RunMetrics::RunMetrics(RunMetricsOptions options)
    : streams_([&] {
        std::vector<std::unique_ptr<Stream>> streams;
        for (const auto& name : options.streams) {
          streams.push_back(std::make_unique<Stream>());
          streams.back()->name = name;
        }
        return streams;
      }()),
      capacity_(options.capacity),
      metrics_(source_for(*this, options, capacity_)),
      server_(options.listen, metrics_) {}

RunMetrics::~RunMetrics() = default;

int RunMetrics::port() const { return server_.port(); }

RunMonitor* RunMetrics::monitor(std::size_t index) { return &streams_.at(index)->monitor; }

void RunMetrics::started(std::size_t index) { streams_.at(index)->state = StreamState::Starting; }

void RunMetrics::ended(std::size_t index, bool failed) {
  streams_.at(index)->state = failed ? StreamState::Failed : StreamState::Finished;
}

std::vector<StreamStatus> RunMetrics::streams() const {
  std::vector<StreamStatus> list;
  for (const auto& s : streams_) {
    StreamStatus status;
    status.name = s->name;
    status.state = s->state;
    if (status.state != StreamState::Waiting) status.stats = s->monitor.snapshot();
    if (status.state == StreamState::Starting) status.state = live_stream_state(status.stats, s->monitor.reconnecting());
    status.frames = status.stats.frames;
    status.dropped = status.stats.frames_dropped;
    status.reconnects = input_reconnects(status.stats);
    list.push_back(std::move(status));
  }
  return list;
}

}  // namespace fp::service
