// framepipe: real-time video pipelines described in YAML. This file only declares the
// command line (CLI11); the commands live in their own files.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pipeline/definition/config_error.hpp"
#include "stages/registry.hpp"
#include "tools/framepipe/cli_docs/bash_completion.hpp"
#include "tools/framepipe/cli_docs/man_page.hpp"
#include "tools/framepipe/commands.hpp"
#include "tools/framepipe/finite_number.hpp"
#include "tools/framepipe/interrupt.hpp"
#include "tools/framepipe/reload_signal.hpp"
#include "tools/framepipe/masked_logs.hpp"
#include "tools/framepipe/bench/pipeline_bench.hpp"
#ifdef FRAMEPIPE_WITH_CUDA
#include "tools/framepipe/bench/bench_command.hpp"
#endif

namespace {

void add_override_options(CLI::App& cmd, fp::ConfigOverrides& overrides) {
  cmd.add_option("-i,--input", overrides.inputs,
                 "Replace the pipeline's input (file, rtsp://, v4l2://, testsrc://); repeat it to run the pipeline on "
                 "several inputs at once, one stream each (outputs then need {stream} in their paths)")
      ->allow_extra_args(false);
  cmd.add_option("-o,--output", overrides.output, "Replace the output path of the first encode stage");
  cmd.add_option("--set", overrides.sets, "Set a stage parameter: ID.PARAM=VALUE (repeatable)")
      ->type_name("ID.PARAM=VALUE")
      ->allow_extra_args(false);
  cmd.add_option("--device", overrides.device, "Run on auto (the first GPU, else the CPU), cpu, cuda or cuda:N; with several inputs, cuda:N,M or "
                 "cuda:all spreads the streams over those GPUs (overrides the file's device)")
      ->type_name("auto|cpu|cuda|cuda:N|cuda:N,M|cuda:all");
  cmd.add_option("--drop", overrides.drop,
                 "When the graph falls behind its input: drop the oldest or newest queued frame, or never "
                 "(the source waits); auto (default): oldest for live inputs, never for files")
      ->type_name("auto|oldest|newest|never");
  cmd.add_option("--decoder", overrides.decoder,
                 "Where inputs are decoded: nvdec (the GPU's video decoder), software, or auto (default: NVDEC when "
                 "the pipeline runs on a GPU and NVDEC takes the stream); sets `decode` of every decode stage")
      ->type_name("auto|nvdec|software");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"framepipe: real-time video pipelines on NVIDIA GPUs (and CPUs), described in YAML", "framepipe"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::function<std::string()>(fp::cli::version_text));
  bool verbose = false;
  const char* const verbose_help = "Log what is opened and used, and FFmpeg's own warnings";
  app.add_flag("-v,--verbose", verbose, verbose_help);

