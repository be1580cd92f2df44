// Small text-file helpers that many tests share (one copy, so that a test binary built as
// one unity file has no two definitions of them).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fp::test {

// The whole file, byte for byte ("" when it cannot be opened).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the file with `text`.
inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace fp::test
