// framepipe_stage_seconds_total{stage}: the busy time of each stage type, summed over the
// streams. A Prometheus counter must never go down (a drop reads as a counter reset, and
// rate() would count the whole total again), but a stream's time leaves the sum when the
// stream is removed or restarted. So the time each stream was last seen with is kept, and
// when a stream goes (or its time goes down: it was restarted) that last-seen time moves
// into a per-type total of the streams that are gone. What a stream did between the last
// scrape and its removal is not seen: the counter undercounts by at most one scrape
// interval of that stream, and never decreases.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/streams/manager.hpp"

namespace fp::service {

class StageSecondsTotals {
 public:
  // The current streams' stats in, the per-type totals (seconds) out; call once per scrape.
  std::map<std::string, double> update(const std::vector<StreamStatus>& streams);

 private:
  using ByType = std::map<std::string, double>;
  std::mutex mutex_;
  ByType gone_;                         // stage type -> seconds of streams no longer counted
  std::map<std::string, ByType> seen_;  // stream -> stage type -> seconds when last seen
};

}  // namespace fp::service