  fp::cli::RunArguments run;
  auto* run_cmd = app.add_subcommand("run", "Run a pipeline file");
  run_cmd->add_option("FILE", run.file, "Pipeline YAML file")->required();
  add_override_options(*run_cmd, run.overrides);
  run_cmd->add_option("--frames", run.frames, "Stop after N frames")->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--stats-json", run.stats_json, "Write run statistics (fps, per-stage times, codecs) as JSON");
  run_cmd->add_flag("-q,--quiet", run.quiet, "Print nothing but errors");
  run_cmd->add_option("--slots", run.slots, "Frames in flight on a GPU, each on its own CUDA stream (default 2)")
      ->check(CLI::Range(1, 16));
  run_cmd->add_option("--jobs", run.jobs,
                      "With several inputs: run at most N streams at once, the others in turn as streams end "
                      "(default, or 0: as many as this machine's free memory, and a GPU's, holds; live inputs "
                      "always run; overrides the file's `jobs`)")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--cost", run.cost,
                      "With several inputs: what a stream of this pipeline costs, the JSON of `framepipe bench "
                      "--pipeline FILE --json COST`. Live inputs that the machine's budget cannot carry are refused "
                      "before anything runs; the other inputs wait until their cost fits (docs/sizing.md)")
      ->type_name("COST");
  run_cmd->add_option("--cpu-budget", run.cpu_budget,
                      "With --cost: the cores the streams may keep busy (default, or 0: the cores this process may "
                      "use, less a tenth)")
      ->check(fp::cli::finite_in(0, 100000));
  run_cmd->add_flag("--fail-fast", run.fail_fast,
                    "With several inputs: the first stream that fails stops the others (default: they go on)");
  run_cmd->add_option("--metrics", run.metrics,
                      "Serve Prometheus metrics at http://ADDR/metrics while the run lasts, as `framepipe serve` "
                      "does (ADDR: PORT listens on 127.0.0.1; HOST:PORT as given; port 0: a free one, printed)")
      ->type_name("ADDR");
  run_cmd->add_option("--shard", run.shard,
                      "Run only this shard's inputs: I/N (0 <= I < N) keeps those whose stream name's rendezvous hash "
                      "picks I of N, so N runs over one input list (an Indexed Job's indexes) process each input "
                      "once; auto: I from the hostname NAME-I, N from FRAMEPIPE_REPLICAS")
      ->type_name("I/N|auto");
  run_cmd->add_flag("--realtime", run.realtime,
                    "Release frames at the input's frame rate, as a camera would (files and testsrc; "
                    "the file's `realtime: true` does the same)");

  fp::cli::ServeArguments serve;
  auto* serve_cmd = app.add_subcommand(
      "serve", "Run as a service: streams added, replaced and removed at runtime over an HTTP API");
  serve_cmd->add_option("PIPELINE", serve.pipelines, "Pipeline YAML files: the templates streams run, each named by its file's stem")
      ->required();
  serve_cmd->add_option("--listen", serve.listen,
                        "Address to serve on: HOST:PORT, [IPv6]:PORT or :PORT (port 0: any free one); anything but a "
                        "loopback address needs --token-file")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  serve_cmd->add_option("--token-file", serve.token_file,
                        "A file holding the bearer token every request must carry (Authorization: Bearer TOKEN)");
  serve_cmd->add_option("--allow-host", serve.allow_hosts,
                        "Without a token: a further name clients may reach the service by (the Host header; "
                        "repeatable; default: loopback names and --listen's address only, which keeps web pages out)")
      ->type_name("HOST")
      ->allow_extra_args(false);
  serve_cmd->add_option("--probe-listen", serve.probe_listen,
                        "Also answer /livez and /readyz (and only those, without the token) on this HOST:PORT, with "
                        "workers of their own: an orchestrator's probes stay answerable whatever the API's clients do")
      ->type_name("HOST:PORT");
  serve_cmd->add_option("--state", serve.state_file,
                        "Keep the streams in this file (written on every change, read at start: a restart brings them back)");
  serve_cmd->add_option("--max-streams", serve.max_streams,
                        "At most N streams at once (default, or 0: as many as this machine's memory holds)");
  serve_cmd->add_option("--cost", serve.costs,
                        "What a stream of a template costs: TEMPLATE=FILE, the JSON of `framepipe bench --pipeline "
                        "TEMPLATE.yaml --json FILE` (repeatable). Its streams then take their cores, GPU time and "
                        "memory from the budget, and one that does not fit is refused (503 capacity, naming the "
                        "resource) or waits (docs/sizing.md)")
      ->type_name("TEMPLATE=FILE")
      ->allow_extra_args(false);
  serve_cmd->add_option("--cpu-budget", serve.cpu_budget,
                        "Cores the streams may keep busy (default, or 0: the cores this process may use, by its "
                        "affinity and cgroup quota, less a tenth, at least one)")
      ->check(fp::cli::finite_in(0, 100000));
  serve_cmd->add_option("--memory-budget", serve.memory_budget_mib,
                        "MiB of host memory the streams may hold; each holds its estimate at the frame size its "
                        "request names (testsrc://WxH, v4l2 size=; 1920x1080 when its URI does not say), checked "
                        "again when its input opens (default, or 0: 80% of what is available at start, and 60% of "
                        "what a ulimit -d leaves)")
      ->check(fp::cli::finite_in(0, 1e9));
  serve_cmd->add_option("--max-waiting", serve.max_waiting,
                        "At most N streams waiting for a place (file inputs, stream-list streams beyond --max-streams); "
                        "a put beyond it is refused with 503 (0: no limit)")
      ->capture_default_str();
  serve_cmd->add_option("--allow-root", serve.allow_roots,
                        "A folder whose files (file://, plain paths, v4l2://) streams may read (repeatable; default: "
                        "only network inputs and testsrc://)")
      ->allow_extra_args(false);
  serve_cmd->add_option("--output-root", serve.output_root,
                        "The folder every output path is relative to, and stays in (default: ./framepipe-output, made "
                        "at start); no output may be a template, --state, --stream-list or --token-file, or lie in "
                        "their folders");
  serve_cmd->add_option("--max-input-size", serve.max_input_size,
                        "The largest input frame a stream may have, either way round (a larger testsrc:// or v4l2:// "
                        "size is refused with 422; a larger file or camera fails its stream when it opens)")
      ->type_name("WxH")
      ->capture_default_str();
  serve_cmd->add_option("--max-input-fps", serve.max_input_fps,
                        "The highest frame rate a stream's input may ask for (testsrc://, v4l2://...?fps=; beyond it: 422)")
      ->check(fp::cli::finite_in(0, 1000, true))
      ->capture_default_str();
  serve_cmd->add_option("--drain-timeout", serve.drain_timeout,
                        "Seconds a drain (SIGTERM, Ctrl-C, POST /v1/drain) may take to finalize every stream (else exit 1)")
      ->check(fp::cli::finite_in(0, 86400, true))
      ->capture_default_str();
  serve_cmd->add_option("--restart-wait", serve.restart_wait,
                        "Seconds a live stream that failed (its camera off when added, or lost beyond its input's own "
                        "reconnect attempts) waits before it is started again; twice as long after each further "
                        "failure, starting over once it has run for a minute")
      ->check(fp::cli::finite_in(0, 86400, true))
      ->capture_default_str();
  serve_cmd->add_option("--restart-wait-max", serve.restart_wait_max,
                        "The longest wait before a failed live stream is started again, in seconds")
      ->check(fp::cli::finite_in(0, 86400, true))
      ->capture_default_str();
  serve_cmd->add_option("--device", serve.device, "Run the streams on auto, cpu, cuda, cuda:N, cuda:N,M or cuda:all")
      ->type_name("auto|cpu|cuda|cuda:N|cuda:N,M|cuda:all")
      ->capture_default_str();
  serve_cmd->add_option("--deepstream-pipeline", serve.deepstream_pipeline,
                        "The template DeepStream's POST /api/v1/stream/add runs (default: the first pipeline file's)")
      ->type_name("NAME");
  serve_cmd->add_option("--stream-list", serve.stream_list,
                        "A YAML file of the streams to run (streams: [{name, uri, pipeline, set, decode}]), re-read "
                        "every --stream-list-poll seconds and on SIGHUP: only the streams that changed start or stop");
  serve_cmd->add_option("--stream-list-poll", serve.stream_list_poll,
                        "Seconds between reads of --stream-list; 0: read it at start and on SIGHUP only (a large "
                        "list, or one a deployment changes with a reload)")
      ->check(fp::cli::finite_in(0, 86400))
      ->capture_default_str();
  serve_cmd->add_option("--shard", serve.shard,
                        "Run only this process's part of --stream-list: I/N (ordinal I of N processes, rendezvous "
                        "hashing of the names), or auto (I from the hostname NAME-I, N from FRAMEPIPE_REPLICAS)")
      ->type_name("I/N|auto");

  std::string validate_file;
  fp::ConfigOverrides validate_overrides;
  bool validate_quiet = false;
  auto* validate_cmd = app.add_subcommand("validate", "Check a pipeline file without running it");
  validate_cmd->add_option("FILE", validate_file, "Pipeline YAML file")->required();
  add_override_options(*validate_cmd, validate_overrides);
  validate_cmd->add_flag("-q,--quiet", validate_quiet, "Print nothing but errors");

  std::string stage_name;
  auto* stages_cmd = app.add_subcommand("stages", "List the stage types, or one stage's parameters");
  stages_cmd->add_option("NAME", stage_name, "A stage type")->type_name("STAGE");

  std::string probe_uri;
  auto* probe_cmd = app.add_subcommand("probe", "Show the streams of a file or URI and the decoder framepipe would use");
  probe_cmd->add_option("URI", probe_uri, "File, rtsp://, v4l2:// or testsrc:// URI")->required();

  fp::cli::PipelineBenchArguments pipeline_bench;
