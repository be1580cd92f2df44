#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/engine/bounded_queue.hpp"
#include "tests/time_bound.hpp"

namespace fp {
namespace {

using namespace std::chrono_literals;
using Status = BoundedQueue<int>::PopStatus;

TEST(BoundedQueue, KeepsOrderAndDrainsAfterClose) {
  BoundedQueue<int> q(3);
  EXPECT_TRUE(q.push(1));
  EXPECT_TRUE(q.push(2));
  q.close();
  EXPECT_FALSE(q.push(3)) << "a closed queue takes nothing";
  int v = 0;
  EXPECT_EQ(q.pop(v, 1ms), Status::Item);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(q.pop(v, 1ms), Status::Item);
  EXPECT_EQ(v, 2);
  EXPECT_EQ(q.pop(v, 1ms), Status::Closed);
}

using Overflow = BoundedQueue<int>::Overflow;

std::vector<int> drain(BoundedQueue<int>& q) {
  q.close();
  std::vector<int> items;
  for (int v = 0; q.pop(v, 1ms) == Status::Item;) items.push_back(v);
  return items;
}

TEST(BoundedQueue, DropOldestKeepsTheNewestItemsAndCountsTheRest) {
  BoundedQueue<int> q(3);
  for (int i = 1; i <= 7; ++i) EXPECT_TRUE(q.push(i, Overflow::DropOldest)) << "never waits";
  EXPECT_EQ(q.dropped(), 4);
  EXPECT_EQ(drain(q), (std::vector<int>{5, 6, 7}));
}

TEST(BoundedQueue, DropNewestKeepsWhatIsQueuedAndCountsTheRest) {
  BoundedQueue<int> q(3);
  for (int i = 1; i <= 7; ++i) EXPECT_TRUE(q.push(i, Overflow::DropNewest));
  EXPECT_EQ(q.dropped(), 4);
  EXPECT_EQ(drain(q), (std::vector<int>{1, 2, 3}));
}

TEST(BoundedQueue, WaitDropsNothingAndBlocksUntilThereIsRoom) {
  BoundedQueue<int> q(1);
  EXPECT_TRUE(q.push(1));
  std::thread consumer([&] {
    std::this_thread::sleep_for(20ms);
    int v = 0;
    EXPECT_EQ(q.pop(v, 1s), Status::Item);
    EXPECT_EQ(v, 1);
  });
  EXPECT_TRUE(q.push(2, Overflow::Wait));  // returns once the consumer made room
  consumer.join();
  EXPECT_EQ(q.dropped(), 0);
  EXPECT_EQ(drain(q), (std::vector<int>{2}));
}

TEST(BoundedQueue, PopTimesOutWhenEmpty) {
  BoundedQueue<int> q(1);
  int v = 0;
  EXPECT_EQ(q.pop(v, 1ms), Status::Timeout);
}

// A producer thread that pushes one item, for tests that must know whether that push is
// blocked. Blocked is proven by state, not by time: the thread is asleep (its state in
// /proc is S) while its push has not returned. Between the moment it records its id and the
// moment its push returns, the only place it can sleep is the push's wait (nothing else
// holds the queue's lock), so a push that does not block is seen returning instead.
class Producer {
 public:
  Producer(BoundedQueue<int>& q, int item)
      : thread_([this, &q, item] {
          tid_ = static_cast<int>(gettid());
          result_ = q.push(item) ? 1 : 0;
          returned_ = true;
        }) {}
  ~Producer() { if (thread_.joinable()) thread_.join(); }

  // Waits until the push is asleep (true) or has returned (false); false too (with a
  // failure) when it is neither within a bound, so that a spinning push cannot hang the test.
  bool blocked() const {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::duration<double>(test::time_bound(20));
    for (;;) {
      if (std::chrono::steady_clock::now() > limit) {
        ADD_FAILURE() << "the push neither slept nor returned";
        return false;
      }
      if (returned_) return false;
      const int tid = tid_;
      if (tid != 0 && thread_state(tid) == 'S') return !returned_;
      std::this_thread::yield();
    }
  }
  bool join() {  // the push's result
    thread_.join();
    return result_ == 1;
  }

 private:
  static char thread_state(int tid) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');  // the name in parentheses may contain spaces
    return paren != std::string::npos && paren + 2 < text.size() ? text[paren + 2] : '?';
  }

  std::atomic<int> tid_{0};
  std::atomic<int> result_{-1};
  std::atomic<bool> returned_{false};
  std::thread thread_;
};

TEST(BoundedQueue, FullQueueBlocksTheProducerUntilSpaceOrClose) {
  BoundedQueue<int> q(1);
  ASSERT_TRUE(q.push(1));
  {
    Producer producer(q, 2);
    ASSERT_TRUE(producer.blocked()) << "push returned while the queue was full";
    // The consumer makes space: the push goes through, after the item that was there.
    int v = 0;
    EXPECT_EQ(q.pop(v, 1ms), Status::Item);
    EXPECT_EQ(v, 1);
    EXPECT_TRUE(producer.join());
    EXPECT_EQ(drain(q), (std::vector<int>{2}));
  }
  // Full, and closed instead: the blocked push gives up, taking nothing.
  BoundedQueue<int> closing(1);
  ASSERT_TRUE(closing.push(3));
  Producer producer(closing, 4);
  ASSERT_TRUE(producer.blocked()) << "push returned while the queue was full";
  closing.close();
  EXPECT_FALSE(producer.join());
  EXPECT_EQ(drain(closing), (std::vector<int>{3}));
}

}  // namespace
}  // namespace fp
