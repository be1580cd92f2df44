// The Prometheus metrics of `framepipe serve` and `framepipe run --metrics`: one registry
// (prometheus-cpp) holding the HTTP request counter, and the streams' families built at each
// scrape from what the executors publish (StreamCollector), written in the text format.
// Served by whatever HTTP listener the command has: serve's own, or run's small one
// (metrics_server.hpp).
#pragma once

#include <memory>
#include <string>

#include "service/stream_metrics.hpp"

namespace prometheus {
class Registry;
class Counter;
template <typename T>
class Family;
}  // namespace prometheus

namespace fp::service {

class Metrics {
 public:
  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

  explicit Metrics(StreamMetricsSource source);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // framepipe_http_requests_total{route,code}: one answered request. `route` is the route's
  // pattern ("/v1/streams/{name}"), never the path asked for (a label per name or per
  // scanner's guess would grow without bound); unknown paths count under one route
  // ("unmatched", as HttpServer reports them).
  void count_request(const std::string& route, int status);

  // Every family, in the text exposition format (kContentType). Any thread.
  std::string scrape() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  std::shared_ptr<StreamCollector> streams_;
};

}  // namespace fp::service
