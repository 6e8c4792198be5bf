#include "rope/core/workers.hpp"

#include <algorithm>
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

}  // namespace rope
