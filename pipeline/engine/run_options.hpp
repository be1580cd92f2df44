// How one run of a pipeline is run: what run_pipeline (executor.hpp) takes besides the
// pipeline and its device. Its own header so that the rooms that configure runs (streams/,
// the CLI) name it without the executor.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "pipeline/definition/drop_policy.hpp"
#include "pipeline/engine/input_limits.hpp"

namespace fp {

class CpuAccount;
class FrameContext;
class RunMonitor;

// Points where tests can step into a run, to make rare timings certain (a slow copy, a
// thread that cannot start). Empty in production.
struct RunHooks {
  // Runs on the graph's thread right before a source frame is brought to the device in the
  // slot of `context` (on CUDA a test enqueues a spin kernel there, so that the upload is
  // still pending while the source thread decodes the next frames).
  std::function<void(FrameContext& context)> before_upload;
  // Runs before the thread of a source or sink stage is started; may throw
  // std::system_error as std::thread does when no thread can be made.
  std::function<void(const std::string& stage_id)> before_thread_start;
  // Runs on a sink's thread before it writes each frame (a test holds an output up, so that
  // every queue and pool before it fills as far as the run lets it).
  std::function<void(const std::string& stage_id)> before_write;
};

struct RunOptions {
  std::int64_t max_frames = -1;  // stop after this many frames per source; -1: until the end
  bool progress = false;         // draw the progress line on stderr
  std::size_t queue_depth = 4;   // frames buffered between threads
  int slots = 2;                 // frames in flight on a CUDA device, each on its own stream
  bool realtime = false;         // release each source's frames at their frame rate (files, testsrc)
  DropPolicy drop = DropPolicy::Auto;  // what a source's full queue does (auto: oldest when live)
  const std::atomic<bool>* stop = nullptr;  // set from a signal handler to stop early
  // Watches the run from other threads (framepipe serve): published stats, reconnects, a
  // node's frames on demand. Null: nothing is published (a null check per frame and thread).
  RunMonitor* monitor = nullptr;
  // An input whose frames, once it opens, are larger than this fails the run naming the
  // limit (framepipe serve --max-input-size); none by default.
  InputLimits input_limits;
  // Called once an input has opened, with its frame size (the first moment a file's or a
  // camera's is known); throws to fail the run with what it throws (framepipe serve: a
  // stream whose real size needs more memory than the budget has left). Unset: nothing.
  std::function<void(int width, int height)> input_opened;
  // Charged with the run's CPU time: its threads' and the CPU pool's on its stages
  // (core/cpu_account.hpp); null: not counted.
  CpuAccount* cpu_account = nullptr;
  RunHooks hooks;                           // tests only
};

}  // namespace fp
