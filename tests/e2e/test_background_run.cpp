// The harness that the signal, live and service tests start programs with: it returns only
// once the program runs, says when it cannot, tells how a program ended, and knows when a
// program has its signal handler (the signal tests wait for that before they signal).
#include <gtest/gtest.h>
#include <signal.h>

#include <stdexcept>
#include <string>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

TEST(BackgroundRun, AProgramThatCannotRunThrowsNamingIt) {
  TempDir dir("background-run-missing");
  try {
    BackgroundRun run(dir.path(), "/no/such/program", {}, "missing.log");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/program"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST(BackgroundRun, TellsHowAProgramEnded) {
  TempDir dir("background-run-ended");
  BackgroundRun exits(dir.path(), "sh", {"-c", "exit 3"}, "exits.log");
  EXPECT_EQ(exits.wait(10).first, 3);
  EXPECT_EQ(exits.how_it_ended(), "exit 3");
  BackgroundRun killed(dir.path(), "sleep", {"30"}, "killed.log");
  EXPECT_EQ(killed.how_it_ended(), "running");
  killed.signal(SIGTERM);
  EXPECT_EQ(killed.wait(10).first, -2);
  EXPECT_EQ(killed.how_it_ended(), "signal 15 (SIGTERM)");
}

TEST(BackgroundRun, KnowsWhetherAProgramHandlesASignal) {
  TempDir dir("background-run-handler");
  BackgroundRun plain(dir.path(), "sleep", {"30"}, "plain.log");
  EXPECT_FALSE(plain.catches_within(SIGINT, 0.3));
  // sh catches the signal it traps; the trap runs once its foreground command ends.
  BackgroundRun trapping(dir.path(), "sh", {"-c", "trap 'exit 7' INT; sleep 1; sleep 1"}, "trapping.log");
  EXPECT_TRUE(trapping.catches_within(SIGINT, 10));
  EXPECT_FALSE(trapping.catches_within(SIGUSR1, 0.3));
  trapping.signal(SIGINT);
  EXPECT_EQ(trapping.wait(10).first, 7);
  // A program that has ended handles nothing.
  EXPECT_FALSE(trapping.catches_within(SIGINT, 0.3));
}

}  // namespace
}  // namespace fp::test
