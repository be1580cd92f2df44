#include "service/stream_metrics.hpp"

#include <cmath>
#include <map>
#include <utility>

#include "service/gpu_memory.hpp"
#include "stages/registry.hpp"

namespace fp::service {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

const std::vector<double> kLatencyBucketsSeconds = {0.005, 0.01, 0.02, 0.033, 0.05, 0.1,
                                                    0.25,  0.5,  1.0,  2.5,   5.0,  10.0};

namespace {

constexpr StreamState kAllStates[] = {StreamState::Waiting,      StreamState::Starting, StreamState::Running,
                                      StreamState::Reconnecting, StreamState::Finished, StreamState::Failed,
                                      StreamState::Draining};

}  // namespace

namespace {

MetricFamily family(std::string name, std::string help, MetricType type) {
  return MetricFamily{std::move(name), std::move(help), type, {}};
}

ClientMetric labelled(std::vector<ClientMetric::Label> labels) {
  ClientMetric metric;
  metric.label = std::move(labels);
  return metric;
}

void add_gauge(MetricFamily& f, std::vector<ClientMetric::Label> labels, double value) {
  auto metric = labelled(std::move(labels));
  metric.gauge.value = value;
  f.metric.push_back(std::move(metric));
}

void add_counter(MetricFamily& f, std::vector<ClientMetric::Label> labels, double value) {
  auto metric = labelled(std::move(labels));
  metric.counter.value = value;
  f.metric.push_back(std::move(metric));
}

StageRole role_of(const StageTiming& stage) {
  const StageSpec* spec = find_stage(stage.type);
  return spec != nullptr ? spec->role : StageRole::Process;
}

// The sink's id in the pipeline: a run of several streams names its stages "STREAM/ID".
std::string output_label(const std::string& stream, const std::string& stage_id) {
  const std::string prefix = stream + "/";
  return stage_id.rfind(prefix, 0) == 0 ? stage_id.substr(prefix.size()) : stage_id;
}

ClientMetric latency_histogram(const std::string& stream, const LatencyHistogram& latency_ms) {
  auto metric = labelled({{"stream", stream}});
  metric.histogram.sample_count = static_cast<std::uint64_t>(latency_ms.count());
  metric.histogram.sample_sum = latency_ms.sum() / 1000.0;
  for (double bound : kLatencyBucketsSeconds)
    metric.histogram.bucket.push_back(
        {static_cast<std::uint64_t>(latency_ms.count_at_most(bound * 1000.0)), bound});
  return metric;  // the serializer adds le="+Inf" (the count)
}

// The families of one kind, filled stream by stream below.
struct StreamFamilies {
  MetricFamily up = family("framepipe_stream_up", "1 while the stream's frames flow (running), else 0.",
                           MetricType::Gauge);
  MetricFamily state = family("framepipe_stream_state",
                              "The stream's state: 1 for the state it is in, 0 for the others.",
                              MetricType::Gauge);
  MetricFamily decoded = family("framepipe_frames_decoded_total",
                                "Frames the stream's sources decoded (dropped ones included).",
                                MetricType::Counter);
  MetricFamily output = family("framepipe_frames_output_total",
                               "Frames an output wrote; output is the sink stage's id in the pipeline.",
                               MetricType::Counter);
  MetricFamily dropped = family("framepipe_frames_dropped_total",
                                "Frames left out: input_behind (a source's queue was full), output_behind (an "
                                "output's queue was full), skipped_to_live (already waiting when a live input "
                                "was opened).",
                                MetricType::Counter);
  MetricFamily reconnects = family("framepipe_source_reconnects_total",
                                   "Times a source's input was lost and came back.", MetricType::Counter);
  MetricFamily restarts = family("framepipe_stream_restarts_total",
                                 "Times a live stream that failed (its camera off when added, or lost for good) was "
                                 "started again by the service, after a wait of --restart-wait doubling to "
                                 "--restart-wait-max.",
                                 MetricType::Counter);
  MetricFamily decode_errors = family("framepipe_decode_errors_total",
                                      "Damaged packets skipped and frames decoded with concealed errors.",
                                      MetricType::Counter);
  MetricFamily cpu = family("framepipe_stream_cpu_cores",
                            "Cores the stream keeps busy over the last ~10 s: its threads and the CPU pool's work "
                            "on its stages, measured, and its share (by pixels a second) of x264's and FFmpeg's "
                            "own threads.",
                            MetricType::Gauge);
  MetricFamily latency = family("framepipe_frame_latency_seconds",
                                "Time from a frame's arrival at the source to its write by an output.",
                                MetricType::Histogram);

