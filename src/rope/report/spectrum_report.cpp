// The printers of rope spectrum (spectrum_report.hpp).
#include "rope/report/spectrum_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/report/check_report.hpp"
#include "rope/report/dump_text.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

Value spectrum_pairs_value(const std::vector<PairSpectrum>& pairs) {
  Value list = Value::array();
  for (const PairSpectrum& p : pairs) {
    Value one = Value::object();
    one["pair"] = p.pair;
    one["wavelength"] = p.wavelength;
    one["energy_share"] = p.energy_share;
    one["frequency_entropy"] = p.frequency_entropy;
    one["flat"] = p.flat();
    one["flat_series"] = p.flat_series;
    list.push_back(one);
  }
  return list;
}

/// ⌊T/2⌋: the frequencies of (F3), whose count bounds the entropy by ln⌊T/2⌋.
long spectrum_bins(const SpectrumRun& run) { return run.seq / 2; }

std::string spectrum_wavelength_text(double w, const Text& t) {
  return std::isfinite(w) ? g4(w) : t.tr("inf (not rotated)");
}

/// "pairs 44 … 63 hold 91.2 % (20 of 64 pairs)" of a band.
std::string spectrum_band_text(const SpectrumBands& b, std::size_t pairs, const Text& t) {
  if (b.energy_last < 0) return t.tr("no energy: every element of the dump is 0");
  return t.tr("pairs {0} … {1} hold {2} % ({3} of {4} pairs)", b.energy_first, b.energy_last,
              fmt::format("{:.1f}", 100 * b.energy_held), b.energy_last - b.energy_first + 1, pairs);
}

std::string spectrum_extremes_text(const std::vector<PairSpectrum>& pairs, const SpectrumBands& b, const Text& t) {
  if (!b.lowest_entropy) return t.tr("every pair is flat (frequency entropy 0)");
  const auto fe = [&](int j) { return fmt::format("{:.4f}", pairs[static_cast<std::size_t>(j)].frequency_entropy); };
  return t.tr("lowest pair {0} ({1} nats), highest pair {2} ({3} nats)", *b.lowest_entropy, fe(*b.lowest_entropy),
              *b.highest_entropy, fe(*b.highest_entropy));
}

}  // namespace

Value spectrum_value(const SpectrumRun& run) {
  Value v = Value::object();
  v["file"] = run.file;
  Value dump = Value::object();
  dump["shape"] = run.dump.shape;
  dump["axes"] = std::string(to_string(run.dump.axes));
  dump["axes_assumed"] = run.dump.axes_assumed;
  dump["dtype"] = std::string(to_string(run.dump.after.dtype));
  dump["seq"] = run.seq;
  dump["batch"] = run.batch;
  dump["heads"] = run.heads;
  dump["d"] = run.d;
  dump["positions"] = run.dump.positions_assumed ? fmt::format("0:{}", run.seq) : run.dump.positions_text;
  v["dump"] = dump;
  Value spec = Value::object();
  spec["layout"] = std::string(to_string(run.expected.rope.layout));
  spec["rotary_dim"] = run.expected.rotary_dim();
  spec["base"] = run.expected.base();
  spec["scaling"] = run.expected.scaling;
  spec["layout_from"] = run.where.in(Lang::En);
  spec["base_assumed"] = run.base_assumed;
  spec["no_rope"] = run.nope.has_value();
  v["spec"] = spec;
  v["frequency_bins"] = spectrum_bins(run);
  v["pairs"] = spectrum_pairs_value(run.tallies.pooled);
  Value heads = Value::array();
  for (std::size_t h = 0; h < run.tallies.heads.size(); ++h) {
    Value one = Value::object();
    one["head"] = h;
    one["pairs"] = spectrum_pairs_value(run.tallies.heads[h]);
    heads.push_back(one);
  }
  v["heads"] = heads;
  const SpectrumBands& b = run.bands;
  Value bands = Value::object();
  Value energy = Value::object();
  energy["target"] = kSpectrumBandShare;
  energy["first"] = b.energy_last >= 0 ? Value(b.energy_first) : Value();
  energy["last"] = b.energy_last >= 0 ? Value(b.energy_last) : Value();
  energy["pairs"] = b.energy_last >= 0 ? b.energy_last - b.energy_first + 1 : 0;
  energy["share"] = b.energy_held;
  bands["energy"] = energy;
  bands["lowest_entropy"] = b.lowest_entropy;
  bands["highest_entropy"] = b.highest_entropy;
  v["bands"] = bands;
  v["notes"] = english(run.notes);
  return v;
}

