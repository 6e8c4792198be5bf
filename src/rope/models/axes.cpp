#include "rope/models/axes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <optional>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/core/parse.hpp"
#include "rope/core/rotation.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/core/utf8.hpp"

// Sources of the axis maps (docs/multi-axis.md):
//   (A2) huggingface/transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py
//        apply_multimodal_rotary_pos_emb: cos.split(mrope_section * 2) and chunk i takes component i % 3;
//   (A3) src/transformers/models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope;
//   (A4) ggml-org/llama.cpp ggml/src/ggml-cpu/ops.cpp ggml_mrope_cache_init (sector = j % Σ sections);
//   (A9) vllm-project/vllm vllm/model_executor/layers/rotary_embedding/bailing_mrope.py @ 9c5b716395
//        BailingMRotaryEmbedding.select_cos_sin and _triton_bailing_mrope_forward: sections [T, H, W] with H = W
//        and T + H + W = rotary_dim / 2 (_validate_bailing_mrope_config); pair j < H + W reads h when j is even and
//        w when odd, the pairs after them t.
//   (A10) vllm-project/vllm vllm/model_executor/layers/rotary_embedding/openpangu_rope.py @ 098d12c28e
//        MRotaryEmbeddingInterleaved.__init__ (3 sections summing to rotary_dim // 2, force_last=True) and
//        get_mrope_interleaved_id_list: the t count lowered by one, each step the axis with sections left, other than
//        the previous one when another is left, whose placed/count is the smallest (the lower index on a tie), then
//        a last t; mrope_dim = that list * 2 gives cos and sin the same axis per pair (_rebuild_pos_emb).
//   (A11) HunyuanVL's XD-RoPE, four streams p, w, h, t (position_ids [B, 4, S]):
//        HF: huggingface/transformers src/transformers/models/hunyuan_vl/modular_hunyuan_vl.py @ 17963211f4
//        HunYuanVLDenseV1Attention._apply_rotary_pos_emb_xdrope: xdrope_section = [int(section) * 2 …], then cos
//        ([B, S, 4, d], emb = cat(freqs, freqs)) split by it along the channels, piece i from stream i % 4: channel c
//        reads the stream of c in the doubled list; _normalize_xdrope_section (whole pairs summing to head_dim / 2,
//        else ratios ≤ 1 times head_dim / 2).
//        Tencent: Tencent-Hunyuan/HunyuanOCR train/modeling_hunyuan_vl.py @ c55965d3da HunYuanVLRotaryEmbedding.forward
//        and apply_rotary_pos_emb_xdrope: section_doubled = xdrope_section * 2, the list repeated, so channel c and
//        c + d/2 read one stream, pair j the stream of j by (A2); mlx-vlm's port the same (Blaizzy/mlx-vlm
//        mlx_vlm/models/hunyuan_vl/language.py @ 17df31698d apply_rotary_pos_emb_xdrope).

