// url_protocol decides as FFmpeg's url_find_protocol (libavformat/avio.c) decides, case by
// case, including the URL that once passed for a relative path (subfile); and the served
// network inputs' whitelists hold no protocol that reads local files.
#include <gtest/gtest.h>

#include <string>

#include "media/served_protocols.hpp"
#include "media/url_protocol.hpp"

namespace fp {
namespace {

struct Case {
  const char* url;
  const char* protocol;
  const char* outer;
};

TEST(UrlProtocol, DecidesAsFfmpegDoes) {
  const Case cases[] = {
      {"in.mp4", "file", "file"},
      {"/abs/in.mp4", "file", "file"},
      {"dir/a:b.mp4", "file", "file"},  // the '/' ends the scheme before the ':'
      {"file:x", "file", "file"},
      {"file:///x", "file", "file"},
      {"FILE:x", "FILE", "FILE"},  // FFmpeg matches names case-sensitively: no such protocol
      {"subfile,/start/0/end/0//:/elsewhere/private.mp4", "subfile", "subfile"},
      {"subfile,,start,0,end,0,,:in.ts", "subfile", "subfile"},
      {"subfile,no-colon-after", "file", "file"},
      {"subfile:x", "subfile", "subfile"},
      {"a+b:x", "a+b", "a"},
      {"hls+http://h/a.m3u8", "hls+http", "hls"},
      {"crypto+file:x", "crypto+file", "crypto"},
      {"rtsp://u:p@h/s", "rtsp", "rtsp"},
      {"concat:a|b", "concat", "concat"},
      {"pipe:0", "pipe", "pipe"},
      {":x", "", ""},
      {"", "file", "file"},
      {"a.b-c+d:", "a.b-c+d", "a.b-c"},
  };
  for (const auto& c : cases) {
    const UrlProtocol p = url_protocol(c.url);
    EXPECT_EQ(p.name, c.protocol) << c.url;
    EXPECT_EQ(p.outer, c.outer) << c.url;
  }
  EXPECT_EQ(url_protocol(std::string(200, 'a') + ":x").name.size(), 127u);  // FFmpeg's buffer
}

TEST(UrlProtocol, FileProtocolPathIsWhatFfmpegOpens) {
  EXPECT_EQ(file_protocol_path("in.mp4"), "in.mp4");
  EXPECT_EQ(file_protocol_path("file:in.mp4"), "in.mp4");
  EXPECT_EQ(file_protocol_path("file://in.mp4"), "//in.mp4");  // that is /in.mp4
  EXPECT_EQ(file_protocol_path("file:///a/in.mp4"), "///a/in.mp4");
}

TEST(ServedProtocols, OnlyTheServedSchemesEachWithWhatItNeeds) {
  EXPECT_EQ(served_protocol_whitelist("rtsp://h/s").value_or(""), "rtsp,rtsps,rtp,srtp,udp,tcp,tls,http,https,httpproxy");
  EXPECT_EQ(served_protocol_whitelist("https://h/a.m3u8").value_or(""), "http,https,tcp,tls,crypto,httpproxy");
  EXPECT_EQ(served_protocol_whitelist("udp://@:5000").value_or(""), "udp");
  EXPECT_EQ(served_protocol_whitelist("rtp://h:5000").value_or(""), "rtp,udp");
  for (const char* refused : {"file:x", "in.mp4", "subfile,,start,0,end,0,,:x", "concat:a|b", "hls+http://h/a",
                              "RTSP://h/s", "rtsp:h", "ftp://h/a", "cache:http://h/a", "data:x"})
    EXPECT_FALSE(served_protocol_whitelist(refused)) << refused;
  for (const auto& scheme : served_network_schemes()) {
    const auto whitelist = served_protocol_whitelist(scheme + "h:1/x");
    ASSERT_TRUE(whitelist) << scheme;
    const std::string listed = "," + *whitelist + ",";
    for (const std::string local : {"file", "subfile", "concat", "pipe", "fd", "data", "cache"})
      EXPECT_EQ(listed.find(',' + local + ','), std::string::npos) << scheme;
  }
}

}  // namespace
}  // namespace fp
