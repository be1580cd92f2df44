// The synthetic test set: seven clean sequences, each with Gaussian noise of three sigmas.
// Everything is computed from fixed seeds, so any machine makes the same files (set.json
// records a checksum of each, which the result files carry, to show that two results were
// measured on the same bytes).
//
//   pan_2_1   a textured still panned 2 px right and 1 px down a frame
//   pan_8_3   the same at 8, 3 px a frame
//   pan_40_0  40 px a frame: beyond temporal_nlmeans' +-32 px motion search
//   zoom      a slow zoom in, 1% a frame (sub-pixel motion everywhere, varying over the frame)
//   objects   six textured objects moving independently (sub-pixel speeds) over a still
//             textured background: occlusions, uncovered background
//   static    one still image
//   cut       pan_2_1 of texture A, then from the middle frame (20 of 40) texture B panned
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/denoise_quality/gray_video.hpp"

namespace fp::quality {

inline const std::vector<std::string>& sequence_names() {
  static const std::vector<std::string> names = {"pan_2_1", "pan_8_3", "pan_40_0", "zoom", "objects", "static", "cut"};
  return names;
}
inline constexpr std::array<int, 3> kSigmas = {10, 20, 30};

// File names inside a set's folder.
std::string clean_file(const std::string& sequence);
std::string noisy_file(const std::string& sequence, int sigma);  // NAME.sSIGMA.gray
inline constexpr const char* kManifestFile = "set.json";

// Writes every file of the set and set.json into `dir` (created if missing).
void make_set(const std::filesystem::path& dir, Size size, int frames);

// What set.json says: the size, the frames, and each file's checksum.
struct SetInfo {
  Size size;
  int frames = 0;
  std::vector<std::string> sequences;
  std::vector<int> sigmas;
  std::string checksum;  // of all files together: equal sets have equal checksums
};
SetInfo read_set_info(const std::filesystem::path& dir);

}  // namespace fp::quality
