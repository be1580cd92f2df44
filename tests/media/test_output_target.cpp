// What an output's text means, before anything is opened: container by extension, protocol
// by scheme, framepipe's own query parameters taken out, mistakes named.
#include <gtest/gtest.h>

#include <stdexcept>

#include "media/output_target.hpp"

namespace fp {
namespace {

TEST(OutputTarget, FilesByExtension) {
  EXPECT_EQ(parse_output_target("out/a.mp4").muxer, "mp4");
  EXPECT_EQ(parse_output_target("A.MKV").muxer, "matroska");
  EXPECT_EQ(parse_output_target("a.ts").muxer, "mpegts");
  EXPECT_EQ(parse_output_target("a.y4m").muxer, "yuv4mpegpipe");
  EXPECT_EQ(parse_output_target("a.ts").kind, OutputKind::File);
  EXPECT_EQ(parse_output_target("dir.d/a.ts").url, "dir.d/a.ts");
  EXPECT_EQ(parse_output_target("null").kind, OutputKind::Null);
  EXPECT_EQ(parse_output_target("").kind, OutputKind::Null);
}

TEST(OutputTarget, HlsPlaylist) {
  const auto hls = parse_output_target("live/stream.m3u8");
  EXPECT_EQ(hls.kind, OutputKind::Hls);
  EXPECT_EQ(hls.muxer, "hls");
  EXPECT_EQ(hls.url, "live/stream.m3u8");
  EXPECT_FALSE(is_network_output(hls.kind));  // files on disk: their folder is checked
}

TEST(OutputTarget, UdpAndSrtCarryMpegTsInWholeDatagrams) {
  const auto udp = parse_output_target("udp://127.0.0.1:5000");
  EXPECT_EQ(udp.kind, OutputKind::Udp);
  EXPECT_EQ(udp.muxer, "mpegts");
  EXPECT_EQ(udp.url, "udp://127.0.0.1:5000?pkt_size=1316");
  // The user's own options stay, and a packet size given is not overridden.
  EXPECT_EQ(parse_output_target("udp://239.0.0.1:5000?ttl=4").url, "udp://239.0.0.1:5000?ttl=4&pkt_size=1316");
  EXPECT_EQ(parse_output_target("udp://h:5000?pkt_size=188").url, "udp://h:5000?pkt_size=188");
  const auto srt = parse_output_target("srt://10.0.0.2:9000?mode=caller&latency=200000");
  EXPECT_EQ(srt.kind, OutputKind::Srt);
  EXPECT_EQ(srt.muxer, "mpegts");
  EXPECT_EQ(srt.url, "srt://10.0.0.2:9000?mode=caller&latency=200000&pkt_size=1316&linger=3");
  EXPECT_TRUE(is_network_output("udp://127.0.0.1:5000"));
  EXPECT_TRUE(is_network_output("srt://127.0.0.1:5000"));
  EXPECT_FALSE(is_network_output("a.mp4"));
  EXPECT_FALSE(is_network_output("udp://noport"));  // not an output at all
}

TEST(OutputTarget, RtspPublishTakesTheTransportOutOfTheUrl) {
  const auto tcp = parse_output_target("rtsp://user:pw@127.0.0.1:8554/live");
  EXPECT_EQ(tcp.kind, OutputKind::Rtsp);
  EXPECT_EQ(tcp.muxer, "rtsp");
  EXPECT_EQ(tcp.url, "rtsp://user:pw@127.0.0.1:8554/live");
  EXPECT_FALSE(tcp.rtsp_over_udp);
  const auto udp = parse_output_target("rtsp://127.0.0.1:8554/live?transport=udp&x=1");
  EXPECT_TRUE(udp.rtsp_over_udp);
  EXPECT_EQ(udp.url, "rtsp://127.0.0.1:8554/live?x=1");
  EXPECT_TRUE(is_network_output("rtsp://127.0.0.1:8554/live"));
}

TEST(OutputTarget, MistakesAreNamed) {
  auto problem = [](const char* output) { return output_target_problem(output, "h264"); };
  EXPECT_NE(problem("udp://127.0.0.1").find("needs host:port"), std::string::npos);
  EXPECT_NE(problem("udp://127.0.0.1:").find("needs host:port"), std::string::npos);
  EXPECT_NE(problem("srt://:x").find("not a number"), std::string::npos);
  EXPECT_NE(problem("rtsp://127.0.0.1:8554/a?transport=quic").find("transport must be tcp or udp"), std::string::npos);
  EXPECT_NE(problem("rtmp://host:1935/app").find("unsupported output protocol 'rtmp://'"), std::string::npos);
  EXPECT_NE(problem("http://host/a.mp4").find("unsupported output protocol"), std::string::npos);
  EXPECT_NE(problem("out").find("no extension"), std::string::npos);
  EXPECT_NE(problem("a.b/out").find("no extension"), std::string::npos);  // a dot in a folder name is no extension
  EXPECT_NE(output_target_problem("udp://h:1", "rawvideo").find("rawvideo needs a .y4m"), std::string::npos);
  EXPECT_NE(output_target_problem("a.m3u8", "vp9").find("unsupported codec 'vp9'"), std::string::npos);
  EXPECT_EQ(problem("udp://[::1]:5000"), "");
  // The text itself (which may hold a password) is never repeated in the reason.
  EXPECT_EQ(problem("rtsp://u:secret@h:1/a?transport=x").find("secret"), std::string::npos);
  EXPECT_THROW(parse_output_target("udp://h"), std::invalid_argument);
}

}  // namespace
}  // namespace fp
