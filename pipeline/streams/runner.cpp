#include "pipeline/streams/runner.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "media/stream_uri.hpp"
#include "pipeline/definition/stream_pipeline.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/streams/jobs.hpp"
#include "pipeline/streams/limiter.hpp"

namespace fp {

namespace {

constexpr auto kWatchInterval = std::chrono::milliseconds(20);

struct StreamThread {
  std::size_t index = 0;
  Device device;
  StreamResult result;
  std::atomic<bool> done{false};
  std::thread thread;
};

}  // namespace

StreamsRun run_streams(const PipelineDefinition& definition, const std::vector<Device>& devices,
                       const RunOptions& options, bool fail_fast, int jobs, const StreamWatch& watch) {
  // One stop flag for all the streams: set from the signal's flag or by a failure under
  // fail_fast. The executors poll it in every wait, as they poll the signal's flag alone.
  std::atomic<bool> stop_all{false};
  std::atomic<int> failures{0};
  RunOptions stream_options = options;
  stream_options.stop = &stop_all;
  stream_options.progress = false;
  StreamLimiter limiter(static_cast<std::size_t>(jobs));

  std::vector<std::unique_ptr<StreamThread>> streams;
  for (std::size_t i = 0; i < definition.streams.size(); ++i) {
    auto stream = std::make_unique<StreamThread>();
    stream->index = i;
    stream->device = devices.at(i % devices.size());
    stream->result.name = definition.streams[i].name;
    streams.push_back(std::move(stream));
  }
  const auto signalled = [&] { return options.stop != nullptr && options.stop->load(); };
  // Turns the signal, or a failure under fail_fast, into the stop of every stream; true once
  // the run is stopping (no further stream starts).
  const auto stopping = [&] {
    if (signalled() || (fail_fast && failures > 0)) stop_all = true;
    return stop_all.load();
  };
  // The threads of streams that ended are joined as the run goes, so that a long run on many
  // files does not keep every ended thread's stack.
  const auto join_ended = [&] {
    for (auto& s : streams)
      if (s->done && s->thread.joinable()) s->thread.join();
  };

  // Starts a stream that has its place; the place is given back when the stream ends.
  const auto start = [&](StreamThread& s) {
    s.result.started = true;
    try {
      s.thread = std::thread([&, one = &s] {
        RunOptions own_options = stream_options;
        if (watch.monitor) own_options.monitor = watch.monitor(one->index);
        if (watch.started) watch.started(one->index);
        try {
          one->result.stats = run_pipeline(stream_pipeline(definition, one->index), one->device, own_options,
                                           &one->result.stats);
        } catch (const std::exception& e) {
          one->result.error = mask_uris_in_text(e.what());  // printed, and written to --stats-json
          ++failures;
        }
        if (watch.ended) watch.ended(one->index, !one->result.error.empty());
        one->done = true;
        limiter.release();
      });
    } catch (const std::system_error& e) {
      // No thread: this stream fails, and the run stops as under fail_fast (a machine out of
      // threads would fail every next one too).
      s.result.error = std::string("cannot start its thread: ") + e.what();
      ++failures;
      if (watch.ended) watch.ended(s.index, true);
      s.done = true;
      limiter.release();
      stop_all = true;
    }
  };

  const auto endless = endless_streams(definition, options.max_frames);
  for (auto& s : streams) {
    if (!endless[s->index] || stopping()) continue;
    limiter.admit_anyway();
    start(*s);
  }
  for (auto& s : streams) {
    if (endless[s->index]) continue;
    bool admitted = false;
    while (!admitted && !stopping()) {
      admitted = limiter.admit_within(kWatchInterval);
      join_ended();
    }
    // The place may be that of a stream that just failed: under fail_fast nothing more starts.
    if (admitted && stopping()) limiter.release();
    if (!admitted || stop_all) break;
    start(*s);
  }

  // Watches the signal and, under fail_fast, the streams; returns when every started stream is done.
  for (;;) {
    bool all_done = true;
    for (const auto& s : streams) all_done = all_done && (!s->result.started || s->done);
    if (all_done) break;
    stopping();
    std::this_thread::sleep_for(kWatchInterval);
  }
  join_ended();
  StreamsRun run;
  run.jobs = static_cast<int>(limiter.cap());
  run.max_running = static_cast<int>(limiter.peak());
  run.interrupted = signalled();
  for (auto& s : streams) {
    StreamResult& r = s->result;
    const bool stopped = stop_all && !run.interrupted && r.error.empty();
    r.stopped_by_failure = stopped && (!r.started || r.stats.interrupted);
    run.streams.push_back(std::move(r));
  }
  return run;
}

}  // namespace fp