namespace rope {

double AxisPosition::max_abs() const {
  double m = 0;
  for (int k = 0; k < count; ++k) m = std::max(m, std::abs(value[static_cast<std::size_t>(k)]));
  return m;
}

std::string AxisPosition::text() const {
  if (count == 1) return format_number(value[0]);
  std::string s;
  for (int k = 0; k < count; ++k) s += (k ? ", " : "") + format_number(value[static_cast<std::size_t>(k)]);
  return "(" + s + ")";
}

long equal_component_rows(const std::vector<AxisPosition>& positions) {
  long rows = 0;
  for (const AxisPosition& p : positions) {
    bool equal = true;
    for (int a = 1; a < p.count; ++a) equal = equal && p[a] == p[0];
    if (!equal) break;
    ++rows;
  }
  return rows;
}

std::vector<AxisPosition> first_rows_counted(const std::vector<AxisPosition>& positions, long n, int axis) {
  std::vector<AxisPosition> counted = positions;
  for (long k = 0; k < n && k < static_cast<long>(counted.size()); ++k) {
    AxisPosition& p = counted[static_cast<std::size_t>(k)];
    for (int a = 0; a < p.count; ++a) {
      if (a == axis || axis == p.count) p.value[static_cast<std::size_t>(a)] += static_cast<double>(k);
    }
  }
  return counted;
}

std::vector<AxisPosition> positions_as_axes(const std::vector<double>& positions,
                                            const std::vector<AxisPosition>& axis_positions) {
  if (!axis_positions.empty()) return axis_positions;
  std::vector<AxisPosition> out;
  out.reserve(positions.size());
  for (const double p : positions) out.push_back(AxisPosition::single(p));
  return out;
}

AxisPosition parse_axis_position(std::string_view text, std::string_view what) {
  // One number reads as before positions had axes, with the same messages.
  if (text.find(',') == std::string_view::npos) return AxisPosition::single(parse_real(text, what));
  const std::vector<double> values = parse_real_list(text, what);
  if (values.size() > static_cast<std::size_t>(kMaxAxes)) {
    throw InvalidArgument(
        error_msg("{0} has {1} components: a position has 1 number, or one per axis (at most {2}: t,h,w,e)", what,
                  values.size(), kMaxAxes));
  }
  AxisPosition p;
  p.count = static_cast<int>(values.size());
  std::copy(values.begin(), values.end(), p.value.begin());
  return p;
}

std::string_view to_string(SectionOrder order) {
  switch (order) {
    case SectionOrder::Chunked:
      return "chunked";
    case SectionOrder::Interleaved:
      return "interleaved";
    case SectionOrder::GgmlMrope:
      return "llama.cpp MROPE";
    case SectionOrder::GgmlImrope:
      return "llama.cpp IMROPE";
    case SectionOrder::Vision:
      return "2-D vision";
    case SectionOrder::Ernie3d:
      return "ERNIE 3-D";
    case SectionOrder::Bailing:
      return "Bailing";
    case SectionOrder::PanguGreedy:
      return "openPangu";
    case SectionOrder::XdropeHf:
      return "XD-RoPE (HF)";
    case SectionOrder::XdropeTencent:
      return "XD-RoPE (Tencent)";
    case SectionOrder::Grid:
      return "grid";
  }
  return "chunked";
}

std::string_view xdrope_letter(int stream) {
  static constexpr std::array<std::string_view, 4> letters{"p", "w", "h", "t"};
  return stream >= 0 && stream < 4 ? letters[static_cast<std::size_t>(stream)] : "?";
}

std::string_view AxisMap::letter(int axis) const {
  if (grid() && axis >= 0 && static_cast<std::size_t>(axis) < names.size())
    return names[static_cast<std::size_t>(axis)];
  return xdrope() ? xdrope_letter(axis) : axis_letter(axis);
}

std::string AxisMap::components() const {
  std::string s;
  for (int k = 0; k < axes; ++k) s += (k ? "," : "") + std::string(letter(first_axis + k));
  return s;
}

std::vector<int> xdrope_pairs(const std::vector<double>& sections, int head_dim, SectionOrder order,
                              std::string_view what) {
  const std::string list = fmt::format("{}", fmt::join(sections, ", "));
  if (sections.empty() || sections.size() > 64) {
    throw InvalidArgument(error_msg("{0} [{1}]: expected 1 to 64 sections", std::string(what), list));
  }
  bool whole = true, ratios = true;
  double sum = 0;
  for (const double v : sections) {
    if (!std::isfinite(v) || v < 0 || v > 65536) {
      throw InvalidArgument(error_msg("{0} [{1}]: every section is a number in 0 … 65536", std::string(what), list));
    }
    whole = whole && v == std::trunc(v);
    ratios = ratios && v <= 1.0;
    sum += std::trunc(v);
  }
  std::vector<int> out;
  // HF _normalize_xdrope_section: whole numbers summing to head_dim / 2 as they are, else ratios ≤ 1 of head_dim / 2
  // (int() truncates), else int() of each. Tencent's __init__: ratios when every value is ≤ 1, else as written.
  const bool as_written = order == SectionOrder::XdropeHf ? (whole && 2 * sum == head_dim) || !ratios : !ratios;
  if (as_written && order == SectionOrder::XdropeTencent && !whole) {
    throw InvalidArgument(
        error_msg("{0} [{1}]: Tencent's code splits the channels by these numbers as written: they must be whole "
                  "numbers of pairs, or ratios ≤ 1 of head_dim / 2",
                  what, list));
  }
  for (const double v : sections) {
    out.push_back(static_cast<int>(as_written ? std::trunc(v) : std::trunc(v * head_dim / 2.0)));
  }
  return out;
}

int AxisMap::pairs_of(int axis) const {
  // a grid's padding pairs (G4) read axis 0 with θ 0: they turn with no axis
  const auto from = pair_axis.begin() + (grid() ? padding : 0);
  return static_cast<int>(std::count(from, pair_axis.end(), axis));
}

namespace {

/// (A10): the axis of every pair of openPangu-VL's interleave, sections (t, h, w) with t ≥ 1 (checked by the caller).
std::vector<int> pangu_greedy_axes(const std::vector<int>& s) {
  const std::array<int, 3> count{s[0] - 1, s[1], s[2]};  // force_last: one t kept for the last pair
  std::array<int, 3> placed{0, 0, 0};
  std::array<int, 3> left = count;
  std::vector<int> axes;
  axes.reserve(static_cast<std::size_t>(s[0] + s[1] + s[2]));
  int last = -1;
  for (int step = 0; step < count[0] + count[1] + count[2]; ++step) {
    const auto choose = [&](bool other_than_last) {
      int best = -1;
      for (int k = 0; k < 3; ++k) {
        if (left[static_cast<std::size_t>(k)] <= 0 || (other_than_last && k == last)) continue;
        // min over (placed/count, k): the share as vLLM divides it, the lower index first on a tie
        const double share =
            static_cast<double>(placed[static_cast<std::size_t>(k)]) / count[static_cast<std::size_t>(k)];
        if (best < 0 || share < static_cast<double>(placed[static_cast<std::size_t>(best)]) /
                                    count[static_cast<std::size_t>(best)]) {
          best = k;
        }
      }
      return best;
    };
    int best = choose(true);
    if (best < 0) best = choose(false);  // only the previous axis has pairs left
    axes.push_back(best);
    ++placed[static_cast<std::size_t>(best)];
    --left[static_cast<std::size_t>(best)];
    last = best;
  }
  axes.push_back(0);  // force_last
  return axes;
}

}  // namespace

int first_differing_pair(const AxisMap& a, const AxisMap& b) {
  if (a.pair_axis.size() != b.pair_axis.size()) return -1;
  for (std::size_t j = 0; j < a.pair_axis.size(); ++j) {
    if (a.pair_axis[j] != b.pair_axis[j] || a.second_of(j) != b.second_of(j)) return static_cast<int>(j);
  }
  return -1;
}

namespace {

/// (A11): the stream of every channel c = 0 … 2·pairs − 1 of HunyuanVL's XD-RoPE, the channels split by `pieces`
/// (HF: each section doubled; Tencent: the list repeated), piece i read from stream i mod (number of sections).
std::vector<int> xdrope_channel_streams(const std::vector<int>& s, bool hf) {
  std::vector<int> pieces;
  for (int rep = 0; rep < 2; ++rep) {
    for (const int x : s) {
      if (hf && rep == 1) break;
      pieces.push_back(hf ? 2 * x : x);
    }
  }
  std::vector<int> streams;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    streams.insert(streams.end(), static_cast<std::size_t>(pieces[i]), static_cast<int>(i % s.size()));
  }
  return streams;
}

}  // namespace

