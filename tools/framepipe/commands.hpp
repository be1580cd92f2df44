// The framepipe subcommands. Each returns the process exit code: 0 success, 1 runtime
// failure, 2 usage or configuration error, 130 stopped by Ctrl-C (outputs finalized).
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/config/loader.hpp"

namespace fp::cli {

enum ExitCode : int { kOk = 0, kRuntimeError = 1, kUsageError = 2, kInterrupted = 130 };

struct RunArguments {
  std::string file;
  ConfigOverrides overrides;
  std::int64_t frames = -1;
  std::string stats_json;
  bool quiet = false;
  bool realtime = false;
  bool fail_fast = false;  // several streams: the first failure stops them all
  int slots = 2;
  int jobs = -1;  // several streams: at most this many at once; 0: derived from memory; -1: the file's `jobs`
  std::string metrics;  // serve Prometheus metrics there while the run lasts: "PORT" (loopback) or "HOST:PORT"
  std::string shard;    // "I/N" or "auto": run only the inputs whose rendezvous owner is I; "": all
  // Several inputs: what a stream of this pipeline costs (a bench --pipeline --json result),
  // and the cores the streams may keep busy (0: the usable cores less a margin).
  std::string cost;
  double cpu_budget = 0;
};

// `framepipe serve`: the options of serve_command.cpp.
struct ServeArguments {
  std::vector<std::string> pipelines;  // template files, each named by its stem
  std::string listen = "127.0.0.1:8080";
  std::string token_file;
  std::vector<std::string> allow_hosts;  // without a token: Host names besides loopback and --listen's
  std::string probe_listen;       // "": the probes answer on --listen only
  std::string state_file;
  std::size_t max_streams = 0;
  // Admission by cost: TEMPLATE=FILE, a `framepipe bench --pipeline --json` result of that
  // template (repeatable); and the cores the streams may keep busy (0: the cores this
  // process may use, less a margin: capacity.hpp).
  std::vector<std::string> costs;
  double cpu_budget = 0;
  // The host memory the streams may hold, in MiB (0: 80% of what is available at start, and
  // 60% of what a data limit leaves). Each stream holds its estimate at the size it asks.
  double memory_budget_mib = 0;
  // The most streams that may wait for a place (files, list streams beyond --max-streams);
  // a put beyond it is 503. 0: no cap.
  std::size_t max_waiting = 1000;
  std::vector<std::string> allow_roots;
  std::string output_root;        // "": ./framepipe-output (kDefaultOutputRoot), made at start
  // The largest input frame (either way round) and the fastest rate a stream may ask for:
  // 4096x2160 holds UHD and DCI 4K; 120 holds every common camera mode.
  std::string max_input_size = "4096x2160";
  double max_input_fps = 120;
  double drain_timeout = 30;      // seconds
  // A live stream that fails is started again after restart_wait seconds, then twice the
  // last wait each time, up to restart_wait_max (RestartPolicy).
  double restart_wait = 5;
  double restart_wait_max = 300;
  std::string device = "auto";
  std::string deepstream_pipeline;  // "": the first pipeline file's
  std::string stream_list;        // "": streams come from the API only
  double stream_list_poll = 2;    // seconds between reads of it; 0: at start and on SIGHUP only
  std::string shard;              // "I/N", "auto" or "": all of the list's streams
};

// serve's output root when none is given: a folder of its own, never the working directory
// (where the templates, the state file and the token often are).
inline constexpr const char* kDefaultOutputRoot = "framepipe-output";

int run_command(const RunArguments& args);
int serve_command(const ServeArguments& args);
int validate_command(const std::string& file, const ConfigOverrides& overrides, bool quiet);
int stages_command(const std::string& name);
int probe_command(const std::string& uri);
std::string version_text();

// Prints an error as "framepipe: error: MESSAGE" (or one line per issue for ConfigError)
// and returns its exit code. Call from a catch block.
int report_current_exception();

}  // namespace fp::cli
