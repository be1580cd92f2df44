// Cameras through the CLI, where no camera is attached (CI has none, and containers cannot
// load v4l2loopback): every way a camera URI goes wrong is a clear error naming the URI and
// the device, exit 1 for a camera that cannot be opened, exit 2 for a malformed URI, and
// never a hang.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

void write_pipeline(const TempDir& dir, const std::string& uri) {
  std::ofstream(dir / "p.yaml") << "input: '" << uri << "'\nstages:\n  - {id: out, type: encode, output: out.mkv}\n";
}

TEST(CameraCli, MissingDeviceSaysNoSuchCamera) {
  TempDir dir("camera-missing");
  write_pipeline(dir, "v4l2:///dev/video-framepipe-test?size=640x480&fps=30&format=mjpeg");
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(20)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("v4l2:///dev/video-framepipe-test?size=640x480&fps=30&format=mjpeg: no such camera: "
                               "/dev/video-framepipe-test does not exist"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mkv"));  // no output made for an input that never opened
}

TEST(CameraCli, AFileIsNotACamera) {
  TempDir dir("camera-file");
  std::ofstream(dir / "video0") << "not a device";
  write_pipeline(dir, "v4l2://" + (dir / "video0").string());
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(20)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("video0 is not a camera"), std::string::npos) << result.output;
}

// /dev/null is a character device, as a camera is, but answers no V4L2 request.
TEST(CameraCli, ACharacterDeviceThatIsNoCameraIsNamed) {
  TempDir dir("camera-null");
  write_pipeline(dir, "v4l2:///dev/null");
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(20)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("v4l2:///dev/null: cannot open: not a V4L2 capture device"), std::string::npos)
      << result.output;
}

TEST(CameraCli, MalformedQueryIsAConfigurationError) {
  TempDir dir("camera-query");
  write_pipeline(dir, "v4l2:///dev/video0?size=720p");
  auto result = run_framepipe({"validate", "p.yaml"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("p.yaml:1:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("size must be WIDTHxHEIGHT (got '720p')"), std::string::npos) << result.output;
  // The same through -i on the command line.
  result = run_framepipe({"run", "p.yaml", "-i", "v4l2:///dev/video0?fps=30&exposure=10"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("unknown camera parameter 'exposure'"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace fp::test
