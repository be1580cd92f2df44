#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "pipeline/bounded_queue.hpp"

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

TEST(BoundedQueue, FullQueueBlocksTheProducerUntilSpaceOrClose) {
  BoundedQueue<int> q(1);
  ASSERT_TRUE(q.push(1));
  std::atomic<bool> pushed{false};
  std::thread producer([&] {
    q.push(2);
    pushed = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(pushed) << "push must wait while the queue is full";
  int v = 0;
  EXPECT_EQ(q.pop(v, 100ms), Status::Item);
  producer.join();
  EXPECT_TRUE(pushed);

  std::thread blocked([&] { EXPECT_FALSE(q.push(3)); });
  std::this_thread::sleep_for(10ms);
  q.close();
  blocked.join();
}

}  // namespace
}  // namespace fp
