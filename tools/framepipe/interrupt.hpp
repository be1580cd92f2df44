// Ctrl-C (SIGINT), SIGTERM and SIGHUP ask a run to stop: the pipeline drains and finalizes
// its outputs. A second signal ends the process at once with the same exit code (130).
// SIGHUP's default action would end the process without finalizing anything (a terminal
// closed under a run left an mp4 without its index); `serve` makes it a reload instead
// (reload_signal.hpp).
#pragma once

#include <atomic>

namespace fp::cli {

// Installs the handlers once and returns the flag they set.
const std::atomic<bool>& install_interrupt_handler();

// A stop asked by other means than a signal (serve's POST /v1/drain): the flag is set as by
// a first signal, so that the next SIGINT or SIGTERM is the second one and ends the process
// at once, as an operator who asks twice means.
void note_stop_requested();

// The stop is done (every output finalized, the process about to exit 0): a signal from
// now on has nothing left to cut short, and is ignored rather than turned into exit 130 (a
// kubelet's SIGTERM right after a drain its preStop hook asked for and waited out).
void ignore_stop_signals();

// An output that is a pipe or FIFO whose reader went away must fail alone, like a full disk,
// not kill the process (SIGPIPE's default) before the other outputs are finalized: with
// SIGPIPE ignored, such a write fails with EPIPE ("Broken pipe") and is reported as that
// output's error.
void ignore_broken_pipe_signal();

}  // namespace fp::cli
