// The printers of rope frequencies' table (frequencies_report.hpp).
#include "rope/report/digits.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/frequencies_report.hpp"

#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"
#include "rope/report/axes_value.hpp"
#include "rope/report/json.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// −2i/d as a reduced fraction, "-1/64": the form explainers write, so a slip is easy to spot.
std::string exponent_fraction(int d, int i) {
  if (i == 0) return "0";
  const int g = std::gcd(2 * i, d);
  if (d / g == 1) return fmt::format("-{}", 2 * i / g);
  return fmt::format("-{}/{}", 2 * i / g, d / g);
}

/// The band of pair i ("-" without bands) and its position axis ("" without axes).
std::string band_of(const FrequencyTable& table, Eigen::Index i, Lang lang) {
  const RopeParameters& p = table.spec.params;
  return band_name(p.bands.empty() ? Band::None : p.bands[static_cast<std::size_t>(i)], lang);
}

/// FoPE (models/fope.hpp): whether pair i keeps its θ (its cos and sin mixed by the coefficients) or is padded.
bool fope_padded(const FrequencyTable& table, Eigen::Index i) { return table.fope_kept && i >= *table.fope_kept; }

std::string fope_cell(const FrequencyTable& table, Eigen::Index i, const Text& t) {
  return table.fope_kept ? "  " + fope_pair_cell(*table.fope_kept, static_cast<int>(i), t) : "";
}

std::string axis_of(const FrequencyTable& table, Eigen::Index i) {
  const AxisMap* axes = table.spec.axes ? &*table.spec.axes : nullptr;
  return std::string(axes ? axis_letter(axes->pair_axis[static_cast<std::size_t>(i)]) : "");
}

/// Plain RoPE: θ_i = base^(−2i/d) with its exponent.
void print_plain(std::ostream& out, const FrequencyTable& table, const Text& t, int digits) {
  const auto num = [digits](double x) { return with_digits(x, digits); };
  const int w = column_width(digits);
  const int dim = table.spec.rotary_dim;
  const double base = table.rope.spec.config.base;
  const int half = dim / 2;
  const Eigen::VectorXd& theta = table.theta;
  const Eigen::VectorXd& lambda = table.wavelength;
  out << t.tr("RoPE frequencies for d = {0}, base = {1}: θ_i = base^(−2i/d), λ_i = 2π/θ_i\n", dim, format_number(base));
  out << t.tr("pairs i = 0 … {0} (channels 2i, 2i+1 interleaved, or i, i+{1} half-split)\n\n", half - 1, half);
  std::string header = fmt::format("{:>5}  {:>10}  {:>{}}  {:>{}}", "i", "-2i/d", "θ_i", w, "λ_i", w);
  if (table.position) header += fmt::format("  {:>{}}", fmt::format("{}·θ_i", format_number(*table.position)), w);
  out << header << '\n';
  for (int i = 0; i < half; ++i) {
    std::string line =
        fmt::format("{:>5}  {:>10}  {:>{}}  {:>{}}", i, exponent_fraction(dim, i), num(theta[i]), w, num(lambda[i]), w);
    if (table.position) line += fmt::format("  {:>{}}", num(table.angle[i]), w);
    out << line << '\n';
  }
  // A setting plain RoPE does not use (an engine's LongRoPE rule): said, as the scaled table says it.
  for (const auto& warning : table.spec.params.warnings) out << t.tr("warning: ") << warning.in(t.lang()) << '\n';
}

