#include "pipeline/definition/stream_names.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fp {

bool is_valid_stream_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxStreamNameLength || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
  });
}

std::string file_stream_name(const std::string& uri) {
  // file:///cams/a.mp4 is the path /cams/a.mp4. Anything else with a ':' is some scheme
  // (rtsp://, testsrc://, pipe:0) rather than a file name.
  constexpr std::string_view kFileScheme = "file://";
  std::string path = uri;
  if (path.rfind(kFileScheme, 0) == 0)
    path.erase(0, kFileScheme.size());
  else if (path.find(':') != std::string::npos)
    return "";
  // A stem that is no valid name is no error of the list's: the line is named by its index,
  // as a URI is (a name can be given on the line).
  std::string stem = std::filesystem::path(path).stem().string();
  return is_valid_stream_name(stem) ? stem : "";
}

std::string with_stream_name(std::string path, const std::string& name) {
  constexpr std::string_view kPlaceholder = "{stream}";
  for (auto at = path.find(kPlaceholder); at != std::string::npos; at = path.find(kPlaceholder, at + name.size()))
    path.replace(at, kPlaceholder.size(), name);
  return path;
}

}  // namespace fp
