// Fuzz target: the short strings a user types that framepipe parses itself. The first byte
// picks the parser, the rest is the string:
//   0  testsrc://<rest>       parse_testsrc_uri, probe, and (for small sizes) two frames drawn
//   1  device                 is_valid_device and resolve_device, and --device through the loader
//   2  --set <rest>           ID.PARAM=VALUE (VALUE is YAML) on a pipeline of every stage type
//   3  -i/-o <rest>           input URI and output path (container and codec checks)
// One target rather than four: the parsers are small and take the same kind of input, and
// one target fits CI's time budget; coverage still tells the four apart.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "media/frame_sink.hpp"
#include "media/frame_source.hpp"
#include "media/media_error.hpp"
#include "media/output_target.hpp"
#include "media/probe.hpp"
#include "media/testsrc_uri.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/definition/device_names.hpp"
#include "pipeline/engine/device.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "tests/fuzz/pipeline_invariants.hpp"

namespace {

using fp::fuzz::require;

// Every stage type once, so that a --set can reach every parameter table.
constexpr const char* kPipeline = R"(device: cpu
input: testsrc://64x48@30?noise=5&frames=3
stages:
  - {id: hist,    type: luma_histogram, output: histogram.jsonl}
  - {id: denoise, type: nlmeans, input: input, h: 12, patch: 7, search: 21}
  - {id: fused,   type: pyramid_fusion, inputs: [input, denoise], levels: 5, rule: max_energy}
  - {id: smooth,  type: mean_smooth, input: input, radius: 2}
  - {id: skel,    type: thinning, input: smooth, threshold: otsu}
  - {id: out,     type: encode, input: fused, output: fused.mp4, codec: h264, crf: 18}
  - {id: skelout, type: encode, input: skel, output: skeleton.mkv}
)";

void load_with(const fp::ConfigOverrides& overrides) {
  try {
    fp::fuzz::require_none(fp::fuzz::broken_promise(fp::parse_pipeline(kPipeline, "fuzz.yaml", overrides)));
  } catch (const fp::ConfigError& error) {
    fp::fuzz::require_none(fp::fuzz::broken_promise(error));
  }
}

void fuzz_testsrc(const std::string& uri) {
  fp::TestSourceParams params;
  try {
    params = fp::parse_testsrc_uri(uri);
  } catch (const fp::MediaError&) {
    return;
  }
  require(params.width >= 1 && params.height >= 1 && params.width <= 16384 && params.height <= 16384,
          "testsrc sizes are within 1..16384");
  require(params.fps.num > 0 && params.fps.den > 0, "testsrc frame rates are positive");
  require(params.noise >= 0 && params.noise <= 255, "testsrc noise is within 0..255");
  require(params.frames >= 0, "testsrc frame counts are not negative");
  const fp::ProbeResult probed = fp::probe(uri);  // must not throw for a URI that parses
  require(probed.streams.size() == 1, "probe describes one testsrc stream");
  // Drawing is bounded per input: only small frames (the size checks above cover the rest).
  if (static_cast<std::int64_t>(params.width) * params.height > 64 * 64) return;
  const auto source = fp::open_source(uri);
  for (int i = 0; i < 2; ++i) {
    const auto frame = source->read();
    if (!frame) {
      require(params.frames > 0 && i >= params.frames, "testsrc ends only after its frames");
      break;
    }
    require(frame->planes[0].width == params.width && frame->planes[0].height == params.height,
            "testsrc frames have the requested size");
  }
}

void fuzz_device(const std::string& device) {
  const bool valid = fp::is_valid_device(device);
  try {
    const fp::Device resolved = fp::resolve_device(device);
    require(valid, "resolve_device accepts only valid device names");
    require(resolved.ordinal >= 0, "device ordinals are not negative");
  } catch (const fp::UsageError&) {
    // A valid name may still name a device this build or machine lacks.
  }
  load_with({.device = device});
}

void fuzz_output(const std::string& text) {
  for (const char* codec : {"h264", "rawvideo"}) (void)fp::output_target_problem(text, codec);
  (void)fp::is_network_output(text);
  load_with({.inputs = {text}, .output = text});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: fuzz_testsrc("testsrc://" + rest); break;
    case 1: fuzz_device(rest); break;
    case 2: load_with({.sets = {rest}}); break;
    case 3: fuzz_output(rest); break;
  }
  return 0;
}
