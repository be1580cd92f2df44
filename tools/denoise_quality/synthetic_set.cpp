#include "tools/denoise_quality/synthetic_set.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <random>

#include "tools/denoise_quality/texture.hpp"

namespace fp::quality {

namespace {

using FrameRenderer = std::function<void(int n, std::vector<float>& frame)>;

// Feature size for a frame: 1 at 540 lines (texture.hpp), so a tiny set looks like a
// shrunken large one rather than a crop of it.
double feature_scale(Size size) { return std::min(size.width, size.height) / 540.0; }

// A texture panned by (vx, vy) px a frame from frame `first` on, sampled bilinearly.
FrameRenderer pan(Size size, int frames, double vx, double vy, std::uint32_t seed, int first = 0) {
  const int steps = std::max(frames - 1 - first, 0);
  const int margin = 2;
  auto texture = std::make_shared<Texture>(make_texture(size.width + static_cast<int>(std::abs(vx) * steps) + 2 * margin,
                                                        size.height + static_cast<int>(std::abs(vy) * steps) + 2 * margin,
                                                        seed, feature_scale(size)));
  // Start where the whole path stays inside the texture, whichever way it goes.
  const double ox = margin + (vx < 0 ? -vx * steps : 0);
  const double oy = margin + (vy < 0 ? -vy * steps : 0);
  return [=](int n, std::vector<float>& frame) {
    const double sx = ox + vx * (n - first);
    const double sy = oy + vy * (n - first);
    for (int y = 0; y < size.height; ++y)
      for (int x = 0; x < size.width; ++x)
        frame[static_cast<std::size_t>(y) * size.width + x] = texture->sample(x + sx, y + sy);
  };
}

// Zooming in about the centre by 1% a frame: frame n shows the texture scaled by 1.01^n.
FrameRenderer zoom(Size size, std::uint32_t seed) {
  const int margin = 2;
  auto texture = std::make_shared<Texture>(
      make_texture(size.width + 2 * margin, size.height + 2 * margin, seed, feature_scale(size)));
  return [=](int n, std::vector<float>& frame) {
    const double inverse = std::pow(1.01, -n);
    const double cx = size.width / 2.0;
    const double cy = size.height / 2.0;
    for (int y = 0; y < size.height; ++y)
      for (int x = 0; x < size.width; ++x)
        frame[static_cast<std::size_t>(y) * size.width + x] =
            texture->sample(margin + cx + (x - cx) * inverse, margin + cy + (y - cy) * inverse);
  };
}

// An object: a shape carrying its own texture, moving at constant (sub-pixel) speed.
struct MovingObject {
  double mx, my;      // centre at the middle frame
  double vx, vy;      // px a frame
  double rx, ry;      // radii of its ellipse
  bool box;           // a rounded box instead of an ellipse
  double tx, ty;      // where its texture is read
  double brightness;  // added to its texture, so that it stands out from the background
};

FrameRenderer objects(Size size, int frames, std::uint32_t seed) {
  const double scale = feature_scale(size);
  auto background = std::make_shared<Texture>(make_texture(size.width, size.height, seed, scale));
  auto skin = std::make_shared<Texture>(make_texture(size.width, size.height, seed + 1, scale));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const double side = std::min(size.width, size.height);
  std::vector<MovingObject> list;
  for (int i = 0; i < 6; ++i) {
    MovingObject o{};
    o.mx = size.width * (0.15 + 0.7 * unit(rng));
    o.my = size.height * (0.15 + 0.7 * unit(rng));
    // Speeds 0.7 .. 5 px a frame in any direction, never a whole number of pixels.
    const double speed = 0.7 + 4.3 * unit(rng);
    const double direction = unit(rng) * 2 * std::acos(-1.0);
    o.vx = speed * std::cos(direction);
    o.vy = speed * std::sin(direction);
    o.rx = side * (0.06 + 0.1 * unit(rng));
    o.ry = o.rx * (0.5 + 0.5 * unit(rng));
    o.box = unit(rng) < 0.5;
    o.tx = unit(rng) * (size.width - 2 * o.rx) + o.rx;
    o.ty = unit(rng) * (size.height - 2 * o.ry) + o.ry;
    o.brightness = (unit(rng) < 0.5 ? -1 : 1) * (10 + 20 * unit(rng));
    list.push_back(o);
  }
  const double middle = (frames - 1) / 2.0;
  return [=](int n, std::vector<float>& frame) {
    for (int y = 0; y < size.height; ++y)
      for (int x = 0; x < size.width; ++x) frame[static_cast<std::size_t>(y) * size.width + x] = background->at(x, y);
    for (const MovingObject& o : list) {
      const double cx = o.mx + o.vx * (n - middle);
      const double cy = o.my + o.vy * (n - middle);
      const int x0 = std::max(0, static_cast<int>(cx - o.rx - 2));
      const int x1 = std::min(size.width - 1, static_cast<int>(cx + o.rx + 2));
      const int y0 = std::max(0, static_cast<int>(cy - o.ry - 2));
      const int y1 = std::min(size.height - 1, static_cast<int>(cy + o.ry + 2));
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
          const double u = x - cx;
          const double v = y - cy;
          double distance;  // signed, in pixels, negative inside
          if (o.box) {
            const double corner = 0.3 * std::min(o.rx, o.ry);
            const double qx = std::abs(u) - (o.rx - corner);
            const double qy = std::abs(v) - (o.ry - corner);
            distance = std::hypot(std::max(qx, 0.0), std::max(qy, 0.0)) + std::min(std::max(qx, qy), 0.0) - corner;
          } else {
            distance = (std::hypot(u / o.rx, v / o.ry) - 1) * std::min(o.rx, o.ry);
          }
          const double cover = std::clamp(0.5 - distance, 0.0, 1.0);
          if (cover <= 0) continue;
          const double inside = std::clamp(skin->sample(o.tx + u, o.ty + v) + o.brightness,
                                           static_cast<double>(kTextureMin), static_cast<double>(kTextureMax));
          float& pixel = frame[static_cast<std::size_t>(y) * size.width + x];
          pixel = static_cast<float>(pixel + (inside - pixel) * cover);
        }
    }
  };
}

// Two renderers, switching at frame `at`.
FrameRenderer cut(FrameRenderer before, FrameRenderer after, int at) {
  return [=](int n, std::vector<float>& frame) { (n < at ? before : after)(n, frame); };
}

FrameRenderer renderer(const std::string& name, Size size, int frames) {
  if (name == "pan_2_1") return pan(size, frames, 2, 1, 101);
  if (name == "pan_8_3") return pan(size, frames, 8, 3, 102);
  if (name == "pan_40_0") return pan(size, frames, 40, 0, 103);
  if (name == "zoom") return zoom(size, 104);
  if (name == "objects") return objects(size, frames, 105);
  if (name == "static") return pan(size, frames, 0, 0, 106);
  if (name == "cut") return cut(pan(size, frames, 2, 1, 107), pan(size, frames, 2, 1, 108, frames / 2), frames / 2);
  throw std::logic_error("no renderer for sequence " + name);
}

std::uint8_t to_byte(float value) { return static_cast<std::uint8_t>(std::clamp(std::floor(value + 0.5f), 0.0f, 255.0f)); }

// FNV-1a, 64 bits: enough to tell two sets apart, no dependency.
class Checksum {
 public:
  void add(const std::uint8_t* data, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) hash_ = (hash_ ^ data[i]) * 0x100000001B3ull;
  }
  std::string hex() const { return fmt::format("{:016x}", hash_); }

