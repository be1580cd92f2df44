// The committed reproducers of one fuzz target (tests/fuzz/regressions/<target>/), for the
// GoogleTests that replay them in the normal suite (tests/config, tests/media).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fp::fuzz {

inline std::filesystem::path regression_dir(const std::string& target) {
  return std::filesystem::path(FRAMEPIPE_SOURCE_DIR) / "tests" / "fuzz" / "regressions" / target;
}

// File names, sorted; none when the folder does not exist.
inline std::vector<std::string> regression_files(const std::string& target) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(regression_dir(target), ec))
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string read_regression(const std::string& target, const std::string& name) {
  std::ifstream in(regression_dir(target) / name, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A GoogleTest name for a file name (letters, digits and '_' only).
inline std::string regression_test_name(const ::testing::TestParamInfo<std::string>& file) {
  std::string name = file.param;
  std::replace_if(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) == 0; }, '_');
  return name;
}

}  // namespace fp::fuzz
