#include "tests/service/prometheus_server.hpp"

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "tests/service/promtool.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

// What Prometheus logs once it listens (its web listener, exporter-toolkit's
// `msg="Listening on" address=127.0.0.1:PORT`, since 2.3x; Debian bookworm has 2.42): the
// port the kernel gave it for :0. Its earlier "Start listening" line names the :0 asked for.
int reported_port(const std::string& log) {
  static const std::regex listening(R"(msg="Listening on" address=127\.0\.0\.1:([0-9]+))");
  std::smatch m;
  return std::regex_search(log, m, listening) ? std::stoi(m[1]) : 0;
}

}  // namespace

PrometheusServer::PrometheusServer(const std::filesystem::path& dir, const std::vector<std::string>& targets,
                                   double ready_seconds) {
  std::ofstream config(dir / "prometheus.yml");
  config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n  - job_name: framepipe\n    static_configs:\n      - targets: [";
  for (std::size_t i = 0; i < targets.size(); ++i) config << (i ? ", " : "") << "'" << targets[i] << "'";
  config << "]\n";
  config.close();
  process_ = std::make_unique<BackgroundRun>(
      dir, "prometheus",
      std::vector<std::string>{"--config.file=" + (dir / "prometheus.yml").string(),
                               "--storage.tsdb.path=" + (dir / "tsdb").string(),
                               "--web.listen-address=127.0.0.1:0"},
      "prometheus.log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(ready_seconds));
  while (std::chrono::steady_clock::now() < deadline && process_->alive()) {
    if (port_ == 0) port_ = reported_port(process_->output());
    if (port_ != 0 && curl_get("http://127.0.0.1:" + std::to_string(port_) + "/-/ready", 2).exit_code == 0) {
      ready_ = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

std::string PrometheusServer::query(const std::string& expr) const {
  const auto result = curl_post_form("http://127.0.0.1:" + std::to_string(port_) + "/api/v1/query", "query", expr, 5);
  return result.exit_code == 0 ? result.output : "";
}

std::set<std::string> PrometheusServer::streams_of(const std::string& expr) const {
  std::set<std::string> streams;
  const std::string response = query(expr);
  if (response.empty()) return streams;
  const auto json = nlohmann::json::parse(response, nullptr, false);
  if (json.is_discarded() || json.value("status", "") != "success") return streams;
  for (const auto& series : json["data"]["result"]) streams.insert(series["metric"].value("stream", ""));
  return streams;
}

std::set<std::string> PrometheusServer::wait_for_streams(const std::string& expr, std::size_t count, double seconds,
                                                         std::string* last) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(seconds));
  std::set<std::string> streams;
  for (;;) {
    streams = streams_of(expr);
    if (streams.size() >= count || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (last != nullptr) *last = query(expr);
  return streams;
}

}  // namespace fp::test
