#include "service/bearer_token.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/small_file.hpp"

namespace fp::service {

std::string read_token_file(const std::filesystem::path& file) {
  const auto fail = [&](const std::string& reason) {
    return std::runtime_error("--token-file " + file.string() + ": " + reason);
  };
  std::string token;
  try {
    token = read_small_file(file, 64 * 1024);
  } catch (const SmallFileError& e) {
    throw fail(e.what());
  }
  // One token on one line: the line end (and stray blanks) are the editor's, not the token's.
  const auto last = token.find_last_not_of(" \t\r\n");
  token.erase(last == std::string::npos ? 0 : last + 1);
  token.erase(0, token.find_first_not_of(" \t\r\n"));
  if (token.empty()) throw fail("is empty (write the token on its first line)");
  if (token.find_first_of(" \t\r\n") != std::string::npos)
    throw fail("holds more than one word (a bearer token is one line without blanks)");
  const auto control = std::find_if(token.begin(), token.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
  if (control != token.end())
    throw fail(fmt::format("holds a control character (byte 0x{:02x} at offset {}): a bearer token is printable text",
                           static_cast<unsigned char>(*control), control - token.begin()));
  return token;
}

std::string token_file_access_warning(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "";
  const bool readable = (st.st_mode & S_IROTH) != 0;
  const bool writable = (st.st_mode & S_IWOTH) != 0;
  if (!readable && !writable) return "";
  const char* how = readable && writable ? "read or replaced" : readable ? "read" : "replaced";
  return fmt::format("--token-file {} can be {} by every user of this machine (mode {:04o}): make it private "
                     "with chmod 600 {}",
                     file.string(), how, st.st_mode & 07777, file.string());
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
