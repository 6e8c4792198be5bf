#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

#include <atomic>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "rope/core/constants.hpp"
#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

std::string band_name(Band band, Lang lang) {
  switch (band) {
    case Band::Kept:
      return msg("kept").in(lang);
    case Band::Ramped:
      return msg("ramped").in(lang);
    case Band::Interpolated:
      return msg("interpolated").in(lang);
    case Band::Unrotated:
      return msg("unrotated").in(lang);
    case Band::None:
      break;
  }
  return "-";
}

std::string band_counts(const RopeParameters& p, Lang lang) {
  if (p.bands.empty()) return "";
  std::map<Band, int> counts;
  for (Band b : p.bands) ++counts[b];
  std::string out;
  for (Band band : {Band::Kept, Band::Ramped, Band::Interpolated, Band::Unrotated}) {
    const auto it = counts.find(band);
    if (it == counts.end()) continue;
    if (!out.empty()) out += msg(", ").in(lang);
    // TRANSLATORS: a number of pairs and the band they are in: "12 kept".
    out += msg("{0} {1}", it->second, band_name(band, lang)).in(lang);
  }
  return out;
}

namespace {
Message command_line_settings() { return msg("the command line"); }
std::atomic<Message (*)()> g_no_model_name{&command_line_settings};
}  // namespace

void set_no_model_name(Message (*name)()) { g_no_model_name.store(name != nullptr ? name : &command_line_settings); }

std::string model_name(const RopeSpec& spec, Lang lang) {
  return spec.name == kNoModelName ? g_no_model_name.load()().in(lang) : spec.name;
}

std::string pair_list(const std::vector<int>& pairs) {
  std::string s;
  std::size_t i = 0;
  while (i < pairs.size()) {
    // The longest run from pairs[i] with a constant step.
    std::size_t end = i + 1;
    if (end < pairs.size()) {
      const int step = pairs[end] - pairs[i];
      while (end + 1 < pairs.size() && pairs[end + 1] - pairs[end] == step) ++end;
      ++end;
    }
    const std::size_t n = end - i;
    std::string run;
    if (n == 1) {
      run = std::to_string(pairs[i]);
    } else if (n == 2) {
      run = fmt::format("{}, {}", pairs[i], pairs[i + 1]);
    } else if (pairs[i + 1] - pairs[i] == 1) {
      run = fmt::format("{} … {}", pairs[i], pairs[end - 1]);
    } else {
      run = fmt::format("{}, {}, …, {}", pairs[i], pairs[i + 1], pairs[end - 1]);
    }
    s += (s.empty() ? "" : "; ") + run;
    i = end;
  }
  return s.empty() ? "-" : s;
}

std::string axis_label(int axis, Lang lang) {
  // TRANSLATORS: an axis's letter and its name, "t (time)"; Chinese prose takes full-width parentheses.
  return msg("{0} ({1})", axis_letter(axis), axis_name(axis)).in(lang);
}

std::string order_name(SectionOrder order, Lang lang) {
  switch (order) {
    case SectionOrder::Chunked:
      return msg("chunked").in(lang);
    case SectionOrder::Interleaved:
      return msg("interleaved").in(lang);
    case SectionOrder::GgmlMrope:
      return "llama.cpp MROPE";
    case SectionOrder::GgmlImrope:
      return "llama.cpp IMROPE";
    case SectionOrder::Vision:
      return msg("2-D vision").in(lang);
    case SectionOrder::Ernie3d:
      return msg("ERNIE 3-D").in(lang);
    case SectionOrder::Bailing:
      return "Bailing";
    case SectionOrder::PanguGreedy:
      return "openPangu";
    case SectionOrder::XdropeHf:
      return msg("HF's map").in(lang);
    case SectionOrder::XdropeTencent:
      return msg("Tencent's map").in(lang);
    case SectionOrder::Grid:
      return msg("latent grid").in(lang);
  }
  return std::string(to_string(order));
}

const char* axis_rule(SectionOrder order) {
  switch (order) {
    case SectionOrder::Chunked:
    case SectionOrder::GgmlMrope:
      return "(A2)";
    case SectionOrder::Interleaved:
      return "(A3)";
    case SectionOrder::GgmlImrope:
      return "(A4)";
    case SectionOrder::Vision:
      return "(V1)";
    case SectionOrder::Ernie3d:
      return "(A8)";
    case SectionOrder::Bailing:
      return "(A9)";
    case SectionOrder::PanguGreedy:
      return "(A10)";
    case SectionOrder::XdropeHf:
    case SectionOrder::XdropeTencent:
      return "(A11)";
    case SectionOrder::Grid:
      return "(G1)";
  }
  return "(A2)";
}

/// HunyuanVL's XD-RoPE (A11): each stream with the channels that read it (both channels of a pair in Tencent's map,
/// the first or second half's in HF's) and their wavelengths.
void print_xdrope_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, Lang lang) {
  out << msg("XD-RoPE: xdrope_section [{0}] over the streams p, w, h, t, {1} (docs/multi-axis.md (A11))\n",
             fmt::format("{}", fmt::join(map.source.sections, ", ")), order_name(map.source.order, lang))
             .in(lang);
  if (map.split()) {
    out << msg("  the two channels of a pair (j, j + d/2) read two streams: no rotation where their positions "
               "differ\n")
               .in(lang);
  }
  out << fmt::format("  {:<14}{:>8}  {:<24}{}\n", msg("stream").in(lang), msg("channels").in(lang),
                     msg("channel indices").in(lang), msg("wavelengths (positions)").in(lang));
  const auto half = static_cast<int>(map.pair_axis.size());
  for (int a = 0; a < map.axes; ++a) {
    std::vector<int> channels;
    double shortest = 0, longest = 0;
    for (int c = 0; c < 2 * half; ++c) {
      const auto j = static_cast<std::size_t>(c % half);
      if ((c < half ? map.pair_axis[j] : map.second_of(j)) != a) continue;
      const double lambda =
          theta[static_cast<Eigen::Index>(j)] > 0 ? kTwoPi / theta[static_cast<Eigen::Index>(j)] : HUGE_VAL;
      shortest = channels.empty() ? lambda : std::min(shortest, lambda);
      longest = channels.empty() ? lambda : std::max(longest, lambda);
      channels.push_back(c);
    }
    const std::string range = channels.empty() ? "-" : fmt::format("{:.6g} … {:.6g}", shortest, longest);
    std::string list = fmt::format("{:<24}", pair_list(channels));
    if (list == pair_list(channels)) list += "  ";
    out << fmt::format("  {:<14}{:>8}  {}{}\n", map.letter(a), channels.size(), list, range);
  }
}