AxisMap make_axis_map(const MropeSections& source, int pairs) {
  const std::vector<int>& s = source.sections;
  if (source.order == SectionOrder::Vision) {
    throw InvalidArgument(
        error_msg("a 2-D vision map is built from the tower's implementation (vision_axis_map), not from sections"));
  }
  if (source.order == SectionOrder::Grid) {
    throw InvalidArgument(
        error_msg("a latent-grid map is built from the model's axis widths (grid_axis_map), not from sections"));
  }
  if (source.order == SectionOrder::XdropeHf || source.order == SectionOrder::XdropeTencent) {
    // (A11): four streams p, w, h, t (position_ids [B, 4, S] of HunyuanVL's processor); both codes raise or assert
    // when the pieces do not cover the head ("Illegal partition for xd rope").
    const std::string list = fmt::to_string(fmt::join(s, ", "));
    if (s.size() != 4) {
      throw InvalidArgument(
          error_msg("xdrope_section [{0}]: HunyuanVL's XD-RoPE reads 4 streams (p, w, h, t), one section each", list));
    }
    const int total = std::accumulate(s.begin(), s.end(), 0);
    if (std::any_of(s.begin(), s.end(), [](int x) { return x < 0 || x > 65536; }) || total != pairs) {
      throw InvalidArgument(error_msg(
          "xdrope_section [{0}] adds up to {1} pairs, not head_dim / 2 = {2}: the code splits the channels of the "
          "head by it (Illegal partition for xd rope)",
          list, total, pairs));
    }
    AxisMap map;
    map.source = source;
    map.axes = 4;
    const std::vector<int> c = xdrope_channel_streams(s, source.order == SectionOrder::XdropeHf);
    map.pair_axis.assign(c.begin(), c.begin() + pairs);
    map.second_axis.assign(c.begin() + pairs, c.end());
    if (map.second_axis == map.pair_axis) map.second_axis.clear();
    return map;
  }
  const bool ggml = source.order == SectionOrder::GgmlMrope || source.order == SectionOrder::GgmlImrope;
  const std::size_t max_sections = ggml ? kMaxAxes : 3;
  if (s.empty() || s.size() > max_sections) {
    throw InvalidArgument(
        error_msg("mrope_section [{0}]: expected 1 to {1} sections", fmt::to_string(fmt::join(s, ", ")), max_sections));
  }
  if (source.order == SectionOrder::Interleaved && s.size() != 3) {
    throw InvalidArgument(error_msg("mrope_section [{0}]: interleaved M-RoPE reads 3 sections (t, h, w)",
                                    fmt::to_string(fmt::join(s, ", "))));
  }
  if (source.order == SectionOrder::Ernie3d && (s.size() != 3 || s[0] != s[1])) {
    // recomposition_to_3d stacks the h and w frequencies pairwise: torch.stack needs s_h = s_w.
    throw InvalidArgument(
        error_msg("mrope_section [{0}]: ERNIE-4.5-VL's 3-D RoPE reads 3 sections (h, w, t) with as many "
                  "pairs of height as of width",
                  fmt::to_string(fmt::join(s, ", "))));
  }
  if (source.order == SectionOrder::Bailing && (s.size() != 3 || s[1] != s[2])) {
    // _validate_bailing_mrope_config: "Bailing M-RoPE expects [T, H, W] sections", "requires equal H and W sections".
    throw InvalidArgument(
        error_msg("mrope_section [{0}]: Bailing M-RoPE reads 3 sections (t, h, w) with as many "
                  "pairs of height as of width",
                  fmt::to_string(fmt::join(s, ", "))));
  }
  if (source.order == SectionOrder::PanguGreedy && (s.size() != 3 || s[0] < 1)) {
    // MRotaryEmbeddingInterleaved takes 2 sections (h, w) for a vision tower or 3 (t, h, w) with force_last, which
    // puts the last pair on t: the language model's 3, with at least that one pair of time.
    throw InvalidArgument(
        error_msg("mrope_section [{0}]: openPangu-VL's interleaved M-RoPE reads 3 sections (t, h, w), at least 1 "
                  "pair of time (its last pair is always t)",
                  fmt::to_string(fmt::join(s, ", "))));
  }
  for (int x : s) {
    if (x < 0 || x > 65536) {
      throw InvalidArgument(error_msg("mrope_section [{0}]: every section is a whole number in 0 … 65536",
                                      fmt::to_string(fmt::join(s, ", "))));
    }
  }
  const int sum = std::accumulate(s.begin(), s.end(), 0);
  if (pairs < 1) throw InvalidArgument(error_msg("M-RoPE needs at least one pair (got {0})", pairs));
  if (source.order == SectionOrder::Ernie3d && sum != pairs) {
    throw InvalidArgument(
        error_msg("mrope_section [{0}] adds up to {1}, not rotary_dim / 2 = {2}: ERNIE-4.5-VL's code gives "
                  "every pair exactly one axis",
                  fmt::to_string(fmt::join(s, ", ")), sum, pairs));
  }
  if (source.order == SectionOrder::Bailing && sum != pairs) {
    throw InvalidArgument(
        error_msg("mrope_section [{0}] adds up to {1}, not rotary_dim / 2 = {2}: Bailing M-RoPE gives "
                  "every pair exactly one axis",
                  fmt::to_string(fmt::join(s, ", ")), sum, pairs));
  }
  if (source.order == SectionOrder::PanguGreedy && sum != pairs) {
    // "Sum of mrope_section must equal rotary_dim // 2."
    throw InvalidArgument(
        error_msg("mrope_section [{0}] adds up to {1}, not rotary_dim / 2 = {2}: openPangu-VL's interleaved M-RoPE "
                  "gives every pair exactly one axis",
                  fmt::to_string(fmt::join(s, ", ")), sum, pairs));
  }
  if (source.order == SectionOrder::Chunked && sum != pairs) {
    throw InvalidArgument(
        error_msg("mrope_section [{0}] adds up to {1}, not rotary_dim / 2 = {2}: HF splits cos and sin "
                  "into the sections twice over, so they must cover the pairs exactly",
                  fmt::to_string(fmt::join(s, ", ")), sum, pairs));
  }
  if (ggml && sum == 0)
    throw InvalidArgument(error_msg("mrope_section [{0}] adds up to 0", fmt::to_string(fmt::join(s, ", "))));
  AxisMap map;
  map.source = source;
  map.axes = ggml ? kMaxAxes : static_cast<int>(s.size());
  map.pair_axis.resize(static_cast<std::size_t>(pairs));
  if (source.order == SectionOrder::PanguGreedy) {
    map.pair_axis = pangu_greedy_axes(s);
    return map;
  }
  const auto section = [&](std::size_t k) { return k < s.size() ? s[k] : 0; };
  for (int j = 0; j < pairs; ++j) {
    int a = 0;
    switch (source.order) {
      case SectionOrder::Chunked:
      case SectionOrder::GgmlMrope: {  // (A2); llama.cpp: the sector j mod Σs (HF: Σs = pairs, the same)
        const int sector = j % sum;
        int end = 0;
        a = map.axes - 1;
        for (std::size_t k = 0; k < s.size(); ++k) {
          end += s[k];
          if (sector < end) {
            a = static_cast<int>(k);
            break;
          }
        }
        break;
      }
      case SectionOrder::Interleaved:  // (A3): t everywhere, then h and w overwrite their thirds
        a = j % 3 == 1 && j < 3 * section(1) ? 1 : j % 3 == 2 && j < 3 * section(2) ? 2 : 0;
        break;
      case SectionOrder::Vision:
      case SectionOrder::PanguGreedy:
      case SectionOrder::XdropeHf:
      case SectionOrder::XdropeTencent:
      case SectionOrder::Grid:
        break;                     // refused above; laid out by pangu_greedy_axes and xdrope_channel_streams
      case SectionOrder::Ernie3d:  // (A8): the fastest s_h + s_w pairs alternate h and w, the slowest s_t take t
        a = j < s[0] + s[1] ? (j % 2 == 0 ? 1 : 2) : 0;
        break;
      case SectionOrder::Bailing:  // (A9): the same pattern, its sections t, h, w: the first s_h + s_w pairs
        a = j < s[1] + s[2] ? (j % 2 == 0 ? 1 : 2) : 0;
        break;
      case SectionOrder::GgmlImrope: {  // (A4)
        const int sector = j % sum;
        const int r = sector % 3;
        a = r == 1 && sector < 3 * section(1)   ? 1
            : r == 2 && sector < 3 * section(2) ? 2
            : r == 0 && sector < 3 * section(0) ? 0
                                                : 3;
        break;
      }
    }
    map.pair_axis[static_cast<std::size_t>(j)] = a;
  }
  return map;
}

