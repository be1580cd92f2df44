// A real Prometheus server (Debian's `prometheus`) for a test: its own config and storage
// in the test's folder, on a loopback port of its own, scraping the given targets every second.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/background_run.hpp"

namespace fp::test {

class PrometheusServer {
 public:
  // Starts it on 127.0.0.1:0, so that the port is its own from the start (no port picked
  // here and freed for it, which another process could take in between), reads the port it
  // says it listens on, and waits (up to `ready_seconds` in all) for /-/ready; check ready()
  // after, and log() for why not.
  PrometheusServer(const std::filesystem::path& dir, const std::vector<std::string>& targets,
                   double ready_seconds = 30);
  bool ready() const { return ready_; }
  std::string log() const { return process_->output(); }
  // GET /api/v1/query?query=EXPR: the response's JSON text ("" when it did not answer).
  std::string query(const std::string& expr) const;
  // The `stream` labels of the series that EXPR selects now (none when it did not answer).
  std::set<std::string> streams_of(const std::string& expr) const;
  // Asks EXPR every half second until it selects `count` streams or `seconds` have passed
  // (a scrape every second, and rate() needs two); its streams then. `last` gets the last answer.
  std::set<std::string> wait_for_streams(const std::string& expr, std::size_t count, double seconds,
                                         std::string* last = nullptr) const;

 private:
  int port_ = 0;
  bool ready_ = false;
  std::unique_ptr<BackgroundRun> process_;
};

}  // namespace fp::test
