// State files (serve --state) written and read by tests that start serve on one: the saved
// form of a stream, a state file of such entries, and the names a state file holds.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace fp::test {

// One stream as serve saves it (pipeline/stream_spec/state_file.cpp, version 1).
inline nlohmann::json saved_stream(const std::string& name, const std::string& pipeline, const std::string& uri,
                                   const std::string& source = "api",
                                   const nlohmann::json& sets = nlohmann::json::object()) {
  return {{"name", name}, {"pipeline", pipeline}, {"uri", uri},          {"set", sets},
          {"decode", nlohmann::json::object()},   {"source", source},    {"finished", false}};
}

inline void write_state(const std::filesystem::path& file, const nlohmann::json& streams) {
  std::ofstream(file) << nlohmann::json{{"version", 1}, {"streams", streams}}.dump(2);
}

// The file parsed; a discarded value when it is not JSON.
inline nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, false);
}

// The names of the streams a state file holds, in its order.
inline std::vector<std::string> saved_names(const std::filesystem::path& file) {
  std::vector<std::string> names;
  const nlohmann::json state = read_json(file);
  if (!state.is_object()) return names;
  for (const auto& s : state.value("streams", nlohmann::json::array())) names.push_back(s.value("name", ""));
  return names;
}

}  // namespace fp::test
