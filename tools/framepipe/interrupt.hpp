// Ctrl-C (SIGINT) and SIGTERM ask a run to stop: the pipeline drains and finalizes its
// outputs. A second signal ends the process at once with the same exit code (130).
#pragma once

#include <atomic>

namespace fp::cli {

// Installs the handlers once and returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();

}  // namespace fp::cli
