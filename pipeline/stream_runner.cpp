#include "pipeline/stream_runner.hpp"

#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "media/stream_uri.hpp"
#include "pipeline/streams.hpp"

namespace fp {

namespace {

struct StreamThread {
  PipelineDefinition definition;
  Device device;
  StreamResult result;
  std::atomic<bool> done{false};
  std::atomic<bool> failed{false};
  std::thread thread;
};

}  // namespace

std::vector<StreamResult> run_streams(const PipelineDefinition& definition, const std::vector<Device>& devices,
                                      const RunOptions& options, bool fail_fast) {
  // One stop flag for all the streams: set from the signal's flag or by a failure under
  // fail_fast. The executors poll it in every wait, as they poll the signal's flag alone.
  std::atomic<bool> stop_all{false};
  RunOptions stream_options = options;
  stream_options.stop = &stop_all;
  stream_options.progress = false;

  std::vector<std::unique_ptr<StreamThread>> streams;
  for (std::size_t i = 0; i < definition.streams.size(); ++i) {
    auto stream = std::make_unique<StreamThread>();
    stream->definition = stream_pipeline(definition, i);
    stream->device = devices.at(i % devices.size());
    stream->result.name = definition.streams[i].name;
    streams.push_back(std::move(stream));
  }
  auto run_one = [&](StreamThread& s) {
    try {
      s.result.stats = run_pipeline(s.definition, s.device, stream_options);
    } catch (const std::exception& e) {
      s.result.error = mask_uris_in_text(e.what());  // printed, and written to --stats-json
      s.failed = true;
    }
    s.done = true;
  };
  std::size_t started = 0;
  try {
    for (auto& s : streams) {
      StreamThread* one = s.get();
      s->thread = std::thread([&run_one, one] { run_one(*one); });
      ++started;
    }
  } catch (const std::system_error& e) {
    // The streams without a thread fail; those running are stopped, as under fail_fast.
    for (std::size_t i = started; i < streams.size(); ++i) {
      streams[i]->result.error = std::string("cannot start its thread: ") + e.what();
      streams[i]->failed = true;
      streams[i]->done = true;
    }
    stop_all = true;
  }

  // Watches the signal and, under fail_fast, the streams; returns when every stream is done.
  for (;;) {
    bool all_done = true;
    bool any_failed = false;
    for (const auto& s : streams) {
      all_done = all_done && s->done;
      any_failed = any_failed || s->failed;
    }
    if (all_done) break;
    if ((options.stop != nullptr && options.stop->load()) || (fail_fast && any_failed)) stop_all = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const bool signalled = options.stop != nullptr && options.stop->load();
  std::vector<StreamResult> results;
  for (auto& s : streams) {
    if (s->thread.joinable()) s->thread.join();
    s->result.stopped_by_failure = stop_all && !signalled && !s->failed && s->result.stats.interrupted;
    results.push_back(std::move(s->result));
  }
  return results;
}

}  // namespace fp
