// Running Nsight Compute (`ncu`) as a child process, bounded in time, and telling why a run
// gave nothing usable (no permission for the GPU's counters, a timeout, a crash), so that
// `framepipe bench` can fall back to its estimate and say why. POSIX only; no CUDA.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fp::bench {

// `ncu` on `path_env` (PATH's syntax), else `fallback` (where the CUDA toolkit puts it) when
// that is an executable file; nullopt when neither.
std::optional<std::string> find_ncu(std::string_view path_env, const std::string& fallback = "/usr/local/cuda/bin/ncu");

struct ChildResult {
  int exit_code = -1;      // the child's exit status; 128 + N when signal N ended it
  bool timed_out = false;  // killed (with its process group) after the timeout
  std::string output;      // stdout and stderr together (the last 64 KiB)
};

// Runs argv[0] (searched on PATH) with the arguments, in its own process group, killed with
// that group after `timeout_s`. Throws std::runtime_error when it cannot be started at all.
// Not only for ncu: denoise-quality runs FFmpeg's filters with it.
ChildResult run_with_timeout(const std::vector<std::string>& argv, double timeout_s);

// Why an ncu run is of no use, from its result and its log ("" when it looks fine): the
// first "==ERROR==" line (ERR_NVGPUCTRPERM gets the fix), a timeout, or a failing exit.
std::string ncu_failure(const ChildResult& result, std::string_view log, double timeout_s);

}  // namespace fp::bench
