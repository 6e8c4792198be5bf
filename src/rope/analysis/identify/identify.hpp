/// @file
/// `rope identify`: the RoPE that turned one dump into the other, from the numbers alone (docs/check.md).
///
///   1. Rotated channels: those that change somewhere beyond the dump's rounding (κ·ε_T·|x|); the rest is
///      the untouched tail (partial rotary) or zero-frequency pairs (proportional).
///   2. Attention factor a: RoPE keeps every pair's norm up to a, so a² = Σ‖y_R‖² / Σ‖x_R‖² over the rotated
///      channels R of every vector.
///   3. Pairing: for each rotated channel, the partner b whose pair keeps its norm (up to a) in every vector:
///      argmin_b Σ (y_a² + y_b² − a²(x_a² + x_b²))². The pairs found are named interleaved (2j, 2j+1), half
///      (j, j + r/2), or reported as the permutation they are. When no pairing holds for every head, each head
///      is paired on its own: heads in the other layout are listed (a q/k permutation wrong on some heads).
///   4. Frequencies: for pair j = (a, b), z = x_a + i·x_b; at each position m the phasor
///      u(m) = Σ conj(z_before)·z_after (summed over batch and heads) has the angle m·θ_j modulo 2π. Any
///      integer positions will do: θ_j first maximises the periodogram |Σ_m u(m)·e^(−iθm)| over θ ∈ [−π, π]
///      (on a grid finer than its peak, then refined), which does not depend on an offset of the positions; a
///      second peak as high means the positions cannot determine θ_j (evenly spaced or too few). Then, from
///      the phases of consecutive indices, the places where the positions restart or jump (chunked prefill,
///      packed sequences) and their true step; then one integer offset k common to every pair (the dump
///      rotated position m by (m + k)·θ: "positions shifted by k"); finally each φ, in order of |m + k|, is
///      unwrapped to the branch nearest the current fit's (m + k)·θ_j and θ_j = Σ m'·φ / Σ m'² (least
///      squares through the origin, m' = m + k). Every θ_j negative: the rotation is reversed.
///   5. Family: ln θ_j fitted by the scaling families of docs/scaling.md: geometric (default RoPE, and
///      static NTK, which is default RoPE with another base) (S1), (S3); linear (S2); YaRN's ramp, linear in
///      j (S6)–(S8); llama3's bands, linear in 1/λ (S11); the residual is the RMS of ln θ_measured −
///      ln θ_family over the rotated pairs, each weighted by 1/σ² of its ln θ_j (low frequencies seen
///      over few positions in a 16-bit dump weigh little).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/dumps/dump.hpp"
#include "rope/core/message.hpp"
#include "rope/models/axes.hpp"

