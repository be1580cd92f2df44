// Every failure is a MediaError of one line that names the file or URI and the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "media/ffmpeg_raii.hpp"
#include "media/media_error.hpp"
#include "media/output_target.hpp"
#include "media/probe.hpp"
#include "media_test_util.hpp"
#include "test_media_files.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/error.h>
}

namespace fp {
namespace {

using test::ScratchDir;

// Runs fn, expecting a MediaError whose one-line message holds every piece of `parts`.
template <class Fn>
void expect_media_error(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning '" << parts.front() << "'";
  } catch (const MediaError& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// A Matroska file whose video stream is AVS2, for which FFmpeg has no decoder here: a
// real container holding a codec framepipe cannot decode. False when the muxer refuses.
bool write_undecodable_mkv(const std::string& path) {
  AVFormatContext* raw = nullptr;
  if (avformat_alloc_output_context2(&raw, nullptr, "matroska", path.c_str()) < 0) return false;
  ff::OutputFormatPtr format(raw);
  AVStream* stream = avformat_new_stream(format.get(), nullptr);
  if (stream == nullptr) return false;
  stream->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
  stream->codecpar->codec_id = AV_CODEC_ID_AVS2;
  stream->codecpar->width = 64;
  stream->codecpar->height = 48;
  stream->time_base = AVRational{1, 25};
  if (avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE) < 0) return false;
  if (avformat_write_header(format.get(), nullptr) < 0) return false;
  ff::PacketPtr packet(av_packet_alloc());
  for (int i = 0; i < 3; ++i) {
    if (av_new_packet(packet.get(), 32) < 0) return false;
    std::memset(packet->data, 0x5a, 32);
    packet->pts = packet->dts = i;
    packet->stream_index = 0;
    packet->flags = AV_PKT_FLAG_KEY;
    av_packet_rescale_ts(packet.get(), AVRational{1, 25}, stream->time_base);
    if (av_interleaved_write_frame(format.get(), packet.get()) < 0) return false;
  }
  return av_write_trailer(format.get()) >= 0;
}

TEST(MediaErrors, AvErrorText) {
  EXPECT_EQ(av_error_text(AVERROR(ENOENT)), std::strerror(ENOENT));
  EXPECT_EQ(av_error_text(AVERROR_INVALIDDATA), "Invalid data found when processing input");
  EXPECT_FALSE(av_error_text(-123456789).empty());
}

TEST(MediaErrors, MissingInputFile) {
  ScratchDir dir;
  const std::string path = dir.file("missing.mp4");
  expect_media_error([&] { open_source(path); }, {path, "cannot open", "No such file or directory"});
  expect_media_error([&] { probe(path); }, {path, "No such file or directory"});
}

TEST(MediaErrors, TextFileIsNotAVideo) {
  ScratchDir dir;
  const std::string path = dir.file("notes.txt");
  test::write_text_file(path, "These are my notes.\nNothing to see here.\n");
  expect_media_error([&] { open_source(path); }, {path, "not a video"});
}

TEST(MediaErrors, AudioOnlyFileHasNoVideoStream) {
  if (av_find_input_format("wav") == nullptr) GTEST_SKIP() << "this FFmpeg has no wav demuxer";
  ScratchDir dir;
  const std::string path = dir.file("sound.wav");
  test::write_silent_wav(path);
  expect_media_error([&] { open_source(path); }, {path, "no video stream"});
}

TEST(MediaErrors, UnsupportedCodecNamesPathAndCodec) {
  if (avcodec_find_decoder(AV_CODEC_ID_AVS2) != nullptr) GTEST_SKIP() << "this FFmpeg decodes AVS2";
  ScratchDir dir;
  const std::string path = dir.file("avs2.mkv");
  if (!write_undecodable_mkv(path)) GTEST_SKIP() << "this FFmpeg cannot mux AVS2 into Matroska";
  expect_media_error([&] { open_source(path); }, {path, "unsupported codec", "avs2"});
  const auto result = probe(path);
  ASSERT_EQ(result.streams.size(), 1u);
  EXPECT_NE(result.streams[0].decoder.find("unsupported"), std::string::npos) << result.streams[0].decoder;
}

TEST(MediaErrors, UnwritableOutput) {
  auto source = open_source("testsrc://64x48?frames=1");
  for (const std::string path : {"/nonexistent/dir/out.mp4", "/nonexistent/dir/out.y4m"}) {
    SinkOptions options;
    options.path = path;
    expect_media_error([&] { open_sink(options, source->info()); }, {path, "cannot create", "No such file or directory"});
  }
}

TEST(MediaErrors, UnsupportedExtension) {
  ScratchDir dir;
  const std::string path = dir.file("out.xyz");
  EXPECT_EQ(output_target_problem(path, "h264"),
            "unsupported output extension '.xyz' (use .mp4, .mkv, .ts, .y4m, .m3u8, udp://, srt://, rtsp:// or null)");
  auto source = open_source("testsrc://64x48?frames=1");
  SinkOptions options;
  options.path = path;
  expect_media_error([&] { open_sink(options, source->info()); }, {path, "'.xyz'"});
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(MediaErrors, OutputProblemNeedsNoFileSystem) {
  EXPECT_EQ(output_target_problem("null", "h264"), "");
  EXPECT_EQ(output_target_problem("", "h264"), "");
  EXPECT_EQ(output_target_problem("/nonexistent/dir/out.mp4", "h264"), "");  // the folder is open_sink's business
  EXPECT_EQ(output_target_problem("OUT.MKV", "h264"), "");
  EXPECT_EQ(output_target_problem("a.ts", "h264"), "");
  EXPECT_EQ(output_target_problem("a.y4m", "rawvideo"), "");
  EXPECT_EQ(output_target_problem("a.y4m", "h264"), "");  // .y4m is raw whatever the codec says
  EXPECT_NE(output_target_problem("a.mp4", "rawvideo").find("rawvideo"), std::string::npos);
  EXPECT_NE(output_target_problem("a.mkv", "vp9").find("unsupported codec 'vp9'"), std::string::npos);
  EXPECT_NE(output_target_problem("noextension", "h264"), "");
}

TEST(MediaErrors, BadEncoderSettingsNameThePath) {
  ScratchDir dir;
  auto source = open_source("testsrc://64x48?frames=1");
  SinkOptions options;
  options.path = dir.file("bad.mp4");
  options.crf = 60;
  expect_media_error([&] { open_sink(options, source->info()); }, {options.path, "crf"});
  options.crf = 18;
  options.preset = "warp-speed";
  expect_media_error([&] { open_sink(options, source->info()); }, {options.path, "warp-speed"});
}

TEST(MediaErrors, BadTestsrcUri) {
  for (const std::string uri : {"testsrc://0x10", "testsrc://64x48?colour=red", "testsrc://64x48@fast"}) {
    expect_media_error([&] { open_source(uri); }, {uri});
    expect_media_error([&] { probe(uri); }, {uri});
  }
}

}  // namespace
}  // namespace fp
