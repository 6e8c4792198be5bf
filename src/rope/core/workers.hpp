/// @file
/// Work spread over the cores on plain threads, joined before the call returns: for the streaming comparison of
/// rope check (check_kernel.cpp), which runs once per process. An OpenMP team would do the same, but its idle threads
/// spin for milliseconds after the work (GOMP_SPINCOUNT), which a process that lives 30 ms pays for
/// (docs/performance.md, "Start-up").
#pragma once

#include <functional>

namespace rope {

/// How many workers `tasks` independent tasks get: at most one a task, and at most OpenMP's thread count
/// (the cores, or OMP_NUM_THREADS when set, so that one setting governs every kernel); at least 1.
int worker_count(long tasks);
/// The same with the thread count given: min(tasks, threads), at least 1.
int worker_count(long tasks, int threads);

/// Calls work(0) on the calling thread and work(1) … work(count − 1) on threads of their own, and returns when
/// every call has. A thread the system refuses is left out (its work index is not called), so `work` must take
/// its tasks from a shared counter rather than by index. An exception must not leave `work`.
void run_workers(int count, const std::function<void(int)>& work);

/// Calls task(i) for every i in [0, n), spread over worker_count(n) workers that each take the next i; where n is
/// below `least`, on the calling thread alone (a thread costs more than a few small tasks). For loops whose
/// iterations write nothing another reads: the result is the serial loop's, bit for bit. The first exception a task
/// throws is rethrown once every worker has stopped (the tasks not yet taken are not called).
void for_each_task(long n, const std::function<void(long)>& task, long least = 2);

}  // namespace rope
