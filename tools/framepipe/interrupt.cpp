#include "tools/framepipe/interrupt.hpp"

#include <unistd.h>

#include <csignal>

namespace fp::cli {

namespace {
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

// The first signal asks the run to stop (it drains and finalizes its outputs, which takes
// well under 2 s); a second one means "now": _exit is async-signal-safe and gives the same
// exit code as an orderly interruption, without running destructors that might wait.
extern "C" void on_stop_signal(int) {
  if (g_stop.exchange(true)) _exit(130);
}
}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
  return g_stop;
}

void note_stop_requested() { g_stop = true; }

void ignore_stop_signals() {
  struct sigaction action {};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void ignore_broken_pipe_signal() {
  struct sigaction action {};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
}

}  // namespace fp::cli
