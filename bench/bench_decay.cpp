// The decay bound (M11) jobs of the issue, by the recurrence (decay_bound_linspace) and directly
// (decay_bound: a cos/sin per term), and the scaling of the recurrence with d and with the points.
#include <benchmark/benchmark.h>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/calculators/decay_sweep.hpp"
#include "rope/core/frequencies.hpp"

namespace {

struct Job {
  long points;
  double stop;
  int d;
  double base;
};
// 0: (1000 points, m <= 256, d = 128); 1: (100 000 points, m <= 10^6, d = 128, base 5e5);
// 2: (1000 points, m <= 256, d = 4096).
const Job kJobs[] = {{1000, 256, 128, 1e4}, {100000, 1e6, 128, 5e5}, {1000, 256, 4096, 1e4}};

void BM_Decay(benchmark::State& state) {
  const Job& job = kJobs[state.range(0)];
  const Eigen::VectorXd theta = rope::frequencies(job.d, job.base);
  for (auto _ : state) benchmark::DoNotOptimize(rope::decay_bound_linspace(theta, job.stop, job.points));
  state.SetItemsProcessed(state.iterations() * job.points * job.d / 2);
}

void BM_DecayDirect(benchmark::State& state) {
  const Job& job = kJobs[state.range(0)];
  const Eigen::VectorXd theta = rope::frequencies(job.d, job.base);
  const Eigen::VectorXd x = rope::linspace(job.stop, job.points);
  for (auto _ : state) benchmark::DoNotOptimize(rope::decay_bound(theta, x));
  state.SetItemsProcessed(state.iterations() * job.points * job.d / 2);
}

// Scaling: items = points × d/2 terms, so items per second stays flat when the time is linear.
void BM_DecayScalingDim(benchmark::State& state) {
  const int d = static_cast<int>(state.range(0));
  const long points = 20000;
  const Eigen::VectorXd theta = rope::frequencies(d, 1e4);
  for (auto _ : state) benchmark::DoNotOptimize(rope::decay_bound_linspace(theta, 1e4, points));
  state.SetItemsProcessed(state.iterations() * points * d / 2);
}

void BM_DecayScalingPoints(benchmark::State& state) {
  const long points = state.range(0);
  const Eigen::VectorXd theta = rope::frequencies(128, 1e4);
  for (auto _ : state) benchmark::DoNotOptimize(rope::decay_bound_linspace(theta, 1e6, points));
  state.SetItemsProcessed(state.iterations() * points * 64);
}

}  // namespace

BENCHMARK(BM_Decay)->DenseRange(0, 2)->ArgName("job")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DecayDirect)->DenseRange(0, 2)->ArgName("job")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DecayScalingDim)
    ->RangeMultiplier(4)
    ->Range(2, 4096)
    ->ArgName("d")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_DecayScalingPoints)
    ->RangeMultiplier(10)
    ->Range(1000, 10000000)
    ->ArgName("points")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
