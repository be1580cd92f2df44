#include "pipeline/capacity/jobs.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/usable_cores.hpp"
#include "media/encoder_threads.hpp"
#include "media/probe.hpp"
#include "media/stream_uri.hpp"
#include "media/testsrc_uri.hpp"
#include "pipeline/definition/config_error.hpp"
#include "stages/gpu_devices.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

// The estimate of one stream's memory counts the frames it can hold at its peak, each an
// I420 frame of the stream's size (1.5 bytes a pixel, rows padded), plus a fixed part:
//   decoder (software): H.264's largest reference set (16 frames) and one frame per frame
//            thread (one thread per core);
//   source queue: queue_depth frames;
//   graph: one output frame per stage and slot (on a GPU on the device; the host then holds
//            a page-locked download buffer per output and slot);
//   each output: its queue (queue_depth frames) and, unless it is `null`, what libx264 holds:
//            rc-lookahead (40 at the default preset), a frame per frame thread (its share of
//            the cores, media/encoder_threads.hpp) and its B-frames and references (8);
//   stages with history: what they keep (StageSpec::kept_frames: temporal_nlmeans' frames);
//   fixed: 16 MiB a stream for thread stacks, codec contexts and x264's tables.
// Checked against what was measured on a 16-core machine before streams were capped: 20
// 1080p files took 5.7 GB (285 MB a stream; this estimates ~350 MB), 200 320x240 files
// 4.0 GB (20 MB a stream; this estimates ~25 MB). It leans high, as a cap should.
// On a GPU, NVDEC decodes into device surfaces (FFmpeg's pool: the 16 references, its
// frame threads and a few in flight, 24 in all) and the graph's frames are the device's;
// NVIDIA puts no fixed cap on NVDEC sessions (unlike NVENC's on GeForce cards; the encoders
// here are libx264 on the host anyway): each session's surfaces in device memory are the
// limit, so device memory is what caps the streams there.
constexpr int kDecoderReferenceFrames = 16;
constexpr int kEncoderLookaheadFrames = 40;
constexpr int kEncoderReorderFrames = 8;
constexpr int kNvdecSurfaces = 24;
constexpr std::size_t kStreamFixedBytes = std::size_t{16} << 20;
constexpr std::size_t kStreamFixedDeviceBytes = std::size_t{16} << 20;
constexpr double kUsableShare = 0.8;
constexpr int kProbedStreams = 4;

std::size_t x264_frame_threads(const StreamFootprint& f) {
  return static_cast<std::size_t>(f.encoder_threads > 0 ? f.encoder_threads : x264_thread_share(f.cores, 1));
}

std::size_t frame_bytes(const StreamFootprint& f, std::size_t row_alignment) {
  const auto pitch = [&](std::size_t width) { return (width + row_alignment - 1) / row_alignment * row_alignment; };
  const auto w = static_cast<std::size_t>(std::max(f.width, 1));
  const auto h = static_cast<std::size_t>(std::max(f.height, 1));
  return pitch(w) * h + 2 * pitch((w + 1) / 2) * ((h + 1) / 2);
}

// A "Key:  N kB" line of a /proc file, in bytes; 0 when absent.
std::size_t read_proc_kib(const char* path, const std::string& wanted) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(wanted, 0) == 0) {
      try {
        return std::stoull(line.substr(wanted.size())) * 1024;
      } catch (const std::exception&) {
        return 0;
      }
    }
  return 0;
}

