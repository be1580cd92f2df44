// What README.md and docs/ show, run: every command of a ```sh (or bash) block runs here through the
// real CLI (with the substitutions below for what this machine lacks) and exits as the docs
// say, every pipeline of a ```yaml block validates, and `framepipe run`'s options table is
// its --help. A new example is picked up by itself: it runs, or it is listed below with the
// reason it cannot, or it is one of README's service examples that
// tests/service/test_serve_docs.cpp runs (tests/e2e/serve_docs_commands.hpp), or the test
// fails, so an example cannot rot unnoticed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/e2e/cli_runner.hpp"
#include "tests/e2e/doc_fences.hpp"
#include "tests/e2e/serve_docs_commands.hpp"
#include "tests/ffmpeg_muxers.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// `framepipe run` examples stop after this many frames (their --frames is lowered, or added).
constexpr int kFrames = 3;

// What the examples read or write that this machine has not, and what they get instead.
// Each command runs in a directory of its own holding `config/` (the repository's),
// `clip.mp4` (kClipPipeline's output), `bad.yaml` (kBadPipeline) and an empty `live/`, so
// relative outputs land there. Kept as written: udp:// outputs (UDP needs no receiver),
// testsrc:// inputs, every other option. `after` is the option whose value is replaced ("":
// any argument); `pattern` must match the whole argument.
struct Substitution {
  const char* after;
  const char* pattern;      // ECMAScript
  const char* replacement;  // std::regex_replace format
  const char* why;
  int exit_code = 0;        // the exit code the docs promise for the command then
  const char* output = "";  // a pattern its output must contain
};

const Substitution kSubstitutions[] = {
    {"-i", R"((rtsp|v4l2)://.*)", "clip.mp4", "no camera or RTSP server here: a small video file instead"},
    {"-i", R"((noisy|cam[0-9]+|recordings/.*)\.mp4)", "clip.mp4", "the reader's own video files"},
    {"", R"(input\.mp4)", "clip.mp4", "the reader's own video file (probe)"},
    {"-o", R"((srt|rtsp)://.*)", "null", "no SRT listener or RTSP server to take the stream here"},
    {"-o", R"(/var/www/live/(.*))", "live/$1", "a web server's folder: one of the test's own"},
    {"", R"(my_pipeline\.yaml)", "bad.yaml",
     "the reader's own file: one with a mistake, for the error format the docs describe", 2,
     R"(bad\.yaml:[0-9]+:[0-9]+: stages\[[0-9]+\]\.h: )"},
};

const char* const kClipPipeline = R"(device: cpu
input: testsrc://96x64@30?noise=10&frames=6
stages:
  - {id: clip, type: encode, output: clip.mp4}
)";

const char* const kBadPipeline = R"(input: testsrc://96x64@30?frames=6
stages:
  - {id: denoise, type: nlmeans, h: -2}
  - {id: out, type: encode, output: out.mp4}
)";

// Commands that cannot run inside a test, exactly as the docs write them.
struct NotRun {
  const char* command;
  const char* why;
};

