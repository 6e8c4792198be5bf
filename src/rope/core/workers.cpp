#include "rope/core/workers.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <omp.h>
#include <system_error>
#include <thread>
#include <vector>

namespace rope {

int worker_count(long tasks, int threads) {
  return static_cast<int>(std::max<long>(1, std::min<long>(tasks, threads)));
}

int worker_count(long tasks) { return worker_count(tasks, omp_get_max_threads()); }

void run_workers(int count, const std::function<void(int)>& work) {
  std::vector<std::thread> pool;
  for (int t = 1; t < count; ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (const std::system_error&) {  // no thread to be had: the started ones share the work
      break;
    }
  }
  work(0);
  for (std::thread& t : pool) t.join();
}

void for_each_task(long n, const std::function<void(long)>& task, long least) {
  if (n < least) {
    for (long i = 0; i < n; ++i) task(i);
    return;
  }
  std::atomic<long> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex lock;
  run_workers(worker_count(n), [&](int) {
    for (long i = next++; i < n && !stop; i = next++) {
      try {
        task(i);
      } catch (...) {
        stop = true;
        const std::lock_guard<std::mutex> hold(lock);
        if (!error) error = std::current_exception();
      }
    }
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace rope
