#include "tools/framepipe/bench/ncu_csv.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>

namespace fp::bench {

namespace {

constexpr const char* kSmMetric = "sm__throughput.avg.pct_of_peak_sustained_elapsed";  // "Compute (SM) Throughput"
// "Memory Throughput" of ncu's Speed Of Light section: the busiest of DRAM, L1/TEX and L2.
constexpr const char* kMemoryMetric = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDramMetric = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kL1Metric = "l1tex__throughput.avg.pct_of_peak_sustained_active";
constexpr const char* kL2Metric = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
// The XU pipe (MUFU: exp2, rcp, rsqrt, sin, ...), as Compute Workload Analysis reports it.
constexpr const char* kSfuMetric = "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active";
constexpr const char* kDurationMetric = "gpu__time_duration.sum";

// "1,261,854.77" -> 1261854.77; "n/a", "" or anything else -> nullopt.
std::optional<double> number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> metric(const NcuKernel& k, const char* name) {
  const auto it = k.metrics.find(name);
  if (it == k.metrics.end()) return std::nullopt;
  return it->second;
}

double to_microseconds(double value, const std::string& unit) {
  if (unit == "nsecond" || unit == "ns") return value * 1e-3;
  if (unit == "msecond" || unit == "ms") return value * 1e3;
  if (unit == "second" || unit == "s") return value * 1e6;
  return value;  // usecond, us
}

int column(const std::vector<std::string>& header, std::string_view name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

bool is_header(const std::vector<std::string>& row) { return column(row, "ID") == 0 && column(row, "Kernel Name") > 0; }

}  // namespace

std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;       // inside a quoted field
  bool at_line_start = true;
  bool any = false;          // the record has content
  std::size_t i = 0;
  auto end_record = [&] {
    if (any) {
      record.push_back(std::move(field));
      records.push_back(std::move(record));
    }
    record.clear();
    field.clear();
    any = false;
    at_line_start = true;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      ++i;
      continue;
    }
    if (at_line_start && text.substr(i, 2) == "==") {  // ncu's own message line
      const auto eol = text.find('\n', i);
      i = eol == std::string_view::npos ? text.size() : eol + 1;
      continue;
    }
    at_line_start = false;
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n') {
      end_record();
    } else if (c != '\r') {
      field += c;
      any = true;
    }
    ++i;
  }
  end_record();
  return records;
}

std::vector<NcuKernel> parse_ncu_csv(std::string_view text) {
  const auto records = parse_csv(text);
  const auto header_at = std::find_if(records.begin(), records.end(), is_header);
  if (header_at == records.end()) throw std::runtime_error("no ncu CSV header (\"ID\",...,\"Kernel Name\",...) in its output");
  const auto& header = *header_at;
  const int id_col = 0;
  const int name_col = column(header, "Kernel Name");
  const int metric_col = column(header, "Metric Name");
  const int unit_col = column(header, "Metric Unit");
  const int value_col = column(header, "Metric Value");
  const bool details = metric_col >= 0 && value_col >= 0;

  std::vector<NcuKernel> kernels;
  auto kernel_for = [&](const std::vector<std::string>& row) -> NcuKernel& {
    if (kernels.empty() || kernels.back().id != row[id_col]) {
      // The details page lists a kernel's metrics on consecutive rows; a new ID is a new launch.
      kernels.push_back({row[id_col], row[name_col], {}, {}});
    }
    return kernels.back();
  };

  std::vector<std::string> units;  // raw page: the row under the header
  for (auto it = header_at + 1; it != records.end(); ++it) {
    const auto& row = *it;
    if (row.size() != header.size()) continue;  // the program's own output, or a truncated line
    if (is_header(row)) continue;               // a second report appended to the same log
    if (row[id_col].empty()) {                  // the raw page's units row
      units = row;
      continue;
    }
    NcuKernel& k = kernel_for(row);
    if (details) {
      const std::string unit = unit_col >= 0 ? row[unit_col] : "";
      if (auto value = number(row[value_col])) {
        k.metrics[row[metric_col]] = *value;
        k.units[row[metric_col]] = unit;
      }
    } else {
      for (std::size_t c = 0; c < header.size(); ++c) {
        if (static_cast<int>(c) <= name_col) continue;
        if (auto value = number(row[c])) {
          k.metrics[header[c]] = *value;
          k.units[header[c]] = c < units.size() ? units[c] : "";
        }
      }
    }
  }
  return kernels;
}

const std::vector<std::string>& ncu_bound_metrics() {
  static const std::vector<std::string> metrics = {kSmMetric, kMemoryMetric, kDramMetric, kL1Metric,
                                                   kL2Metric, kSfuMetric,    kDurationMetric};
  return metrics;
}

std::string short_kernel_name(std::string_view name) {
  std::string s(name);
  // Namespaces ncu writes in several spellings, the anonymous one included.
  for (const std::string_view anonymous : {"(anonymous namespace)::", "unnamed>::", "<unnamed>::"}) {
    for (auto at = s.find(anonymous); at != std::string::npos; at = s.find(anonymous))
      s.erase(at, anonymous.size());
  }
  // The parameter list: the last "(...)" at template depth 0 that closes the string.
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s.erase(i);
        break;
      }
    }
  }
  // The qualified name: what follows the last "::" and the last space (the return type),
  // both outside template arguments.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (depth == 0 && s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') start = i + 2;
    if (depth == 0 && s[i] == ' ') start = i + 1;
  }
  s = s.substr(start);
  return s.empty() ? std::string(name) : s;
}

KernelBounds bounds_from_ncu(const NcuKernel& kernel) {
  KernelBounds k;
  k.kernel = short_kernel_name(kernel.name);
  k.sm_pct = metric(kernel, kSmMetric);
  k.dram_pct = metric(kernel, kDramMetric);
  k.l1_pct = metric(kernel, kL1Metric);
  k.l2_pct = metric(kernel, kL2Metric);
  k.memory_pct = metric(kernel, kMemoryMetric);
  if (!k.memory_pct) {  // as ncu defines it, where the combined metric is missing
    for (const auto& part : {k.dram_pct, k.l1_pct, k.l2_pct})
      if (part && (!k.memory_pct || *part > *k.memory_pct)) k.memory_pct = part;
  }
  k.sfu_pct = metric(kernel, kSfuMetric);
  if (auto duration = metric(kernel, kDurationMetric)) {
    const auto unit = kernel.units.find(kDurationMetric);
    k.duration_us = to_microseconds(*duration, unit == kernel.units.end() ? "" : unit->second);
  }
  return k;
}

std::vector<std::vector<KernelBounds>> split_cases(const std::vector<NcuKernel>& kernels, std::string_view marker) {
  std::vector<std::vector<KernelBounds>> cases;
  for (const auto& kernel : kernels) {
    if (short_kernel_name(kernel.name) == marker) {
      cases.emplace_back();
    } else if (!cases.empty()) {
      cases.back().push_back(bounds_from_ncu(kernel));
    }
  }
  return cases;
}

}  // namespace fp::bench