const NotRun kNotRunHere[] = {
    {"tools/run-default.sh",
     "installs packages and builds; the pipeline it then runs (`framepipe run config/default.yaml`) runs here"},
    {"tools/run-tests.sh", "builds and runs every test, this one included"},
    {"tools/setup.sh", "installs packages with apt-get (root, the network)"},
    // README "Install": tests/packaging makes the package of this build, installs it with apt
    // into a clean Debian 12 root and checks it there (not systemd as init: no init in a chroot).
    {"tools/make-deb.sh build", "tests/packaging makes the package of this build (its own output folder)"},
    {"sudo apt install ./build/deb/framepipe_0.1.0_amd64.deb",
     "installs into this machine; tests/packaging installs the package into a clean Debian 12 root"},
    {"sudo systemctl enable --now framepipe", "needs systemd as init; tests/packaging runs the unit's ExecStart"},
    {"sudo systemctl reload framepipe", "needs systemd as init; tests/service checks serve's SIGHUP reload"},
    {"journalctl -u framepipe", "needs systemd as init and the service enabled"},
    {"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release", "the build this test is part of"},
    {"cmake --build build -j", "the build this test is part of"},
    {"ctest --test-dir build --output-on-failure --no-tests=error", "runs every test, this one included"},
    {"mkdir -p clean && build/bin/framepipe run batch.yaml --shard 1/3 --stats-json stats-1.json",
     "the reader's batch.yaml and list of files; tests/e2e/test_shard_job_cli.cpp runs 3 such indexes at once over 20 files"},
    // README "Run on Kubernetes": tests/deploy renders these overlays with kubectl kustomize,
    // with a token file of its own, and checks the objects.
    {"head -c 32 /dev/urandom | base64 > deploy/k8s/base/token.txt",
     "writes the reader's API token into the source tree (tests/deploy writes one into its copy)"},
    {"kubectl apply -k deploy/k8s/overlays/gpu", "needs a Kubernetes cluster with GPUs"},
    {"kubectl apply -k deploy/k8s/overlays/cpu", "needs a Kubernetes cluster"},
    {"docker build -f deploy/Containerfile --build-arg FRAMEPIPE_GIT_COMMIT=$(git describe --always --dirty "
     "--abbrev=10) -t framepipe/framepipe:0.1.0 .",
     "no container engine or registry here; tests/image builds the image's root filesystem instead"},
    {"docker run --gpus all -p 8080:8080 --read-only --tmpfs /tmp -v framepipe:/var/lib/framepipe "
     "-v $PWD/token:/run/secrets/framepipe/token:ro framepipe/framepipe:0.1.0",
     "no container engine or GPU here; tests/image runs the image's default command in its root filesystem"},
};


// Subcommands that need a GPU: run only where the binary has one, with these arguments
// added to keep this test short.
struct NeedsGpu {
  const char* subcommand;
  std::vector<std::string> added;
  const char* why;
};

const NeedsGpu kNeedsGpu[] = {
    // The estimate of the bounds: Nsight Compute's pass over every kernel (the default where
    // ncu is installed) takes longer than a docs command may.
    {"bench", {"--runs", "3", "--warmup", "1", "--bounds", "estimate"}, "times the CUDA kernels"},
};

// README.md and every .md under docs/, named relative to the repository.
std::vector<std::pair<fs::path, std::string>> doc_files() {
  const fs::path root(FRAMEPIPE_SOURCE_DIR);
  std::vector<std::pair<fs::path, std::string>> files = {{root / "README.md", "README.md"}};
  for (const auto& entry : fs::recursive_directory_iterator(root / "docs"))
    if (entry.path().extension() == ".md") files.push_back({entry.path(), fs::relative(entry.path(), root).string()});
  std::sort(files.begin() + 1, files.end());
  return files;
}

// The docs' fences in any of `languages`.
std::vector<Fence> doc_fences(const std::set<std::string>& languages) {
  std::vector<Fence> fences;
  for (const auto& [path, name] : doc_files())
    for (auto& fence : read_fences(path, name).fences)
      if (languages.count(fence.language)) fences.push_back(std::move(fence));
  return fences;
}

std::string joined(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) text += (text.empty() ? "" : " ") + a;
  return text;
}

// The words bash makes of `line` in `cwd` ($(...) expanded, quotes removed), after running
// the `setup` commands there.
std::vector<std::string> shell_words(const std::string& setup, const std::string& line, const fs::path& cwd) {
  const std::string script = "cd '" + cwd.string() + "' && " + setup + "printf '%s\\0' " + line;
  const std::string command = "bash -c \"$FP_DOC_SCRIPT\"";
  setenv("FP_DOC_SCRIPT", script.c_str(), 1);  // no quoting of the script itself
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer{};
  for (std::size_t n; pipe != nullptr && (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    out.append(buffer.data(), n);
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  std::vector<std::string> words;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return words;
  for (std::size_t start = 0, end; (end = out.find('\0', start)) != std::string::npos; start = end + 1)
    words.push_back(out.substr(start, end - start));
  return words;
}

// One documented command, made ready to run here.
struct Planned {
  DocCommand doc;
  fs::path dir;
  std::vector<std::string> args;  // framepipe's arguments, substituted
  int exit_code = 0;
  std::string output;
  CommandResult result;
  double seconds = 0;  // how long it ran (printed: what the test's time is made of)
};


std::string fmt_seconds(double seconds) {
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << seconds << " s";
  return text.str();
}

// The `&&`-separated parts of a command line (no quoted && in the docs' commands).
std::vector<std::string> and_list(const std::string& text) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find("&&", start);
    std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    parts.push_back(part);
    if (end == std::string::npos) return parts;
    start = end + 2;
  }
}

