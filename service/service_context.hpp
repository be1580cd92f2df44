// What the API's routes share: the manager they front, and the few facts of the process
// that the manager does not know (its version and devices, the DeepStream template, whether
// a drain has begun).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/stream_list/list_sync.hpp"
#include "pipeline/streams/manager.hpp"

namespace fp::service {

struct ServiceContext {
  StreamManager& manager;
  std::string default_pipeline;  // PUT without "pipeline", and DeepStream's add
  std::string version;
  std::vector<std::string> devices;  // as `framepipe --version` lists them
  // Set the moment a drain is asked for (POST /v1/drain or a signal), before the manager's
  // own drain begins: /readyz says 503 and adds are refused from then on.
  std::atomic<bool> draining{false};
  std::function<void()> on_drain;     // wakes `framepipe serve`, which drains and exits
  std::function<bool()> http_alive;   // the listener's thread serves
  std::function<std::optional<StreamListStatus>()> stream_list;  // serve --stream-list; unset: none

  bool is_draining() const { return draining.load() || manager.draining(); }
};

}  // namespace fp::service
