/// @file
/// Multi-axis RoPE (docs/multi-axis.md): a vision-language model rotates every frequency pair j of a head
/// by the position of one axis a(j) of the token (time t, height h, width w), so the angle of pair j is
///     φ_j = θ_j · p_{a(j)}                                                                      (A1)
/// The frequencies θ_j are plain RoPE's (or the scaled ones); only the position each pair reads changes.
/// Which pair reads which axis is the axis map, built from the sections [s_0, s_1, s_2(, s_3)]:
///   chunked (HF Qwen2-VL/Qwen2.5-VL apply_multimodal_rotary_pos_emb; llama.cpp MROPE):
///     a(j) = k for s_0 + … + s_(k−1) ≤ j < s_0 + … + s_k                                       (A2)
///     (llama.cpp takes j modulo the sum of the sections; HF requires the sum to be d/2)
///   interleaved (HF Qwen3-VL apply_interleaved_mrope):
///     a(j) = 1 if j mod 3 = 1 and j < 3·s_1;  2 if j mod 3 = 2 and j < 3·s_2;  0 otherwise          (A3)
///   ERNIE-4.5-VL (HF Ernie4_5_VL_MoeTextRotaryEmbedding recomposition_to_3d; sections as the config writes
///   them, [s_h, s_w, s_t] with s_h = s_w, Σs = d/2):
///     a(j) = 1 (h) if j < s_h + s_w and j even;  2 (w) if j < s_h + s_w and j odd;  0 (t) otherwise   (A8)
///   openPangu-VL (vLLM MRotaryEmbeddingInterleaved.get_mrope_interleaved_id_list, rope_type "openpangu"; sections
///   [s_0, s_1, s_2] with Σs = d/2): the last pair is t; the others are laid out greedily, pair j on the axis k ≠
///   a(j−1) with sections left whose share placed so far, n_k(j)/c_k, is the smallest (the lower k on a tie), where c =
///   (s_0 − 1, s_1, s_2); the previous axis again only when no other has pairs left                   (A10) llama.cpp
///   IMROPE (ggml ggml_mrope_cache_init with 4 slots, sector σ = j mod Σs):
///     a(j) = 1 if σ mod 3 = 1 and σ < 3·s_1;  2 if σ mod 3 = 2 and σ < 3·s_2;
///            0 if σ mod 3 = 0 and σ < 3·s_0;  3 ("e") otherwise                                    (A4)
///   HunyuanVL's XD-RoPE (xdrope_section [s_0, s_1, s_2, s_3] over the streams p, w, h, t, Σs = d/2; the pairs of
///   rotate_half, (j, j + d/2)): Tencent's code (and mlx-vlm's) splits the channels by the list repeated, s + s, so
///   both channels of pair j read stream k(j) by (A2); HF's splits them by the doubled list [2s_0, …, 2s_3], so
///   channel c reads the stream k with 2(s_0 + … + s_(k−1)) ≤ c < 2(s_0 + … + s_k), and the two channels of a pair
///   may read two streams: x_j turns by θ_j·p_a(j), x_(j+d/2) by θ_j·p_b(j), which is no rotation when the
///   positions differ                                                                           (A11)
/// A text token has the same position on every axis, p = (m, m, m), so (A1) is then plain RoPE at m.
/// A vision tower's 2-D map (vision_rope.hpp) has two axes, the row h and the column w of the patch, and
/// may count them from 1 (Llama 4): φ_j = θ_j · (p_{a(j)} + o)                                   (V1)
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// Most axes a position has: llama.cpp's 4 slots (t, h, w, e).
inline constexpr int kMaxAxes = 4;

/// A position with one to kMaxAxes components, "7" or "7,2,3": (t, h, w) for M-RoPE. One component
/// stands for every axis (a text token's (m, m, m)).
struct AxisPosition {
  std::array<double, kMaxAxes> value{};
  int count = 1;