 private:
  std::uint64_t hash_ = 0xCBF29CE484222325ull;
};

// One output file, written frame by frame.
struct OutputFile {
  std::string name;
  std::ofstream stream;
  Checksum checksum;
  void write(const std::vector<std::uint8_t>& frame) {
    stream.write(reinterpret_cast<const char*>(frame.data()), static_cast<std::streamsize>(frame.size()));
    checksum.add(frame.data(), frame.size());
  }
};

}  // namespace

std::string clean_file(const std::string& sequence) { return sequence + ".clean.gray"; }
std::string noisy_file(const std::string& sequence, int sigma) { return fmt::format("{}.s{}.gray", sequence, sigma); }

void make_set(const std::filesystem::path& dir, Size size, int frames) {
  std::filesystem::create_directories(dir);
  nlohmann::json files = nlohmann::json::object();
  const std::size_t pixels = static_cast<std::size_t>(size.width) * size.height;
  const auto& names = sequence_names();
  for (std::size_t s = 0; s < names.size(); ++s) {
    const FrameRenderer render = renderer(names[s], size, frames);
    std::vector<OutputFile> outputs(kSigmas.size() + 1);
    outputs[0].name = clean_file(names[s]);
    // Each sequence and sigma its own noise, from its own seed; one generator runs through
    // all frames, so the noise of every frame is independent of every other's.
    std::vector<std::mt19937> noise;
    for (std::size_t i = 0; i < kSigmas.size(); ++i) {
      outputs[i + 1].name = noisy_file(names[s], kSigmas[i]);
      noise.emplace_back(static_cast<std::uint32_t>(20240 + 1000 * s + kSigmas[i]));
    }
    for (auto& out : outputs) {
      out.stream.open(dir / out.name, std::ios::binary | std::ios::trunc);
      if (!out.stream) throw std::runtime_error(fmt::format("cannot write {}", (dir / out.name).string()));
    }
    std::vector<float> clean(pixels);
    std::vector<std::uint8_t> bytes(pixels);
    for (int n = 0; n < frames; ++n) {
      render(n, clean);
      std::transform(clean.begin(), clean.end(), bytes.begin(), to_byte);
      outputs[0].write(bytes);
      for (std::size_t i = 0; i < kSigmas.size(); ++i) {
        std::normal_distribution<float> gaussian(0.0f, static_cast<float>(kSigmas[i]));
        for (std::size_t p = 0; p < pixels; ++p) bytes[p] = to_byte(clean[p] + gaussian(noise[i]));
        outputs[i + 1].write(bytes);
      }
    }
    for (auto& out : outputs) {
      out.stream.close();
      if (!out.stream) throw std::runtime_error(fmt::format("write of {} failed", (dir / out.name).string()));
      files[out.name] = out.checksum.hex();
    }
  }
  Checksum all;
  for (const auto& [name, sum] : files.items()) {
    const std::string text = name + ":" + sum.get<std::string>() + "\n";
    all.add(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  }
  const nlohmann::json manifest = {
      {"generator", "denoise-quality make-set (tools/denoise_quality/synthetic_set.cpp)"},
      {"width", size.width},
      {"height", size.height},
      {"frames", frames},
      {"sequences", names},
      {"sigmas", kSigmas},
      {"files", files},
      {"checksum", all.hex()},
  };
  std::ofstream out(dir / kManifestFile, std::ios::trunc);
  out << manifest.dump(2) << "\n";
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", (dir / kManifestFile).string()));
}

SetInfo read_set_info(const std::filesystem::path& dir) {
  std::ifstream in(dir / kManifestFile);
  if (!in) throw UsageError(fmt::format("{}: no {} (make it with `denoise-quality make-set {}`)", dir.string(),
                                        kManifestFile, dir.string()));
  const auto manifest = nlohmann::json::parse(in);
  SetInfo info;
  info.size = {manifest.at("width").get<int>(), manifest.at("height").get<int>()};
  info.frames = manifest.at("frames").get<int>();
  info.sequences = manifest.at("sequences").get<std::vector<std::string>>();
  info.sigmas = manifest.at("sigmas").get<std::vector<int>>();
  info.checksum = manifest.at("checksum").get<std::string>();
  return info;
}

}  // namespace fp::quality
