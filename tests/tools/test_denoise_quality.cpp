// denoise-quality (tools/denoise_quality), run as a program on a tiny set: make-set writes
// whole files with the noise asked for, the same bytes every time; score gives what the
// definitions (written again here, naively) give; denoise with the CPU temporal op helps.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 64;
constexpr int kHeight = 48;
constexpr int kFrames = 8;
constexpr std::size_t kFrameBytes = static_cast<std::size_t>(kWidth) * kHeight;
const std::string kSize = "64x48";
const std::vector<std::string> kSequences = {"pan_2_1", "pan_8_3", "pan_40_0", "zoom", "objects", "static", "cut"};
constexpr std::array<int, 3> kSigmas = {10, 20, 30};

struct Result {
  int exit_code = -1;
  std::string output;
};

// Runs denoise-quality with the arguments (each single-quoted for the shell).
Result run_tool(const std::vector<std::string>& args) {
  std::string command = std::string("'") + DENOISE_QUALITY_BIN + "'";
  for (const auto& a : args) command += " '" + a + "'";
  command += " 2>&1";
  Result result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::vector<std::uint8_t> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& file, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

nlohmann::json score_json(const fs::path& clean, const fs::path& test, int from) {
  const Result r = run_tool({"score", clean.string(), test.string(), "--size", kSize, "--from", std::to_string(from),
                             "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output);
}

// SSIM of one frame straight from Wang et al. 2004: for every 11x11 window inside the frame,
// Gaussian weights (sigma 1.5, summing to 1), the weighted means, variances and covariance,
// in double; the mean of the windows' SSIM.
double naive_ssim(const std::uint8_t* x, const std::uint8_t* y) {
  double g[11][11];
  double total = 0;
  for (int i = 0; i < 11; ++i)
    for (int j = 0; j < 11; ++j) total += g[i][j] = std::exp(-((i - 5) * (i - 5) + (j - 5) * (j - 5)) / (2 * 2.25));
  const double c1 = std::pow(0.01 * 255, 2);
  const double c2 = std::pow(0.03 * 255, 2);
  double sum = 0;
  int windows = 0;
  for (int wy = 0; wy + 11 <= kHeight; ++wy)
    for (int wx = 0; wx + 11 <= kWidth; ++wx) {
      double mx = 0, my = 0;
      for (int i = 0; i < 11; ++i)
        for (int j = 0; j < 11; ++j) {
          const std::size_t p = static_cast<std::size_t>(wy + i) * kWidth + wx + j;
          mx += g[i][j] / total * x[p];
          my += g[i][j] / total * y[p];
        }
      double vx = 0, vy = 0, cov = 0;
      for (int i = 0; i < 11; ++i)
        for (int j = 0; j < 11; ++j) {
          const std::size_t p = static_cast<std::size_t>(wy + i) * kWidth + wx + j;
          vx += g[i][j] / total * (x[p] - mx) * (x[p] - mx);
          vy += g[i][j] / total * (y[p] - my) * (y[p] - my);
          cov += g[i][j] / total * (x[p] - mx) * (y[p] - my);
        }
      sum += (2 * mx * my + c1) * (2 * cov + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
      ++windows;
    }
  return sum / windows;
}

class DenoiseQuality : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "test-denoise-quality-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    const Result r = run_tool({"make-set", (dir_ / "set").string(), "--size", kSize, "--frames", std::to_string(kFrames)});
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static fs::path set_file(const std::string& name) { return dir_ / "set" / name; }
  static fs::path clean(const std::string& sequence) { return set_file(sequence + ".clean.gray"); }
  static fs::path noisy(const std::string& sequence, int sigma) {
    return set_file(sequence + ".s" + std::to_string(sigma) + ".gray");
  }

  static fs::path dir_;
};
fs::path DenoiseQuality::dir_;

TEST_F(DenoiseQuality, MakeSetWritesWholeFilesAndAManifest) {
  for (const auto& sequence : kSequences) {
    EXPECT_EQ(fs::file_size(clean(sequence)), kFrameBytes * kFrames) << sequence;
    for (int sigma : kSigmas) EXPECT_EQ(fs::file_size(noisy(sequence, sigma)), kFrameBytes * kFrames) << sequence;
  }
  std::ifstream in(set_file("set.json"));
  const auto manifest = nlohmann::json::parse(in);
  EXPECT_EQ(manifest.at("width"), kWidth);
  EXPECT_EQ(manifest.at("height"), kHeight);
  EXPECT_EQ(manifest.at("frames"), kFrames);
  EXPECT_EQ(manifest.at("sequences").get<std::vector<std::string>>(), kSequences);
  EXPECT_EQ(manifest.at("files").size(), kSequences.size() * (kSigmas.size() + 1));
}

TEST_F(DenoiseQuality, MakeSetMakesTheSameBytesEveryTime) {
  const Result r = run_tool({"make-set", (dir_ / "again").string(), "--size", kSize, "--frames", std::to_string(kFrames)});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& sequence : kSequences) {
    EXPECT_EQ(read_bytes(dir_ / "again" / (sequence + ".clean.gray")), read_bytes(clean(sequence))) << sequence;
    EXPECT_EQ(read_bytes(dir_ / "again" / (sequence + ".s20.gray")), read_bytes(noisy(sequence, 20))) << sequence;
  }
}

// noisy - clean over all sequences: mean 0, the nominal sigma within 5%, and no correlation
// from one frame to the next (each frame's noise is its own).
TEST_F(DenoiseQuality, NoiseHasTheNominalSigmaAndIsIndependentPerFrame) {
  for (int sigma : kSigmas) {
    double sum = 0, squares = 0, lagged = 0;
    std::size_t count = 0, pairs = 0;
    for (const auto& sequence : kSequences) {
      const auto c = read_bytes(clean(sequence));
      const auto n = read_bytes(noisy(sequence, sigma));
      ASSERT_EQ(c.size(), n.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        const double d = static_cast<double>(n[i]) - c[i];
        sum += d;
        squares += d * d;
        ++count;
        if (i >= kFrameBytes) {
          lagged += d * (static_cast<double>(n[i - kFrameBytes]) - c[i - kFrameBytes]);
          ++pairs;
        }
      }
    }
    const double mean = sum / count;
    const double measured = std::sqrt(squares / count - mean * mean);
    EXPECT_NEAR(mean, 0.0, 0.02 * sigma) << "sigma " << sigma;
    EXPECT_NEAR(measured, sigma, 0.05 * sigma) << "sigma " << sigma;
    EXPECT_LT(std::abs(lagged / pairs) / (measured * measured), 0.05) << "sigma " << sigma;
  }
}

TEST_F(DenoiseQuality, CleanAgainstItselfScoresPerfectly) {
  const auto s = score_json(clean("objects"), clean("objects"), 1);
  EXPECT_EQ(s.at("psnr").get<double>(), 100.0);
  EXPECT_NEAR(s.at("ssim").get<double>(), 1.0, 1e-12);
  EXPECT_EQ(s.at("flicker").get<double>(), s.at("clean_flicker").get<double>());
  EXPECT_EQ(s.at("from"), 1);
  EXPECT_EQ(s.at("to"), kFrames - 1);
}

// clean + 3 everywhere (the set's clean values stay below 216, so nothing clips): MSE 9.
TEST_F(DenoiseQuality, ConstantOffsetGivesItsPsnrAndTheDefinitionsSsim) {
  auto bytes = read_bytes(clean("zoom"));
  for (auto& b : bytes) {
    ASSERT_LE(b, 252);
    b = static_cast<std::uint8_t>(b + 3);
  }
  write_bytes(dir_ / "offset.gray", bytes);
  const auto s = score_json(clean("zoom"), dir_ / "offset.gray", 1);
  EXPECT_NEAR(s.at("psnr").get<double>(), 10 * std::log10(255.0 * 255.0 / 9.0), 1e-9);
  EXPECT_EQ(s.at("flicker").get<double>(), s.at("clean_flicker").get<double>());
  const auto c = read_bytes(clean("zoom"));
  double ssim = 0;
  for (int n = 1; n < kFrames; ++n) ssim += naive_ssim(c.data() + n * kFrameBytes, bytes.data() + n * kFrameBytes);
  EXPECT_NEAR(s.at("ssim").get<double>(), ssim / (kFrames - 1), 1e-5);
}

// The noisy input scored: SSIM as defined, PSNR and flicker (mean |f(n) - f(n-1)|) as defined.
TEST_F(DenoiseQuality, ScoresOfANoisyInputFollowTheDefinitions) {
  const auto c = read_bytes(clean("objects"));
  const auto t = read_bytes(noisy("objects", 20));
  const int from = 3;
  double ssim = 0, psnr = 0, flicker = 0, clean_flicker = 0;
  for (int n = from; n < kFrames; ++n) {
    const std::size_t at = n * kFrameBytes;
    ssim += naive_ssim(c.data() + at, t.data() + at);
    double squares = 0, moved = 0, clean_moved = 0;
    for (std::size_t i = 0; i < kFrameBytes; ++i) {
      squares += std::pow(static_cast<double>(t[at + i]) - c[at + i], 2);
      moved += std::abs(static_cast<double>(t[at + i]) - t[at + i - kFrameBytes]);
      clean_moved += std::abs(static_cast<double>(c[at + i]) - c[at + i - kFrameBytes]);
    }
    psnr += 10 * std::log10(255.0 * 255.0 / (squares / kFrameBytes));
    flicker += moved / kFrameBytes;
    clean_flicker += clean_moved / kFrameBytes;
  }
  const int count = kFrames - from;
  const auto s = score_json(clean("objects"), noisy("objects", 20), from);
  EXPECT_NEAR(s.at("psnr").get<double>(), psnr / count, 1e-9);
  EXPECT_NEAR(s.at("ssim").get<double>(), ssim / count, 1e-5);
  EXPECT_NEAR(s.at("flicker").get<double>(), flicker / count, 1e-9);
  EXPECT_NEAR(s.at("clean_flicker").get<double>(), clean_flicker / count, 1e-9);
}

TEST_F(DenoiseQuality, TemporalDenoiseOnTheCpuImprovesPsnr) {
  for (const std::string sequence : {"pan_2_1", "static"}) {
    const auto out = dir_ / (sequence + ".denoised.gray");
    const Result r = run_tool({"denoise", noisy(sequence, 20).string(), out.string(), "--size", kSize, "--device",
                               "cpu", "--method", "temporal", "--h", "20", "--frames", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(fs::file_size(out), kFrameBytes * kFrames);
    const double before = score_json(clean(sequence), noisy(sequence, 20), 2).at("psnr");
    const double after = score_json(clean(sequence), out, 2).at("psnr");
    EXPECT_GT(after, before + 1.0) << sequence;
  }
}

TEST_F(DenoiseQuality, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_tool({"score", clean("zoom").string(), clean("zoom").string(), "--size", "64x49"}).exit_code, 2);
  EXPECT_EQ(run_tool({"score", clean("zoom").string(), clean("zoom").string(), "--size", "64x48", "--to", "8"}).exit_code, 2);
  EXPECT_EQ(run_tool({"denoise", "missing.gray", "out.gray", "--size", kSize, "--method", "temporal"}).exit_code, 2);
  EXPECT_EQ(run_tool({"denoise", noisy("zoom", 10).string(), (dir_ / "x.gray").string(), "--size", kSize, "--method",
                      "temporal", "--device", "gpu"}).exit_code, 2);
  EXPECT_EQ(run_tool({"matrix", (dir_ / "nothing").string(), "--json", (dir_ / "m.json").string()}).exit_code, 2);
}

}  // namespace
