// Counts the C++ heap allocations of the whole process (every thread's), for the tests that
// check that warm code allocates nothing per frame. Linking tests/counting_new.cpp into a
// test binary replaces the global operator new and delete for that process: such a test is
// its own binary. FFmpeg's and x264's malloc are not counted.
#pragma once

namespace fp::test {

// Counting starts (from 0) and stops; allocations() is the count so far.
void start_counting_allocations();
void stop_counting_allocations();
long allocations();
// While counting, the first `stacks` allocations print their stacks to stderr (through
// backtrace_symbols_fd, which does not allocate), so that a failure says where they come from.
void print_allocation_stacks(int stacks);

}  // namespace fp::test