std::string_view axis_letter(int axis) {
  static constexpr std::array<std::string_view, kMaxAxes> letters{"t", "h", "w", "e"};
  return axis >= 0 && axis < kMaxAxes ? letters[static_cast<std::size_t>(axis)] : "?";
}

Message axis_name(int axis) {
  switch (axis) {
    case 0:
      return {msg("time")};
    case 1:
      return {msg("height")};
    case 2:
      return {msg("width")};
    default:
      return {msg("extra")};
  }
}

std::string axis_pattern(const AxisMap& map) {
  std::string s;
  for (std::size_t j = 0; j < map.pair_axis.size(); ++j) {
    const bool interleaved = map.source.order == SectionOrder::Interleaved ||
                             map.source.order == SectionOrder::GgmlImrope ||
                             map.source.order == SectionOrder::PanguGreedy;  // by threes, beside Qwen3-VL's
    const bool bailing = map.source.order == SectionOrder::Bailing;
    const bool ernie = map.source.order == SectionOrder::Ernie3d || bailing;
    const std::size_t hw = !ernie ? 0
                                  : static_cast<std::size_t>(bailing ? map.source.sections[1] + map.source.sections[2]
                                                                     : map.source.sections[0] + map.source.sections[1]);
    if (map.grid() && j < static_cast<std::size_t>(map.padding)) {  // a pair that does not turn
      s += "-";
      continue;
    }
    if (map.grid() && map.per_frequency) {  // (G4): one frequency's axes together
      if (j > static_cast<std::size_t>(map.padding) &&
          (j - static_cast<std::size_t>(map.padding)) % static_cast<std::size_t>(map.axes) == 0)
        s += "·";
      s += static_cast<char>(std::toupper(static_cast<unsigned char>(map.letter(map.pair_axis[j])[0])));
      continue;
    }
    const bool gap = j > 0 && (interleaved ? j % 3 == 0
                               : ernie     ? (j < hw ? j % 2 == 0 : j == hw)
                                           : map.pair_axis[j] != map.pair_axis[j - 1]);
    if (gap) s += "·";
    s += static_cast<char>(std::toupper(static_cast<unsigned char>(map.letter(map.pair_axis[j])[0])));
  }
  return s;
}