void print_spectrum(std::ostream& wrapped, const SpectrumRun& run, const Text& t) {
  std::ostringstream out;  // broken at 100 columns at the end (a projector's width)
  const auto row = [&](const std::string& label, const std::string& value) {
    out << pad("  " + label, 22) << value << '\n';
  };
  // A file's name, or (the Python module) an array held in memory, which has none.
  out << t.tr("rope spectrum: {0}\n", run.file.empty() ? t.tr("an array held in memory") : escape_controls(run.file));
  row(t.tr("dump"),
      t.tr("[{0}] = {1}, {2} ({3}), positions {4}", std::string(to_string(run.dump.axes)), shape_string(run.dump.shape),
           std::string(to_string(run.dump.after.dtype)), run.dump.stored, positions_text(run.dump, t)));
  if (run.dump.axes_assumed) row(t.tr("axes"), axes_assumed_text(run.dump, t));
  if (run.nope) {
    row(t.tr("spec"), t.tr("no RoPE: layers {0} ({1}) of {2}", describe_layers(run.nope->layers),
                           escape_controls(run.nope->layer_type), escape_controls(run.nope->model)));
  } else {
    row(t.tr("spec"), expected_text(run.expected, run.where, t));
  }
  row(t.tr("series"), t.tr("{0} batch rows × {1} heads, {2} sequence indices each, {3} frequencies (f = 1 … {3})",
                           run.batch, run.heads, run.seq, spectrum_bins(run)));
  const std::vector<PairSpectrum>& pairs = run.tallies.pooled;
  row(t.tr("energy"), spectrum_band_text(run.bands, pairs.size(), t));
  row(t.tr("entropy"), spectrum_extremes_text(pairs, run.bands, t));
  out << '\n';
  const std::string h1 = t.tr("pair"), h2 = t.tr("wavelength"), h3 = t.tr("energy share"),
                    h4 = t.tr("frequency entropy");
  const auto right = [](const std::string& s, std::size_t w) {
    return std::string(w > columns(s) ? w - columns(s) : 0, ' ') + s;
  };
  out << right(h1, 6) << right(h2, 14) << right(h3, 16) << right(h4, 20) << '\n';
  for (const PairSpectrum& p : pairs) {
    out << right(std::to_string(p.pair), 6) << right(spectrum_wavelength_text(p.wavelength, t), 14)
        << right(fmt::format("{:.4g}", p.energy_share), 16)
        << right(p.flat() ? t.tr("0 (flat)") : fmt::format("{:.4f}", p.frequency_entropy), 20) << '\n';
  }
  if (run.tallies.heads.size() > 1) {
    out << '\n' << t.tr("per head (pooled over batch rows):\n");
    for (std::size_t h = 0; h < run.tallies.heads.size(); ++h) {
      const std::vector<PairSpectrum>& one = run.tallies.heads[h];
      const SpectrumBands b = spectrum_bands(one);
      out << "  "
          << t.tr("head {0}: {1}; {2}", h, spectrum_band_text(b, one.size(), t), spectrum_extremes_text(one, b, t))
          << '\n';
    }
  }
  for (const Message& n : run.notes) out << t.tr("note: ") << n.in(t.lang()) << '\n';
  wrapped << wrap_lines(out.str());
}