/// A model or a scaling method: original and scaled side by side (scaling.hpp).
void print_scaled(std::ostream& out, const FrequencyTable& table, const Text& t, int digits) {
  const auto num = [digits](double x) { return with_digits(x, digits); };
  const int w = column_width(digits);
  const ModelRope& rr = table.rope;
  const RopeSpec& spec = table.spec;
  const RopeParameters& p = spec.params;
  const std::optional<QueryScaling>& qs = rr.model.query_scaling;
  const Eigen::VectorXd& scaled = table.theta;
  const Eigen::VectorXd& original = table.original;
  const Eigen::VectorXd& f32 = table.theta_float32;
  const Eigen::VectorXd& lambda = table.original_wavelength;
  const Eigen::VectorXd& lambda_scaled = table.wavelength;
  const Eigen::VectorXd& ratio = table.ratio;
  const Eigen::Index half = scaled.size();
  const double m = table.position.value_or(0.0);
  const RopeConfig& c = rr.spec.config;
  const AxisMap* axes = spec.axes ? &*spec.axes : nullptr;
  if (axes && axes->vision()) {
    // A vision tower: its own ladders (V2)-(V5), no scaling; θ_i original and scaled are the same.
    out << t.tr("2-D vision RoPE frequencies of {0} ({1}): d = {2}, base = {3}, no scaling (docs/multi-axis.md §6)\n\n",
                model_name(rr.spec, t.lang()), axes->vision_kind, spec.rotary_dim, format_number(c.base));
  } else {
    out << t.tr("RoPE frequencies from {0}{1}: {2} scaling, d = {3} (head_dim {4}), base = {5} (docs/scaling.md)\n",
                model_name(rr.spec, t.lang()), layer_text(spec, t), to_string(c.type), spec.rotary_dim, c.head_dim,
                format_number(c.base));
    if (c.type != ScalingType::Default) {
      out << t.tr("factor f = {0} ({1}){2}\n", format_number(p.factor), p.factor_rule.in(t.lang()),
                  p.original_max_position > 0 ? t.tr(", original context L0 = {0}", p.original_max_position) : "");
    }
    if (p.effective_base) out << t.tr("effective base base' = {0}\n", readable(*p.effective_base, digits));
    if (p.yarn_range) {
      out << t.tr("yarn correction range [{0}, {1}]\n", readable(p.yarn_range->first, digits),
                  readable(p.yarn_range->second, digits));
    }
    out << t.tr("attention factor {0} ({1}): logits × {2}\n\n", readable(p.attention_factor, digits),
                p.attention_rule.in(t.lang()), readable(p.attention_factor * p.attention_factor, digits));
  }
  if (axes) {
    print_axis_summary(out, *axes, scaled, t.lang());
    out << '\n';
  }
  if (f32.size()) {
    out << float32_text(t) << '\n';
    out << t.tr("attention factor in float32: {0}\n\n", format_number(static_cast<float>(p.attention_factor)));
  }
  if (qs) {
    out << t.tr(
        "query scaling (S21): every layer multiplies the query by s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋) after RoPE{2}\n\n",
        format_number(qs->beta), format_number(qs->original),
        table.position ? t.tr("; at p = {0}: s = {1}", format_number(m), format_number(qs->at(m))) : "");
  }
  // --position: the angle column m·θ_i, after the others.
  std::string f32_head = f32.size() ? fmt::format("  {:>{}}", t.tr("θ_i float32"), w) : "";
  if (table.position) f32_head += fmt::format("  {:>{}}", fmt::format("{}·θ_i", format_number(m)), w);
  const auto f32_cell = [&](Eigen::Index i) {
    return (f32.size() ? fmt::format("  {:>{}}", num(f32[i]), w) : "") +
           (table.position ? fmt::format("  {:>{}}", num(m * scaled[i]), w) : "");
  };
  if (c.type == ScalingType::Default) {
    // Nothing scales (a model without scaling, a vision tower): θ_i scaled = θ_i original at every pair, so
    // one θ and one λ column, as rope wavelengths does; the CSV and JSON keep every column.
    out << fmt::format("{:>5}  {:>{}}  {:>{}}{}{}{}\n", "i", "θ_i", w, "λ_i", w, axes ? t.tr("  axis") : "", f32_head,
                       table.fope_kept ? "  FoPE" : "");
    for (Eigen::Index i = 0; i < half; ++i) {
      out << fmt::format("{:>5}  {:>{}}  {:>{}}{}{}{}\n", i, num(scaled[i]), w, num(lambda_scaled[i]), w,
                         axes ? fmt::format("  {:>4}", axis_of(table, i)) : "", f32_cell(i), fope_cell(table, i, t));
    }
  } else {
    out << fmt::format("{:>5}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}{}{}\n", "i", t.tr("θ_i original"), w,
                       t.tr("θ_i scaled"), w, t.tr("scaled/original"), w, t.tr("λ_i original"), w, t.tr("λ_i scaled"),
                       w, t.tr("band"), axes ? t.tr("  axis") : "", f32_head);
    for (Eigen::Index i = 0; i < half; ++i) {
      out << fmt::format(
          "{:>5}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}{}{}\n", i, num(original[i]), w, num(scaled[i]), w,
          num(ratio[i]), w, num(lambda[i]), w, std::isfinite(lambda_scaled[i]) ? num(lambda_scaled[i]) : "inf", w,
          band_of(table, i, t.lang()), axes ? fmt::format("  {:>4}", axis_of(table, i)) : "", f32_cell(i));
    }
  }
  if (!p.bands.empty()) out << t.tr("\nbands: {0}\n", band_counts(p, t.lang()));
  if (table.fope_kept) {
    out << t.tr("note: ") << fope_pairs_note(*table.fope_kept, static_cast<int>(half), t) << '\n';
  }
  for (const auto& n : p.notes) out << t.tr("note: ") << n.in(t.lang()) << '\n';
  for (const auto& w : p.warnings) out << t.tr("warning: ") << w.in(t.lang()) << '\n';
}

}  // namespace

