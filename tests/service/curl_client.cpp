#include "tests/service/curl_client.hpp"

#include "tests/time_bound.hpp"
#include "tests/text_files.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fp::test {

namespace {

std::string quoted(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace

nlohmann::json HttpReply::json() const { return nlohmann::json::parse(body, nullptr, false); }

bool HttpReply::has_header(const std::string& name) const {
  std::string needle = "\n";
  needle += lower(name);
  needle += ':';
  return lower(headers).find(needle) != std::string::npos;
}

std::optional<std::string> HttpReply::header(const std::string& name) const {
  const std::string needle = "\n" + lower(name) + ':';
  const auto at = lower(headers).find(needle);
  if (at == std::string::npos) return std::nullopt;
  const auto begin = headers.find_first_not_of(" \t", at + needle.size());
  const auto end = headers.find_first_of("\r\n", begin);
  return headers.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

HttpReply curl_with_body(const std::string& method, const std::string& url, const std::string& body,
                         const std::vector<std::string>& args, double seconds) {
  static int counter = 0;
  const auto base = std::filesystem::temp_directory_path() /
                    ("framepipe-curl-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
  const auto body_file = base.string() + ".req";
  const auto headers_file = base.string() + ".hdr";
  const auto out_file = base.string() + ".out";
  std::string command = "curl -sS -o " + quoted(out_file) + " -D " + quoted(headers_file) +
                        " -w '%{http_code}' --max-time " + std::to_string(time_bound(seconds)) + " -X " + quoted(method);
  // A POST without a body goes as `curl -X POST URL` sends it: no Content-Length at all.
  if (!body.empty() || method == "PUT") {
    std::ofstream(body_file, std::ios::binary) << body;
    command += " -H 'Content-Type: application/json' --data-binary @";
    command += quoted(body_file);
  }
  for (const auto& a : args) {
    command += ' ';
    command += quoted(a);
  }
  command += ' ';
  command += quoted(url);
  command += " 2>&1";
  HttpReply reply;
  FILE* pipe = popen(command.c_str(), "r");
  std::string printed;
  std::array<char, 4096> buffer{};
  for (std::size_t n; pipe != nullptr && (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    printed.append(buffer.data(), n);
  if (pipe != nullptr) pclose(pipe);
  // The last three characters are the status (000 when there was none); before them, curl's errors.
  if (printed.size() >= 3) {
    reply.status = std::atoi(printed.substr(printed.size() - 3).c_str());
    reply.curl_error = printed.substr(0, printed.size() - 3);
  } else {
    reply.curl_error = printed;
  }
  reply.headers = "\n";  // so that every header line starts with one (has_header)
  reply.headers += read_text(headers_file);
  reply.body = read_text(out_file);
  for (const auto& f : {body_file, headers_file, out_file}) std::filesystem::remove(f);
  return reply;
}

HttpReply curl(const std::string& method, const std::string& url, const std::vector<std::string>& args, double seconds) {
  return curl_with_body(method, url, "", args, seconds);
}

}  // namespace fp::test