  static AxisPosition single(double m) {
    AxisPosition p;
    p.value[0] = m;
    return p;
  }
  /// The position of axis k (a single component is every axis's).
  double operator[](int k) const { return count == 1 ? value[0] : value[static_cast<std::size_t>(k)]; }
  bool multi() const { return count > 1; }
  /// Largest |component|.
  double max_abs() const;
  /// "7" or "(7, 2, 3)".
  std::string text() const;
};

/// The positions as the check kernel takes them: `axis_positions` when given (every component), else each
/// number of `positions` as a position of one component.
std::vector<AxisPosition> positions_as_axes(const std::vector<double>& positions,
                                            const std::vector<AxisPosition>& axis_positions);

/// How many leading positions have every component equal (a diffusion transformer's text tokens: Flux gives each one
/// (0, 0, 0)); every position of one component counts.
long equal_component_rows(const std::vector<AxisPosition>& positions);

/// `positions` with the first `n` counted: position k moved by k on component `axis`, or on every component where
/// `axis` is the positions' component count (text tokens numbered 0, 1, 2, … where the model gives them one position).
std::vector<AxisPosition> first_rows_counted(const std::vector<AxisPosition>& positions, long n, int axis);

/// A comma-separated position of 1 to kMaxAxes finite numbers, "7,2,3" (rope/core/parse.hpp).
/// @throws InvalidArgument naming `what` for a bad number or more than kMaxAxes components.
AxisPosition parse_axis_position(std::string_view text, std::string_view what);

/// The positions of a file, one per row (rope check --axis-positions): a line of comma-separated components
/// ("5,5,6"), or a CSV whose header names its axes, read by their names whatever the columns' order: t, h, w as
/// `rope positions --csv` writes it for M-RoPE (token,segment,kind,t,h,w: token, segment and kind skipped), p, w, h,
/// t as it writes HunyuanVL's XD-RoPE streams, t, h, w, e (llama.cpp's four slots) or h, w (a vision tower). The
/// components are kept in that set's order; `axis_names`, when given, receives the set ("t,h,w", "p,w,h,t",
/// "t,h,w,e", "h,w"), or "" for a file without a header. Blank lines are skipped.
/// @throws InvalidArgument naming `what` and the line: a bad number, rows of different lengths, a header column that
/// is neither an axis nor token/segment/kind, an axis named twice, a set of axes not listed above, more than
/// `max_rows` rows.
std::vector<AxisPosition> parse_axis_position_rows(std::string_view text, std::string_view what, std::size_t max_rows,
                                                   std::string* axis_names = nullptr);

/// How the sections are laid out over the pairs: HF's (A2) and (A3), llama.cpp's (A2) modulo Σs and (A4),
/// ERNIE-4.5-VL's (A8) (its sections in the config's order h, w, t), Bailing's (A9) (Ling/Ming: (A8)'s alternating
/// h and w with the time on the tail, its sections in the order t, h, w);
/// Vision: a vision tower's 2-D map (vision_rope.hpp (V2)–(V5)), built by vision_axis_map, not from sections;
/// PanguGreedy: openPangu-VL's greedy interleave (A10), which equals Qwen3-VL's (A3) on the first pairs and parts
/// from it later (first_differing_pair);
/// XdropeHf, XdropeTencent: HunyuanVL's XD-RoPE (A11) as HF's code lays the streams out (the doubled list) and as
/// Tencent's and mlx-vlm's do (the list repeated); four streams p, w, h, t;
/// Grid: a diffusion transformer's latent grid (grid_rope.hpp (G1)–(G4)), built by grid_axis_map from the model's
/// per-axis widths, not from sections: its axes named by the model, a scale per axis, pairs that do not turn.
enum class SectionOrder {
  Chunked,
  Interleaved,
  GgmlMrope,
  GgmlImrope,
  Vision,
  Ernie3d,
  Bailing,
  PanguGreedy,
  XdropeHf,
  XdropeTencent,
  Grid
};
/// "chunked", "interleaved", "llama.cpp MROPE", "llama.cpp IMROPE", "2-D vision", "ERNIE 3-D", "Bailing",
/// "openPangu", "XD-RoPE (HF)", "XD-RoPE (Tencent)", "grid".
std::string_view to_string(SectionOrder order);