double axis_component(const AxisMap& map, const AxisPosition& p, int axis) {
  const bool ggml = map.source.order == SectionOrder::GgmlMrope || map.source.order == SectionOrder::GgmlImrope;
  if (!p.multi() && ggml && axis == 3) return 0.0;
  return p[axis - map.first_axis];
}

Eigen::VectorXd axis_angles(const Eigen::VectorXd& theta, const AxisMap* map, const AxisPosition& p) {
  check_axis_position(map, p, theta.size());
  if (map && map->split() && p.multi()) {
    for (std::size_t j = 0; j < map->pair_axis.size(); ++j) {
      if (axis_component(*map, p, map->pair_axis[j]) == axis_component(*map, p, map->second_axis[j])) continue;
      throw InvalidArgument(
          error_msg("at {0} HF's XD-RoPE map turns the two channels of pair {1} by streams {2} and {3}, two angles: no "
                    "rotation of the pair (docs/multi-axis.md (A11)); only the check of a dump compares with it",
                    p.text(), j, map->letter(map->pair_axis[j]), map->letter(map->second_axis[j])));
    }
  }
  return channel_angles(theta, map, p, false);
}

Eigen::VectorXd channel_angles(const Eigen::VectorXd& theta, const AxisMap* map, const AxisPosition& p, bool second) {
  check_axis_position(map, p, theta.size());
  Eigen::VectorXd phi(theta.size());
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (map && map->grid()) {  // (G1): the axis's scale, then the offset
      const int a = map->pair_axis[k];
      phi[j] = theta[j] * (map->scale[static_cast<std::size_t>(a)] * axis_component(*map, p, a) + map->position_offset);
      continue;
    }
    phi[j] = map ? theta[j] *
                       (axis_component(*map, p, second ? map->second_of(k) : map->pair_axis[k]) + map->position_offset)
                 : theta[j] * p[0];  // (A1), (V1), (A11)
  }
  return phi;
}

