// StreamFileIndex: every clash check_file_clashes finds between two streams is found through
// the index (a path, a hard link, a symlink, an HLS playlist and its segments), readers of
// one file never clash, and a run taken out is forgotten.
#include "pipeline/streams/file_index.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fp {
namespace {

namespace fs = std::filesystem;

FileUse reads(const fs::path& path, const std::string& stream) {
  return {.written = false, .path = path.string(), .what = "input of stream " + stream, .where = {}};
}
FileUse writes(const fs::path& path, const std::string& stream) {
  return {.written = true, .path = path.string(), .what = "output of stream " + stream, .where = {}};
}

class StreamFileIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fp_file_index_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "in");
    fs::create_directories(dir_ / "out");
    std::ofstream(dir_ / "in" / "a.y4m") << "x";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  StreamFileIndex index_;
};

TEST_F(StreamFileIndexTest, AnOutputOfAnotherStreamClashesAndNamesBoth) {
  index_.add(1, "cam1", {reads(dir_ / "in" / "a.y4m", "cam1"), writes(dir_ / "out" / "x.mkv", "cam1")});
  const std::string message = index_.clashes("cam2", {writes(dir_ / "out" / ".." / "out" / "x.mkv", "cam2")});
  EXPECT_NE(message.find("output of stream cam1"), std::string::npos) << message;
  EXPECT_NE(message.find("output of stream cam2"), std::string::npos) << message;
  EXPECT_EQ(index_.clashes("cam1", {writes(dir_ / "out" / "x.mkv", "cam1")}), "") << "a run of the same name";
  EXPECT_EQ(index_.clashes("cam2", {writes(dir_ / "out" / "y.mkv", "cam2")}), "");
}

TEST_F(StreamFileIndexTest, ReadersOfOneFileNeverClashButAWriterOfItDoes) {
  index_.add(1, "cam1", {reads(dir_ / "in" / "a.y4m", "cam1")});
  EXPECT_EQ(index_.clashes("cam2", {reads(dir_ / "in" / "a.y4m", "cam2")}), "");
  EXPECT_NE(index_.clashes("cam2", {writes(dir_ / "in" / "a.y4m", "cam2")}), "");
  index_.add(2, "cam2", {writes(dir_ / "out" / "z.mkv", "cam2")});
  EXPECT_NE(index_.clashes("cam3", {reads(dir_ / "out" / "z.mkv", "cam3")}), "") << "reading what another writes";
}

TEST_F(StreamFileIndexTest, HardAndSymbolicLinksAreOneFile) {
  index_.add(1, "cam1", {writes(dir_ / "in" / "a.y4m", "cam0")});
  fs::create_hard_link(dir_ / "in" / "a.y4m", dir_ / "in" / "hard.y4m");
  fs::create_symlink(dir_ / "in", dir_ / "linked");
  EXPECT_NE(index_.clashes("cam2", {reads(dir_ / "in" / "hard.y4m", "cam2")}), "") << "a hard link";
  EXPECT_NE(index_.clashes("cam2", {reads(dir_ / "linked" / "a.y4m", "cam2")}), "") << "through a linked folder";
}

TEST_F(StreamFileIndexTest, AnHlsPlaylistClashesWithItsSegmentsEitherWay) {
  index_.add(1, "cam1", {writes(dir_ / "out" / "live12.m3u8", "cam1")});
  EXPECT_NE(index_.clashes("cam2", {writes(dir_ / "out" / "live123.ts", "cam2")}), "");
  EXPECT_NE(index_.clashes("cam2", {reads(dir_ / "out" / "live120.ts", "cam2")}), "");
  EXPECT_EQ(index_.clashes("cam2", {writes(dir_ / "out" / "live1.ts", "cam2")}), "") << "not its segment";
  EXPECT_EQ(index_.clashes("cam2", {writes(dir_ / "out" / "live12x3.ts", "cam2")}), "");
  StreamFileIndex segments;
  segments.add(1, "cam1", {writes(dir_ / "out" / "cam7.ts", "cam1")});
  EXPECT_NE(segments.clashes("cam2", {writes(dir_ / "out" / "cam.m3u8", "cam2")}), "");
  EXPECT_EQ(segments.clashes("cam2", {writes(dir_ / "out" / "cam7.m3u8", "cam2")}), "");
}

TEST_F(StreamFileIndexTest, ARunRemovedIsForgotten) {
  index_.add(1, "cam1", {writes(dir_ / "out" / "x.mkv", "cam1")});
  index_.add(2, "cam1", {writes(dir_ / "out" / "x.mkv", "cam1")});
  EXPECT_TRUE(index_.written((dir_ / "out" / "x.mkv").string()));
  index_.remove(1);
  EXPECT_TRUE(index_.written((dir_ / "out" / "x.mkv").string())) << "run 2 still writes it";
  EXPECT_NE(index_.clashes("cam2", {writes(dir_ / "out" / "x.mkv", "cam2")}), "");
  index_.remove(2);
  index_.remove(2);
  EXPECT_FALSE(index_.written((dir_ / "out" / "x.mkv").string()));
  EXPECT_EQ(index_.clashes("cam2", {writes(dir_ / "out" / "x.mkv", "cam2")}), "");
  EXPECT_EQ(index_.runs(), 0u);
}

TEST_F(StreamFileIndexTest, CharacterDevicesAndNetworkOutputsNeverClash) {
  index_.add(1, "cam1", {writes("/dev/null", "cam1"), writes("udp://127.0.0.1:5000", "cam1")});
  EXPECT_EQ(index_.clashes("cam2", {writes("/dev/null", "cam2"), writes("udp://127.0.0.1:5000", "cam2")}), "");
}

}  // namespace
}  // namespace fp
