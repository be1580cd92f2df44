// Ctrl-C (SIGINT) and SIGTERM ask a run to stop: the pipeline drains and finalizes its
// outputs. A second signal ends the process at once with the same exit code (130).
#pragma once

#include <atomic>

namespace fp::cli {

// Installs the handlers once and returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();

// An output that is a pipe or FIFO whose reader went away must fail alone, like a full disk,
// not kill the process (SIGPIPE's default) before the other outputs are finalized: with
// SIGPIPE ignored, such a write fails with EPIPE ("Broken pipe") and is reported as that
// output's error.
void ignore_broken_pipe_signal();

}  // namespace fp::cli
