// Opening a demuxer for a URI the way framepipe reads it (private to media/; shared by the
// FFmpeg source and probe, so probe describes exactly what a run would see).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/path_confinement.hpp"
#include "media/fd_io.hpp"
#include "media/ffmpeg_raii.hpp"
#include "media/memory_io.hpp"

namespace fp::ff {

struct OpenedInput {
  std::unique_ptr<MemoryIo> io;  // custom I/O the demuxer reads (open_memory_input); declared
                                 // first so that it outlives the demuxer
  std::unique_ptr<FdIo> file_io;  // the same for a confined file (open_input)
  InputFormatPtr format;
  bool live = false;  // a camera or a network stream rather than a file
};

// How long a network read may block before it fails (milliseconds): long enough for a slow
// camera, short enough that a dead one is reported instead of hanging the pipeline.
inline constexpr int kDefaultNetworkTimeoutMs = 5000;

// v4l2:///dev/videoN goes to the v4l2 device; rtsp:// is read over TCP (or UDP with
// ?transport=udp, a query parameter that FFmpeg never sees) with a socket timeout; other
// network URLs get an I/O timeout. Stream info is read before returning. `interrupt` may be
// {nullptr, nullptr}. Throws MediaError "<uri>: <reason>" with the URI's password masked.
// `confined` (a service's stream; null: FFmpeg's defaults): see SourceOptions::confined.
OpenedInput open_input(const std::string& uri, const AVIOInterruptCB& interrupt,
                       int network_timeout_ms = kDefaultNetworkTimeoutMs, const PathConfinement* confined = nullptr);

// The same for a file held in memory (`bytes` must outlive the input); `name` is used in
// messages. Only these bytes are read: a demuxer's request to open another file (a
// playlist entry, a reference movie) is refused.
OpenedInput open_memory_input(const std::string& name, std::span<const std::uint8_t> bytes,
                              const AVIOInterruptCB& interrupt);

}  // namespace fp::ff
