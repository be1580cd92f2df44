#include <gtest/gtest.h>

#include <thread>

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
