/// @file
/// `rope spectrum` (docs/spectrum.md): which rotary pairs of a dumped q or k carry energy, and how periodic each
/// pair's norm is along the sequence. Per pair j of the rotary dimensions, from the spec's pairing and θ_j:
///   (F1) its wavelength λ_j = 2π/θ_j;
///   (F2) its energy share E_j / Σ_k E_k, E_j the mean of ‖x_j(t)‖² over positions, batch rows and heads;
///   (F3) its frequency entropy: s_j(t) = ‖x_j(t)‖, P(f) = |DFT(s_j − mean s_j)|²(f) for f = 1 … ⌊T/2⌋,
///        p = P/ΣP, FE_j = −Σ p ln p, computed per batch row and head and averaged; a series whose norm is flat
///        (F4) has FE 0 and is flagged;
///   (F5) the bands: the fewest consecutive pairs holding 90 % of the energy, and the pairs of lowest and
///        highest entropy.
/// The dump is read as rope check reads it (analysis/check/dump_files.hpp: every format and axis order), streamed a
/// block of sequence indices at a time, so that memory holds the norms of a few heads (pairs × sequence each),
/// never the dump.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/check/dump_files.hpp"
#include "rope/core/message.hpp"

namespace rope {

/// The share of the energy the band (F5) holds.
inline constexpr double kSpectrumBandShare = 0.9;
/// Largest pairs × sequence of one head (the norms one head's spectrum needs, float64): 2^26, 512 MiB.
inline constexpr long kMaxSpectrumNorms = 1L << 26;
/// Norms held at once for several heads (float64): 2^23, 64 MiB; more heads take another pass over the file.
inline constexpr long kSpectrumNormBudget = 1L << 23;
/// The working memory of the series' spectra computed at once, one per thread (spectrum_series_bytes each): 1 GiB.
/// A length with a large prime factor takes Bluestein's path, about 0.9 GiB a thread at T = 4 194 301, so such a
/// dump runs its spectra on fewer threads than the machine has (spectrum_threads), not 16 × 0.9 GiB at once.
inline constexpr long kSpectrumWorkBudget = 1L << 30;

/// The bytes one thread's spectrum of a series of length t holds (its FFT plans, the series, its deviation and power,
/// the transform; Bluestein's convolution buffers of M ≥ 2t − 1, a power of two, where t has a prime factor above 64).
long spectrum_series_bytes(long t);

/// How many of `available` threads compute spectra of length t at once: as many as kSpectrumWorkBudget holds, at
/// least 1.
int spectrum_threads(long t, int available);

/// The flat rule (F4): a series is flat when the root mean square of s − mean(s) is at most κ·ε·mean(s) (κ = 8, the
/// tolerance's safety factor, docs/math.md (M13); ε the dump's machine epsilon), or when it is all zeros.
double flat_threshold(double mean_norm, DType dtype);

/// One pair's numbers, pooled over batch rows and heads or for one head.
struct PairSpectrum {
  int pair = 0;
  double wavelength = 0;         ///< 2π/θ_j (infinite for a pair that does not turn)
  double energy_share = 0;       ///< (F2)
  double frequency_entropy = 0;  ///< (F3), nats
  long flat_series = 0;          ///< series (batch row × head) found flat (F4)
  long series = 0;               ///< series averaged
  bool flat() const { return series > 0 && flat_series == series; }
};

/// (F5) over the pooled pairs.
struct SpectrumBands {
  int energy_first = 0, energy_last = -1;              ///< the band of kSpectrumBandShare of the energy (-1: no energy)
  double energy_held = 0;                              ///< its share
  std::optional<int> lowest_entropy, highest_entropy;  ///< among the pairs not flat; nullopt when every pair is
};

/// What one frequency entropy needs: the power spectrum's entropy of one series (F3), and whether it was flat.
struct SeriesEntropy {
  double entropy = 0;
  bool flat = false;
};

/// One thread's FFT plans and buffers, reused by every series it transforms (the plans are made once per length).
struct SpectrumWorkspace;
/// A workspace of its own (for a caller outside spectrum_tallies, and the tests).
std::shared_ptr<SpectrumWorkspace> make_spectrum_workspace();

/// (F3)–(F4) of one series s(0 … T−1): the DFT by Eigen's FFT (kissfft), through Bluestein's chirp for a length
/// with a prime factor above 64. `workspace`: the calling thread's, reused (nullptr: one of its own).
SeriesEntropy frequency_entropy(const std::vector<double>& s, DType dtype, SpectrumWorkspace* workspace = nullptr);

/// The power spectrum P(f) = |Σ_t x(t) e^{−2πi f t/T}|², f = 0 … T−1, of a real series (exposed for its test).
std::vector<double> power_spectrum(const std::vector<double>& x, SpectrumWorkspace* workspace = nullptr);

/// (F5) of pooled pairs.
SpectrumBands spectrum_bands(const std::vector<PairSpectrum>& pairs);

/// Reads the vectors of groups [g0, g1) (batch-major, batch row × head) at sequence indices [s0, s1) into `out`,
/// laid [s − s0][g − g0][d].
using SpectrumFetch = std::function<void(long s0, long s1, long g0, long g1, std::vector<double>& out)>;

/// The shape a fetch reads: sequence T, batch rows, heads, channels d, and the type for the flat rule.
struct SpectrumShape {
  long seq = 0, batch = 1, heads = 1;
  int d = 0;
  DType dtype = DType::F64;
  /// Sequence indices one fetch reads for all of its groups (bounded by the reader's block).
  long block = 1;
};

/// The per-head and pooled numbers of every pair (the channels of each pair and its θ given), with the norms of
/// as many heads at once as kSpectrumNormBudget holds. @throws InvalidArgument when pairs × sequence exceeds
/// kMaxSpectrumNorms.
struct SpectrumTallies {
  std::vector<PairSpectrum> pooled;
  std::vector<std::vector<PairSpectrum>> heads;  ///< [head][pair], pooled over batch rows
};
SpectrumTallies spectrum_tallies(const SpectrumShape& shape, const std::vector<std::pair<int, int>>& channels,
                                 const Eigen::VectorXd& theta, const SpectrumFetch& fetch);

struct SpectrumRequest {
  DumpFiles dump;  ///< `before` names the one dump (the others of the pair unused); its positions and axes
  CheckSettings settings;
};

/// The report of `rope spectrum`.
struct SpectrumRun {
  std::string file;
  LoadedDumps dump;  ///< geometry, positions, axes; no values
  RopeExpectation expected;
  Message where;              ///< where the layout came from
  bool base_assumed = false;  ///< no model, config or base given: base 10000
  std::optional<LayersWithoutRope> nope;
  long seq = 0, batch = 1, heads = 1;
  int d = 0;
  SpectrumTallies tallies;
  SpectrumBands bands;
  std::vector<Message> notes;
};

/// Reads the dump, resolves the spec once and computes. @throws InvalidArgument and IoError as rope check's readers.
SpectrumRun run_spectrum(const SpectrumRequest& request);

/// The same on a tensor a front end holds (`data` as `header` describes it, read in place; `input` its positions
/// and axes): the Python module. `expected`: the expectation of the front end's spec for the dump's d (called once,
/// with d); none: plain RoPE of base 10000, said so. `name` starts the messages about the tensor.
SpectrumRun spectrum_of_tensor(const unsigned char* data, const TensorHeader& header, const std::string& name,
                               DumpPairInput input,
                               const std::function<RopeExpectation(int head_dim, Message& where)>& expected);

}  // namespace rope