TEST(DocCommands, FencesAreClosedAndNamed) {
  for (const auto& [path, name] : doc_files()) {
    const auto fences = read_fences(path, name);
    for (const auto& problem : fences.problems) ADD_FAILURE() << problem;
  }
}

TEST(DocCommands, EveryCommandRunsOrIsListed) {
  TempDir root("doc-commands");
  {
    write_text(root / "clip.yaml", kClipPipeline);
    const auto clip = run_framepipe({"run", "clip.yaml", "--quiet"}, root.path());
    ASSERT_EQ(clip.exit_code, 0) << clip.output;
  }
  const bool gpu = !cli_cuda_device().empty();
  const auto run_by_serve_docs = commands_run_by_serve_docs();
  int left_to_serve_docs = 0;
  std::set<std::string> not_run_used;
  std::set<std::string> substitutions_used;
  std::vector<Planned> planned;
  int listed = 0;
  int commands = 0;
  for (const auto& fence : doc_fences({"sh", "bash", "shell"})) {
    for (const auto& command : shell_commands(fence)) {
      const auto listed_entry = std::find_if(std::begin(kNotRunHere), std::end(kNotRunHere),
                                             [&](const NotRun& n) { return command.text == n.command; });
      if (listed_entry != std::end(kNotRunHere)) {
        not_run_used.insert(listed_entry->command);
        ++listed;
        continue;
      }
      // README's service examples: tests/service/test_serve_docs.cpp runs these, in order,
      // against the documented `framepipe serve` (which runs until drained, so it cannot run
      // here). Only those it runs, by their place: a curl or a server elsewhere runs nowhere.
      if (std::any_of(run_by_serve_docs.begin(), run_by_serve_docs.end(), [&](const DocCommand& c) {
            return c.where == command.where && c.text == command.text;
          })) {
        ++left_to_serve_docs;
        continue;
      }
      // One framepipe call, after `mkdir -p DIR &&` for the folders its outputs need.
      auto parts = and_list(command.text);
      const std::string call = parts.back();
      parts.pop_back();
      std::string setup;
      bool runnable = std::string_view(call).starts_with("framepipe ") || std::string_view(call).starts_with("build/bin/framepipe ");
      for (const auto& part : parts) {
        runnable = runnable && std::string_view(part).starts_with("mkdir -p ");
        setup += part + " && ";
      }
      if (!runnable) {
        ADD_FAILURE() << command.where << ": `" << command.text
                      << "` is neither a framepipe command that this test runs nor listed in kNotRunHere with the "
                         "reason it cannot run here";
        continue;
      }
      Planned plan{command, root / ("command-" + std::to_string(++commands)), {}, 0, "", {}};
      fs::create_directories(plan.dir / "live");
      fs::create_directory_symlink(fs::path(FRAMEPIPE_SOURCE_DIR) / "config", plan.dir / "config");
      fs::create_symlink(root / "clip.mp4", plan.dir / "clip.mp4");
      write_text(plan.dir / "bad.yaml", kBadPipeline);
      auto words = shell_words(setup, call, plan.dir);
      if (words.size() < 2) {
        ADD_FAILURE() << command.where << ": bash could not expand `" << command.text << "`";
        continue;
      }
      words.erase(words.begin());  // the binary: the one under test runs instead
      const std::string subcommand = words.front();
      const auto gpu_entry = std::find_if(std::begin(kNeedsGpu), std::end(kNeedsGpu),
                                          [&](const NeedsGpu& n) { return subcommand == n.subcommand; });
      if (gpu_entry != std::end(kNeedsGpu)) {
        if (!gpu) {
          std::cout << command.where << ": not run: " << gpu_entry->why << " (no GPU here)\n";
          ++listed;
          continue;
        }
        words.insert(words.end(), gpu_entry->added.begin(), gpu_entry->added.end());
      }
      for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string option = i > 0 ? words[i - 1] : "";
        for (const auto& s : kSubstitutions) {
          const std::regex pattern(s.pattern);
          if ((*s.after != '\0' && option != s.after) || !std::regex_match(words[i], pattern)) continue;
          words[i] = std::regex_replace(words[i], pattern, s.replacement);
          plan.exit_code = s.exit_code;
          plan.output = s.output;
          substitutions_used.insert(s.pattern);
          break;
        }
        if (subcommand == "run" && option == "--frames") words[i] = std::to_string(std::min(std::stoi(words[i]), kFrames));
      }
      // The GPU machine's small FFmpeg has no HLS muxer (CI's has: there this runs).
      if (std::any_of(words.begin(), words.end(), [](const std::string& w) { return w.ends_with(".m3u8"); }))
        if (const auto why = missing_muxer("hls"); !why.empty()) {
          std::cout << command.where << ": not run: " << why << "\n";
          ++listed;
          continue;
        }
      if (subcommand == "run" && std::find(words.begin(), words.end(), "--frames") == words.end())
        words.insert(words.end(), {"--frames", std::to_string(kFrames)});
      // Under a sanitizer (FRAMEPIPE_SMALL_SIZES, the presets') a pipeline's own testsrc
      // input larger than 160x90 is given at 160x90 (-i): the same command and stages on
      // fewer pixels. config/default.yaml's 640x360 NL-means took most of this test's two
      // minutes under ThreadSanitizer.
      if (subcommand == "run" && words.size() > 1 && std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr &&
          std::find(words.begin(), words.end(), "-i") == words.end()) {
        static const std::regex testsrc_input(R"((^|\n)input: testsrc://([0-9]+)x([0-9]+)(@[^\s]*))");
        std::smatch found;
        const std::string yaml = read_text(plan.dir / words[1]);
        if (std::regex_search(yaml, found, testsrc_input) && std::stoi(found[2]) * std::stoi(found[3]) > 160 * 90)
          words.insert(words.end(), {"-i", "testsrc://160x90" + found[4].str()});
      }
      plan.args = std::move(words);
      planned.push_back(std::move(plan));
    }
  }

  // A few at a time: each run is short and mostly waits on its threads' hand-overs.
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w)
    workers.emplace_back([&] {
      for (std::size_t i; (i = next++) < planned.size();) {
        const auto started = std::chrono::steady_clock::now();
        planned[i].result =
            run_framepipe_with_timeout(planned[i].args, planned[i].dir, static_cast<int>(time_bound(60)));
        planned[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      }
    });
  for (auto& worker : workers) worker.join();

  for (const auto& plan : planned) {
    const auto& result = plan.result;
    const bool output_ok = plan.output.empty() || std::regex_search(result.output, std::regex(plan.output));
    EXPECT_TRUE(result.exit_code == plan.exit_code && output_ok)
        << plan.doc.where << ": `" << plan.doc.text << "`\n  ran: framepipe " << joined(plan.args) << "\n  exit "
        << result.exit_code << " (the docs say " << plan.exit_code << ")"
        << (output_ok ? "" : ", output without /" + plan.output + "/") << "; output:\n"
        << result.output;
  }
  for (const auto& plan : planned) std::cout << fmt_seconds(plan.seconds) << "  " << plan.doc.where << "\n";
  std::cout << planned.size() << " documented commands run, " << left_to_serve_docs
            << " left to test_serve_docs, " << listed << " not run here (listed)\n";
  EXPECT_GE(planned.size(), 10u) << "the docs' ```sh blocks were not found";
  // Each command test_serve_docs runs was met here and left to it, none of them also listed
  // in kNotRunHere as run nowhere.
  EXPECT_EQ(left_to_serve_docs, static_cast<int>(run_by_serve_docs.size()))
      << "some of the commands test_serve_docs runs were not left to it here";
  EXPECT_GE(left_to_serve_docs, 8) << "README.md's \"Run as a service\" examples were not found";
  // The tables must not outlive what they describe.
  for (const auto& n : kNotRunHere)
    EXPECT_TRUE(not_run_used.count(n.command)) << "kNotRunHere lists `" << n.command << "`, which no doc shows";
  for (const auto& s : kSubstitutions)
    EXPECT_TRUE(substitutions_used.count(s.pattern)) << "kSubstitutions' " << s.pattern << " replaces nothing";
}

