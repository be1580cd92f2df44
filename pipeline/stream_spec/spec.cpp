#include "pipeline/stream_spec/spec.hpp"

#include <fmt/format.h>

#include <cctype>

#include "pipeline/definition/stream_names.hpp"

namespace fp {

const char* stream_source_name(StreamSource source) {
  switch (source) {
    case StreamSource::List:
      return "list";
    case StreamSource::Command:
      return "run";
    case StreamSource::Api:
      break;
  }
  return "api";
}

std::string printable_name(std::string_view name) {
  std::string out;
  for (const char c : name.substr(0, kMaxStreamNameLength + 1))
    out.push_back(std::isprint(static_cast<unsigned char>(c)) ? c : '?');
  return name.size() > kMaxStreamNameLength + 1 ? out + "..." : out;
}

void check_stream_name(std::string_view name) {
  if (!is_valid_stream_name(name))
    throw StreamRejected(400, fmt::format("stream name '{}': must be {}", printable_name(name), kStreamNameRule));
}

}  // namespace fp