  void add(const StreamStatus& stream) {
    const auto& name = stream.name;
    add_gauge(up, {{"stream", name}}, stream_up(stream.state) ? 1 : 0);
    for (StreamState s : kAllStates)
      add_gauge(state, {{"stream", name}, {"state", stream_state_name(s)}}, s == stream.state ? 1 : 0);
    std::int64_t frames_decoded = 0, input_behind = 0, output_behind = 0, skipped = 0, damaged = 0;
    for (const auto& stage : stream.stats.stages) {
      switch (role_of(stage)) {
        case StageRole::Source:
          frames_decoded += stage.frames;
          input_behind += stage.frames_dropped;
          skipped += stage.frames_skipped_to_live;
          damaged += stage.decode_errors.total();
          break;
        case StageRole::Sink:
          add_counter(output, {{"stream", name}, {"output", output_label(name, stage.id)}}, static_cast<double>(stage.frames));
          output_behind += stage.frames_dropped;
          break;
        case StageRole::Process:
          break;
      }
    }
    add_counter(decoded, {{"stream", name}}, static_cast<double>(frames_decoded));
    add_counter(dropped, {{"stream", name}, {"reason", "input_behind"}}, static_cast<double>(input_behind));
    add_counter(dropped, {{"stream", name}, {"reason", "output_behind"}}, static_cast<double>(output_behind));
    add_counter(dropped, {{"stream", name}, {"reason", "skipped_to_live"}}, static_cast<double>(skipped));
    add_counter(reconnects, {{"stream", name}}, static_cast<double>(stream.reconnects));
    add_counter(restarts, {{"stream", name}}, static_cast<double>(stream.restarts));
    add_counter(decode_errors, {{"stream", name}}, static_cast<double>(damaged));
    add_gauge(cpu, {{"stream", name}}, stream.cpu_cores);
    latency.metric.push_back(latency_histogram(name, stream.stats.latency_ms));
  }
};

// serve --stream-list: what the list holds, what this shard runs of it, what was refused.
void add_stream_list_families(const StreamListStatus& list, std::vector<MetricFamily>& families) {
  auto listed = family("framepipe_stream_list_streams",
                       "Streams of the stream list in force: listed (all of them), assigned (this shard's).",
                       MetricType::Gauge);
  add_gauge(listed, {{"scope", "listed"}}, static_cast<double>(list.listed));
  add_gauge(listed, {{"scope", "assigned"}}, static_cast<double>(list.assigned));
  families.push_back(std::move(listed));
  auto rejected = family("framepipe_stream_list_rejected",
                         "This shard's listed streams the service refused (invalid, outside the roots, a name the "
                         "API holds): GET /v1/info says why.",
                         MetricType::Gauge);
  add_gauge(rejected, {}, static_cast<double>(list.rejected.size()));
  families.push_back(std::move(rejected));
  auto reads = family("framepipe_stream_list_reads_total",
                      "Contents of the stream list file read: ok (applied) or error (refused; the last good list "
                      "keeps running).",
                      MetricType::Counter);
  add_counter(reads, {{"result", "ok"}}, static_cast<double>(list.reads_ok));
  add_counter(reads, {{"result", "error"}}, static_cast<double>(list.reads_failed));
  families.push_back(std::move(reads));
  auto ordinal = family("framepipe_shard_ordinal", "This process's ordinal among the shards (--shard I/N: I).",
                        MetricType::Gauge);
  add_gauge(ordinal, {}, list.shard.ordinal);
  families.push_back(std::move(ordinal));
  auto replicas = family("framepipe_shard_replicas", "How many shards the stream list is split into (--shard I/N: N).",
                         MetricType::Gauge);
  add_gauge(replicas, {}, list.shard.replicas);
  families.push_back(std::move(replicas));
}

}  // namespace

bool stream_up(StreamState state) { return state == StreamState::Running; }

StreamCollector::StreamCollector(StreamMetricsSource source) : source_(std::move(source)) {}

std::vector<MetricFamily> StreamCollector::Collect() const {
  const std::vector<StreamStatus> streams = source_.streams();
  const ManagerInfo info = source_.manager();
  std::vector<MetricFamily> families;

  auto build = family("framepipe_build_info", "The framepipe version serving these metrics (always 1).",
                      MetricType::Gauge);
  add_gauge(build, {{"version", source_.version}}, 1);
  families.push_back(std::move(build));

  auto by_state = family("framepipe_streams", "Streams in each state.", MetricType::Gauge);
  for (StreamState s : kAllStates) {
    const auto it = info.streams_by_state.find(stream_state_name(s));
    add_gauge(by_state, {{"state", stream_state_name(s)}}, it != info.streams_by_state.end() ? it->second : 0);
  }
  families.push_back(std::move(by_state));

  auto capacity = family("framepipe_stream_capacity", "The most streams this process runs at once.",
                         MetricType::Gauge);
  add_gauge(capacity, {}, static_cast<double>(info.capacity));
  families.push_back(std::move(capacity));

  // The budget of each resource (capacity.hpp; unlimited ones left out) and what the running
  // streams' places hold of it: an alert compares the two (deploy/prometheus rules).
  auto budget = family("framepipe_capacity_budget",
                       "What the streams may use of each resource: streams, cpu_encode (cores), gpu (GPUs busy), "
                       "memory and gpu_memory (bytes). Unlimited resources are left out.",
                       MetricType::Gauge);
  auto used = family("framepipe_capacity_used",
                     "What the running streams hold of each resource: their templates' benchmarked loads "
                     "(serve --cost); cpu_encode is the larger of that and the process's measured CPU time.",
                     MetricType::Gauge);
  for (const CapacityResource resource : kCapacityResources) {
    const double have = info.budget.of(resource);
    if (std::isinf(have)) continue;
    add_gauge(budget, {{"resource", capacity_resource_name(resource)}}, have);
    add_gauge(used, {{"resource", capacity_resource_name(resource)}}, info.used.of(resource));
  }
  families.push_back(std::move(budget));
  families.push_back(std::move(used));

  // Over the cap: listed streams that wait for a place (the API's are refused with 503).
  auto waiting = family("framepipe_streams_waiting_for_capacity",
                        "Streams that should run but wait for a place (--max-streams or this machine's memory).",
                        MetricType::Gauge);
  const auto waiting_count = info.streams_by_state.find(stream_state_name(StreamState::Waiting));
  add_gauge(waiting, {}, waiting_count != info.streams_by_state.end() ? waiting_count->second : 0);
  families.push_back(std::move(waiting));
  if (const auto list = source_.stream_list ? source_.stream_list() : std::nullopt)
    add_stream_list_families(*list, families);

  StreamFamilies per_stream;
  for (const auto& stream : streams) per_stream.add(stream);
  for (auto* f : {&per_stream.up, &per_stream.state, &per_stream.decoded, &per_stream.output, &per_stream.dropped,
                  &per_stream.reconnects, &per_stream.restarts, &per_stream.decode_errors, &per_stream.cpu,
                  &per_stream.latency})
    families.push_back(std::move(*f));

  auto stage_seconds = family("framepipe_stage_seconds_total",
                              "Busy time of each stage type, summed over every stream this process has run "
                              "(removed ones included).",
                              MetricType::Counter);
  for (const auto& [type, seconds] : stage_seconds_.update(streams)) add_counter(stage_seconds, {{"stage", type}}, seconds);
  families.push_back(std::move(stage_seconds));

  auto gpu_memory = family("framepipe_gpu_memory_used_bytes",
                           "Device memory in use on a GPU the streams run on (the whole device, as nvidia-smi shows).",
                           MetricType::Gauge);
  for (int ordinal : source_.gpus)
    if (auto bytes = gpu_memory_used_bytes(ordinal))
      add_gauge(gpu_memory, {{"gpu", std::to_string(ordinal)}}, static_cast<double>(*bytes));
  if (!gpu_memory.metric.empty()) families.push_back(std::move(gpu_memory));
  return families;
}

StreamMetricsSource manager_metrics_source(const StreamManager& manager, const std::vector<Device>& devices,
                                           std::string version) {
  StreamMetricsSource source;
  source.version = std::move(version);
  source.streams = [&manager] { return manager.list(); };
  source.manager = [&manager] { return manager.info(); };
  for (const auto& device : devices)
    if (device.kind == DeviceKind::Cuda) source.gpus.push_back(device.ordinal);
  return source;
}

}  // namespace fp::service