plot::Figure spectrum_figure(const SpectrumRun& run, const Text& t) {
  const std::vector<PairSpectrum>& pairs = run.tallies.pooled;
  const auto n = static_cast<Eigen::Index>(pairs.size());
  bool finite = n > 0;
  for (const PairSpectrum& p : pairs) finite = finite && std::isfinite(p.wavelength) && p.wavelength > 0;
  // Over the wavelength (log axis), or over the pair index where a pair does not turn.
  Eigen::VectorXd x(n);
  for (Eigen::Index j = 0; j < n; ++j) x[j] = finite ? pairs[static_cast<std::size_t>(j)].wavelength : double(j);
  plot::Figure fig;
  fig.title = t.tr("rope spectrum: {0}", escape_controls(run.file));
  fig.xlabel = finite ? t.tr("wavelength λⱼ = 2π/θⱼ (positions)") : t.tr("pair j");
  fig.ylabel = t.tr("energy share / the largest; frequency entropy / ln⌊T/2⌋");
  fig.log_x = finite;
  fig.yrange = std::make_pair(0.0, 1.05);
  fig.key = plot::Figure::Key::Below;
  double largest = 0;  // the bars over the largest share, so that they span the axis the entropy line spans
  for (const PairSpectrum& p : pairs) largest = std::max(largest, p.energy_share);
  const auto edge = [&](Eigen::Index a, Eigen::Index b) {  // between two neighbours: geometric or arithmetic
    return finite ? std::sqrt(x[a] * x[b]) : (x[a] + x[b]) / 2;
  };
  for (Eigen::Index j = 0; j < n; ++j) {
    double lo = j > 0 ? edge(j - 1, j) : (n > 1 ? (finite ? x[0] * x[0] / edge(0, 1) : x[0] - 0.5) : x[0] * 0.9);
    double hi =
        j + 1 < n ? edge(j, j + 1) : (n > 1 ? (finite ? x[j] * x[j] / edge(j - 1, j) : x[j] + 0.5) : x[0] * 1.1);
    // 80 % of the cell, so that neighbouring bars stay apart.
    const double mid = x[j];
    lo = finite ? mid * std::pow(lo / mid, 0.8) : mid - 0.8 * (mid - lo);
    hi = finite ? mid * std::pow(hi / mid, 0.8) : mid + 0.8 * (hi - mid);
    plot::Band bar;
    bar.label = j == 0 ? t.tr("energy share / the largest") : "";
    bar.x = Eigen::Vector2d(lo, hi);
    bar.lower = Eigen::Vector2d::Zero();
    bar.upper =
        Eigen::Vector2d::Constant(largest > 0 ? pairs[static_cast<std::size_t>(j)].energy_share / largest : 0.0);
    bar.color = 0;
    fig.bands.push_back(bar);
  }
  const double bins = static_cast<double>(spectrum_bins(run));
  plot::Series fe;
  fe.label = t.tr("frequency entropy / ln⌊T/2⌋");
  fe.x = x;
  fe.y.resize(n);
  for (Eigen::Index j = 0; j < n; ++j)
    fe.y[j] = bins >= 2 ? pairs[static_cast<std::size_t>(j)].frequency_entropy / std::log(bins) : 0.0;
  fe.color = 1;
  fig.series.push_back(fe);
  fe.points = true;
  fe.label = "";
  fig.series.push_back(fe);
  if (run.bands.energy_last >= 0) {
    for (const int j : {run.bands.energy_first, run.bands.energy_last}) {
      plot::ReferenceLine line;
      line.axis = plot::ReferenceLine::Axis::X;
      line.value = x[j];
      line.label = j == run.bands.energy_first ? t.tr("90 % of the energy") : "";
      fig.lines.push_back(line);
    }
  }
  return fig;
}

plot::Figure spectrum_heads_figure(const SpectrumRun& run, const Text& t) {
  const auto heads = static_cast<Eigen::Index>(run.tallies.heads.size());
  const auto pairs = static_cast<Eigen::Index>(run.tallies.pooled.size());
  plot::Figure fig;
  fig.title = t.tr("energy share per head and pair: {0}", escape_controls(run.file));
  fig.xlabel = t.tr("pair j");
  fig.ylabel = t.tr("head");
  plot::Heatmap h;
  h.z.resize(heads, pairs);
  for (Eigen::Index r = 0; r < heads; ++r) {
    for (Eigen::Index j = 0; j < pairs; ++j)
      h.z(r, j) = run.tallies.heads[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)].energy_share;
  }
  h.diverging = false;
  h.rows_downward = true;
  h.colorbar_label = t.tr("share");
  fig.heatmap = h;
  return fig;
}

}  // namespace rope
