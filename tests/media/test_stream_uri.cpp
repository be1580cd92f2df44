// What framepipe reads from a network URI: masked credentials, the RTSP transport query,
// live or not; and the reconnect backoff.
#include <gtest/gtest.h>

#include <stdexcept>

#include "media/reconnect.hpp"
#include "media/stream_uri.hpp"

namespace fp {
namespace {

TEST(StreamUri, MasksThePassword) {
  EXPECT_EQ(mask_credentials("rtsp://admin:hunter2@10.0.0.5:554/live?x=1"), "rtsp://admin:***@10.0.0.5:554/live?x=1");
  EXPECT_EQ(mask_credentials("rtsp://admin:p@ss@cam/s"), "rtsp://admin:***@cam/s");  // an unescaped '@'
  EXPECT_EQ(mask_credentials("rtsp://token@cam/s"), "rtsp://***@cam/s");
  EXPECT_EQ(mask_credentials("rtsp://cam/s?who=a@b"), "rtsp://cam/s?who=a@b");  // not user info
  EXPECT_EQ(mask_credentials("/videos/a@b.mp4"), "/videos/a@b.mp4");
  EXPECT_EQ(mask_credentials("rtsp://u:p@cam"), "rtsp://u:***@cam");
}

TEST(StreamUri, TransportQueryIsOursAndRemoved) {
  auto plain = parse_rtsp_uri("rtsp://cam/s");
  EXPECT_EQ(plain.url, "rtsp://cam/s");
  EXPECT_EQ(plain.transport, RtspTransport::Tcp);
  auto udp = parse_rtsp_uri("rtsp://cam/s?transport=udp");
  EXPECT_EQ(udp.url, "rtsp://cam/s");
  EXPECT_EQ(udp.transport, RtspTransport::Udp);
  auto mixed = parse_rtsp_uri("rtsp://cam/s?channel=1&transport=udp&subtype=0");
  EXPECT_EQ(mixed.url, "rtsp://cam/s?channel=1&subtype=0");
  EXPECT_EQ(mixed.transport, RtspTransport::Udp);
  EXPECT_EQ(parse_rtsp_uri("rtsp://cam/s?transport=tcp").transport, RtspTransport::Tcp);
  EXPECT_THROW(parse_rtsp_uri("rtsp://cam/s?transport=http"), std::invalid_argument);
  EXPECT_EQ(rtsp_uri_problem("rtsp://cam/s?transport=http"), "transport must be tcp or udp (got 'http')");
  EXPECT_EQ(rtsp_uri_problem("movie.mp4"), "");
}

TEST(StreamUri, LiveAndNetwork) {
  for (const char* uri : {"rtsp://c/s", "rtsps://c/s", "rtmp://c/s", "udp://@:1234", "rtp://c:5004", "srt://c:9000"})
    EXPECT_TRUE(is_live_uri(uri)) << uri;
  for (const char* uri : {"http://c/a.mp4", "movie.mp4", "file:///a.mp4", "v4l2:///dev/video0", "testsrc://"})
    EXPECT_FALSE(is_live_uri(uri)) << uri;
  EXPECT_TRUE(is_network_uri("http://c/a.ts"));
  EXPECT_FALSE(is_network_uri("v4l2:///dev/video0"));
  EXPECT_FALSE(is_network_uri("file:///a.mp4"));
  EXPECT_FALSE(is_network_uri("a.mp4"));
}

TEST(Reconnect, BackoffDoublesUpToTheMaximum) {
  const ReconnectPolicy policy{.attempts = ReconnectPolicy::kForever, .initial_ms = 500, .max_ms = 3000};
  EXPECT_EQ(backoff_delay(policy, 1).count(), 500);
  EXPECT_EQ(backoff_delay(policy, 2).count(), 1000);
  EXPECT_EQ(backoff_delay(policy, 3).count(), 2000);
  EXPECT_EQ(backoff_delay(policy, 4).count(), 3000);
  EXPECT_EQ(backoff_delay(policy, 1000000).count(), 3000);  // no overflow after weeks of attempts
}

}  // namespace
}  // namespace fp
