#include "tests/service/promtool.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

namespace fp::test {

namespace {
std::string single_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}
}  // namespace

ProgramResult run_shell(const std::string& command, int seconds) {
  ProgramResult result;
  const std::string bounded =
      "timeout -k 5 " + std::to_string(seconds) + " sh -c " + single_quoted(command) + " 2>&1";
  FILE* pipe = popen(bounded.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

ProgramResult curl_get(const std::string& url, int seconds) {
  return run_shell("curl -sS --fail-with-body --max-time " + std::to_string(seconds) + " " + single_quoted(url), seconds + 5);
}

ProgramResult curl_post_form(const std::string& url, const std::string& name, const std::string& value,
                             int seconds) {
  return run_shell("curl -sS --fail-with-body --max-time " + std::to_string(seconds) + " " + single_quoted(url) +
                       " --data-urlencode " + single_quoted(name + "=" + value),
                   seconds + 5);
}

ProgramResult promtool_check_metrics(const std::string& exposition, const std::filesystem::path& dir) {
  const auto file = dir / "scrape.txt";
  std::ofstream(file) << exposition;
  return run_shell("promtool check metrics < " + file.string(), 30);
}

}  // namespace fp::test
