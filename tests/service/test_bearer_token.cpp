// The token file of `framepipe serve --token-file`: what is refused (exit 2 at start) and
// what is only warned about, as ssh warns of a private key others can read; and the token as
// a real serve checks it (the scheme's case is free, the token's is not).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "service/bearer_token.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"

namespace fp::service {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

fs::path write_file(const fs::path& file, const std::string& bytes, fs::perms mode) {
  std::ofstream(file, std::ios::binary) << bytes;
  fs::permissions(file, mode);
  return file;
}

std::string refusal(const fs::path& file) {
  try {
    read_token_file(file);
    return "";
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

// A NUL byte (or any control character) is no part of a token a client can send in a header:
// a file holding one is a mistake (a binary file, a truncated write), refused naming the file
// and never echoing the token.
TEST(TokenFile, ControlCharactersAreRefused) {
  TempDir dir("token-control");
  for (const std::string& bytes : {std::string("abc\0def\n", 8), std::string("abc\x01" "def"), std::string("abc\x7f")}) {
    const fs::path file = write_file(dir / "token", bytes, fs::perms(0600));
    const std::string message = refusal(file);
    EXPECT_NE(message.find(file.string()), std::string::npos) << "accepted or unnamed: '" << message << "'";
    EXPECT_NE(message.find("control character"), std::string::npos) << message;
    EXPECT_EQ(message.find("def"), std::string::npos) << message;
  }
  EXPECT_EQ(refusal(write_file(dir / "token", "abc-def_0123\n", fs::perms(0600))), "");
  EXPECT_EQ(read_token_file(dir / "token"), "abc-def_0123");
}

// Readable (or writable) by every user: a warning naming the file and the fix. A group's
// access is taken as meant (Kubernetes mounts a Secret 0440 for the pod's fsGroup).
TEST(TokenFile, OthersAccessIsWarnedOfWithTheFix) {
  TempDir dir("token-mode");
  const fs::path file = write_file(dir / "token", "s3cr3t-t0k3n\n", fs::perms(0644));
  const std::string warning = token_file_access_warning(file);
  EXPECT_NE(warning.find(file.string()), std::string::npos) << warning;
  EXPECT_NE(warning.find("chmod 600"), std::string::npos) << warning;
  EXPECT_NE(warning.find("0644"), std::string::npos) << warning;
  EXPECT_EQ(warning.find("s3cr3t"), std::string::npos) << warning;
  fs::permissions(file, fs::perms(0602));
  EXPECT_NE(token_file_access_warning(file), "");
  fs::permissions(file, fs::perms(0600));
  EXPECT_EQ(token_file_access_warning(file), "");
  fs::permissions(file, fs::perms(0440));
  EXPECT_EQ(token_file_access_warning(file), "");
  fs::permissions(file, fs::perms(0400));
  EXPECT_EQ(token_file_access_warning(file), "");
}

// "Bearer" is a scheme name, case-insensitive (RFC 9110 11.1): clients and proxies that send
// `bearer` or `BEARER` are let in with the right token. The token is compared exactly: a
// wrong one, or the right one in other letters' case, is still 401.
TEST(TokenFile, TheSchemeIsCaseInsensitiveAndTheTokenIsNot) {
  TempDir dir("token-scheme");
  const std::string token = "Tok-9fQ2-mixedCase";
  const fs::path file = write_file(dir / "token", token + "\n", fs::perms(0600));
  test::ServeProcess server("token-scheme", {.extra_args = {"--token-file", file.string()}});
  ASSERT_TRUE(server.ready()) << server.failure();
  const auto status = [&](const std::string& authorization) {
    return test::curl("GET", server.url("/v1/streams"), {"-H", "Authorization: " + authorization}).status;
  };
  for (const std::string scheme : {"Bearer", "bearer", "BEARER", "bEaReR"}) {
    EXPECT_EQ(status(scheme + " " + token), 200) << scheme;
    EXPECT_EQ(status(scheme + " " + token + "x"), 401) << scheme;
  }
  EXPECT_EQ(status("Bearer tok-9fq2-mixedcase"), 401);
  EXPECT_EQ(status("Bearer TOK-9FQ2-MIXEDCASE"), 401);
  EXPECT_EQ(status("Basic " + token), 401);
}

}  // namespace
}  // namespace fp::service
