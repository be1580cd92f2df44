// table: the results of `matrix` (the project's ops) and `ffmpeg-matrix` (FFmpeg's filters)
// as one markdown report: each method at its picked setting, the noisy input as reference,
// and the comparisons issue 34 sets as goals.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "tools/denoise_quality/commands.hpp"
#include "tools/denoise_quality/sweep_results.hpp"

namespace fp::quality {

namespace {

using nlohmann::json;

json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UsageError(fmt::format("{}: cannot read", file.string()));
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: not JSON: {}", file.string(), e.what()));
  }
}

std::string text(const json& object, const char* key) { return object.at(key).get<std::string>(); }

struct Column {
  std::string id;
  std::string label;
};

// Both files' scores, each method at its pick.
class Report {
 public:
  Report(const json& gpu, const json& ffmpeg) {
    for (const json* doc : {&gpu, &ffmpeg}) {
      for (const auto& m : doc->at("methods")) methods_.push_back({text(m, "id"), text(m, "label")});
      for (const auto& p : doc->at("picks")) picks_[{text(p, "method"), p.at("sigma").get<int>()}] = p;
      for (const auto& r : doc->at("results"))
        results_[{text(r, "method"), r.at("sigma").get<int>(), text(r, "setting"), text(r, "sequence")}] = r;
    }
    for (const auto& n : gpu.at("noisy")) noisy_[{n.at("sigma").get<int>(), text(n, "sequence")}] = n;
    sequences_ = gpu.at("set").at("sequences").get<std::vector<std::string>>();
    sigmas_ = gpu.at("set").at("sigmas").get<std::vector<int>>();
  }

  const std::vector<Column>& methods() const { return methods_; }
  const std::vector<std::string>& sequences() const { return sequences_; }
  const std::vector<int>& sigmas() const { return sigmas_; }
  bool has(const std::string& method) const {
    for (const Column& c : methods_)
      if (c.id == method) return true;
    return false;
  }
  const json& pick(const std::string& method, int sigma) const { return picks_.at({method, sigma}); }
  // The method's score on the sequence at its picked setting; sequence "" is the mean.
  double value(const std::string& method, int sigma, const std::string& sequence, const char* what) const {
    if (sequence.empty()) return mean(method, sigma, what);
    if (method == "noisy") return noisy_.at({sigma, sequence}).at(what).get<double>();
    const std::string setting = text(pick(method, sigma), "setting");
    return results_.at({method, sigma, setting, sequence}).at(what).get<double>();
  }
  double mean(const std::string& method, int sigma, const char* what) const {
    double sum = 0;
    for (const auto& s : sequences_) sum += value(method, sigma, s, what);
    return sum / static_cast<double>(sequences_.size());
  }

 private:
  std::vector<Column> methods_;
  std::map<std::tuple<std::string, int>, json> picks_;
  std::map<std::tuple<std::string, int, std::string, std::string>, json> results_;
  std::map<std::tuple<int, std::string>, json> noisy_;
  std::vector<std::string> sequences_;
  std::vector<int> sigmas_;
};

// A markdown table: the first column left-aligned, the others right-aligned.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream out;
  out << "| " << fmt::format("{}", fmt::join(header, " | ")) << " |\n|";
  for (std::size_t i = 0; i < header.size(); ++i) out << (i == 0 ? " --- |" : " ---: |");
  out << "\n";
  for (const auto& row : rows) out << "| " << fmt::format("{}", fmt::join(row, " | ")) << " |\n";
  return out.str();
}

// Rows: the sequences, then the average ("" to Report::value).
std::vector<std::pair<std::string, std::string>> row_names(const Report& r) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& s : r.sequences()) rows.push_back({s, s});
  rows.push_back({"**average**", ""});
  return rows;
}

std::string scores_table(const Report& r, int sigma, bool with_ssim) {
  std::vector<std::string> header = {"sequence", "noisy input"};
  for (const auto& m : r.methods()) header.push_back(m.label);
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, sequence] : row_names(r)) {
    std::vector<std::string> row = {name};
    auto cell = [&](const std::string& method) {
      const double psnr = r.value(method, sigma, sequence, "psnr");
      return with_ssim ? fmt::format("{:.2f} / {:.3f}", psnr, r.value(method, sigma, sequence, "ssim"))
                       : fmt::format("{:.2f}", psnr);
    };
    row.push_back(cell("noisy"));
    for (const auto& m : r.methods()) row.push_back(cell(m.id));
    rows.push_back(row);
  }
  return markdown_table(header, rows);
}

