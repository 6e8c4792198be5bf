// rope spectrum (spectrum.hpp, docs/spectrum.md): per pair of a dump, its wavelength, energy share and frequency
// entropy (F1)–(F5), the dump streamed a block of sequence indices at a time.
#include "rope/analysis/spectrum/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <omp.h>
#include <unsupported/Eigen/FFT>

#include "rope/analysis/dumps/dump_positions.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_stream.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/layer_types.hpp"

namespace rope {

using Complex = std::complex<double>;

struct SpectrumWorkspace {
  Eigen::FFT<double> fft;           ///< kissfft keeps its plans per length: made once, reused
  long chirp_n = 0;                 ///< the length the chirp below is for
  std::vector<Complex> w, fb;       ///< Bluestein's chirp w_k and the transform of its conjugate, per length
  std::vector<Complex> a, fa, out;  ///< the convolution's buffers and the transform
  std::vector<double> dev, power;   ///< the series less its mean, its power spectrum
};

namespace {

/// The largest prime factor of n (n ≥ 1).
long spectrum_largest_factor(long n) {
  long largest = 1;
  for (long p = 2; p * p <= n; ++p) {
    while (n % p == 0) largest = p, n /= p;
  }
  return std::max(largest, n);
}

/// Bluestein's chirp z-transform: the DFT of any length N as a convolution of length M ≥ 2N − 1, a power of two,
/// computed by three FFTs of M (kissfft's own radices are O(N·p) for a prime factor p).
/// M: the convolution's length, the power of two ≥ 2n − 1.
long bluestein_length(long n) {
  long m = 1;
  while (m < 2 * n - 1) m *= 2;
  return m;
}

/// Into ws.out. The chirp and its transform are made once per length and kept in the workspace, as are the buffers.
void spectrum_bluestein(const std::vector<double>& x, SpectrumWorkspace& ws) {
  const long n = static_cast<long>(x.size());
  const long m = bluestein_length(n);
  const auto at = [](long k) { return static_cast<std::size_t>(k); };
  if (ws.chirp_n != n) {
    // w_k = e^{−iπk²/N}, with k² taken mod 2N so that the angle stays exact for large k.
    ws.w.assign(at(n), Complex());
    for (long k = 0; k < n; ++k) {
      const auto k2 = static_cast<long>((static_cast<unsigned long long>(k) * static_cast<unsigned long long>(k)) %
                                        static_cast<unsigned long long>(2 * n));
      ws.w[at(k)] = std::polar(1.0, -kPi * static_cast<double>(k2) / static_cast<double>(n));
    }
    ws.a.assign(at(m), Complex());  // b: the conjugate chirp, wrapped; its transform kept in fb
    ws.a[0] = std::conj(ws.w[0]);
    for (long k = 1; k < n; ++k) ws.a[at(k)] = ws.a[at(m - k)] = std::conj(ws.w[at(k)]);
    ws.fft.fwd(ws.fb, ws.a);
    ws.chirp_n = n;
  }
  ws.a.assign(at(m), Complex());
  for (long k = 0; k < n; ++k) ws.a[at(k)] = x[at(k)] * ws.w[at(k)];
  ws.fft.fwd(ws.fa, ws.a);
  for (long k = 0; k < m; ++k) ws.fa[at(k)] *= ws.fb[at(k)];
  ws.fft.inv(ws.a, ws.fa);  // the convolution, scaled by 1/M, into a
  ws.out.resize(at(n));
  for (long k = 0; k < n; ++k) ws.out[at(k)] = ws.w[at(k)] * ws.a[at(k)];
}

/// The vectors of a tensor stream of file geometry `g` (batch and heads apart, as stored), `strides` where they lie.
SpectrumFetch spectrum_stream_fetch(const TensorStream& file, const DumpVectors& g, const DumpStrides& strides) {
  return [&file, g, strides](long s0, long s1, long g0, long g1, std::vector<double>& out) {
    const long n = g1 - g0, heads = g.heads, d = g.d, len = s1 - s0;
    out.resize(static_cast<std::size_t>(len * n * d));
    std::vector<double> run;
    std::vector<unsigned char> scratch;
    const bool seq_major = strides.seq == heads * d;  // [.., seq, heads, d]: one run covers every head
    for (long b = g0 / heads; b <= (g1 - 1) / heads; ++b) {
      const long h0 = std::max(g0, b * heads) - b * heads, h1 = std::min(g1, (b + 1) * heads) - b * heads;
      if (seq_major) {
        run.resize(static_cast<std::size_t>(len * heads * d));
        file.read(b * strides.batch + s0 * strides.seq, len * heads * d, run.data(), scratch);
        for (long s = 0; s < len; ++s) {
          for (long h = h0; h < h1; ++h) {
            std::copy_n(run.data() + (s * heads + h) * d, d, out.data() + (s * n + b * heads + h - g0) * d);
          }
        }
      } else {  // [batch, heads, seq, d]: each head's sequence one run
        run.resize(static_cast<std::size_t>(len * d));
        for (long h = h0; h < h1; ++h) {
          file.read(b * strides.batch + h * strides.heads + s0 * strides.seq, len * d, run.data(), scratch);
          for (long s = 0; s < len; ++s)
            std::copy_n(run.data() + s * d, d, out.data() + (s * n + b * heads + h - g0) * d);
        }
      }
    }
  };
}

/// The vectors of a dump read whole (a CSV file), as arranged.
SpectrumFetch spectrum_memory_fetch(const DumpVectors& v) {
  return [&v](long s0, long s1, long g0, long g1, std::vector<double>& out) {
    const long n = g1 - g0, d = v.d;
    out.resize(static_cast<std::size_t>((s1 - s0) * n * d));
    for (long s = s0; s < s1; ++s) {
      for (long g = g0; g < g1; ++g) std::copy_n(v.vector(s, g), d, out.data() + ((s - s0) * n + g - g0) * d);
    }
  };
}

/// The notes of a run: base assumed, a layer without RoPE, positions that are not consecutive, flat pairs.
void spectrum_notes(SpectrumRun& run) {
  if (run.base_assumed) {
    run.notes.push_back(
        msg("no model, config or base given: the wavelengths are plain RoPE's of base {0}; give {1}, "
            "{2} or {3}",
            format_number(kDefaultBase), option_name("model"), option_name("config"), option_name("base")));
  }
  if (run.nope) {
    run.notes.push_back(msg("layers {0} of {1} ({2}) have no RoPE: no pair turns, every wavelength is infinite",
                            describe_layers(run.nope->layers), escape_controls(run.nope->model),
                            escape_controls(run.nope->layer_type)));
  }
  const std::vector<double>& p = run.dump.positions;
  // Batch rows with positions of their own are laid end to end: each row starts again.
  const std::size_t row = run.dump.segments_are_rows && !run.dump.segments.empty()
                              ? std::max<std::size_t>(1, p.size() / run.dump.segments.size())
                              : std::max<std::size_t>(1, p.size());
  bool consecutive = true;
  for (std::size_t i = 1; i < p.size() && consecutive; ++i) consecutive = i % row == 0 || p[i] == p[i - 1] + 1;
  if (!consecutive) {
    run.notes.push_back(
        msg("the positions are not consecutive: each spectrum is taken along the sequence index, not the position"));
  }
  std::vector<std::string> flat;
  for (const PairSpectrum& j : run.tallies.pooled) {
    if (j.flat()) flat.push_back(std::to_string(j.pair));
  }
  if (!flat.empty()) {
    std::string list;
    for (std::size_t k = 0; k < flat.size() && k < 16; ++k) list += (k ? ", " : "") + flat[k];
    if (flat.size() > 16) list += ", …";
    run.notes.push_back(msg("{0} of {1} pairs have a flat norm along the sequence (frequency entropy 0, flagged): {2}",
                            flat.size(), run.tallies.pooled.size(), list));
  }
}

/// The channels of every rotated pair, as the dump holds them after RoPE (a pair's norm is the same before).
std::vector<std::pair<int, int>> spectrum_channels(const RopeExpectation& e) {
  std::vector<std::pair<int, int>> out;
  for (int j = 0; j < static_cast<int>(e.theta().size()); ++j) out.push_back(pair_channels(e, j, true));
  return out;
}

/// Spectrum of a dump whose file geometry is `g`: the tallies, bands and notes.
void spectrum_compute(SpectrumRun& run, const DumpVectors& g, const SpectrumFetch& fetch) {
  run.seq = g.seq, run.batch = g.batch, run.heads = g.heads, run.d = g.d;
  SpectrumShape shape{g.seq, g.batch, g.heads, g.d, run.dump.after.dtype, 1};
  shape.block = std::max(1L, kStreamBlockElements / std::max(1L, g.heads * g.d));
  run.tallies = spectrum_tallies(shape, spectrum_channels(run.expected), run.expected.theta(), fetch);
  run.bands = spectrum_bands(run.tallies.pooled);
  spectrum_notes(run);
}

}  // namespace

double flat_threshold(double mean_norm, DType dtype) { return kToleranceSafety * epsilon(dtype) * mean_norm; }

std::shared_ptr<SpectrumWorkspace> make_spectrum_workspace() { return std::make_shared<SpectrumWorkspace>(); }

long spectrum_series_bytes(long t) {
  constexpr long c = static_cast<long>(sizeof(Complex)), r = static_cast<long>(sizeof(double));
  // The series, its deviation and power (doubles); the input, the transform and kissfft's forward plan.
  if (t < 2 || spectrum_largest_factor(t) <= 64) return 3 * r * t + 3 * c * t;
  // Bluestein: the chirp and the transform (n each), b's transform, a and fa, two plans of M (M each).
  const long m = bluestein_length(t);
  return 3 * r * t + 2 * c * t + 5 * c * m;
}

int spectrum_threads(long t, int available) {
  const long fit = kSpectrumWorkBudget / std::max(1L, spectrum_series_bytes(t));
  return static_cast<int>(std::clamp<long>(fit, 1, std::max(1, available)));
}

namespace {

/// P(f) of x into ws.power.
void power_spectrum_into(const std::vector<double>& x, SpectrumWorkspace& ws) {
  const long n = static_cast<long>(x.size());
  ws.power.resize(x.size());
  if (n == 0) return;
  if (n == 1) {  // kissfft has no plan of one point
    ws.power[0] = x[0] * x[0];
    return;
  }
  if (spectrum_largest_factor(n) <= 64) {
    ws.a.assign(x.begin(), x.end());
    ws.fft.fwd(ws.out, ws.a);
  } else {
    spectrum_bluestein(x, ws);
  }
  for (long k = 0; k < n; ++k) ws.power[static_cast<std::size_t>(k)] = std::norm(ws.out[static_cast<std::size_t>(k)]);
}

}  // namespace

std::vector<double> power_spectrum(const std::vector<double>& x, SpectrumWorkspace* workspace) {
  SpectrumWorkspace own;
  SpectrumWorkspace& ws = workspace != nullptr ? *workspace : own;
  power_spectrum_into(x, ws);
  return ws.power;
}

SeriesEntropy frequency_entropy(const std::vector<double>& s, DType dtype, SpectrumWorkspace* workspace) {
  const std::size_t t = s.size();
  double mean = 0;
  for (const double v : s) mean += v;
  mean /= std::max<std::size_t>(1, t);
  SpectrumWorkspace own;
  SpectrumWorkspace& ws = workspace != nullptr ? *workspace : own;
  std::vector<double>& dev = ws.dev;
  dev.resize(t);
  double square = 0;
  for (std::size_t i = 0; i < t; ++i) dev[i] = s[i] - mean, square += dev[i] * dev[i];
  const double rms = std::sqrt(square / std::max<std::size_t>(1, t));
  if (t < 2 || mean == 0 || rms <= flat_threshold(mean, dtype)) return {0, true};  // (F4)
  power_spectrum_into(dev, ws);
  const std::vector<double>& p = ws.power;
  double total = 0;
  for (std::size_t f = 1; f <= t / 2; ++f) total += p[f];
  if (!(total > 0)) return {0, true};
  double h = 0;
  for (std::size_t f = 1; f <= t / 2; ++f) {
    const double q = p[f] / total;
    if (q > 0) h -= q * std::log(q);
  }
  return {h, false};
}

SpectrumBands spectrum_bands(const std::vector<PairSpectrum>& pairs) {
  SpectrumBands b;
  const int n = static_cast<int>(pairs.size());
  std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
  for (int j = 0; j < n; ++j) prefix[j + 1] = prefix[j] + pairs[static_cast<std::size_t>(j)].energy_share;
  const double total = prefix[static_cast<std::size_t>(n)];
  if (total > 0) {
    // The fewest consecutive pairs holding kSpectrumBandShare of the energy; of equal lengths, the one holding most
    // (then the first). The shares sum to 1 up to rounding: the target is the share of their sum.
    const double target = kSpectrumBandShare * total;
    int best_length = n + 1;
    for (int first = 0; first < n; ++first) {
      for (int last = first; last < n && last - first + 1 <= best_length; ++last) {
        const double held = prefix[last + 1] - prefix[first];
        if (held < target * (1 - 1e-12)) continue;
        const int length = last - first + 1;
        if (length < best_length || (length == best_length && held > b.energy_held * total)) {
          best_length = length, b.energy_first = first, b.energy_last = last, b.energy_held = held / total;
        }
        break;
      }
    }
  }
  for (int j = 0; j < n; ++j) {
    const PairSpectrum& p = pairs[static_cast<std::size_t>(j)];
    if (p.flat()) continue;
    if (!b.lowest_entropy || p.frequency_entropy < pairs[static_cast<std::size_t>(*b.lowest_entropy)].frequency_entropy)
      b.lowest_entropy = j;
    if (!b.highest_entropy ||
        p.frequency_entropy > pairs[static_cast<std::size_t>(*b.highest_entropy)].frequency_entropy)
      b.highest_entropy = j;
  }
  return b;
}

SpectrumTallies spectrum_tallies(const SpectrumShape& shape, const std::vector<std::pair<int, int>>& channels,
                                 const Eigen::VectorXd& theta, const SpectrumFetch& fetch) {
  const long pairs = static_cast<long>(channels.size()), t = shape.seq, groups = shape.batch * shape.heads;
  const int d = shape.d;
  if (pairs * t > kMaxSpectrumNorms) {
    throw InvalidArgument(
        error_msg("{0} pairs × {1} sequence indices is more than the {2} norms one head's spectrum "
                  "holds: take a slice of the sequence axis",
                  pairs, t, kMaxSpectrumNorms));
  }
  std::vector<double> energy(static_cast<std::size_t>(groups * pairs), 0.0),
      entropy(static_cast<std::size_t>(groups * pairs), 0.0);
  std::vector<char> flat(static_cast<std::size_t>(groups * pairs), 0);
  const long chunk = std::max(1L, kSpectrumNormBudget / std::max(1L, pairs * t));
  const int threads = spectrum_threads(t, omp_get_max_threads());
  std::vector<double> norms, block;
  for (long g0 = 0; g0 < groups; g0 += chunk) {
    const long g1 = std::min(groups, g0 + chunk), n = g1 - g0;
    norms.assign(static_cast<std::size_t>(n * pairs * t), 0.0);  // [group][pair][t]
    for (long s0 = 0; s0 < t; s0 += shape.block) {
      const long s1 = std::min(t, s0 + shape.block);
      fetch(s0, s1, g0, g1, block);
      for (long s = s0; s < s1; ++s) {
        for (long g = 0; g < n; ++g) {
          const double* x = block.data() + ((s - s0) * n + g) * d;
          for (long j = 0; j < pairs; ++j) {
            const double a = x[channels[static_cast<std::size_t>(j)].first],
                         c = x[channels[static_cast<std::size_t>(j)].second];
            const double e = a * a + c * c;
            if (!std::isfinite(e)) {
              throw InvalidArgument(error_msg(
                  "the dump holds a value that is not finite (sequence index {0}, batch "
                  "row {1}, head {2}, pair {3}): {4}",
                  s, (g0 + g) / shape.heads, (g0 + g) % shape.heads, j, format_number(std::isfinite(a) ? c : a)));
            }
            energy[static_cast<std::size_t>((g0 + g) * pairs + j)] += e;
            norms[static_cast<std::size_t>((g * pairs + j) * t + s)] = std::sqrt(e);
          }
        }
      }
    }
    // As many threads as kSpectrumWorkBudget holds (a prime length's Bluestein buffers: ~0.9 GiB a thread at
    // T = 4 194 301), each with its workspace reused by every series it takes.
#pragma omp parallel num_threads(threads)
    {
      SpectrumWorkspace ws;
      std::vector<double> series;
#pragma omp for schedule(dynamic)
      for (long k = 0; k < n * pairs; ++k) {
        series.assign(norms.begin() + k * t, norms.begin() + (k + 1) * t);
        const SeriesEntropy fe = frequency_entropy(series, shape.dtype, &ws);
        entropy[static_cast<std::size_t>(g0 * pairs + k)] = fe.entropy;
        flat[static_cast<std::size_t>(g0 * pairs + k)] = fe.flat ? 1 : 0;
      }
    }
  }
  // Pooled and per head: energies summed (the mean's denominators cancel in the share), entropies averaged.
  const auto tally = [&](long h_first, long h_last) {
    std::vector<PairSpectrum> out(static_cast<std::size_t>(pairs));
    double total = 0;
    for (long g = 0; g < groups; ++g) {
      const long h = g % shape.heads;
      if (h < h_first || h >= h_last) continue;
      for (long j = 0; j < pairs; ++j) {
        PairSpectrum& p = out[static_cast<std::size_t>(j)];
        const auto at = static_cast<std::size_t>(g * pairs + j);
        p.energy_share += energy[at];
        p.frequency_entropy += entropy[at];
        p.flat_series += flat[at];
        ++p.series;
        total += energy[at];
      }
    }
    for (long j = 0; j < pairs; ++j) {
      PairSpectrum& p = out[static_cast<std::size_t>(j)];
      p.pair = static_cast<int>(j);
      p.wavelength = kTwoPi / theta[j];
      p.energy_share = total > 0 ? p.energy_share / total : 0.0;
      p.frequency_entropy /= std::max(1L, p.series);
    }
    return out;
  };
  SpectrumTallies out;
  out.pooled = tally(0, shape.heads);
  for (long h = 0; h < shape.heads; ++h) out.heads.push_back(tally(h, h + 1));
  return out;
}

SpectrumRun run_spectrum(const SpectrumRequest& request) {
  const CheckSettings& s = request.settings;
  SpectrumRun run;
  run.file = request.dump.before;
  DumpFiles files = request.dump;
  files.one_dump = true;
  run.dump = open_dumps(files);
  const std::string name = escape_controls(files.before, kQuotedBytes);
  DumpStrides strides;
  DumpVectors g = dump_geometry(run.dump.shape, run.dump.axes, name, &strides);
  g.dtype = run.dump.after.dtype;
  double max_position = 0;
  for (const double p : run.dump.positions) max_position = std::max(max_position, std::abs(p));
  run.nope = layers_without_rope(s.source, s.rope);
  run.expected =
      run.nope ? unchanged_expectation(g.d, s) : expectation_from_settings(s, g.d, true, max_position, run.where);
  run.base_assumed = !run.nope && !s.any() && !s.base;
  if (run.dump.stream) {
    TensorReadOptions read;
    read.bf16_bits = files.bf16_bits;
    read.tensor = files.tensor;
    const TensorStream file = TensorStream::open(files.before, read);
    run.dump.stream.reset();
    spectrum_compute(run, g, spectrum_stream_fetch(file, g, strides));
  } else {  // a CSV file, read whole as rope check reads it
    const DumpVectors values = run.dump.after;
    spectrum_compute(run, values, spectrum_memory_fetch(values));
  }
  drop_values(run.dump);
  return run;
}

SpectrumRun spectrum_of_tensor(const unsigned char* data, const TensorHeader& header, const std::string& name,
                               DumpPairInput input,
                               const std::function<RopeExpectation(int head_dim, Message& where)>& expected) {
  SpectrumRun run;
  TensorData t;  // the geometry: the values stay where the front end holds them
  t.shape = header.shape, t.dtype = header.dtype, t.stored = header.stored;
  input.geometry_only = true;
  run.dump = arranged_geometry(arrange_dump_pair(t, t, input, name, name));
  run.dump.stored = header.stored;
  DumpStrides strides;
  DumpVectors g = dump_geometry(run.dump.shape, run.dump.axes, name, &strides);
  g.dtype = header.dtype;
  if (expected) {
    run.expected = expected(g.d, run.where);
  } else {
    run.expected = expectation_from_settings({}, g.d, true, 0, run.where);
    run.base_assumed = true;
  }
  const TensorStream file = TensorStream::in_memory(data, header, name);
  spectrum_compute(run, g, spectrum_stream_fetch(file, g, strides));
  return run;
}

}  // namespace rope
