#include "service/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <utility>

namespace fp::service {

Metrics::Metrics(StreamMetricsSource source)
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(&prometheus::BuildCounter()
                     .Name("framepipe_http_requests_total")
                     .Help("HTTP requests answered, by route pattern and status code.")
                     .Register(*registry_)),
      streams_(std::make_shared<StreamCollector>(std::move(source))) {}

Metrics::~Metrics() = default;

void Metrics::count_request(const std::string& route, int status) {
  requests_->Add({{"route", route}, {"code", std::to_string(status)}}).Increment();
}

std::string Metrics::scrape() const {
  auto families = streams_->Collect();
  for (auto& f : registry_->Collect()) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace fp::service