std::string setting_text(const json& pick) {
  const json& params = pick.at("params");
  std::string setting = text(pick, "setting");
  if (params.contains("h_over_sigma"))
    setting = fmt::format("h={:g} ({:g} sigma)", params.at("h").get<double>(), params.at("h_over_sigma").get<double>());
  else if (params.contains("strength"))
    setting = fmt::format("`{}` ({})", setting, params.at("strength").get<std::string>());
  if (on_grid_edge(pick.at("grid_index").get<int>(), pick.at("grid_size").get<int>())) setting += ", grid's edge";
  return setting;
}

std::string settings_table(const Report& r) {
  std::vector<std::string> header = {"method"};
  for (int sigma : r.sigmas()) header.push_back(fmt::format("sigma {}", sigma));
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : r.methods()) {
    std::vector<std::string> row = {m.label};
    for (int sigma : r.sigmas()) {
      const json& pick = r.pick(m.id, sigma);
      row.push_back(fmt::format("{}: {:.2f} dB", setting_text(pick), pick.at("mean_psnr").get<double>()));
    }
    rows.push_back(row);
  }
  return markdown_table(header, rows);
}

std::string flicker_table(const Report& r, const std::string& sequence) {
  std::vector<std::string> header = {"on `" + sequence + "`"};
  for (int sigma : r.sigmas()) header.push_back(fmt::format("sigma {}", sigma));
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> clean = {"clean"};
  for (int sigma : r.sigmas()) clean.push_back(fmt::format("{:.3f}", r.value("noisy", sigma, sequence, "clean_flicker")));
  rows.push_back(clean);
  std::vector<Column> all = {{"noisy", "noisy input"}};
  all.insert(all.end(), r.methods().begin(), r.methods().end());
  for (const auto& m : all) {
    std::vector<std::string> row = {m.label};
    for (int sigma : r.sigmas()) row.push_back(fmt::format("{:.3f}", r.value(m.id, sigma, sequence, "flicker")));
    rows.push_back(row);
  }
  return markdown_table(header, rows);
}

std::string signed_db(double d) { return fmt::format("{:+.2f}", d); }

// temporal K=4 minus spatial nlmeans, PSNR, per sequence and sigma.
std::string k4_gain_table(const Report& r) {
  std::vector<std::string> header = {"sequence"};
  for (int sigma : r.sigmas()) header.push_back(fmt::format("sigma {}", sigma));
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, sequence] : row_names(r)) {
    std::vector<std::string> row = {name};
    for (int sigma : r.sigmas())
      row.push_back(signed_db(r.value("temporal_k4", sigma, sequence, "psnr") - r.value("nlmeans", sigma, sequence, "psnr")));
    rows.push_back(row);
  }
  return markdown_table(header, rows);
}

// temporal K=4 minus each FFmpeg filter, PSNR, with whether K=4 is ahead; and a count.
std::string k4_against_ffmpeg(const Report& r, const std::vector<std::string>& filters) {
  std::vector<std::string> header = {"sequence"};
  for (int sigma : r.sigmas())
    for (const auto& f : filters) header.push_back(fmt::format("vs {} sigma {}", f, sigma));
  std::vector<std::vector<std::string>> rows;
  std::map<std::pair<int, std::string>, int> wins;
  for (const auto& [name, sequence] : row_names(r)) {
    std::vector<std::string> row = {name};
    for (int sigma : r.sigmas())
      for (const auto& f : filters) {
        const double d = r.value("temporal_k4", sigma, sequence, "psnr") - r.value(f, sigma, sequence, "psnr");
        if (!sequence.empty() && d > 0) ++wins[{sigma, f}];
        row.push_back(fmt::format("{} {}", signed_db(d), d > 0 ? "yes" : "**no**"));
      }
    rows.push_back(row);
  }
  std::string text = markdown_table(header, rows) + "\n";
  for (int sigma : r.sigmas())
    for (const auto& f : filters)
      text += fmt::format("- sigma {}: temporal K=4 beats {} on {} of {} sequences\n", sigma, f, wins[{sigma, f}],
                          r.sequences().size());
  return text;
}