/// The multimodal sections of a model: the config's mrope_section and mrope_interleaved.
struct MropeSections {
  std::vector<int> sections;  ///< pairs per axis, as in the config ([16, 24, 24]; ERNIE's [h, w, t])
  SectionOrder order = SectionOrder::Chunked;
};

/// The axis of every pair of a head, and the names of the axes.
struct AxisMap {
  MropeSections source;
  std::vector<int> pair_axis;  ///< a(j) for j = 0 … d/2 − 1: 0 t, 1 h, 2 w, 3 e (XD-RoPE: 0 p, 1 w, 2 h, 3 t)
  /// b(j), the stream of the pair's second channel where it is not a(j) for some pair (HF's XD-RoPE (A11)); empty
  /// when both channels of every pair read one axis.
  std::vector<int> second_axis;
  int axes = 3;                ///< how many position components the model reads
  int first_axis = 0;          ///< the axis of component 0: 0 (t) for M-RoPE, 1 (h) for a 2-D vision map (h, w)
  double position_offset = 0;  ///< o of (V1), added to every component: 1 for Llama 4's 1-based patches
  std::string vision_kind;     ///< a 2-D vision map's implementation ("pixtral") and its equation ("(V3)")
  std::string vision_equation;
  /// A grid map's (SectionOrder::Grid, grid_rope.hpp): the axes' names ("t", "h", "w", "l"), each component's
  /// position scale s_a of (G1), the first pairs that do not turn, and whether the axes take turns per frequency
  /// (LTX-Video (G4)) rather than one block each.
  std::vector<std::string> names;
  std::array<double, kMaxAxes> scale{1, 1, 1, 1};
  int padding = 0;
  bool per_frequency = false;
  /// With a split map: pair j's cos at stream a(j) and its sin at b(j), for both of its channels (x_a cos α − x_b sin
  /// β, x_a sin β + x_b cos α), where (A11) turns each channel by its own stream's cos and sin. The #12538 form of
  /// diffusers' Wan (transformer_wan.py before PR #12594): the cos column 2j and the sin column 2j + 1 of tables split
  /// with other widths than they were built with.
  bool sin_from_second = false;

  int pairs_of(int axis) const;
  /// Whether this is a vision tower's 2-D map (components: row h, column w).
  bool vision() const { return source.order == SectionOrder::Vision; }
  /// Whether this is HunyuanVL's XD-RoPE (A11): components p, w, h, t.
  bool xdrope() const { return source.order == SectionOrder::XdropeHf || source.order == SectionOrder::XdropeTencent; }
  /// Whether this is a diffusion transformer's latent grid (grid_rope.hpp).
  bool grid() const { return source.order == SectionOrder::Grid; }
  /// Whether the two channels of some pair read different axes (HF's XD-RoPE): not one rotation per pair.
  bool split() const { return !second_axis.empty(); }
  /// The axis of the second channel of pair j.
  int second_of(std::size_t j) const { return split() ? second_axis[j] : pair_axis[j]; }
  /// The letter of an axis of this map: "t", "h", "w", "e"; XD-RoPE's "p", "w", "h", "t".
  std::string_view letter(int axis) const;
  /// The axis each position component feeds, in order: "t,h,w", "t,h,w,e" or "h,w".
  std::string components() const;
};

/// The axis map of `pairs` pairs by (A2), (A3) or (A4).
/// @throws InvalidArgument when the sections do not fit: a negative section, more than kMaxAxes, chunked
/// (HF) with a sum other than `pairs`, an IMROPE sum of 0.
AxisMap make_axis_map(const MropeSections& sections, int pairs);

/// The first pair whose axis differs between two maps of as many pairs (-1 when every pair reads the same axis, or
/// when the maps have different numbers of pairs): openPangu-VL's (A10) against Qwen3-VL's (A3) of the same sections;
/// a pair's second channel counts too (HF's XD-RoPE against Tencent's, (A11)).
int first_differing_pair(const AxisMap& a, const AxisMap& b);

