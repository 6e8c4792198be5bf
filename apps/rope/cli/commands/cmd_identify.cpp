// rope identify: the RoPE that turned one dump into the other, from the numbers alone
// (rope/analysis/identify.hpp): pair layout, rotary dimension, attention factor, per-pair θ_j and the
// scaling family that explains them, with the residual of the fit.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "rope/analysis/identify.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/axes_text.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/dump_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/identify_figure.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

/// Largest number of elements of each dump rope identify holds (16 MiB as doubles): a larger streamed dump is
/// sampled.
constexpr long kIdentifyElements = 1L << 21;

struct IdentifyOptions {
  DumpOptions dumps;
  bool json = false;
  FigureOptions figure;
  std::optional<int> digits;  ///< --digits N: significant digits of the fits' residuals (digits.hpp); θ keeps 6
  std::optional<DType> dtype;  ///< --dtype: the type the dump was computed in, for the rounding identify allows
};

namespace {

std::string g6(double x) { return fmt::format("{:.6g}", x); }

std::string family_text(const FamilyFit& f, const Text& t) {
  switch (f.family) {
    case Family::Default:
      return t.tr("default: base {0} (static NTK-aware scaling is this with another base)", g6(f.base));
    case Family::Linear:
      return t.tr("linear: base {0}, factor {1}", g6(f.base), g6(f.factor));
    case Family::Yarn:
      return t.tr("yarn: base {0}, factor {1}, ramp from pair {2} (kept) to pair {3} (divided by the factor)",
                  g6(f.base), g6(f.factor),
                  fmt::format("{:.2f}", f.ramp_low), fmt::format("{:.2f}", f.ramp_high));
    case Family::Llama3:
      return t.tr("llama3: base {0}, factor {1}, bands at wavelengths {2} (L0/high_freq_factor) and {3} (L0/low_freq_factor)",
                  g6(f.base), g6(f.factor), fmt::format("{:.1f}", f.ramp_low), fmt::format("{:.1f}", f.ramp_high));
    case Family::PerPair:
      return t.tr("per-pair factors: no family explains the frequencies");
  }
  return "";
}

std::string layout_text(const Identification& id, const Text& t) {
  const int n = static_cast<int>(id.pairs.size());
  switch (id.layout) {
    case PairLayout::Interleaved: return t.tr("interleaved: pairs (2j, 2j + 1)");
    case PairLayout::Half:
      return t.tr("half: pairs (j, j + {0})", id.pairs.empty() ? 0 : id.pairs[0].second - id.pairs[0].first);
    case PairLayout::None: return t.tr("none: no pairing keeps every pair's norm");
    case PairLayout::Other: break;
  }
  std::string list;
  for (int j = 0; j < n && j < 8; ++j) list += fmt::format("{}({}, {})", j ? " " : "", id.pairs[j].first, id.pairs[j].second);
  return t.tr("another permutation: {0}{1}", list, n > 8 ? " …" : "");
}

/// The sections the pairs' axes make: "mrope_section [16, 24, 24], chunked (docs/multi-axis.md (A2))".
std::string sections_text(const Identification::Axes& axes, const Text& t) {
  if (axes.sections.empty()) return t.tr("undetermined: the positions cannot tell the axes apart (see the note)");
  const std::string list = fmt::format("{}", fmt::join(axes.sections, ", "));
  if (!axes.order) return t.tr("mrope_section [{0}] in neither map (see the note)", list);
  return t.tr("mrope_section [{0}], {1} (docs/multi-axis.md {2}): pair j turns by θ_j·p_a(j)", list,
              order_name(*axes.order, t), axis_rule(*axes.order));
}

}  // namespace

