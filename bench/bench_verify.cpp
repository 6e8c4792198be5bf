// Identity checks per second at d = 128 (M8), random draws included, and the draws alone.
#include <benchmark/benchmark.h>

#include <vector>

#include "rope/core/frequencies.hpp"
#include "rope/analysis/verify/identity_check.hpp"
#include "rope/core/random.hpp"
#include "rope/core/random_lanes.hpp"

namespace {

void BM_VerifyPairs(benchmark::State& state) {
  const Eigen::VectorXd theta = rope::frequencies(128, 1e4);
  const long pairs = 1L << 16;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    const rope::RelativeCheck r = rope::check_relative_position(theta, pairs, 4096, seed++);
    if (!r.check.passed()) state.SkipWithError("identity check failed");
    benchmark::DoNotOptimize(r.check.difference);
  }
  state.SetItemsProcessed(state.iterations() * pairs);
}

void BM_NormalsLanes(benchmark::State& state) {
  std::vector<double> v(1 << 16);
  rope::RandomLanes rng(1);
  for (auto _ : state) {
    rng.fill_normal(v.data(), v.size());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<long>(v.size()));
}

void BM_NormalsScalar(benchmark::State& state) {
  std::vector<double> v(1 << 16);
  rope::Random rng(1);
  for (auto _ : state) {
    for (double& x : v) x = rng.normal();
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<long>(v.size()));
}

}  // namespace

BENCHMARK(BM_VerifyPairs)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NormalsLanes)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_NormalsScalar)->Unit(benchmark::kMicrosecond)->UseRealTime();