/// "t", "h", "w", "e" (llama.cpp's fourth slot).
std::string_view axis_letter(int axis);
/// XD-RoPE's streams (A11): "p", "w", "h", "t".
std::string_view xdrope_letter(int stream);
/// XD-RoPE's sections as its config writes them, xdrope_section: whole numbers of pairs summing to d/2, or ratios of
/// d/2 ([0.25, 0.25, 0.25, 0.25]), read as `order`'s code reads them (HF's _normalize_xdrope_section, Tencent's
/// HunYuanVLAttention.__init__). @throws InvalidArgument naming `what` for a list that is neither.
std::vector<int> xdrope_pairs(const std::vector<double>& sections, int head_dim, SectionOrder order,
                              std::string_view what);
/// "time", "height", "width", "extra" as a message (translated by the front end's catalog).
Message axis_name(int axis);
/// "THW·THW·…": one letter per pair, upper case, a dot every 3 pairs (interleaved) or at section ends.
std::string axis_pattern(const AxisMap& map);

/// The component axis `axis` (0 t … 3 e) of `p` reads under `map`: p's own when p has several; one number m
/// is a text token's (m, m, m) for HF, and (m, m, m, 0) for llama.cpp's four slots (llama_graph's
/// llm_graph_input_pos::set_input writes 0 into the fourth slot of a text token: ggml-org/llama.cpp
/// src/llama-graph.cpp:131-140 at de3ff815ea7d), so IMROPE's e pairs of a text token do not turn.
double axis_component(const AxisMap& map, const AxisPosition& p, int axis);

/// (A1): φ_j = θ_j · p_{a(j)} for every pair ((V1) with the map's offset); without a map, φ_j = θ_j · p.
/// @throws InvalidArgument when p has more than one component and the map has a different number of
/// axes (or there is no map), and for a split map (HF's XD-RoPE) at a position whose two streams of some pair differ:
/// those two channels turn by two angles (A11), which one angle per pair cannot say.
Eigen::VectorXd axis_angles(const Eigen::VectorXd& theta, const AxisMap* map, const AxisPosition& p);
/// The angles of the pairs' first channels (`second` false) or second channels (true, a split map's b(j)) at p,
/// after check_axis_position: (A1), (V1), (A11).
Eigen::VectorXd channel_angles(const Eigen::VectorXd& theta, const AxisMap* map, const AxisPosition& p, bool second);
/// The checks of axis_angles on the number of components and pairs alone (a split map's two angles allowed): rope
/// check's kernel, which turns each channel of a pair by its own stream.
void check_axis_position(const AxisMap* map, const AxisPosition& p, Eigen::Index pairs);

/// (A5) as matrices: R_Mᵀ R_N beside R_(N−M), for positions of 1 or `axes` components (a one-number position
/// is every axis's). R_P is the rotation by the angles of axis_angles at P, the map's offset o included; the
/// difference N − M carries no offset, since o cancels ((V1)). Without a map, plain RoPE's (M7).
struct RelativeRotation {
  AxisPosition delta;        ///< N − M, per component
  Eigen::MatrixXd product;   ///< R_Mᵀ R_N
  Eigen::MatrixXd rotation;  ///< R_(N−M)
};
/// @throws InvalidArgument as axis_angles, or when M and N have different numbers of components (both > 1).
RelativeRotation relative_rotation(const Eigen::VectorXd& theta, const AxisMap* map, const AxisPosition& m,
                                   const AxisPosition& n, Layout layout);

/// The wavelengths 2π/θ_j of the pairs of one axis: their count and range (0 pairs: min = max = 0).
struct AxisRange {
  int axis = 0;
  int pairs = 0;
  double shortest = 0;  ///< smallest λ_j among its pairs
  double longest = 0;   ///< largest λ_j (inf for a zero frequency)
};
std::vector<AxisRange> axis_ranges(const Eigen::VectorXd& theta, const AxisMap& map);

}  // namespace rope