void check_axis_position(const AxisMap* map, const AxisPosition& p, Eigen::Index pairs) {
  const int axes = map ? map->axes : 1;
  if (p.multi() && p.count != axes) {
    throw InvalidArgument(
        map ? (map->vision()
                   ? error_msg("the position {0} has {1} components but this vision tower reads 2 axes (h,w: the "
                               "patch's row and column): give 2 numbers, or one for the patch (m, m)",
                               p.text(), p.count)
                   : error_msg("the position {0} has {1} components but this model reads {2} axes ({3}): give {4} "
                               "numbers, or one for a text token",
                               p.text(), p.count, axes, map->components(), axes))
            : error_msg("the position {0} has {1} components but plain RoPE reads one: give one number, or a model "
                        "with multimodal sections (e.g. {2} qwen2-vl-7b)",
                        p.text(), p.count, option_name("model")));
  }
  if (map && map->pair_axis.size() != static_cast<std::size_t>(pairs)) {
    throw InvalidArgument(
        error_msg("the axis map has {0} pairs but there are {1} frequencies", map->pair_axis.size(), pairs));
  }
}

/// The most cells a line of a position file may have (a header of names, or a row of numbers).
constexpr std::size_t kMaxPositionCells = 64;

namespace {

/// The axes a positions file's header may name, each set in the order its components are kept: M-RoPE's t, h, w (rope
/// positions --csv), llama.cpp's four slots, a vision tower's row and column, HunyuanVL's four XD-RoPE streams p, w,
/// h, t (rope positions --csv with a HunyuanVL config), Flux.2's t, h, w, l (grid_rope.hpp), LTX-2's audio tokens' t
/// alone (rope positions --audio-frames --csv). A set is read by its names, whatever the columns' order.
constexpr std::array<std::string_view, 6> kHeaderAxisSets{"t,h,w", "t,h,w,e", "h,w", "p,w,h,t", "t,h,w,l", "t"};
/// The other columns of rope positions --csv, skipped.
constexpr std::array<std::string_view, 3> kHeaderOtherColumns{"token", "segment", "kind"};

/// The column of each axis a header names, in its set's order (kHeaderAxisSets), the set in `names`.
/// @throws InvalidArgument: a column that is neither an axis nor one of kHeaderOtherColumns, an axis named twice, a set
/// of axes rope reads no positions of.
std::vector<std::size_t> header_axis_columns(const std::vector<std::string_view>& cells, std::string_view what,
                                             long line_number, std::string& names) {
  std::vector<std::pair<std::string_view, std::size_t>> axes;  // (name, column)
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const std::string_view cell = cells[c];
    if (std::find(kHeaderOtherColumns.begin(), kHeaderOtherColumns.end(), cell) != kHeaderOtherColumns.end()) continue;
    static constexpr std::string_view kAxisLetters = "thwepl";
    if (cell.size() != 1 || kAxisLetters.find(cell.front()) == std::string_view::npos) {
      throw InvalidArgument(
          error_msg("{0} line {1}: the column '{2}' is no axis (t, h, w, e, p, l) and none of "
                    "token, segment, kind",
                    what, line_number, escape_controls(std::string(cell), kQuotedBytes)));
    }
    const auto n = std::count(cells.begin(), cells.end(), cell);
    if (n > 1) {
      throw InvalidArgument(
          error_msg("{0} line {1}: the header names the column {2} {3} times", what, line_number, cell, n));
    }
    axes.emplace_back(cell, c);
  }
  for (const std::string_view set : kHeaderAxisSets) {
    std::vector<std::size_t> columns;
    for (std::size_t at = 0; at < set.size(); at += 2) {  // one letter, then a comma
      for (const auto& [name, column] : axes) {
        if (name == set.substr(at, 1)) columns.push_back(column);
      }
    }
    if (columns.size() == axes.size() && 2 * columns.size() == set.size() + 1) {
      names = std::string(set);
      return columns;
    }
  }
  std::string found;
  for (const auto& [name, column] : axes) found += (found.empty() ? "" : ",") + std::string(name);
  if (found.empty()) {
    throw InvalidArgument(
        error_msg("{0} line {1}: the header names no axis: a positions file has the columns t, h, w "
                  "(M-RoPE), p, w, h, t (HunyuanVL's XD-RoPE), t, h, w, e (llama.cpp), t, h, w, l (Flux.2) or h, "
                  "w (a vision tower)",
                  what, line_number));
  }
  throw InvalidArgument(error_msg(
      "{0} line {1}: the header names the axes '{2}': a positions file has the columns t, h, w or p, w, "
      "h, t (HunyuanVL's XD-RoPE; both as {3} writes them), t, h, w, e (llama.cpp), t, h, w, l (Flux.2) or h, w (a "
      "vision tower)",
      what, line_number, found, option_name("positions_csv")));
}

}  // namespace

