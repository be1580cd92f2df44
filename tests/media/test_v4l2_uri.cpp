// Camera URIs: what the query asks of the camera, and every malformed form named.
#include <gtest/gtest.h>

#include <stdexcept>

#include "media/v4l2_uri.hpp"

namespace fp {
namespace {

TEST(V4l2Uri, DeviceAndMode) {
  const auto camera = parse_v4l2_uri("v4l2:///dev/video2?size=1280x720&fps=30&format=mjpeg");
  EXPECT_EQ(camera.device, "/dev/video2");
  EXPECT_EQ(camera.size, "1280x720");
  EXPECT_EQ(camera.fps, "30");
  EXPECT_EQ(camera.format, "mjpeg");
  const auto plain = parse_v4l2_uri("v4l2:///dev/video0");
  EXPECT_EQ(plain.device, "/dev/video0");
  EXPECT_EQ(plain.size, "");
  EXPECT_EQ(plain.fps, "");
  EXPECT_EQ(plain.format, "");
  EXPECT_EQ(parse_v4l2_uri("v4l2:///dev/video0?fps=30000/1001").fps, "30000/1001");
  EXPECT_EQ(parse_v4l2_uri("v4l2:///dev/video0?fps=29.97&").fps, "29.97");
  EXPECT_EQ(parse_v4l2_uri("v4l2:///dev/v4l/by-id/usb-cam?format=yuyv422").format, "yuyv422");
}

TEST(V4l2Uri, MistakesAreNamed) {
  EXPECT_NE(v4l2_uri_problem("v4l2://").find("no device given"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2://video0").find("no device given"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?size=1280").find("size must be WIDTHxHEIGHT"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?size=0x720").find("size must be"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?fps=0").find("fps must be a positive number"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?fps=fast").find("fps must be"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?fps=30/0").find("fps must be"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?format=").find("format must name"), std::string::npos);
  EXPECT_NE(v4l2_uri_problem("v4l2:///dev/video0?resolution=720p").find("unknown camera parameter 'resolution'"),
            std::string::npos);
  EXPECT_EQ(v4l2_uri_problem("rtsp://host/a?size=bad"), "");  // not a camera
  EXPECT_EQ(v4l2_uri_problem("v4l2:///dev/video0?size=640x480"), "");
  EXPECT_THROW(parse_v4l2_uri("v4l2:///dev/video0?fps=-1"), std::invalid_argument);
}

}  // namespace
}  // namespace fp
