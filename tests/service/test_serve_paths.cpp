// framepipe serve's roots hold for what FFmpeg really opens, against a real server: a URI
// FFmpeg reads as a protocol (subfile) is no relative path, and a path checked when the
// stream was accepted cannot be turned into a way out (a symlink) before it is opened.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

// A small raw video: `frames` grey 64x48 frames as a y4m stream.
std::string y4m_video(int frames) { return grey_y4m(64, 48, frames); }

// Waits (bounded) until the stream has stopped running: failed, or finished its input.
std::string wait_until_over(const ServeProcess& server, const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    const HttpReply reply = curl("GET", server.url("/v1/streams/" + name));
    last = reply.body;
    const std::string state = reply.json().is_object() ? reply.json().value("state", "") : "";
    if (state == "failed" || state == "finished" || state == "stopped") return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return last;
}

// FFmpeg's subfile protocol opens the path after the ':', wherever it is. Before the fix
// the URI below was taken for a relative path under the working directory (its '/' comes
// before its ':'), accepted with 201, and the private file's frames were written out.
TEST(ServePaths, SubfileUriIsRefusedWithTheWorkingDirectoryAnAllowedRoot) {
  TempDir elsewhere("serve-paths-elsewhere");
  const fs::path secret = elsewhere / "private.y4m";
  std::ofstream(secret, std::ios::binary) << y4m_video(5);
  ServeProcess server("subfile", {.extra_args = {"--allow-root", "."}});
  ASSERT_SERVING(server);

  const std::string uri = "subfile,/start/0/end/0//:" + secret.string();
  const HttpReply reply = put_stream(server, "cam1", {{"uri", uri}});
  EXPECT_EQ(reply.status, 403) << reply.body;
  EXPECT_NE(reply.body.find("subfile"), std::string::npos) << reply.body;
  // Had it been taken, the stream would have written the private frames by now.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(fs::exists(server.outputs() / "cam1.mkv")) << server.log();
}

// What confinement must not take away: a file under an allowed root is read whole (through
// the descriptor opened beneath the root) and written whole beneath the output root.
TEST(ServePaths, AFileUnderAnAllowedRootIsReadAndWrittenWhole) {
  TempDir media("serve-paths-file");
  std::ofstream(media / "in.y4m", std::ios::binary) << y4m_video(5);
  ServeProcess server("file", {.extra_args = {"--allow-root", media.path().string()}});
  ASSERT_SERVING(server);
  const HttpReply reply = put_stream(server, "cam1", {{"uri", (media / "in.y4m").string()}});
  ASSERT_EQ(reply.status, 201) << reply.body;
  const std::string state = wait_until_over(server, "cam1");
  EXPECT_NE(state.find("\"finished\""), std::string::npos) << state << "\n" << server.log();
  EXPECT_EQ(count_frames(server.outputs() / "cam1.mkv"), 5) << server.log();
}

// A list of other files under an allowed root is refused when the stream opens it: an
// ffconcat list naming a link (under the root) that leads out of it, and an HLS playlist
// naming a file outside. Before, the ffconcat list was read whole (its demuxer opens its
// files with FFmpeg's own I/O, past the confined one) and the outside file's 5 frames were
// written out; seen so with the demuxer list (ffmpeg_input.cpp kConfinedFileFormats) removed.
TEST(ServePaths, AListOfOtherFilesUnderAnAllowedRootIsRefused) {
  TempDir media("serve-paths-lists");
  TempDir elsewhere("serve-paths-lists-outside");
  std::ofstream(elsewhere / "secret.y4m", std::ios::binary) << y4m_video(5);
  fs::create_symlink(elsewhere / "secret.y4m", media / "link.y4m");
  std::ofstream(media / "list.ffconcat") << "ffconcat version 1.0\nfile 'link.y4m'\n";
  std::ofstream(media / "list.m3u8") << "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n"
                                      << (elsewhere / "secret.y4m").string() << "\n#EXT-X-ENDLIST\n";
  ServeProcess server("lists", {.extra_args = {"--allow-root", media.path().string()}});
  ASSERT_SERVING(server);
  for (const char* name : {"concat", "hls"}) {
    const std::string list = std::string(name) == "concat" ? "list.ffconcat" : "list.m3u8";
    const HttpReply reply = put_stream(server, name, {{"uri", (media / list).string()}});
    ASSERT_EQ(reply.status, 201) << reply.body;
    const json stream = json::parse(wait_until_over(server, name), nullptr, false);
    ASSERT_TRUE(stream.is_object()) << server.log();
    EXPECT_EQ(stream.value("state", ""), "failed") << stream.dump();
    EXPECT_EQ(stream.value("frames", -1), 0) << stream.dump();
    const std::string error = stream.value("last_error", json()).is_string() ? stream["last_error"].get<std::string>() : "";
    // Debian's FFmpeg has these demuxers, and its refusal says why; an FFmpeg built without
    // them (the GPU machine's) knows no such format ("not a video").
    EXPECT_TRUE(error.find("a list of other files") != std::string::npos ||
                error.find("not a video") != std::string::npos)
        << stream.dump();
    const fs::path output = server.outputs() / (std::string(name) + ".mkv");
    EXPECT_TRUE(!fs::exists(output) || fs::file_size(output) < 1000) << "frames were written: " << output;
  }
}

