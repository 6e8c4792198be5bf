// RoPE on a [seq 4096, heads 32, head_dim 128] float32 tensor, both layouts, in place and out of place,
// beside STREAM-style copy and in-place kernels over the same bytes with the same threads, so that
// the ratio to this machine's memory bandwidth comes from one run (docs/performance.md). Then the cost
// of the cos/sin table and the teaching ladder (dense matrix, 2×2 blocks, element-wise, complex).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "rope/core/frequencies.hpp"
#include "rope/core/random_lanes.hpp"
#include "rope/core/simd.hpp"
#include "rope/core/tensor_apply.hpp"

namespace {

constexpr long kSeq = 4096, kHeads = 32;
constexpr int kDim = 128;

std::vector<float> random_tensor(long n, std::uint64_t seed) {
  std::vector<double> v(n);
  rope::RandomLanes(seed).fill_normal(v.data(), n);
  return std::vector<float>(v.begin(), v.end());
}

// The closed form of bench/peers/torch_peers.py, x[i] = sin(0.001·i + 0.5) over the flattened
// tensor, so that compare.py can check rope's output against PyTorch's at the sample indices.
const std::vector<float>& input() {
  static const std::vector<float> x = [] {
    std::vector<float> v(kSeq * kHeads * kDim);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i) + 0.5));
    return v;
  }();
  return x;
}
long sample_index(int j) { return (static_cast<long>(j) * 7919 * 4099 + j) % (kSeq * kHeads * kDim); }

// STREAM kernels, cloned and threaded as the RoPE kernels are.
ROPE_CLONES void copy_block(const float* a, float* b, long n) {
  for (long i = 0; i < n; ++i) b[i] = a[i];
}
ROPE_CLONES void scale_block(float* a, long n, float s) {
  for (long i = 0; i < n; ++i) a[i] = s * a[i];
}
constexpr long kStreamBlock = 1L << 16;

void BM_StreamCopy(benchmark::State& state) {
  const long n = kSeq * kHeads * kDim;
  std::vector<float> a = input(), b(n);
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += kStreamBlock) copy_block(a.data() + i, b.data() + i, std::min(kStreamBlock, n - i));
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * static_cast<long>(sizeof(float)));
}

void BM_StreamInplace(benchmark::State& state) {
  const long n = kSeq * kHeads * kDim;
  std::vector<float> a = input();
  float s = 1.0f;
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += kStreamBlock) scale_block(a.data() + i, std::min(kStreamBlock, n - i), s);
    s = -s;  // keeps the values bounded
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * n * static_cast<long>(sizeof(float)));
}

const rope::CosSinTable<float>& table(int d) {
  static std::vector<rope::CosSinTable<float>> tables;
  for (const auto& t : tables) {
    if (2 * t.half == d) return t;
  }
  tables.push_back(rope::cos_sin_table<float>(rope::frequencies(d, 1e4), kSeq));
  return tables.back();
}

void BM_Apply(benchmark::State& state) {
  const auto layout = state.range(0) == 0 ? rope::Layout::Interleaved : rope::Layout::Half;
  const bool inplace = state.range(1) == 1;
  const rope::TensorShape shape{kSeq, kHeads, kDim};
  std::vector<float> x = input(), y(shape.size());
  const auto& t = table(kDim);
  for (auto _ : state) {
    if (inplace) {
      rope::apply_rotary_tensor_inplace(x.data(), shape, t, layout);
    } else {
      rope::apply_rotary_tensor(x.data(), y.data(), shape, t, layout);
    }
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * shape.size() * static_cast<long>(sizeof(float)));
  state.SetLabel(std::string(rope::to_string(layout)) + (inplace ? " in place" : " out of place"));
  // One application to the closed-form input, sampled for compare.py (outside the timing).
  std::vector<float> once = input();
  rope::apply_rotary_tensor_inplace(once.data(), shape, t, layout);
  for (int j = 0; j < 16; ++j) state.counters["y" + std::to_string(j)] = once[sample_index(j)];
}

// The target ratio, robust on a shared machine: the STREAM in-place kernel and RoPE in place run
// alternately, each timed on its own, and the best time of each is kept, so that both see the same
// minutes of the machine's load. Counters: GB/s of each and their ratio.
void BM_BandwidthRatio(benchmark::State& state) {
  const auto layout = state.range(0) == 0 ? rope::Layout::Interleaved : rope::Layout::Half;
  const rope::TensorShape shape{kSeq, kHeads, kDim};
  const long n = shape.size();
  std::vector<float> x = input(), a = input();
  const auto& t = table(kDim);
  double best_stream = 1e30, best_apply = 1e30;
  float s = 1.0f;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i += kStreamBlock) scale_block(a.data() + i, std::min(kStreamBlock, n - i), s);
    s = -s;
    benchmark::ClobberMemory();
    const auto t1 = std::chrono::steady_clock::now();
    rope::apply_rotary_tensor_inplace(x.data(), shape, t, layout);
    benchmark::ClobberMemory();
    const auto t2 = std::chrono::steady_clock::now();
    best_stream = std::min(best_stream, std::chrono::duration<double>(t1 - t0).count());
    best_apply = std::min(best_apply, std::chrono::duration<double>(t2 - t1).count());
  }
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
  state.counters["stream_gbps"] = bytes / best_stream / 1e9;
  state.counters["apply_gbps"] = bytes / best_apply / 1e9;
  state.counters["ratio"] = best_stream / best_apply;
  state.SetLabel(std::string(rope::to_string(layout)) + " in place vs STREAM in place");
}

void BM_TableBuild(benchmark::State& state) {
  const Eigen::VectorXd theta = rope::frequencies(static_cast<int>(state.range(0)), 1e4);
  for (auto _ : state) benchmark::DoNotOptimize(rope::cos_sin_table<float>(theta, kSeq));
  state.SetItemsProcessed(state.iterations() * kSeq * state.range(0) / 2);
}

void BM_TableBuildDirect(benchmark::State& state) {
  const Eigen::VectorXd theta = rope::frequencies(static_cast<int>(state.range(0)), 1e4);
  for (auto _ : state) benchmark::DoNotOptimize(rope::cos_sin_table_direct<float>(theta, kSeq));
  state.SetItemsProcessed(state.iterations() * kSeq * state.range(0) / 2);
}

// The ladder on a [512, 32, d] tensor (the dense form is O(d²) per vector); items = head vectors.
constexpr long kLadderSeq = 512;

void BM_Ladder(benchmark::State& state) {
  const auto form = static_cast<rope::LadderForm>(state.range(0));
  const int d = static_cast<int>(state.range(1));
  const rope::TensorShape shape{kLadderSeq, kHeads, d};
  const std::vector<float> x = random_tensor(shape.size(), 2);
  std::vector<float> y(shape.size());
  const auto& t = table(d);
  for (auto _ : state) {
    rope::apply_ladder(form, x.data(), y.data(), shape, t);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kLadderSeq * kHeads);
  state.SetLabel(rope::to_string(form));
}

}  // namespace

BENCHMARK(BM_StreamCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StreamInplace)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Apply)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"half", "inplace"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BandwidthRatio)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("half")
    ->MinTime(2.0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_TableBuild)->Arg(128)->ArgName("d")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TableBuildDirect)->Arg(128)->ArgName("d")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Ladder)
    ->ArgsProduct({{0, 1, 2, 3}, {64, 128, 256}})
    ->ArgNames({"form", "d"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
