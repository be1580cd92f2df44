#include "tools/framepipe/interrupt.hpp"

#include <csignal>

namespace fp::cli {

namespace {
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

extern "C" void on_stop_signal(int) { g_stop.store(true); }
}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second signal is not caught: it ends the process
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_stop;
}

}  // namespace fp::cli
