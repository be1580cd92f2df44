// What the stream manager does where `framepipe serve` and `framepipe run` differ, as one
// value with a name for each: serve() (a service of cameras, kept running) and batch()
// (`run` over its inputs, reported at the end). Four booleans of StreamManagerOptions before
// (issue 45); what serve alone configures (its start-up, the stream list, admission by
// request) stays in the options.
#pragma once

namespace fp {

struct StreamPolicy {
  // What a stream that fails makes happen.
  enum class OnFailure {
    Restart,  // a live stream is started again after its wait (RestartPolicy); a file stays failed
    Report,   // it stays failed, and is reported (run)
    StopAll,  // it stops every other, and those waiting never start (run --fail-fast)
  };
  // What a stream does with an output already there (an earlier run's).
  enum class EarlierOutputs {
    KeepBeside,  // kept, and the new one written beside it (fresh_outputs.hpp)
    Overwrite,   // written where the pipeline says, as a one-stream run writes it
  };
  // What a stream does with an output whose folder is not there.
  enum class OutputFolders {
    Make,       // made before the run starts (a template's `{stream}/` folders under the output root)
    MustExist,  // the output fails, naming its path, before anything is written (a run's, one or many)
  };
  // Who looks at the streams a few times a second (fps, waiting streams, restarts, ends).
  enum class Supervision {
    OwnThread,    // a thread of the manager's own
    CallersLoop,  // the caller's loop calls look(): a batch has no thread beside its streams'
                  // (a data limit, ulimit -d, counts every thread's stack and malloc arena: on a
                  // 16-core machine the supervisor cost a batch of 720p streams 14 MiB of its 600)
  };

  OnFailure on_failure = OnFailure::Restart;
  EarlierOutputs earlier_outputs = EarlierOutputs::KeepBeside;
  OutputFolders output_folders = OutputFolders::Make;
  Supervision supervision = Supervision::OwnThread;
  bool log_changes = true;  // a log line for each stream added, replaced, running, finished or failed

  constexpr bool restarts_failed() const { return on_failure == OnFailure::Restart; }
  constexpr bool stops_all_on_failure() const { return on_failure == OnFailure::StopAll; }
  constexpr bool own_supervisor() const { return supervision == Supervision::OwnThread; }

  // framepipe serve: streams restarted, earlier outputs kept, output folders made, its own
  // supervisor, each change logged.
  static constexpr StreamPolicy serve() { return {}; }
  // framepipe run: failures reported (or, fail_fast, stopping the rest), outputs where the
  // pipeline says and in folders that are there, looked at by run's own loop, which prints
  // its own summary.
  static constexpr StreamPolicy batch(bool fail_fast) {
    return {.on_failure = fail_fast ? OnFailure::StopAll : OnFailure::Report,
            .earlier_outputs = EarlierOutputs::Overwrite,
            .output_folders = OutputFolders::MustExist,
            .supervision = Supervision::CallersLoop,
            .log_changes = false};
  }
};

}  // namespace fp