// The two files must describe the same set: same size, frames, sequences, sigmas, frames scored.
std::string check_same_set(const json& gpu, const json& ffmpeg, const TableArgs& args) {
  const json& a = gpu.at("set");
  const json& b = ffmpeg.at("set");
  for (const char* key : {"width", "height", "frames", "sequences", "sigmas"})
    if (a.at(key) != b.at(key))
      throw UsageError(fmt::format("{} and {} were measured on different sets ({}: {} and {})", args.gpu_json.string(),
                                   args.ffmpeg_json.string(), key, a.at(key).dump(), b.at(key).dump()));
  if (gpu.at("scored_frames") != ffmpeg.at("scored_frames"))
    throw UsageError("the two files scored different frames: run both with the same --from/--to");
  if (a.at("checksum") != b.at("checksum")) {
    const std::string warning = fmt::format(
        "the two sets' checksums differ ({} and {}): they were made with the same parameters but are not "
        "byte-identical (another C++ library's random distributions?); compare with care",
        a.at("checksum").get<std::string>(), b.at("checksum").get<std::string>());
    fmt::print(stderr, "denoise-quality: warning: {}\n", warning);
    return "**Warning:** " + warning + ".\n\n";
  }
  return {};
}

}  // namespace

int table_command(const TableArgs& args) {
  const json gpu = read_json(args.gpu_json);
  const json ffmpeg = read_json(args.ffmpeg_json);
  const std::string warning = check_same_set(gpu, ffmpeg, args);
  const Report r(gpu, ffmpeg);
  const json& set = gpu.at("set");
  const int from = gpu.at("scored_frames").at("from");
  const int to = gpu.at("scored_frames").at("to");
  const int main_sigma = 20;
  std::ostringstream md;
  md << "# Denoise quality: temporal_nlmeans against nlmeans, hqdn3d and atadenoise\n\n" << warning;
  md << fmt::format(
      "Made by `tools/denoise-quality.sh` (tools/denoise_quality/): {} synthetic sequences of {} frames {}x{} "
      "(`denoise-quality make-set`, set checksum `{}`), Gaussian noise of sigma {}. Scores are means over frames "
      "{}..{} (the first frames have no history yet). PSNR in dB, SSIM (Wang et al. 2004, 11x11 Gaussian window of "
      "sigma 1.5) on 8-bit luma.\n\n",
      r.sequences().size(), set.at("frames").get<int>(), set.at("width").get<int>(), set.at("height").get<int>(),
      set.at("checksum").get<std::string>(), fmt::join(r.sigmas(), ", "), from, to);
  md << fmt::format("- NL-means ops: framepipe's, on {} (`{}`)\n", gpu.at("device").get<std::string>(),
                    args.gpu_json.filename().string());
  md << fmt::format("- FFmpeg filters: {} (`{}`); atadenoise also reads 4 frames ahead (s=9, centred)\n",
                    ffmpeg.at("device").get<std::string>(), args.ffmpeg_json.filename().string());
  md << fmt::format("- Settings: {}. NL-means: h from 0.6 to 2 sigma; hqdn3d: 1x to 32x its default strengths; "
                    "atadenoise: 1x to 15x its default thresholds (0a up to its maximum, 0.3). A pick at a grid's "
                    "edge (marked below) may not be that method's best.\n\n",
                    gpu.at("rule").get<std::string>());

  md << fmt::format("## Sigma {}: PSNR dB / SSIM\n\n{}\n", main_sigma, scores_table(r, main_sigma, true));
  for (int sigma : r.sigmas())
    if (sigma != main_sigma) md << fmt::format("## Sigma {}: PSNR dB\n\n{}\n", sigma, scores_table(r, sigma, false));
  md << "## Settings picked (and their mean PSNR over the sequences)\n\n" << settings_table(r) << "\n";
  md << fmt::format("## Flicker on `static`\n\nMean over frames {}..{} of the mean |f(n) - f(n-1)| over pixels, in "
                    "gray levels: what a still scene should not show (the clean one shows 0).\n\n{}\n",
                    from, to, flicker_table(r, "static"));
  md << "## Goals\n\n";
  if (r.has("temporal_k4") && r.has("nlmeans"))
    md << "### Temporal K=4 minus spatial nlmeans, PSNR dB\n\n" << k4_gain_table(r) << "\n";
  std::vector<std::string> filters;
  for (const char* f : {"hqdn3d", "atadenoise"})
    if (r.has(f)) filters.push_back(f);
  if (r.has("temporal_k4") && !filters.empty())
    md << "### Temporal K=4 against FFmpeg's filters, PSNR dB (K=4 minus the filter; yes: K=4 is better)\n\n"
       << k4_against_ffmpeg(r, filters);
  std::ofstream out(args.markdown, std::ios::trunc);
  out << md.str();
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", args.markdown.string()));
  fmt::print("{}\n", args.markdown.string());
  return 0;
}

}  // namespace fp::quality