// A stream whose input is a FIFO waits in its open until the test writes the video; in that
// time its output's name is replaced by a symlink to a file outside the output root. Before
// the fix the sink followed it and wrote a Matroska header into that file.
TEST(ServePaths, OutputSwappedForASymlinkAfterTheCheckWritesNothingOutside) {
  TempDir media("serve-paths-media");
  TempDir elsewhere("serve-paths-outside");
  const fs::path fifo = media / "in.y4m";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const fs::path precious = elsewhere / "precious.mkv";
  const std::string precious_text = "not yours to write";
  std::ofstream(precious) << precious_text;
  ServeProcess server("swap", {.extra_args = {"--allow-root", media.path().string()}});
  ASSERT_SERVING(server);

  const HttpReply reply = put_stream(server, "cam1", {{"uri", fifo.string()}});
  ASSERT_EQ(reply.status, 201) << reply.body;
  // Accepted and checked; now its output's name leads outside.
  fs::create_symlink(precious, server.outputs() / "cam1.mkv");

  // The stream's source has the FIFO open for reading once a writer can open it.
  int fd = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(10));
  while ((fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 && errno == ENXIO &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(fd, 0) << "the stream never opened its input: " << std::strerror(errno) << "\n" << server.log();
  ::fcntl(fd, F_SETFL, 0);  // blocking writes from here
  const std::string video = y4m_video(5);
  for (std::size_t written = 0; written < video.size();) {
    const ssize_t n = ::write(fd, video.data() + written, video.size() - written);
    if (n < 0) break;  // the reader gave up: the stream failed, which is what is checked below
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);

  const std::string state = wait_until_over(server, "cam1");
  EXPECT_EQ(read_text(precious), precious_text) << "written outside the output root through the symlink; stream: "
                                                << state << "\n" << server.log();
  EXPECT_TRUE(fs::is_symlink(server.outputs() / "cam1.mkv"));
  // And the stream says so: failed, naming its output and why (not finished as if written).
  const auto stream = nlohmann::json::parse(state, nullptr, false);
  ASSERT_TRUE(stream.is_object()) << state;
  EXPECT_EQ(stream.value("state", ""), "failed") << state;
  const std::string error = stream.value("last_error", json()).is_string() ? stream["last_error"].get<std::string>() : "";
  EXPECT_NE(error.find("cam1.mkv"), std::string::npos) << state;
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << state;
}

// A NUL inside an output path hung the stream manager for good (issue 43): with s1.mkv there,
// "s1.mkv\0.mkv" opened as s1.mkv at every suffix tried, /livez turned 503 and only SIGKILL
// ended it; for a new file the spec was taken (201) and saved, and every start hung. Now a
// control character in any path, name or URI is refused where it is read, naming the field.
TEST(ServePaths, AControlCharacterInAPathOrUriIsRefusedAndTheServiceAnswers) {
  ServeProcess server("control-characters");
  ASSERT_SERVING(server);
  fs::create_directories(server.outputs());
  write_text(server.outputs() / "s1.mkv", "an earlier recording");
  const std::string nul("s1.mkv\0.mkv", 11);
  const auto output = put_stream(server, "cam1", {{"uri", "testsrc://64x48@30?frames=0"}, {"set", {{"out.output", nul}}}});
  EXPECT_EQ(output.status, 400) << output.body;
  EXPECT_NE(output.body.find("set.out.output: holds a control character"), std::string::npos) << output.body;
  const auto uri = put_stream(server, "cam2", {{"uri", "testsrc://64x48@30?frames=0\x01"}});
  EXPECT_EQ(uri.status, 400) << uri.body;
  EXPECT_NE(uri.body.find("uri: holds a control character"), std::string::npos) << uri.body;
  EXPECT_EQ(curl("GET", server.url("/livez"), {}, 5).status, 200);
  EXPECT_EQ(curl("GET", server.url("/v1/streams/cam1")).status, 404);
  EXPECT_EQ(read_text(server.outputs() / "s1.mkv"), "an earlier recording");
}

}  // namespace
}  // namespace fp::test