Value frequencies_value(const FrequencyTable& table) {
  const Eigen::Index half = table.pairs();
  Value j = Value::object();
  if (table.plain()) {
    j["dim"] = table.spec.rotary_dim;
    j["base"] = table.rope.spec.config.base;
    j["inv_freq"] = as_list(table.theta);
    j["attention_factor"] = 1.0;
    j["wavelength"] = as_list(table.wavelength);
    j["exponent"] = as_list(table.exponent);
    if (table.position) {
      j["position"] = *table.position;
      j["angle"] = as_list(table.angle);
    }
    return j;
  }
  const ModelRope& rr = table.rope;
  const RopeConfig& c = rr.spec.config;
  const RopeParameters& p = table.spec.params;
  const std::optional<QueryScaling>& qs = rr.model.query_scaling;
  j["inv_freq"] = as_list(table.theta);
  if (table.theta_float32.size()) j["inv_freq_float32"] = as_list(table.theta_float32);
  j["attention_factor"] = p.attention_factor;
  j["rope_type"] = std::string(to_string(c.type));
  j["model"] = rr.spec.name;
  j["head_dim"] = c.head_dim;
  j["rotary_dim"] = table.spec.rotary_dim;
  j["base"] = c.base;
  j["factor"] = p.factor;
  j["factor_rule"] = p.factor_rule.en;
  j["attention_rule"] = p.attention_rule.en;
  j["logit_multiplier"] = p.attention_factor * p.attention_factor;
  j["original_inv_freq"] = as_list(table.original);
  if (p.original_max_position > 0) j["original_max_position_embeddings"] = p.original_max_position;
  if (p.effective_base) j["effective_base"] = *p.effective_base;
  if (p.yarn_range) j["yarn_range"] = std::vector<double>{p.yarn_range->first, p.yarn_range->second};
  if (table.position) {
    j["position"] = *table.position;
    j["angle"] = as_list(table.angle);
    if (qs) j["query_scale"] = qs->at(*table.position);
  }
  if (qs) {
    Value& q = j["query_scaling"];
    q["beta"] = qs->beta;
    q["L0"] = qs->original;
    q["from"] = qs->from.en;
  }
  if (table.spec.axes) axes_value(j, *table.spec.axes);
  if (table.fope_kept) {  // FoPE: the pairs that keep their θ (mixed by the coefficients) and the padded ones
    Value& f = j["fope"];
    f["kept"] = *table.fope_kept;
    f["padded"] = static_cast<int>(half) - *table.fope_kept;
    std::vector<bool> rotated;
    for (Eigen::Index i = 0; i < half; ++i) rotated.push_back(!fope_padded(table, i));
    f["rotated"] = rotated;
  }
  if (!p.bands.empty()) {
    std::vector<std::string> bands;
    for (Eigen::Index i = 0; i < half; ++i) bands.push_back(band_of(table, i, Lang::En));
    j["band"] = bands;
  }
  j["warnings"] = english(p.warnings);
  j["notes"] = english(p.notes);
  return j;
}

std::string frequencies_csv(const FrequencyTable& table) {
  if (table.plain()) {
    Eigen::VectorXd pair(table.pairs());
    for (Eigen::Index i = 0; i < pair.size(); ++i) pair[i] = static_cast<double>(i);
    Table csv{{"pair", "exponent", "theta", "wavelength"}, {pair, table.exponent, table.theta, table.wavelength}};
    if (table.position) {
      csv.header.push_back("angle");
      csv.columns.push_back(table.angle);
    }
    return to_csv(csv);
  }
  const bool axes = table.spec.axes.has_value();
  const Eigen::VectorXd& f32 = table.theta_float32;
  std::string csv = std::string("pair,theta,wavelength,original_theta,original_wavelength,ratio,band") +
                    (axes ? ",axis" : "") + (f32.size() ? ",theta_float32" : "") + (table.fope_kept ? ",fope\n" : "\n");
  for (Eigen::Index i = 0; i < table.pairs(); ++i) {
    csv += fmt::format("{},{},{},{},{},{},{}{}", i, format_number(table.theta[i]),
                       std::isfinite(table.wavelength[i]) ? format_number(table.wavelength[i]) : "inf",
                       format_number(table.original[i]), format_number(table.original_wavelength[i]),
                       format_number(table.ratio[i]), band_of(table, i, Lang::En), axes ? "," + axis_of(table, i) : "");
    csv += f32.size() ? "," + format_number(f32[i]) : "";
    csv += table.fope_kept ? (fope_padded(table, i) ? ",padded\n" : ",kept\n") : "\n";
  }
  return csv;
}

void print_frequencies(std::ostream& out, const FrequencyTable& table, const Text& t, int digits) {
  if (table.plain()) {
    print_plain(out, table, t, digits);
  } else {
    print_scaled(out, table, t, digits);
  }
}

}  // namespace rope