std::vector<AxisPosition> parse_axis_position_rows(std::string_view text, std::string_view what, std::size_t max_rows,
                                                   std::string* axis_names) {
  std::vector<AxisPosition> rows;
  std::vector<std::size_t> columns;  // from a header: the columns of its axes, in their set's order
  std::string names;                 // the header's axes ("t,h,w", "p,w,h,t", …), empty without a header
  std::size_t header_cells = 0;
  bool header_seen = false;
  long line_number = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark, as spreadsheets write
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    // Counted before any cell is kept: a line of commas never becomes a list of millions of cells.
    const std::size_t cell_count = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    if (cell_count > kMaxPositionCells) {
      throw InvalidArgument(error_msg("{0} line {1}: {2} cells, more than the {3} a row of positions can have", what,
                                      line_number, cell_count, kMaxPositionCells));
    }
    std::vector<std::string_view> cells;
    for (std::size_t at = 0;;) {
      const std::size_t comma = line.find(',', at);
      std::string_view cell = line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
      while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
      while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.remove_suffix(1);
      cells.push_back(cell);
      if (comma == std::string_view::npos) break;
      at = comma + 1;
    }
    const std::string where = fmt::format("{} line {}", what, line_number);
    if (!header_seen && rows.empty() && std::any_of(line.begin(), line.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c)) && c != 'e' && c != 'E';
        })) {
      header_seen = true;
      header_cells = cells.size();
      columns = header_axis_columns(cells, what, line_number, names);
      continue;
    }
    if (rows.size() >= max_rows)
      throw InvalidArgument(error_msg("{0} line {1}: more than {2} positions", what, line_number, max_rows));
    AxisPosition p;
    if (columns.empty()) {
      if (cells.size() > static_cast<std::size_t>(kMaxAxes)) {
        throw InvalidArgument(
            error_msg("{0} line {1}: {2} components: a position has 1 number, or one per axis (at most {3}: t,h,w,e)",
                      what, line_number, cells.size(), kMaxAxes));
      }
      p.count = static_cast<int>(cells.size());
      for (std::size_t k = 0; k < cells.size(); ++k) p.value[k] = parse_real(cells[k], where);
    } else {
      p.count = static_cast<int>(columns.size());
      if (cells.size() > header_cells) {
        throw InvalidArgument(error_msg("{0} line {1}: {2} cells, more than the header's {3}", what, line_number,
                                        cells.size(), header_cells));
      }
      for (std::size_t k = 0; k < columns.size(); ++k) {
        if (columns[k] >= cells.size())
          throw InvalidArgument(
              error_msg("{0} line {1}: {2} cells, fewer than the header's", what, line_number, cells.size()));
        p.value[k] = parse_real(cells[columns[k]], where);
      }
    }
    if (!rows.empty() && p.count != rows.front().count) {
      throw InvalidArgument(error_msg("{0} line {1}: {2} components where the first row has {3}", what, line_number,
                                      p.count, rows.front().count));
    }
    rows.push_back(p);
  }
  if (rows.empty()) throw InvalidArgument(error_msg("{0}: no positions", what));
  if (axis_names) *axis_names = names;
  return rows;
}

