// The source implementations behind open_source (private to media/).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "media/frame_source.hpp"

namespace fp {

std::unique_ptr<FrameSource> open_test_source(const std::string& uri, const PlaneMemory& memory);  // testsrc://
// Files, rtsp, v4l2, http. Blocking calls also give up once `also_stop` (may be null) is set:
// the flag of a reconnecting source that owns this one.
std::unique_ptr<FrameSource> open_ffmpeg_source(const std::string& uri, const SourceOptions& options,
                                                const std::atomic<bool>* also_stop);
// Wraps `first` (already open) so that the stream is opened again with `open_session` when
// it stops (options.reconnect); `name` is the input as messages show it. The sessions poll
// `halt`, which interrupt() sets.
std::unique_ptr<FrameSource> make_reconnecting_source(std::string name, std::unique_ptr<FrameSource> first,
                                                      std::function<std::unique_ptr<FrameSource>()> open_session,
                                                      std::shared_ptr<std::atomic<bool>> halt,
                                                      const SourceOptions& options);

}  // namespace fp
