// Google Benchmark for the criterion of Men et al. 2024 (src/rope/analysis/calculators/bound.hpp, docs/calculators.md
// §1.2). The build target lives with the benchmark infrastructure (bench/CMakeLists.txt); link rope::lib and
// benchmark::benchmark_main.
#include <benchmark/benchmark.h>

#include "rope/analysis/calculators/bound.hpp"
#include "rope/analysis/calculators/bound_sweep.hpp"
#include "rope/core/frequencies.hpp"

namespace {

// One base, L = 10^6, d = 128: the pruned exact minimum ((C3) + (C4)).
void BM_BoundMinimum(benchmark::State& state) {
  const Eigen::VectorXd theta = rope::frequencies(128, 4.17e8);
  for (auto _ : state) benchmark::DoNotOptimize(rope::bound_minimum(theta, state.range(0)));
  state.SetItemsProcessed(state.iterations() * (state.range(0) + 1));
}
BENCHMARK(BM_BoundMinimum)->Arg(1 << 10)->Arg(1 << 16)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Every value B(0) … B(L) by the block product (C3), no pruning.
void BM_BoundSums(benchmark::State& state) {
  const Eigen::VectorXd theta = rope::frequencies(128, 4.17e8);
  for (auto _ : state) benchmark::DoNotOptimize(rope::bound_sums(theta, state.range(0)));
  state.SetItemsProcessed(state.iterations() * (state.range(0) + 1));
}
BENCHMARK(BM_BoundSums)->Arg(1 << 16)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// The direct form (C1), one std::cos per term: the baseline the fast paths replace.
void BM_BoundMinimumDirect(benchmark::State& state) {
  const Eigen::VectorXd theta = rope::frequencies(128, 4.17e8);
  for (auto _ : state) benchmark::DoNotOptimize(rope::bound_minimum_direct(theta, state.range(0)));
  state.SetItemsProcessed(state.iterations() * (state.range(0) + 1));
}
BENCHMARK(BM_BoundMinimumDirect)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

// The whole default scan of `rope bound --context 1000000 --dim 128`: 150 bases on all cores.
void BM_ScanDefault1M(benchmark::State& state) {
  const long L = 1'000'000;
  const auto [lo, hi] = rope::default_base_range(L);
  for (auto _ : state) benchmark::DoNotOptimize(rope::scan_bound(128, L, lo, hi, rope::default_per_decade(L)));
}
BENCHMARK(BM_ScanDefault1M)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