RelativeRotation relative_rotation(const Eigen::VectorXd& theta, const AxisMap* map, const AxisPosition& m,
                                   const AxisPosition& n, Layout layout) {
  if (m.multi() && n.multi() && m.count != n.count) {
    throw InvalidArgument(
        error_msg("the positions {0} and {1} have different numbers of components", m.text(), n.text()));
  }
  RelativeRotation r;
  r.delta.count = std::max(m.count, n.count);
  for (int k = 0; k < r.delta.count; ++k) r.delta.value[static_cast<std::size_t>(k)] = n[k] - m[k];
  const Eigen::VectorXd phi_m = axis_angles(theta, map, m), phi_n = axis_angles(theta, map, n);
  std::optional<AxisMap> without_offset;
  if (map) {
    without_offset = *map;
    without_offset->position_offset = 0;  // o cancels in N − M
  }
  const Eigen::VectorXd phi_delta = axis_angles(theta, without_offset ? &*without_offset : nullptr, r.delta);
  // Each form rotates by its angles at "position" 1: 1·φ_j = φ_j exactly.
  r.product = rotation_matrix<double>(phi_m, 1.0, layout).transpose() * rotation_matrix<double>(phi_n, 1.0, layout);
  r.rotation = rotation_matrix<double>(phi_delta, 1.0, layout);
  return r;
}

std::vector<AxisRange> axis_ranges(const Eigen::VectorXd& theta, const AxisMap& map) {
  std::vector<AxisRange> out;
  for (int a = map.first_axis; a < map.first_axis + map.axes; ++a) {
    AxisRange r;
    r.axis = a;
    for (Eigen::Index j = 0; j < theta.size(); ++j) {
      if (map.pair_axis[static_cast<std::size_t>(j)] != a) continue;
      if (map.grid() && j < map.padding) continue;  // a pair that does not turn (G4)
      const double lambda = theta[j] > 0 ? kTwoPi / theta[j] : HUGE_VAL;
      r.shortest = r.pairs == 0 ? lambda : std::min(r.shortest, lambda);
      r.longest = r.pairs == 0 ? lambda : std::max(r.longest, lambda);
      ++r.pairs;
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace rope
