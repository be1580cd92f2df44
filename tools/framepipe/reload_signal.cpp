#include "tools/framepipe/reload_signal.hpp"

#include <csignal>

namespace fp::cli {

namespace {
std::atomic<bool> g_reload{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_reload_signal(int) { g_reload = true; }
}  // namespace

std::atomic<bool>& install_reload_handler() {
  struct sigaction action {};
  action.sa_handler = on_reload_signal;
  sigemptyset(&action.sa_mask);
  // A reload arriving while a blocking call waits (a read of the list) restarts it.
  action.sa_flags = SA_RESTART;
  sigaction(SIGHUP, &action, nullptr);
  return g_reload;
}

}  // namespace fp::cli
