#include "tests/service/metrics_scrape.hpp"

#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/time_bound.hpp"

namespace fp::test {

int printed_metrics_port(BackgroundRun& process, double seconds) {
  static const std::regex line(R"(framepipe: metrics on http://[^ ]*:([0-9]+)/metrics)");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(seconds));
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch match;
    const std::string output = process.output();
    if (std::regex_search(output, match, line)) return std::stoi(match[1]);
    if (!process.alive()) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

std::optional<double> sample_value(const std::string& exposition, const std::string& series) {
  std::istringstream lines(exposition);
  for (std::string l; std::getline(lines, l);)
    if (l.size() > series.size() && l.compare(0, series.size(), series) == 0 && l[series.size()] == ' ')
      return std::stod(l.substr(series.size() + 1));
  return std::nullopt;
}

}  // namespace fp::test