std::size_t read_meminfo_available() {
  if (const std::size_t available = read_proc_kib("/proc/meminfo", "MemAvailable:")) return available;
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

// What the cgroup (v2) still allows, or 0 when it sets no limit.
std::size_t cgroup_headroom() {
  std::ifstream max_file("/sys/fs/cgroup/memory.max");
  std::ifstream current_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  std::size_t current = 0;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> current)) return 0;
  try {
    const std::size_t max = std::stoull(max_text);
    return max > current ? max - current : 1;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string decode_uri(const PipelineDefinition& definition, std::size_t index) {
  if (definition.streams.empty()) return "";
  return definition.streams[index].input.has("uri") ? definition.streams[index].input.text("uri") : "";
}

// A header that can be read at once and read again by the stream: testsrc, or a regular
// file. Not a network stream or camera (seconds to answer), nor a FIFO or device, whose
// bytes a probe would take from the stream.
bool cheap_to_probe(const std::string& uri) {
  if (is_testsrc_uri(uri)) return !is_endless_uri(uri);
  std::error_code error;
  return uri.find("://") == std::string::npos && std::filesystem::is_regular_file(uri, error);
}

// The largest frame among the first few streams cheap to probe. Streams of one run are
// usually alike (a folder of one camera's recordings).
void probe_frame_size(const PipelineDefinition& definition, StreamFootprint& footprint) {
  int width = 0;
  int height = 0;
  int probed = 0;
  for (std::size_t i = 0; i < definition.streams.size() && probed < kProbedStreams; ++i) {
    const std::string uri = decode_uri(definition, i);
    if (!cheap_to_probe(uri)) continue;
    ++probed;
    try {
      for (const auto& stream : probe(uri).streams)
        if (stream.width * stream.height > width * height) {
          width = stream.width;
          height = stream.height;
        }
    } catch (const std::exception&) {
      // It fails when its stream runs, with its own error; the estimate goes on without it.
    }
  }
  if (width > 0 && height > 0) {
    footprint.width = width;
    footprint.height = height;
  }
}

}  // namespace

std::size_t stream_host_bytes(const StreamFootprint& f) {
  std::size_t frames = static_cast<std::size_t>(f.queue_depth);  // the source's queue
  if (!f.gpu) frames += kDecoderReferenceFrames + f.cores + static_cast<std::size_t>(f.nodes) * f.slots;
  else frames += static_cast<std::size_t>(f.sinks) * f.slots;  // download buffers
  frames += static_cast<std::size_t>(f.sinks) * f.queue_depth;
  frames += static_cast<std::size_t>(f.encoders) *
            (kEncoderLookaheadFrames + x264_frame_threads(f) + kEncoderReorderFrames);
  const double kept = f.gpu ? 0.0 : f.kept_frames;
  return kStreamFixedBytes + frames * frame_bytes(f, 64) + static_cast<std::size_t>(kept * frame_bytes(f, 64));
}

std::size_t stream_device_bytes(const StreamFootprint& f) {
  if (!f.gpu) return 0;
  const std::size_t frames = kNvdecSurfaces + static_cast<std::size_t>(f.nodes) * f.slots;
  return kStreamFixedDeviceBytes + frames * frame_bytes(f, 512) + static_cast<std::size_t>(f.kept_frames * frame_bytes(f, 512));
}

int jobs_that_fit(const HostMemory& host, const std::vector<std::size_t>& device_free,
                  const StreamFootprint& footprint) {
  const auto fit = [](std::size_t available, std::size_t each, double share = kUsableShare) {
    return static_cast<std::size_t>(static_cast<double>(available) * share) / std::max<std::size_t>(each, 1);
  };
  std::size_t jobs = fit(host.available, stream_host_bytes(footprint));
  if (host.data_left > 0)
    jobs = std::min(jobs, fit(host.data_left,
                              stream_host_bytes(footprint) + stream_stack_bytes(footprint, host.stack_bytes),
                              kUsableDataShare));
  if (!device_free.empty()) {
    // The streams are spread over the GPUs in turn: each takes its share.
    std::size_t least = fit(device_free.front(), stream_device_bytes(footprint));
    for (const std::size_t free : device_free) least = std::min(least, fit(free, stream_device_bytes(footprint)));
    jobs = std::min(jobs, least * device_free.size());
  }
  return static_cast<int>(std::clamp<std::size_t>(jobs, 1, 1 << 20));
}

std::size_t stream_stack_bytes(const StreamFootprint& f, std::size_t stack_bytes) {
  // A source and a sink thread each, the decoder's frame threads (one per core), and per
  // encoder x264's frame threads (1.5 per core) and its lookahead thread.
  const std::size_t threads = 1 + static_cast<std::size_t>(f.sinks) + f.cores + f.encoders * (x264_frame_threads(f) + 1);
  return threads * stack_bytes;
}