namespace rope {

enum class PairLayout { Interleaved, Half, Other, None };
const char* to_string(PairLayout layout);

enum class Family { Default, Linear, Yarn, Llama3, PerPair };
const char* to_string(Family family);

/// One fitted family.
struct FamilyFit {
  Family family = Family::Default;
  double base = 0;        ///< from the kept (high-frequency) pairs
  double factor = 1;      ///< f: linear's divisor, yarn/llama3's factor for the interpolated pairs
  double ramp_low = 0;    ///< yarn: the ramp runs from pair ramp_low (kept) to ramp_high (interpolated);
  double ramp_high = 0;   ///< llama3: the wavelengths L0/high_freq_factor and L0/low_freq_factor
  double residual = 0;    ///< RMS of ln θ_measured − ln θ_fit over the rotated pairs
  Eigen::VectorXd theta;  ///< the family's θ_j
};

struct Identification {
  int d = 0;
  int rotary_dim = 0;                      ///< number of rotated channels
  std::vector<int> rotated;                ///< the rotated channels, increasing
  std::vector<std::pair<int, int>> pairs;  ///< (a, b), a < b, by increasing a; pair j = pairs[j]
  /// Heads in different layouts: each group's own pairs (pair j of group g = group_pairs[g][j]); empty when
  /// every head pairs its channels as `pairs`.
  std::vector<std::vector<std::pair<int, int>>> group_pairs;
  std::vector<long> heads_paired_otherwise;  ///< the groups whose pairs are not `pairs`
  PairLayout layout = PairLayout::None;
  /// The first rotated channel when the rotated channels are one block [rotary_offset, rotary_offset + rotary_dim)
  /// with pass-through channels before it (llama.cpp's legacy DeepSeek-2 q: rope on channels 128…191 of 192), `layout`
  /// inside the block: pair j on (o + 2j, o + 2j + 1) or (o + j, o + j + r/2); 0 otherwise.
  int rotary_offset = 0;
  /// The layout applies inside each axis's block of d/2 channels (Gemma 4's vision tower, (V6) of
  /// docs/multi-axis.md): pair j = b·d/4 + k on b·d/2 + (k, k + d/4); `layout` is then Half.
  bool axis_blocks = false;
  int family_dim = 0;  ///< the dimension of the frequency ladder: rotary_dim, or d for pairs (j, j + d/2)
  double attention_factor = 1;
  /// θ_0 = 2 and half the frequencies a family's: RoPE applied twice (`fits` are then of θ/2, their `theta` doubled;
  /// attention_factor is the squared one the dump shows).
  bool applied_twice = false;
  /// sin and cos by a fast unit without range reduction (rope check's angles-fast-math): θ_j measured within |δ|/8
  /// fall short of the fitted θ_j rounded to float32 by δ = fast_math_shortfall() of themselves (fl32(1/2π)'s share),
  /// or by δ and the loss of the revolutions' product rounded toward zero (SASS's FMUL.RZ): the median shortfall of the
  /// pairs whose residual under the measured rounding is within |δ|/4 of 0, where at least 8 are and more than twice
  /// as many as within |δ|/4 of 0 unshifted (a float32 product's); none otherwise.
  std::optional<double> fast_math_bias;
  bool fast_math_toward_zero = false;  ///< the product t = angle·fl32(1/2π) measured rounded toward zero
  /// κ·ε of the type the dump is read in: the relative change of an element step 1 counts as a rotation.
  double rounding = 0;
  double norm_residual = 0;  ///< max over vectors and pairs of |‖y‖ − a‖x‖| / ‖x‖: how well a pairing keeps norms
  /// Per vector (index s·groups + g), 1 where some pair of it breaks its norm beyond 4× the dump's rounding while most
  /// vectors keep theirs: some elements of that vector depart (stores racing, elements never written), not its
  /// position. Those vectors are left out of steps 4 and 5 (and of norm_residual); empty when none is, or when more
  /// than a quarter of the vectors are (the dump's pairs then are no rotation, said as such).
  std::vector<char> left_out;
  /// The left-out vectors element by element against the RoPE identified from the others: the elements of the
  /// rotated channels off their pair's rotation (at the dump's position, θ_j and a) beyond 4× the dump's rounding and
  /// the fit's angle error, located.
  struct Departed {
    long elements = 0;          ///< elements no rotation of their pair
    long kept_input = 0;        ///< of them, those equal to their input (never written)
    int channel = 0;            ///< the first channel with such an element
    int channel_last = 0;       ///< the last one
    long channels = 0;          ///< the channels with such elements
    std::vector<long> indices;  ///< the sequence indices with such elements, increasing
    long groups = 0;            ///< the groups (batch row × head) with such elements
  };
  std::optional<Departed> departed;
  Eigen::VectorXd theta;           ///< measured θ_j per pair (negative: the pair turns the other way)
  Eigen::VectorXd angle_residual;  ///< per pair: RMS of φ − m·θ_j (rad)
  Eigen::VectorXd theta_sigma;     ///< per pair: standard error of θ_j, angle_residual / √(Σ m²)
  FamilyFit fit;                   ///< the best family
  std::vector<FamilyFit> fits;     ///< every family tried, best first
  std::vector<Message> notes;      ///< what could not be decided, and what the numbers also say
  double position_offset = 0;      ///< k: the dump rotated position m by (m + k)·θ (0: the positions given)
  std::vector<long> jumps;         ///< sequence indices where the dump's positions restart or jump
  /// The sequence index from which the dump's positions stop advancing while the given ones go on (no pair turns
  /// from one index to the next): a cos/sin cache read with its index clamped to its last row; −1 when they advance.
  long held_from = -1;
  double held_position = 0;  ///< the position every index from held_from on is turned at (the last one given before)
  std::vector<double> dump_positions;  ///< the positions the dump used (given ones with jumps and offset applied)
  /// The constant k where the dump's positions are the tokens' order plus k (k, k + 1, …) and the given ones need
  /// jumps (a context-parallel rank that numbered its tokens across the ranks: rope check's positions-offset, found
  /// order_offset); the jumps and offset that reach them from the given ones are then not said. nullopt otherwise.
  std::optional<double> order_offset;
  /// A group (batch row × head of the dump) whose vectors turn at dump_positions shifted by a constant of its own.
  struct GroupOffset {
    long group = 0;
    double offset = 0;
  };
  /// The groups turned at positions offset from the others' (a per-head position table indexed wrong: head 3 at
  /// 5000 + i), each with its shift; empty when every group fits dump_positions, when all of them are offset,
  /// or more than kMaxOffsetGroups are.
  std::vector<GroupOffset> group_offsets;
  std::vector<int> undetermined;  ///< pairs whose θ_j the positions cannot determine
  /// Pairs whose partners the dump's rounding hides (they turn too little at these positions): paired as the layout of
  /// the others.
  std::vector<int> pairing_assumed;
  bool reversed = false;  ///< every pair turns clockwise: the rotation is reversed (sin's sign)
  /// The output is de-interleaved: pair j read at (2j, 2j + 1) and written at (j, j + d/2), as Hugging Face's
  /// DeepSeek-V3 returns it; `pairs` and `layout` (interleaved) are those of the output read back in place.
  bool output_deinterleaved = false;
  /// |position_offset| beyond the span of the positions given, found when no offset within it fits: positions
  /// forgotten (a dump at 40000 + i checked at 0 … n − 1) or offset far beyond them.
  bool offset_beyond_span = false;
  /// No pairing found (layout None), yet the pairs of this layout over the rotated channels keep every pair's norm
  /// (within norm_residual): the vectors of a sequence index are turned by different angles (axes read in the wrong
  /// order), not a rotation that breaks norms.
  std::optional<PairLayout> norms_kept_by;
  /// No pairing found (layout None), and every rotated channel is its input times a factor of its own per sequence
  /// index, the same for every group, within [−1, 1]: no rotation mixes channels (x·cos alone, the sin term dropped).
  bool channels_scaled = false;
  /// M-RoPE (positions with a component per axis, docs/multi-axis.md): the axis each pair turns by.
  struct Axes {
    std::vector<int> pair_axis;  ///< per pair: 0 t, 1 h, 2 w, 3 e; −1 where the positions cannot tell the axes apart
    std::vector<int> sections;   ///< pairs per axis (mrope_section); empty unless every pair's axis is known
    std::optional<SectionOrder> order;  ///< Chunked (A2), Interleaved (A3) or Bailing (A9) when the pairs follow it
    /// The presets whose map (sections and order), layout and frequencies are the dump's: (family, preset), in name
    /// order; a diffusers class by its display name (Cosmos 3), a language model by its preset (match_mrope_presets).
    std::vector<std::pair<std::string, std::string>> presets;
  };
  std::optional<Axes> axes;
  /// A 2-D vision RoPE (positions (row, column), models/vision_rope.hpp) whose axis map and pairs are the dump's.
  struct VisionMatch {
    std::string kind;       ///< "qwen2-vl", "pixtral", "llama4", "axial", "gemma4"
    std::string equation;   ///< "(V2)" … "(V6)" of docs/multi-axis.md
    double base = 0;        ///< fitted to every pair's θ_j by its own ladder
    double residual = 0;    ///< RMS of ln θ_measured − ln θ_fit, weighted as fit_families weighs
    Eigen::VectorXd theta;  ///< the fitted θ_j
  };
  std::optional<VisionMatch> vision;
  /// A diffusion transformer's latent grid (models/grid_rope.hpp (G1), (G2)): (t, h, w) positions whose pairs read the
  /// axes in blocks, each block its own ladder base^(−2k/d_a); the presets rope knows that fit (identify_grid.cpp).
  struct GridMatch {
    std::vector<int> widths;    ///< channels per axis t, h, w (Flux.2: and l)
    double base = 0;            ///< one base fitted to every axis's ladder; 0 when each axis has its own (bases)
    std::vector<double> bases;  ///< each axis's base (all equal to base where one fits)
    int unturned = 0;           ///< the t block's pairs that never turn (every token's t 0: Flux's image latents)
    double residual = 0;        ///< RMS of ln θ_measured − ln θ_fit, weighted as fit_families weighs
    Eigen::VectorXd theta;      ///< the fitted θ_j
    /// Every preset with these widths, layout and frequencies: (family's display name, preset), in name order.
    std::vector<std::pair<std::string, std::string>> families;
    /// The presets with these widths and layout whose frequencies differ: family, preset and the preset's base.
    struct WidthsFit {
      std::string family, preset;
      double base = 0;
    };
    std::vector<WidthsFit> widths_fit;
    /// LTX's table (models/grid_rope.hpp (G4), (G6)) in place of blocks: after `padding` pairs that do not turn, the
    /// axes t, h, w in turn per frequency, ω_k = (π/2)·base^(k/(F−1)) (widths 2F each); `heads` > 0 where each head
    /// turns its own slice of the table (LTX-2's rope_type split), 0 for pairs (2i, 2i + 1) over the whole vector.
    bool per_frequency = false;
    int padding = 0;
    int heads = 0;
    /// LTX's table: the table pairs (padding counted) no channel of which changed, read as the table's because at
    /// `whole_turns_base` (an LTX preset's base that fits the pairs measured) it turns each by whole turns at every
    /// position, within `whole_turns_off` rad (a small latent's positions); empty where every pair turned.
    std::vector<int> whole_turns;
    double whole_turns_base = 0;
    double whole_turns_off = 0;
  };
  std::optional<GridMatch> grid;
  /// HunyuanVL's XD-RoPE (four position streams p, w, h, t, docs/multi-axis.md (A11)): the stream each channel turns
  /// by, measured channel by channel, and the map those streams follow.
  struct Xdrope {
    std::vector<int> channel_stream;  ///< per channel: 0 p, 1 w, 2 h, 3 t; −1 where the positions cannot tell
    std::vector<int> sections;        ///< xdrope_section, the pairs per stream; empty unless a map is named
    std::optional<SectionOrder> map;  ///< XdropeHf (the doubled sections) or XdropeTencent (the list repeated)
    int parts_at = -1;                ///< the first pair where the other map reads another stream (check's `pair`)
  };
  std::optional<Xdrope> xdrope;
  /// FoPE (Fourier Position Embedding, docs/multi-axis.md §7 (F1)–(F4)): pairs 0 … kept − 1 scaled rotations whose cos
  /// and sin are not those of one angle, the others padded; found from the dumps alone, without the coefficients.
  struct Fope {
    int kept = 0;                 ///< K: the pairs whose cos and sin are the coefficients' sums (F2)
    int padded = 0;               ///< d/2 − K: the pairs padded with cos 1 (F3)
    bool sin_padded_one = false;  ///< the padded pairs are √2·R(π/4) (sin 1 too), not passed through (sin 0)
    long kv_heads = 1;            ///< the groups of heads that share cos′ and sin′ (per batch row)
    long group_heads = 1;         ///< the query heads of one key-value head (heads / kv_heads), as GQA groups them
    double norm_min = 1, norm_max = 1;  ///< the kept pairs' √(cos′² + sin′²) over the positions and heads
  };
  std::optional<Fope> fope;
};
using VisionMatch = Identification::VisionMatch;

/// Largest head dimension identify takes: LTX-2's video table, one table over 32 heads × 128 = 4096 channels read
/// whole. The pairing's cost matrix is d × d float64 (128 MiB at 4096); up to 1024 channels every pair of them is
/// costed on a sample of 256 vectors, above that only candidate pairs (detail::pairing_costs).
inline constexpr int kMaxIdentifyDim = 4096;
/// @throws InvalidArgument naming d and kMaxIdentifyDim when d is above it (asked of a dump's shape before its values
/// are read).
void require_identify_dim(int d);

/// Identifies the RoPE of (before, after) at `positions`. @throws InvalidArgument if the shapes differ,
/// positions.size() != before.seq, no position is non-zero, or d > kMaxIdentifyDim.
Identification identify_rope(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions);

/// The same with a position per axis (M-RoPE's t, h, w(, e) per sequence index): each pair's θ_j measured at every
/// axis's positions, and the axis whose positions fit its phases (the least angle residual, by at least half)
/// taken as the pair's; Identification::axes names the sections and their map. Two components are a vision tower's
/// (row, column): Identification::vision names the 2-D vision RoPE. Restarts and offsets are not searched. One
/// component per position: as above.
Identification identify_rope(const DumpVectors& before, const DumpVectors& after,
                             const std::vector<AxisPosition>& positions);

/// The θ_j of each family for `pairs` pairs of rotary dimension 2·pairs (also used by the figure).
Eigen::VectorXd family_theta(const FamilyFit& fit, int pairs);

namespace detail {

/// Weighted least squares y ≈ α + β·x over the points (x_i, y_i) of weight w_i (equal lengths, Σw > 0); returns
/// {α, β}, β 0 where the x_i are all equal.
std::pair<double, double> line_fit(const std::vector<double>& x, const std::vector<double>& y,
                                   const std::vector<double>& w);

/// Most positions in the periodogram of a pair's θ (identify_theta.cpp) and of its axis (identify_axes.cpp): the
/// ones of smallest |m|; its cost is grid × positions per pair.
inline constexpr std::size_t kMaxPeriodogramPositions = 256;
/// Step 3's cost of pairing channels i and j (d × d): the least
/// Σ|z_after − a·e^(iφ)·z_before|² over one angle φ per sequence index, divided by Σ(|z_after|² + a²|z_before|²), over
/// `vectors` (indices s·groups + g, increasing); 0 for a pair RoPE turned, the rounding of the dump for a pair that
/// turned too little to show; the diagonal is infinite. Above 1024 channels only candidate pairs are costed, the others
/// left infinite: each channel's 8 partners of least norm mismatch (y_a² + y_b² against a²·(x_a² + x_b²) over the
/// vectors), its neighbours (c, c + 1), and the pairs at the 4 distances those partners most often lie apart.
Eigen::MatrixXd pairing_costs(const DumpVectors& before, const DumpVectors& after, double a,
                              const std::vector<long>& vectors);

struct Pairing {
  std::vector<std::pair<int, int>> pairs;      ///< every channel with its cheapest partner; empty unless all are mutual
  std::vector<std::pair<int, int>> confident;  ///< the mutual pairs every other partner (of any channel) costs 2× more
};
/// The rotated channels' cheapest partners among themselves (`cost` from pairing_costs).
Pairing pair_channels(const Eigen::MatrixXd& cost, const std::vector<int>& rotated);

struct LayoutPairing {
  std::vector<std::pair<int, int>> pairs;  ///< pair j of the layout, up to the last one with a rotated channel
  std::vector<int> unresolved;             ///< the j not among the confident pairs
};
/// The interleaved or half layout (over the partner distance of the confident pairs) that holds every confident
/// pair, every rotated channel, and keeps the norm of every pair of two rotated channels within `bound` (cost);
/// nullopt when none does or nothing is confident.
std::optional<LayoutPairing> pair_by_layout(const Eigen::MatrixXd& cost, const std::vector<int>& rotated, int d,
                                            const std::vector<std::pair<int, int>>& confident, double bound);

/// Step 4 alone: id.pairs set; fills theta, angle_residual, theta_sigma, position_offset, jumps, dump_positions,
/// undetermined, reversed and their notes.
void measure_frequencies(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions,
                         Identification& id);

/// u_j(s) = Σ conj(z_before)·z_after over the groups (those `include` marks, when given), per pair j (id.pairs, or each
/// group's own) and sequence index s.
std::vector<std::vector<std::complex<double>>> pair_phasors(const DumpVectors& before, const DumpVectors& after,
                                                            const Identification& id,
                                                            const std::vector<char>* include = nullptr);

/// The groups that turn as most groups do (a head turned at positions of its own left out of the phasors, so that it
/// does not bend every pair's angles): group g agrees with group r when Σ_j Re Σ_s u_gj(s)·conj(u_rj(s)) is within
/// 10^−3 of Σ_j Σ_s |u_gj(s)|·|u_rj(s)| (the same angles at every index); r the first of groups 0, 1, 2 that more than
/// half agree with. Empty when every group agrees or none is such a majority.
std::vector<char> majority_groups(const DumpVectors& before, const DumpVectors& after, const Identification& id);

/// Step 5 for positions (row, column) (identify_vision.cpp): id.vision, the 2-D vision RoPE whose axis map and pairs
/// the dump's are and whose ladders fit θ_j within 0.05 in ln θ (the best of them), and a note either way.
void match_vision(Identification& id);
/// Step 5 for (t, h, w) positions whose pairs read the axes in blocks (identify_grid.cpp): id.grid when each block is
/// its own ladder of one base, fitting better than one ladder over the head.
void match_grid(Identification& id);
/// Step 5 for (t, h, w) positions whose pairs read the axes in turn per frequency (identify_grid.cpp): id.grid
/// (per_frequency) when the pairs whose axis the positions tell fit LTX's ω_k = (π/2)·base^(k/(F−1)) within 0.05 in
/// ln θ, with every LTX-Video and LTX-2 preset of that size, pairing and base; table pairs that do not turn are the
/// table's where an LTX preset's base turns them by whole turns at every one of `positions`.
void match_per_frequency(Identification& id, const std::vector<AxisPosition>& positions);
/// The same over one axis (identify_grid.cpp): LTX-2's audio stream (grid_rope.hpp (G7)), F = d/2 frequencies of t,
/// pairs over the whole vector or each head its slice, with every preset whose audio stream (--tower audio) fits.
void match_per_frequency_one_axis(Identification& id, const std::vector<AxisPosition>& positions);
/// Step 5 for (t, h, w) positions whose pairs follow an M-RoPE map of one ladder (identify_grid.cpp): id.axes->presets,
/// every preset with that map, layout and frequencies (within 0.05 in ln θ).
void match_mrope_presets(Identification& id);

/// Step 4 with a position per axis (identify_axes.cpp): id.axes, theta, angle_residual, theta_sigma, reversed.
void measure_axis_frequencies(const DumpVectors& before, const DumpVectors& after,
                              const std::vector<AxisPosition>& positions, Identification& id);

/// Steps 1–3 and 5 around step 4 (`measure`), for identify_rope's two forms; `moving` marks the indices
/// whose position is not 0.
Identification identify_with(const DumpVectors& before, const DumpVectors& after, const std::vector<bool>& moving,
                             const std::function<void(Identification&)>& measure,
                             const std::vector<std::pair<int, int>>* assumed_pairs = nullptr);

/// One pair's (or channel's) θ at the positions m of one axis (identify_axes.cpp): the periodogram's peak over the
/// positions of smallest |m|, then least squares through the origin; `residual` the RMS of φ − θ·m over the indices
/// at m ≠ 0, `misfit` the same counting the indices at position 0 too (a phasor that turned there does not fit: an
/// image's t = 0 must not fit every pair), by which the axes are compared.
struct AxisFit {
  double theta = 0, residual = INFINITY, sigma = INFINITY, misfit = INFINITY;
  double peak = 0;  ///< the periodogram's θ, before least squares: it does not depend on an offset of the positions
};
AxisFit fit_axis(const std::vector<double>& m, const std::vector<std::complex<double>>& u);

/// The axis of a pair (or channel) is known when its best axis leaves an angle residual this many times smaller than
/// any other.
inline constexpr double kAxisMargin = 4;

/// HunyuanVL's XD-RoPE (identify_xdrope.cpp), for four position components: with the half pairs found, the stream of
/// every channel and the map they follow (id.xdrope); when no pairing keeps the norms, the half pairs assumed and
/// measured channel by channel, taken when their streams follow HF's map (each section doubled: a pair's two
/// channels may read two streams, no rotation).
void identify_xdrope(const DumpVectors& before, const DumpVectors& after, const std::vector<AxisPosition>& positions,
                     const std::vector<bool>& moving, Identification& id);

/// FoPE's signature (identify_fope.cpp) in a dump whose pairs are no rotation: the half pairs, a tail of pairs padded
/// (passed through, or √2·R(π/4)), the others each multiplied by a complex cos′ + i·sin′ whose norm is not 1, shared
/// by the heads of one key-value head. nullopt when the dump does not show it.
std::optional<Identification> identify_fope(const DumpVectors& before, const DumpVectors& after);

/// Largest position offset or jump identify searches for.
inline constexpr long kMaxPositionOffset = 1L << 16;

/// Most groups identify names with offsets of their own (each costs a search of 2·kMaxPositionOffset shifts).
inline constexpr long kMaxOffsetGroups = 16;

/// Identification::group_offsets from id.pairs (or group_pairs), id.theta and id.dump_positions: per group, the phase
/// c_j = arg Σ_s conj(z_before)·z_after·e^(−iθ_j·m_s) of each pair, which is θ_j·k for a group turned at m + k; a
/// group whose phases miss k = 0 (their weighted mean 1 − cos c_j beyond that of 0.3 rad) and fit one k within
/// ±kMaxPositionOffset is listed with it.
void find_group_offsets(const DumpVectors& before, const DumpVectors& after, Identification& id);

/// The integer k in [−range, range] that minimises Σ_j w_j·(1 − cos(c_j − θ_j·k)): the offset common to every pair
/// whose phase at the positions given is c_j = θ_j·k; 0 unless another k halves the cost.
long best_integer_shift(const std::vector<double>& c, const std::vector<double>& theta, const std::vector<double>& w,
                        long range);

/// The θ ∈ [−π, π] that maximises |Σ_k u_k·e^(−iθ·m_k)|; `ambiguous` set when another peak, outside the main
/// lobe, reaches 98 % of it.
double periodogram_peak(const std::vector<double>& m, const std::vector<std::complex<double>>& u, bool& ambiguous);

/// Step 5 alone: every family fitted to θ_j (rotary dimension 2·theta.size()), each pair weighted by
/// 1/σ² of its ln θ_j (`sigma_ln`, floored at 10⁻⁶ so exact data weighs the pairs alike), the chosen one first:
/// the simplest (default < linear < yarn, llama3) whose residual is within max(½·best, 10⁻³) of the best;
/// a per-pair entry first when even the best leaves a residual above 0.05. Appends what it could not
/// decide to `notes`.
std::vector<FamilyFit> fit_families(const Eigen::VectorXd& theta, const Eigen::VectorXd& sigma_ln,
                                    std::vector<Message>& notes);

/// Positions in two clusters (identify_alias.cpp): the gap between them at least this many times each cluster's span
/// (0 … 15 and 130816 … 131071: 500×), each of at least kAliasClusterPositions distinct positions.
inline constexpr double kAliasGapRatio = 64;
inline constexpr long kAliasClusterPositions = 4;
/// The frequencies θ_j + k·2π/G, |k| ≤ kAliasCandidates, compared for each pair.
inline constexpr int kAliasCandidates = 16;
/// The best frequency of the comb is the pair's where the next best costs at least this many times as much.
inline constexpr double kAliasMargin = 1.5;
/// Step 4's θ_j (id.theta, angle_residual, theta_sigma at the phasors `u` and the dump's positions `p`) where the
/// positions lie in two clusters a gap apart (kAliasGapRatio): the near cluster's phases tell θ_j from θ_j + k·2π/m_c
/// (m_c the far cluster's centre) by k·2π·m/m_c alone, within the dump's rounding for a bf16 dump, and the far
/// cluster's turn them alike at m_c and apart by k·2π·(m − m_c)/m_c across it (±0.006 rad per k over 130816 … 131071).
/// Per pair the frequency of that comb (|k| ≤ kAliasCandidates) whose phases Σ|z|·(1 − cos(arg z − θm)) fit least,
/// then least squares there; where the next best fits within kAliasMargin of it, the pair is undetermined
/// (id.undetermined, its σ at least half the comb's step), so that no family's base rests on it.
void resolve_cluster_aliases(const std::vector<std::vector<std::complex<double>>>& u, const std::vector<double>& p,
                             Identification& id);

/// Identification::fast_math_bias and fast_math_toward_zero of `id` (its θ, θ's σ, the dump's positions and the fitted
/// family measured); no bias for a per-pair family, M-RoPE or a latent grid.
struct FastMathBias {
  std::optional<double> bias;
  bool toward_zero = false;
};
FastMathBias fast_math_bias(const Identification& id);
}  // namespace detail

}  // namespace rope
