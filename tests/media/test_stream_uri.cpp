// What framepipe reads from a network URI: masked credentials, the RTSP transport query,
// live or not; and the reconnect backoff.
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>

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

// Passwords as people type them, unescaped: '/', '@', ':', '?', '=', '%' and '#' in them.
TEST(StreamUri, MasksPasswordsOfEveryShape) {
  const std::pair<const char*, const char*> cases[] = {
      {"rtsp://user:pa/ss@h/live", "rtsp://user:***@h/live"},
      {"rtsp://user:a/b/c@h:554/live/ch1", "rtsp://user:***@h:554/live/ch1"},
      {"rtsp://user:p@s/s@h/x", "rtsp://user:***@h/x"},
      {"rtsp://user:p:a:ss@h/x", "rtsp://user:***@h/x"},
      {"rtsp://user:pa?ss@h/x", "rtsp://user:***@h/x"},
      {"rtsp://user:b64+/x==@h/x?channel=1", "rtsp://user:***@h/x?channel=1"},
      {"rtsp://user:p%40ss@h/x", "rtsp://user:***@h/x"},
      {"rtsp://user:pa#ss@h/x", "rtsp://user:***@h/x"},
      {"rtsp://user:@h/x", "rtsp://user:***@h/x"},
      {"rtsps://a/b@h", "rtsps://***@h"},  // '@' in a path looks like user info: masked, the safe side
      {"rtmp://tok3n@h/app/stream", "rtmp://***@h/app/stream"},
      {"rtsp://[fe80::1]:554/s", "rtsp://[fe80::1]:554/s"},
      {"rtsp://user:pw@[fe80::1]:554/s", "rtsp://user:***@[fe80::1]:554/s"},
      {"udp://@:1234", "udp://@:1234"},
      {"testsrc://64x48@30?frames=3", "testsrc://64x48@30?frames=3"},  // local: '@' is the rate
      {"file:///videos/a@b.mp4", "file:///videos/a@b.mp4"},  // empty user info: a multicast listener, nothing hidden
      {"udp://239.0.0.1:1234?pkt_size=1316", "udp://239.0.0.1:1234?pkt_size=1316"},
      {"http://h/p?email=a@b.com&x=1", "http://h/p?email=a@b.com&x=1"},
      {"rtsp://u:p@h/p?email=a@b.com", "rtsp://u:***@h/p?email=a@b.com"},
      {"movie.mp4", "movie.mp4"},
      {"", ""},
      {"rtsp://", "rtsp://"},
  };
  for (const auto& [uri, masked] : cases) EXPECT_EQ(mask_credentials(uri), masked) << uri;
}

TEST(StreamUri, MasksSecretQueryValues) {
  const std::pair<const char*, const char*> cases[] = {
      {"srt://h:9000?passphrase=S3cr3t&pbkeylen=16", "srt://h:9000?passphrase=***&pbkeylen=16"},
      {"srt://h:9000?mode=caller&PassPhrase=a&b", "srt://h:9000?mode=caller&PassPhrase=***&b"},
      {"srt://h:9000?passphrase=ab#cd", "srt://h:9000?passphrase=***"},
      {"srt://h:9000?passphrase=a@b", "srt://h:9000?passphrase=***"},
      {"srt://h:9000?passphrase=", "srt://h:9000?passphrase=***"},
      {"https://h/v.m3u8?token=t&sig=s&expires=9", "https://h/v.m3u8?token=***&sig=***&expires=9"},
      {"https://h/v?X-Amz-Signature=s&X-Amz-Credential=c&X-Amz-Date=d",
       "https://h/v?X-Amz-Signature=***&X-Amz-Credential=***&X-Amz-Date=d"},
      {"https://h/v?api_key=1;apiKey=2;accessToken=3", "https://h/v?api_key=***;apiKey=***;accessToken=***"},
      {"rtmp://h/app?stream-key=1&password=2&pwd=3&pass=4&passwd=5", "rtmp://h/app?stream-key=***&password=***&pwd=***&pass=***&passwd=***"},
      {"rtsp://h/s?auth=1&Authorization=2&secret=3&session=4&credentials=5&key=6",
       "rtsp://h/s?auth=***&Authorization=***&secret=***&session=***&credentials=***&key=***"},
      {"srt://h:9000?keyint=2&latency=200&pkt_size=1316", "srt://h:9000?keyint=2&latency=200&pkt_size=1316"},
      {"rtsp://u:p@h/s?transport=udp&token=t", "rtsp://u:***@h/s?transport=udp&token=***"},
  };
  for (const auto& [uri, masked] : cases) EXPECT_EQ(mask_credentials(uri), masked) << uri;
  EXPECT_FALSE(is_secret_query_key("monkey"));
  EXPECT_FALSE(is_secret_query_key("passthrough"));
  EXPECT_TRUE(is_secret_query_key("SESSIONID"));
}

TEST(StreamUri, MasksEveryUriInText) {
  EXPECT_EQ(mask_uris_in_text("must be ID.PARAM=VALUE (got 'out.output=srt://h:9?passphrase=S3')"),
            "must be ID.PARAM=VALUE (got 'out.output=srt://h:9?passphrase=***')");
  EXPECT_EQ(mask_uris_in_text("rtsp://u:pa/ss@h/a and rtsp://v:w@g/b: failed"), "rtsp://u:***@h/a and rtsp://v:***@g/b: failed");
  EXPECT_EQ(mask_uris_in_text("out: srt://h:9?passphrase=S3: cannot connect."), "out: srt://h:9?passphrase=***: cannot connect.");
  EXPECT_EQ(mask_uris_in_text("(rtsp://u:p@h/live), next"), "(rtsp://u:***@h/live), next");
  EXPECT_EQ(mask_uris_in_text("denoise.h=12 is above 10"), "denoise.h=12 is above 10");
  EXPECT_EQ(mask_uris_in_text("a :// b"), "a :// b");
  EXPECT_EQ(mask_uris_in_text("x\nsrt://h:1?pass=1"), "x\nsrt://h:1?pass=***");
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
