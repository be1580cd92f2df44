#include "service/bearer_token.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fp::service {

std::string read_token_file(const std::filesystem::path& file) {
  const auto fail = [&](const std::string& reason) {
    return std::runtime_error("--token-file " + file.string() + ": " + reason);
  };
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw fail("no such file");
  if (std::filesystem::is_directory(file, ec)) throw fail("is a directory, not a file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw fail(std::string("cannot read: ") + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  // One token on one line: the line end (and stray blanks) are the editor's, not the token's.
  const auto last = token.find_last_not_of(" \t\r\n");
  token.erase(last == std::string::npos ? 0 : last + 1);
  token.erase(0, token.find_first_not_of(" \t\r\n"));
  if (token.empty()) throw fail("is empty (write the token on its first line)");
  if (token.find_first_of(" \t\r\n") != std::string::npos)
    throw fail("holds more than one word (a bearer token is one line without blanks)");
  return token;
}

bool bearer_token_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view scheme = "Bearer ";
  if (authorization.size() < scheme.size() || token.empty()) return false;
  // The scheme is case-insensitive (RFC 9110); the token is not, and is compared in full.
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != std::tolower(static_cast<unsigned char>(scheme[i])))
      return false;
  const std::string_view given = authorization.substr(scheme.size());
  // Every byte of the expected token is looked at whatever the given one holds: the time
  // depends only on the token's length.
  unsigned char difference = given.size() == token.size() ? 0 : 1;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    difference |= static_cast<unsigned char>(g ^ static_cast<unsigned char>(token[i]));
  }
  return difference == 0;
}

}  // namespace fp::service
