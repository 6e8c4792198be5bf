// core/workers.hpp: every index once, the caller's thread for index 0, the thread count as the cap; for_each_task's
// tasks each once, on the caller alone below its threshold, and a task's exception rethrown after the workers stop.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "rope/core/workers.hpp"

namespace rope {
namespace {

TEST(Workers, EveryIndexOnceAndTheFirstOnTheCallersThread) {
  for (const int count : {1, 2, 3, 8}) {
    std::mutex lock;
    std::multiset<int> seen;
    std::thread::id first;
    run_workers(count, [&](int index) {
      std::lock_guard<std::mutex> hold(lock);
      seen.insert(index);
      if (index == 0) first = std::this_thread::get_id();
    });
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) EXPECT_EQ(seen.count(i), 1U) << "count " << count << ", index " << i;
    EXPECT_EQ(first, std::this_thread::get_id());
  }
}

TEST(Workers, TasksSharedThroughACounterAreAllDone) {
  constexpr long kTasks = 1000;
  std::vector<std::atomic<int>> done(kTasks);
  std::atomic<long> next{0};
  run_workers(worker_count(kTasks), [&](int) {
    for (long t = next++; t < kTasks; t = next++) ++done[static_cast<std::size_t>(t)];
  });
  for (long t = 0; t < kTasks; ++t) EXPECT_EQ(done[static_cast<std::size_t>(t)].load(), 1) << t;
}

TEST(Workers, EachTaskOnceAndTheFewOnTheCaller) {
  for (const long n : {0L, 1L, 2L, 7L, 1000L}) {
    std::vector<std::atomic<int>> done(static_cast<std::size_t>(n));
    for_each_task(n, [&](long i) { ++done[static_cast<std::size_t>(i)]; });
    for (long i = 0; i < n; ++i) EXPECT_EQ(done[static_cast<std::size_t>(i)].load(), 1) << n << " tasks, task " << i;
  }
  std::mutex lock;
  std::set<std::thread::id> threads;
  for_each_task(
      5,
      [&](long) {
        const std::lock_guard<std::mutex> hold(lock);
        threads.insert(std::this_thread::get_id());
      },
      6);
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});  // 5 tasks, below 6: the caller alone
}

TEST(Workers, ATasksExceptionReachesTheCaller) {
  std::atomic<long> calls{0};
  EXPECT_THROW(for_each_task(1000,
                             [&](long i) {
                               ++calls;
                               if (i == 3) throw std::runtime_error("task 3");
                             }),
               std::runtime_error);
  EXPECT_GE(calls.load(), 4);
  EXPECT_LE(calls.load(), 1000);
}

TEST(Workers, CountIsCappedByTasksAndByTheThreads) {
  EXPECT_EQ(worker_count(100, 3), 3);
  EXPECT_EQ(worker_count(2, 3), 2);
  EXPECT_EQ(worker_count(0, 3), 1);
  EXPECT_EQ(worker_count(100, 1), 1);  // OMP_NUM_THREADS=1: one worker, the caller
  EXPECT_EQ(worker_count(100, 0), 1);
  EXPECT_GE(worker_count(100), 1);
}

}  // namespace
}  // namespace rope
