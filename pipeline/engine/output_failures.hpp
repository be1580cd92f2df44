// The run's outputs that failed. An output that cannot be written (a full disk, /dev/full, a
// receiver gone) is left out: its error is kept for the end of the run, and the run goes on
// for the others, which get every frame. Outputs are the sinks and the processing stages
// with a side output (a histogram's rows); they are told apart by their node index.
// Written and read from the graph's thread and the sink threads: every call takes the lock.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/output_failures.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace fp {

class OutputFailures {
 public:
  // A run of `nodes` nodes; count_as_output() names its outputs before any thread starts.
  explicit OutputFailures(std::size_t nodes);
  void count_as_output(std::size_t node) { is_output_.at(node) = true; }

  // Output `node` (its stage `id`) failed with `error`: left out, its message kept. Said in
  // the log at once (only while outputs are still being written, and only while another
  // output goes on: with none left the run ends, and its error says this once).
  void failed(std::size_t node, const std::string& id, const std::exception_ptr& error);
  // A side output that failed inside its stage (which keeps the message for finish()).
  void left_out_silently(std::size_t node);
  bool left_out(std::size_t node) const;
  // True when the run has outputs and every one of them failed: nothing is left to write.
  bool all_failed() const;
  // From now on the outputs are being finalized: their failures are not logged one by one.
  void finalizing();
  // "ID: PATH: what: reason", in the order they failed.
  std::vector<std::string> messages() const;

 private:
  bool all_failed_locked() const;

  mutable std::mutex mutex_;
  std::vector<bool> is_output_;
  std::vector<bool> failed_;
  std::vector<std::string> messages_;
  bool finalizing_ = false;
};

// The message of an exception, or "unknown failure".
std::string message_of(const std::exception_ptr& error);

}  // namespace fp
