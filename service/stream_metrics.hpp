// The streams' metric families, built at scrape time from what the stream manager (or, for
// `framepipe run --metrics`, the run's monitors) publishes: each stream's RunStats is the
// executor's own counters, so nothing is counted twice. A removed stream's series are simply
// not built any more (they disappear); the one sum that outlives its streams, the stage
// time, is kept monotonic by StageSecondsTotals.
//
// Labels are names the operator chose (stream names, stage ids and types, state names):
// never a URI, a path or an error's text, which may hold credentials or grow without bound.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/stream_list/list_sync.hpp"
#include "pipeline/streams/manager.hpp"
#include "service/stage_seconds.hpp"

namespace fp::service {

// framepipe_frame_latency_seconds' upper bounds: video's range, a frame interval at 120 fps
// (8 ms) to a stalled stream (10 s).
extern const std::vector<double> kLatencyBucketsSeconds;

struct StreamMetricsSource {
  std::string version;                                 // framepipe_build_info{version}
  std::function<std::vector<StreamStatus>()> streams;  // the streams now
  std::function<ManagerInfo()> manager;                // capacity and counts by state
  std::vector<int> gpus;                               // CUDA ordinals the streams run on
  // serve --stream-list: the list's and the shard's families; unset or nullopt: none.
  std::function<std::optional<StreamListStatus>()> stream_list;
};

// The streams' families of a stream manager, as serve's /metrics and run --metrics both
// serve them: its streams and info at each scrape, the GPUs among `devices`.
StreamMetricsSource manager_metrics_source(const StreamManager& manager, const std::vector<Device>& devices,
                                           std::string version);

class StreamCollector : public prometheus::Collectable {
 public:
  explicit StreamCollector(StreamMetricsSource source);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  StreamMetricsSource source_;
  mutable StageSecondsTotals stage_seconds_;
};

// 1 for a stream whose frames flow (running); 0 while it waits, starts, reconnects, drains,
// or after it finished or failed.
bool stream_up(StreamState state);

}  // namespace fp::service