HostMemory host_memory() {
  HostMemory host;
  host.available = read_meminfo_available();
  if (const std::size_t cgroup = cgroup_headroom(); cgroup > 0) host.available = std::min(host.available, cgroup);
  rlimit limit{};
  if (getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::size_t mapped = read_proc_kib("/proc/self/status", "VmData:");
    host.data_left = limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 1;
  }
  host.stack_bytes = std::size_t{8} << 20;
  if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) host.stack_bytes = limit.rlim_cur;
  return host;
}

StreamFootprint stream_footprint(const PipelineDefinition& definition, bool gpu, const RunOptions& options) {
  StreamFootprint footprint;
  footprint.gpu = gpu;
  footprint.nodes = static_cast<int>(definition.stages.size());
  footprint.sinks = 0;
  footprint.encoders = 0;
  for (const auto& stage : definition.stages) {
    const StageSpec* spec = find_stage(stage.type);
    if (spec != nullptr && spec->kept_frames) footprint.kept_frames += spec->kept_frames(stage.params);
    if (spec == nullptr || spec->role != StageRole::Sink) continue;
    ++footprint.sinks;
    const bool discards = stage.params.has("output") && (stage.params.text("output").empty() || stage.params.text("output") == "null");
    if (!discards) ++footprint.encoders;
  }
  footprint.slots = footprint.gpu ? options.slots : 1;
  footprint.queue_depth = static_cast<int>(options.queue_depth);
  footprint.cores = static_cast<int>(usable_cores());
  return footprint;
}

CapacityLoad stream_memory_load(const StreamFootprint& footprint) {
  CapacityLoad load;
  load.host_bytes = static_cast<double>(stream_host_bytes(footprint));
  load.device_bytes = static_cast<double>(stream_device_bytes(footprint));
  return load;
}

int default_stream_jobs(const PipelineDefinition& definition, const std::vector<Device>& devices,
                        const RunOptions& options) {
  StreamFootprint footprint =
      stream_footprint(definition, !devices.empty() && devices.front().kind == DeviceKind::Cuda, options);
  probe_frame_size(definition, footprint);

  std::vector<std::size_t> device_free;
  if (footprint.gpu)
    for (const auto& device : devices) device_free.push_back(gpu_free_memory_bytes(device.ordinal));
  const HostMemory host = host_memory();
  // The encoders share the cores (media/encoder_threads.hpp): a lone stream's take them all,
  // N streams' a share each, and fewer threads hold fewer frames. Derived for the number of
  // streams that fit, which the smaller share raises in turn: a few rounds settle it.
  int jobs = 1;
  for (int round = 0; round < 4; ++round) {
    footprint.encoder_threads = x264_thread_share(footprint.cores, jobs * footprint.encoders);
    jobs = jobs_that_fit(host, device_free, footprint);
  }
  spdlog::info("--jobs {} (default): {:.0f} MiB available{}, ~{:.0f} MiB a stream of {}x{}{}", jobs,
               static_cast<double>(host.available) / (1 << 20),
               host.data_left > 0 ? fmt::format(" ({:.0f} MiB within ulimit -d)", static_cast<double>(host.data_left) / (1 << 20))
                                  : std::string(), static_cast<double>(stream_host_bytes(footprint)) / (1 << 20),
               footprint.width, footprint.height,
               footprint.gpu ? fmt::format(", ~{:.0f} MiB of device memory a stream",
                                           static_cast<double>(stream_device_bytes(footprint)) / (1 << 20))
                             : std::string());
  return jobs;
}

int resolve_stream_jobs(int requested, const std::string& setting, int derived, const std::vector<bool>& endless) {
  const int total = static_cast<int>(endless.size());
  const int never_end = static_cast<int>(std::count(endless.begin(), endless.end(), true));
  const bool others = never_end < total;
  if (requested > 0) {
    if (never_end > requested || (never_end == requested && others))
      throw UsageError(fmt::format(
          "{}: {} of the {} inputs are live (a network stream, a camera or an endless testsrc) and never end; "
          "they would hold every place and the streams queued behind them would never start: give --jobs at least "
          "{}, or bound the run with --frames",
          setting, never_end, total, never_end + (others ? 1 : 0)));
    return std::min(requested, std::max(total, 1));
  }
  const int jobs = std::max(derived, never_end + (others ? 1 : 0));
  return std::clamp(jobs, 1, std::max(total, 1));
}

}  // namespace fp