// A ```yaml block with `stages:` at its top level is a whole pipeline: it must validate.
TEST(DocCommands, EveryPipelineInTheDocsValidates) {
  TempDir dir("doc-pipelines");
  int pipelines = 0;
  for (const auto& fence : doc_fences({"yaml", "yml"})) {
    std::string text;
    bool whole = false;
    for (const auto& line : fence.lines) {
      text += line.text + "\n";
      whole = whole || std::string_view(line.text).starts_with("stages:");
    }
    if (!whole) continue;
    const std::string file = "pipeline-" + std::to_string(++pipelines) + ".yaml";
    write_text(dir / file, text);
    const auto result = run_framepipe({"validate", file}, dir.path());
    EXPECT_EQ(result.exit_code, 0) << fence.where << ": the pipeline does not validate:\n" << result.output;
  }
  EXPECT_GE(pipelines, 1) << "README.md's pipeline example was not found";
}

// The option names in a text such as "`-i, --input URI`" or "-i,--input TEXT ...".
std::set<std::string> option_names(const std::string& text) {
  std::set<std::string> names;
  static const std::regex option(R"((^|[ ,`])(--?[a-zA-Z][-a-zA-Z]*))");
  for (std::sregex_iterator it(text.begin(), text.end(), option), end; it != end; ++it) names.insert((*it)[2]);
  return names;
}