void print_axis_summary(std::ostream& out, const AxisMap& map, const Eigen::VectorXd& theta, Lang lang) {
  if (map.xdrope()) {
    print_xdrope_summary(out, map, theta, lang);
    return;
  }
  if (map.grid()) {
    std::string widths;
    for (int a = 0; a < map.axes; ++a)
      widths += fmt::format("{}{} {}", a ? ", " : "", map.letter(a), 2 * map.pairs_of(a));
    out << msg("latent-grid RoPE of a diffusion transformer (docs/multi-axis.md §8): pair j turns by θ_j·(p_a(j){0}), "
               "channels per axis {1}, {2}{3}\n",
               map.position_offset != 0 ? fmt::format(" + {}", format_number(map.position_offset)) : std::string(),
               widths,
               map.per_frequency ? msg("the axes in turn per frequency").in(lang) : msg("one block per axis").in(lang),
               map.padding > 0 ? msg(", the first {0} pairs do not turn", map.padding).in(lang) : std::string())
               .in(lang);
    out << "  " << axis_pattern(map) << "\n";
  } else if (map.vision()) {
    out << msg("2-D vision RoPE ({0}): each pair turns with the patch's row h or column w{1} ((V1), {2})\n",
               map.vision_kind,
               map.position_offset != 0 ? msg(", counted from {0}", format_number(map.position_offset)).in(lang) : "",
               map.vision_equation)
               .in(lang);
  } else {
    out << msg("M-RoPE: mrope_section [{0}], {1} (docs/multi-axis.md (A1), {2})\n",
               fmt::format("{}", fmt::join(map.source.sections, ", ")), order_name(map.source.order, lang),
               axis_rule(map.source.order))
               .in(lang);
  }
  out << fmt::format("  {:<14}{:>6}  {:<24}{}\n", msg("axis").in(lang), msg("pairs").in(lang),
                     msg("pair indices").in(lang), msg("wavelengths (positions)").in(lang));
  for (const AxisRange& r : axis_ranges(theta, map)) {
    std::vector<int> pairs;
    for (std::size_t j = 0; j < map.pair_axis.size(); ++j) {
      const bool padding = map.grid() && j < static_cast<std::size_t>(map.padding);  // turns with no axis (G4)
      if (map.pair_axis[j] == r.axis && !padding) pairs.push_back(static_cast<int>(j));
    }
    const std::string range = r.pairs == 0 ? "-" : fmt::format("{:.6g} … {:.6g}", r.shortest, r.longest);
    const std::string label = map.grid() ? std::string(map.letter(r.axis)) : axis_label(r.axis, lang);
    std::string list = fmt::format("{:<24}", pair_list(pairs));
    if (list == pair_list(pairs)) list += "  ";  // a list as wide as the column or wider (openPangu's (A10))
    out << fmt::format("  {:<14}{:>6}  {}{}\n", label, r.pairs, list, range);
  }
}

std::string layer_text(const RopeSpec& spec, const Text& t) {
  if (spec.layer_type.empty()) return "";
  return t.tr(", layer type {0} (layers {1})", spec.layer_type, describe_layers(spec.layers));
}

std::string float32_text(const Text& t) {
  return t.tr(
      "float32 as HF computes it ({0}, docs/scaling.md (F1)–(F3)): inv_freq, the angles m·θ_i, cos and sin "
      "and the attention factor's product each rounded to float32",
      option_name("float32"));
}

std::string vision_map_line(const AxisMap& map, const AxisPosition& p, const Text& t) {
  const std::string angle =
      map.position_offset != 0 ? fmt::format("θ_i·(p + {})", format_number(map.position_offset)) : std::string("θ_i·p");
  const std::string single =
      p.multi() ? "" : t.tr("\n  one number m = {0} stands for the patch (row, column) = ({0}, {0})", p.text());
  return t.tr(
             "2-D vision RoPE ({0}, {1}): pair i turns by {2}, p the patch's row h or column w\n"
             "  as the pair's axis says: {3} (docs/multi-axis.md (V1))",
             map.vision_kind, map.vision_equation, angle, axis_pattern(map)) +
         single;
}

std::string fope_pair_cell(int kept, int i, const Text& t) {
  return i >= kept ? t.tr("padded: not rotated") : t.tr("kept: mixed");
}

std::string fope_pairs_note(int kept, int pairs, const Text& t) {
  return t.tr(
      "FoPE (docs/multi-axis.md §7): no pair turns by m·θ_i. Per key-value head the cos and sin of pairs 0 … {0} mix "
      "these {1} θ by the checkpoint's coefficients cos_coef and sin_coef (each pair a scaled rotation: {2} FILE "
      "computes it); pairs {1} … {3} are padded (cos 1, sin 0) and do not rotate",
      kept - 1, kept, option_name("check.coefficients"), pairs - 1);
}

}  // namespace rope
