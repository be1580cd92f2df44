// How many streams of a run on several inputs run at once (`framepipe run --jobs N`, and the
// default when it is not given): the streams wait their turn, in their order, so that a
// folder of a few hundred files needs the memory (and, on a GPU, the decoders) of N
// streams, not of all of them. The derivation of the default is written out in
// stream_jobs.cpp; README "Many streams in one process" says it for users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/engine/run_options.hpp"
#include "pipeline/capacity/capacity.hpp"

namespace fp {

// What one stream holds, in frames of its size: the inputs of the memory estimate.
struct StreamFootprint {
  int width = 1920;  // the stream's frame size
  int height = 1080;
  int nodes = 1;        // stages of the graph (each has an output frame per slot)
  int sinks = 1;        // outputs (each has a queue)
  int encoders = 1;     // outputs that encode (not `null`), each holding libx264's frames
  int slots = 1;        // frames in flight (RunOptions::slots on a GPU, 1 on the CPU)
  int queue_depth = 4;  // RunOptions::queue_depth: frames queued after a source, before a sink
  int cores = 1;        // the decoders' thread counts follow the cores
  // libx264's threads per encoder (media/encoder_threads.hpp: the cores shared by the
  // encoders open at once); 0: x264's own choice, 1.5 a core.
  int encoder_threads = 0;
  bool gpu = false;     // frames of the graph and NVDEC's surfaces are on the device
  // What stages with history keep (StageSpec::kept_frames), in frames of the stream's size:
  // in the device's memory on a GPU, else in the host's.
  double kept_frames = 0;
};

// Under a data limit (ulimit -d) an allocation past it fails, where memory merely available
// is only slower to get: the share is smaller there. Measured on the 2-core machine (one
// 1280x720 x264 stream): 221 MiB of data mapped where the estimate says 183 (x264's own
// frames are larger than a picture), and glibc's per-thread arenas keep what streams that
// ended used (8 such streams two at a time: a peak of 490 MiB at first, 570 by the last).
// 0.8 left nothing for either and the last stream failed; 183 / 0.6 = 305 MiB a stream
// covers 221 and the arenas' growth shared between two.
inline constexpr double kUsableDataShare = 0.6;

// The footprint of one stream of `definition` run with `options`, on a GPU or not, at the
// default size (1920x1080): the caller sets the stream's own.
StreamFootprint stream_footprint(const PipelineDefinition& definition, bool gpu, const RunOptions& options);
// The estimate below as a load of the capacity budget (host_bytes, device_bytes).
CapacityLoad stream_memory_load(const StreamFootprint& footprint);

// Estimated peak memory of one stream, in bytes: in host memory, and (gpu) on the device.
std::size_t stream_host_bytes(const StreamFootprint& footprint);
std::size_t stream_device_bytes(const StreamFootprint& footprint);
// What one stream maps besides: its threads' stacks (`stack_bytes` each), which a data limit
// (ulimit -d) counts whole although little of them is touched.
std::size_t stream_stack_bytes(const StreamFootprint& footprint, std::size_t stack_bytes);

// What this process may still have, as the estimate's three limits see it.
struct HostMemory {
  std::size_t available = 0;     // resident: MemAvailable, and a cgroup's memory.max left
  std::size_t data_left = 0;     // mapped: ulimit -d less what is mapped now; 0: no limit
  std::size_t stack_bytes = 0;   // a thread's stack (ulimit -s; 8 MiB when unlimited)
};
HostMemory host_memory();

// How many such streams fit: 80% of what is available (the rest is left to the machine),
// divided by one stream's estimate, on the host (and within a data limit, stacks counted)
// and on every GPU (device_free: the free memory of each GPU the streams are spread over;
// empty on the CPU). At least 1.
int jobs_that_fit(const HostMemory& host, const std::vector<std::size_t>& device_free,
                  const StreamFootprint& footprint);

// The default --jobs for this run on these devices: the footprint of the pipeline with the
// largest frame of its first few files or testsrc inputs (opened to read their headers;
// 1920x1080 when none can be), fitted to this machine's memory now.
int default_stream_jobs(const PipelineDefinition& definition, const std::vector<Device>& devices,
                        const RunOptions& options);

// The cap the run uses. `requested` > 0 (--jobs N or the file's `jobs: N`, as `setting` says
// in messages): that, unless the endless streams would take every place while others wait
// (endless > N, or endless == N with other streams): a UsageError naming the numbers.
// `requested` == 0: `derived`, raised where need be so that every endless stream runs and
// one place is left for the others. Never above the number of streams.
int resolve_stream_jobs(int requested, const std::string& setting, int derived, const std::vector<bool>& endless);

}  // namespace fp