// README.md's table of `framepipe run FILE` options names exactly the options of
// `framepipe run --help` (--help aside).
TEST(DocCommands, RunOptionsTableIsRunHelp) {
  const std::string readme = read_text(fs::path(FRAMEPIPE_SOURCE_DIR) / "README.md");
  const auto table = readme.find("`framepipe run FILE` options:");
  ASSERT_NE(table, std::string::npos) << "README.md has no table of `framepipe run FILE` options";
  std::set<std::string> documented;
  std::istringstream rows(readme.substr(table));
  bool in_table = false;
  for (std::string row; std::getline(rows, row);) {
    if (row.empty() || row[0] != '|') {
      if (in_table) break;  // the table's end
      continue;             // the line before it
    }
    in_table = true;
    if (!std::string_view(row).starts_with("| `")) continue;  // the header and its rule
    const auto cell = row.substr(3, row.find('`', 3) - 3);
    for (const auto& name : option_names(cell)) documented.insert(name);
  }

  const auto help = run_framepipe({"run", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.output;
  std::set<std::string> offered;
  const auto options = help.output.find("Options:");
  ASSERT_NE(options, std::string::npos) << help.output;
  std::istringstream lines(help.output.substr(options));
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] != '-' || first > 4) continue;
    for (const auto& name : option_names(line.substr(first, line.find(' ', first) - first))) offered.insert(name);
  }
  offered.erase("-h");
  offered.erase("--help");
  for (const auto& name : offered)
    EXPECT_TRUE(documented.count(name)) << "`framepipe run " << name << "` is missing from README.md's options table";
  for (const auto& name : documented)
    EXPECT_TRUE(offered.count(name)) << "README.md's options table has " << name << ", which `framepipe run --help` lacks";
}

}  // namespace
}  // namespace fp::test
