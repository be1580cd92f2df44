// The stage interface. A stage is created once when the graph is set up, prepares its
// buffers for the stream it will see, and is then called per frame. Stages never start
// threads or allocate per frame: the executor owns scheduling and memory.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/frame.hpp"
#include "core/frame_context.hpp"
#include "core/path_confinement.hpp"
#include "media/decode_errors.hpp"
#include "media/reconnect.hpp"
#include "media/video_info.hpp"
#include "stages/param.hpp"

namespace fp {

enum class DeviceKind { Cpu, Cuda };

struct Device {
  DeviceKind kind = DeviceKind::Cpu;
  int ordinal = 0;  // CUDA device number
  std::string name() const { return kind == DeviceKind::Cpu ? "cpu" : "cuda:" + std::to_string(ordinal); }
};

struct StageContext {
  std::string id;  // the stage's id in the pipeline
  Device device;
  // Frames in flight at once. On CUDA each has its own stream, so a stage keeps one set of
  // per-frame device scratch (workspaces, results) per slot; on the CPU there is one.
  int slots = 1;
  // Frames a source's output may wait in before the graph takes them (the queue between
  // the source's thread and the graph's): with `slots`, how many decoded frames the run
  // holds at once, which a decoder with a fixed pool of surfaces (NVDEC) must allow for.
  int queue_depth = 4;
  // The run's stop request (Ctrl-C, SIGTERM), or null. Blocking work outside the executor's
  // threads — opening a network input on the graph's thread — polls it to give up at once.
  const std::atomic<bool>* stop = nullptr;
  // Sources that reconnect: told of every reconnect event after the stage's own log line
  // (the executor forwards them to its RunMonitor, which shows the stream reconnecting).
  // Empty: nobody else listens.
  ReconnectListener reconnect_observer;
  // A stream of `framepipe serve`: where its files may be opened (the service's roots), for
  // the sources and outputs to open beneath them. Unset: `framepipe run`, no confinement.
  std::optional<PathConfinement> confinement;
};

enum class StageRole { Source, Process, Sink };

class Stage {
 public:
  virtual ~Stage() = default;
};

// Produces frames (decode). Has no inputs.
class SourceStage : public Stage {
 public:
  virtual VideoInfo open() = 0;                 // opens the media; throws MediaError
  virtual std::optional<Frame> read() = 0;      // nullopt at the end of the stream
  virtual std::string decoder_name() const = 0;
  virtual void interrupt() {}                   // from another thread: stop blocking soon
  virtual DecodeErrors decode_errors() const { return {}; }  // damage skipped so far (after reading)
  // Gaps and reconnects (after reading), for a source that reconnects.
  virtual std::optional<ReconnectStats> reconnect_stats() const { return std::nullopt; }
  // A live input starts with a current frame: see FrameSource::start_at_live_edge().
  virtual void start_at_live_edge() {}
  virtual std::int64_t frames_skipped_to_live() const { return 0; }  // after reading
};

// Turns input frames into one output frame.
class ProcessStage : public Stage {
 public:
  // Called once with the inputs' stream descriptions; returns the output's. Allocates the
  // stage's buffers. Throws std::runtime_error when the inputs cannot be processed.
  virtual VideoInfo prepare(std::span<const VideoInfo> inputs) = 0;
  // Inputs and the output live on the pipeline's device (host memory on the CPU, device
  // memory on CUDA, where the work is only enqueued on context.stream).
  virtual Frame process(std::span<const Frame> inputs, FrameContext& context) = 0;
  virtual void finish() {}  // end of stream: flush side outputs; throws when one failed
  // A file the stage writes beside its frames (a histogram's rows). When writing it fails
  // (a full disk), the stage closes it, keeps the error for finish() and goes on passing
  // frames, so the run's other outputs lose nothing; the executor stops the run only when
  // every output has failed. side_output_failed() is asked on the graph's thread only (the
  // one that calls process() and the frame completions, which write the side output).
  virtual bool has_side_output() const { return false; }
  virtual bool side_output_failed() const { return false; }
};

// Consumes frames (encode). Has no output.
class SinkStage : public Stage {
 public:
  virtual void open(const VideoInfo& input) = 0;
  virtual void write(const Frame& frame) = 0;
  virtual void close() = 0;  // finalizes the output; idempotent
  virtual std::string encoder_name() const = 0;
  virtual std::string output_path() const = 0;
  // True: when this output falls behind (a slow receiver or encoder), its queue drops the
  // oldest frame instead of making the graph, and with it every other output, wait.
  virtual bool drops_when_behind() const { return false; }
  // Gaps of a network output that reconnects; read once writing is over.
  virtual std::optional<ReconnectStats> reconnect_stats() const { return std::nullopt; }
};

// One issue found by a stage's own cross-parameter check.
struct ParamIssue {
  std::string param;  // the parameter the message is about
  std::string message;
};

// Where a processing stage's output plane comes from. The executor moves across PCIe only
// the planes that some stage wrote: a plane passed through comes to a sink from the host
// copy it started as (the decoded frame), and neutral chroma from a host plane of 128s.
enum class PlaneOrigin {
  Computed,    // the stage writes it (on the pipeline's device); the safe default
  FirstInput,  // the first input's plane, by reference: not changed, not read
  Neutral,     // chroma only: 128 everywhere (grey), the same bytes every frame
};

// What a processing stage does with the planes (sources and sinks leave it as it is). A
// declaration the executor relies on: it checks FirstInput on every frame (the same plane
// must come out), and a stage with reads_chroma false gets inputs whose chroma planes may
// be empty on a GPU (no upload).
struct PlaneUse {
  PlaneOrigin luma = PlaneOrigin::Computed;
  PlaneOrigin chroma = PlaneOrigin::Computed;
  bool reads_chroma = true;  // its work reads its inputs' chroma
};

struct StageSpec {
  std::string type;  // the YAML `type`
  std::string help;  // one line
  StageRole role = StageRole::Process;
  int min_inputs = 1;
  int max_inputs = 1;
  std::vector<ParamSpec> params;
  PlaneUse planes;  // processing stages: which planes it writes and reads
  // Checks between parameters that the table cannot express (may be empty).
  std::function<std::vector<ParamIssue>(const StageParams&)> check;
  std::function<std::unique_ptr<Stage>(const StageParams&, const StageContext&)> create;
  // A stage with history (state kept from one frame to the next): how much it keeps, in
  // frames of its stream's size (an I420 frame's bytes each), for the memory a stream is
  // estimated to need (pipeline/capacity/jobs). Empty: it keeps nothing.
  std::function<double(const StageParams&)> kept_frames;

  const ParamSpec* find_param(const std::string& name) const {
    for (const auto& p : params)
      if (p.name == name) return &p;
    return nullptr;
  }
};

}  // namespace fp