int run_identify(const IdentifyOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const Text t = opt.figure.tr();
  LoadedDumps dumps = open_dumps(opt.dumps);
  // M-RoPE: a position per axis (t, h, w(, e)), from --axis-positions or a [3, batch, seq] tensor; else one number.
  std::vector<AxisPosition> positions = positions_as_axes(dumps.positions, dumps.axis_positions);
  std::vector<long> kept;  // streamed: the sequence indices of the sample
  long groups_kept = 0;
  if (dumps.stream) {
    // Memory bounded whatever the files' size: every index of the first heads, or windows of indices (dump_stream.hpp).
    DumpSample sample = sample_dump(*dumps.stream, kIdentifyElements);
    std::vector<AxisPosition> kept_positions;
    for (const long i : sample.indices) kept_positions.push_back(positions[static_cast<std::size_t>(i)]);
    positions = std::move(kept_positions);
    dumps.before = std::move(sample.before);
    dumps.after = std::move(sample.after);
    kept = std::move(sample.indices);
    groups_kept = sample.groups;
  }
  if (opt.dtype) {  // the rounding of the type the dump was computed in, whatever the file stores
    for (DumpVectors* v : {&dumps.before, &dumps.after}) {
      v->dtype = *opt.dtype;
      v->dtype_stated = true;
    }
  }
  Identification id = identify_rope(dumps.before, dumps.after, positions);
  const long all_seq = static_cast<long>(dumps.positions.size());
  if (dumps.stream && (static_cast<long>(kept.size()) < all_seq || groups_kept < dumps.stream->groups())) {
    for (long& j : id.jumps) j = kept[static_cast<std::size_t>(j)];  // indices of the sample → of the dump
    id.notes.push_back(msg("identified from a sample of the files: {0} of {1} sequence indices, {2} of {3} heads (rope identify "
                           "holds at most {4} elements of each dump)",
                           kept.size(), all_seq, groups_kept, dumps.stream->groups(), kIdentifyElements));
  }
  if (opt.json) {
    nlohmann::json j;
    j["d"] = id.d;
    j["dtype"] = std::string(to_string(dumps.after.dtype));  // the rounding identified with: --dtype, else the file's
    j["rotary_dim"] = id.rotary_dim;
    j["layout"] = to_string(id.layout);
    j["pairs"] = id.pairs;
    j["attention_factor"] = id.attention_factor;
    j["norm_residual"] = id.norm_residual;
    j["theta"] = std::vector<double>(id.theta.data(), id.theta.data() + id.theta.size());
    j["angle_residual"] = std::vector<double>(id.angle_residual.data(), id.angle_residual.data() + id.angle_residual.size());
    nlohmann::json fits = nlohmann::json::array();
    for (const FamilyFit& f : id.fits) {
      fits.push_back({{"family", to_string(f.family)}, {"base", f.base}, {"factor", f.factor}, {"ramp_low", f.ramp_low},
                      {"ramp_high", f.ramp_high}, {"residual", f.residual}});
    }
    j["family"] = fits.empty() ? nlohmann::json() : fits[0];
    // θ of plain RoPE with the fitted base over θ measured: the per-pair factor (LongRoPE's ext_factors,
    // a llama3/YaRN band's f) of each pair.
    std::vector<double> per_pair;
    for (Eigen::Index k = 0; k < id.theta.size(); ++k) {
      const double plain = std::pow(id.fit.base, -2.0 * static_cast<double>(k) / std::max(id.family_dim, 2));
      per_pair.push_back(id.theta[k] != 0 ? plain / std::abs(id.theta[k]) : 0.0);
    }
    j["factor_per_pair"] = per_pair;
    j["fits"] = fits;
    j["notes"] = english(id.notes);
    j["position_offset"] = id.position_offset;
    j["jumps"] = id.jumps;
    j["undetermined"] = id.undetermined;
    j["pairing_assumed"] = id.pairing_assumed;
    j["reversed"] = id.reversed;
    if (id.vision) {
      j["vision"] = {{"kind", id.vision->kind}, {"equation", id.vision->equation}, {"base", id.vision->base},
                     {"residual", id.vision->residual}};
    }
    if (id.axes) {
      j["mrope"] = {{"pair_axis", id.axes->pair_axis},
                    {"sections", id.axes->sections.empty() ? nlohmann::json() : nlohmann::json(id.axes->sections)},
                    {"order", id.axes->order ? nlohmann::json(std::string(to_string(*id.axes->order))) : nlohmann::json()}};
    }
    out << json_text(j) << '\n';
  } else {
    const auto row = [&](const std::string& label, const std::string& value) { out << fmt::format("  {:<20}{}\n", label, value); };
    out << t.tr("rope identify: {0} from {1}\n", escape_controls(opt.dumps.after), escape_controls(opt.dumps.before));
    row(t.tr("dump"), fmt::format("[{}] = {}, {} ({}), {} {}", to_string(dumps.axes), shape_string(dumps.shape),
                                        to_string(dumps.after.dtype), dumps.stored, t.tr("positions"), positions_text(dumps, t)));
    if (id.position_offset != 0 || !id.jumps.empty()) {
      std::string jumps;
      for (std::size_t k = 0; k < id.jumps.size() && k < 8; ++k) jumps += (k ? ", " : "") + std::to_string(id.jumps[k]);
      if (id.jumps.size() > 8) jumps += ", …";
      row(t.tr("dump's positions"),
          id.jumps.empty() ? t.tr("the given ones shifted by {0:+g}", id.position_offset)
          : id.position_offset == 0 ? t.tr("restart or jump at index {0}", jumps)
                                    : t.tr("the given ones shifted by {0:+g}, restart or jump at index {1}", id.position_offset, jumps));
    }
    row(t.tr("rotated channels"), t.tr("{0} of {1}", id.rotary_dim, id.d));
    row(t.tr("pair layout"), layout_text(id, t));
    if (!id.pairs.empty()) {
      row(t.tr("attention factor"), t.tr("{0:.6f} (pair norms kept within {1:.2g})",
                                                       id.attention_factor, id.norm_residual));
      if (id.vision) {  // (row, column) positions whose map, pairs and ladders are a vision tower's (V2)-(V6)
        row(t.tr("family"), t.tr("2-D vision RoPE {0} {1}: each axis its own ladder, base {2} (docs/multi-axis.md §6)",
                                 id.vision->kind, id.vision->equation, g6(id.vision->base)));
      } else {
        if (id.axes) row("M-RoPE", sections_text(*id.axes, t));
        row(t.tr("family"), family_text(id.fit, t));
      }
      // The family is the simplest fit within the noise of the smallest residual (analysis/identify.cpp): the
      // residuals are compared, and shown with the digits that tell them apart (digits.hpp, at least 2).
      std::vector<double> residuals{id.vision ? id.vision->residual : id.fit.residual};
      for (std::size_t i = id.vision ? 0 : 1; i < id.fits.size(); ++i) residuals.push_back(id.fits[i].residual);
      const std::vector<std::string> shown = compared(residuals, opt.digits, 2);
      row(t.tr("fit residual"), t.tr("{0} (RMS of ln θ_measured − ln θ_family)", shown[0]));
      std::string others;
      // With a vision match every 1-D family is another fit (shown[k + 1] for fits[k]); else fits[0] is the chosen one.
      const std::size_t first = id.vision ? 0 : 1;
      for (std::size_t i = first; i < id.fits.size(); ++i) {
        others += fmt::format("{}{} {}", i > first ? ", " : "", to_string(id.fits[i].family), shown[i + 1 - first]);
      }
      if (!others.empty()) row(t.tr("other fits"), others);
      const int n = static_cast<int>(id.theta.size());
      out << '\n' << fmt::format("  {:>5}  {:>14}  {:>14}  {:>12}\n", t.tr("pair"), t.tr("θ measured"),
                                 t.tr("θ fitted"), t.tr("angle RMS"));
      for (int j = 0; j < n; ++j) {
        if (n > 12 && j == 4) out << "  …\n";
        if (n > 12 && j >= 4 && j < n - 4) continue;
        out << fmt::format("  {:>5}  {:>14.6g}  {:>14.6g}  {:>12.2g}\n", j, id.theta[j],
                           id.vision ? id.vision->theta[j] : j < id.fit.theta.size() ? id.fit.theta[j] : 0.0,
                           id.angle_residual[j]);
      }
    }
    for (const Message& note : id.notes) out << t.tr("note: ") << note.in(t.lang()) << '\n';
  }
  if (opt.figure.wanted() && !id.pairs.empty()) draw(identify_figure(opt.figure, id), opt.figure);
  // The dump's positions are not the ones given: exit 1, as a failed check.
  return id.position_offset != 0 || !id.jumps.empty() ? kVerifyFailed : kOk;
}

Command add_identify_command(CLI::App& app) {
  auto opt = std::make_shared<IdentifyOptions>();
  CLI::App* sub = app.add_subcommand("identify", "Which RoPE produced these tensors: layout, rotary dim, frequencies and scaling from two dumps");
  add_dump_options(*sub, opt->dumps, true);
  add_choice_option(*sub, "--dtype", opt->dtype, kDTypeWords, parse_dtype,
                    "the type the dump was computed in, for the rounding identify allows (default: the file's, or bf16 when "
                    "every value of a float32 dump is a bf16 number)", "TYPE");
  sub->add_flag("--json", opt->json, "print the identification as JSON");
  add_figure_options(*sub, opt->figure);
  add_digits_option(*sub, opt->digits, "2", kDigitsHelp);
  sub->footer("Example:\n  rope identify --before data/dumps/q.npy --after data/dumps/q_rope.npy --positions 0:128");
  return {sub, [opt](std::ostream& out) { return run_identify(*opt, out); }};
}

}  // namespace rope::cli