#ifdef FRAMEPIPE_WITH_CUDA
  fp::cli::BenchArguments bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "Time every CUDA kernel with CUDA events, or (--pipeline) measure what a stream of a pipeline costs "
               "and how many this machine carries (table and JSON)");
  bench_cmd->add_option("--stage", bench.stages, "Only this stage's kernels (repeatable)")->type_name("STAGE");
  bench_cmd->add_option("--size", bench.sizes, "Frame size WxH (repeatable; default 1280x720 1920x1080 3840x2160)")
      ->type_name("WxH");
  bench_cmd->add_option("--runs", bench.runs, "Timed runs per kernel (median and min are reported)")
      ->check(CLI::Range(1, 100000));
  bench_cmd->add_option("--warmup", bench.warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  std::string& bench_json = bench.json;
  bench_cmd
      ->add_option("--bounds", bench.bounds,
                   "What bounds each kernel (SM, memory or SFU throughput, % of peak): ncu (Nsight Compute profiles "
                   "each case once), estimate (the work model next to each case over the median), or auto (default: "
                   "ncu where it is on PATH or at /usr/local/cuda/bin/ncu, else the estimate)")
      ->check(CLI::IsMember({"auto", "ncu", "estimate"}));
  bench_cmd->add_option("--ncu-timeout", bench.ncu_timeout, "Seconds one ncu run (one a frame size) may take")
      ->check(fp::cli::finite_in(1, 86400));
  bench_cmd->add_option("--ncu-log", bench.ncu_log, "Also keep ncu's CSV output in this file");
  bench_cmd->add_flag("--ncu-probe", bench.ncu_probe, "Internal: run each case once for ncu, time nothing")
      ->group("");
  bench_cmd->add_flag("--thinning-tilings", bench.thinning_tilings,
                      "Internal: time thinning once per tiling of its kernel (for tuning its cost model)")
      ->group("");
#else
  // Listed in every build: --pipeline runs anywhere; the kernels' timing says why it cannot.
  auto* bench_cmd = app.add_subcommand(
      "bench", "Measure what a stream of a pipeline costs and how many this machine carries (--pipeline); timing the "
               "CUDA kernels needs a build with CUDA");
  // The kernels' options (--runs, --stage, ...) are taken, so that asking for them says why
  // this build cannot, rather than that they are unknown.
  bench_cmd->allow_extras();
  std::string bench_json;
#endif
  bench_cmd->add_option("--json", bench_json, "Write the results as JSON");
  bench_cmd->add_option("--pipeline", pipeline_bench.file,
                        "Run one stream of this pipeline (a serve template too) on its input, or -i, and report what "
                        "a frame costs (CPU, encoders, GPU, PCIe, memory) and how many streams this machine carries")
      ->type_name("FILE");
  bench_cmd->add_option("-i,--input", pipeline_bench.overrides.inputs, "--pipeline: run it on this input instead")
      ->allow_extra_args(false);
  bench_cmd->add_option("--set", pipeline_bench.overrides.sets, "--pipeline: set a stage parameter (repeatable)")
      ->type_name("ID.PARAM=VALUE")
      ->allow_extra_args(false);
  bench_cmd->add_option("--device", pipeline_bench.overrides.device, "--pipeline: run it on this device")
      ->type_name("auto|cpu|cuda|cuda:N");
  bench_cmd->add_option("--decoder", pipeline_bench.overrides.decoder, "--pipeline: where its inputs are decoded")
      ->type_name("auto|nvdec|software");
  bench_cmd->add_option("--seconds", pipeline_bench.seconds,
                        "--pipeline: seconds measured after 2 s of warm-up (twice over when it encodes: once without "
                        "its encoders)")
      ->check(fp::cli::finite_in(1, 3600));
  bench_cmd->add_flag("--unpaced", pipeline_bench.unpaced,
                      "--pipeline: frames as fast as they come instead of at the input's rate");

  std::string completion_shell;
  auto* completion_cmd = app.add_subcommand(
      "completion", "Print the shell completion script (bash: source <(framepipe completion bash)); packages install it");
  completion_cmd->add_option("SHELL", completion_shell, "The shell")->required()->check(CLI::IsMember({"bash"}));
  // The build's: the man page, written from these same tables (cli_docs/man_page.hpp).
  auto* man_page_cmd = app.add_subcommand("man-page", "Print the man page's generated part (roff)")->group("");

  // -v also after the subcommand (`framepipe run FILE -v`), and in each subcommand's --help.
  for (auto* subcommand : app.get_subcommands([](CLI::App*) { return true; }))
    subcommand->add_flag("-v,--verbose", verbose, verbose_help);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return fp::cli::kUsageError;
  }

  // Before anything slow (reading the pipeline, opening inputs): Ctrl-C (or SIGTERM, or
  // SIGHUP) at any point of a run or a probe is the same orderly interruption, exit 130.
  // For serve, the first signal drains the streams and a second one ends at once; SIGHUP
  // is its reload instead (reload_signal.hpp).
  if (*run_cmd || *probe_cmd || *serve_cmd) fp::cli::install_interrupt_handler();
  if (*serve_cmd) fp::cli::install_reload_handler();
  // A run's outputs may be pipes: one whose reader leaves must fail alone. (The listings
  // keep SIGPIPE's default, so `framepipe stages | head` ends quietly as other tools do.)
  if (*run_cmd || *serve_cmd) fp::cli::ignore_broken_pipe_signal();

  // framepipe reports every failure itself, as one line naming the file and the reason.
  // Every line masked: never a password or passphrase (masked_logs.hpp).
  fp::cli::install_masked_logs(verbose);

  try {
    if (*run_cmd) return fp::cli::run_command(run);
    if (*serve_cmd) return fp::cli::serve_command(serve);
    if (*validate_cmd) return fp::cli::validate_command(validate_file, validate_overrides, validate_quiet);
    if (*stages_cmd) return fp::cli::stages_command(stage_name);
    if (*probe_cmd) return fp::cli::probe_command(probe_uri);
    if (*completion_cmd) {
      std::vector<std::string> stages;
      for (const auto& spec : fp::stage_registry()) stages.push_back(spec.type);
      fmt::print("{}", fp::cli::bash_completion(app, stages));
      return fp::cli::kOk;
    }
    if (*man_page_cmd) {
      fmt::print("{}", fp::cli::man_page(app, FRAMEPIPE_VERSION));
      return fp::cli::kOk;
    }
    if (*bench_cmd && !pipeline_bench.file.empty()) {
      if (!bench_cmd->remaining().empty())
        throw fp::UsageError(fmt::format("bench --pipeline: these options time the CUDA kernels, not a pipeline: {}",
                                         fmt::join(bench_cmd->remaining(), " ")));
      pipeline_bench.json = bench_json;
      return fp::cli::pipeline_bench_command(pipeline_bench);
    }
#ifdef FRAMEPIPE_WITH_CUDA
    if (*bench_cmd) return fp::cli::bench_command(bench);
#else
    if (*bench_cmd) {
      fmt::print(stderr,
                 "framepipe: error: bench times the CUDA kernels, and this build has no CUDA (configure with "
                 "-DFRAMEPIPE_CUDA=ON where nvcc is installed; --version lists the devices); bench --pipeline FILE "
                 "runs in every build\n");
      return fp::cli::kUsageError;
    }
#endif
  } catch (...) {
    return fp::cli::report_current_exception();
  }
  return fp::cli::kUsageError;
}
