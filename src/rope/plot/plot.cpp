/// @file
/// Figures through gnuplot: Figure → script text (pure) → one gnuplot run on a private script file.
/// The script is meant to be read and edited by a student, so it is laid out like a hand-written one:
/// datablocks first, then the settings, then one block per output. See ../shared/style.md §10 for the
/// gnuplot behaviour this relies on (verified with gnuplot 5.4.4).
#include "rope/plot/plot.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "rope/io/atomic_file.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/io/interrupt.hpp"

extern char** environ;

namespace rope::plot {

namespace {

namespace fs = std::filesystem;

// Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour-vision
// deficiency. Ordered so the first colours are the most distinct on a projector.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr const char* kReferenceGrey = "#777777";
constexpr const char* kReferenceTextGrey = "#555555";
constexpr const char* kGridGrey = "#dddddd";
constexpr double kBandOpacity = 0.25;
// log_ticks: 1-2-5 steps up to this ratio hi/lo (about 2.5 decades, ≤ ~8 ticks), powers of ten above.
constexpr double kMaxRatioFor125 = 300.0;
// svg sizes text in px, the cairo terminals in points at 96 dpi: this makes the same font size look
// the same in all three (measured on gnuplot 5.4.4: pngcairo 'Sans,100' has a 98 px cap height).
constexpr double kSvgFontScale = 96.0 / 72.0;
constexpr int kMinFontSize = 4;
constexpr int kMaxFontSize = 144;
constexpr std::size_t kMaxMessage = 400;
constexpr std::size_t kMaxCaptured = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Text

/// Decodes one UTF-8 sequence at text[i]; advances i. Strict: overlong forms, surrogates and values
/// above U+10FFFF are invalid (then i advances by one byte and nullopt is returned).
std::optional<char32_t> decode_utf8(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  int extra = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    cp = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    cp = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    cp = lead & 0x07;
    min = 0x10000;
  } else {
    ++i;
    return std::nullopt;
  }
  if (i + static_cast<std::size_t>(extra) >= text.size()) {
    ++i;
    return std::nullopt;
  }
  for (int k = 1; k <= extra; ++k) {
    const unsigned char c = byte(i + static_cast<std::size_t>(k));
    if ((c & 0xC0) != 0x80) {
      ++i;
      return std::nullopt;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return std::nullopt;
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

bool is_cjk(char32_t cp) {
  return (cp >= 0x2E80 && cp <= 0x9FFF)     // radicals, kana, CJK punctuation, Han
         || (cp >= 0xAC00 && cp <= 0xD7AF)  // Hangul syllables
         || (cp >= 0xF900 && cp <= 0xFAFF)  // CJK compatibility ideographs
         || (cp >= 0xFF00 && cp <= 0xFFEF)  // full-width and half-width forms
         || cp >= 0x20000;                  // Han extensions B and later
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

/// A number for the script: shortest round trip, locale-independent.
std::string num(double x) { return format_number(x); }

/// A data value: non-finite values become gnuplot's NaN, which it treats as a gap in a line.
std::string data_value(double x) { return std::isfinite(x) ? format_number(x) : std::string("NaN"); }

/// A compact tick label: 5, 10, 0.2, 1e+06.
/// Tick labels: plain up to 10^4 ("5", "20", "10000"), then mantissa and exponent without padding
/// ("1e5", "2e6"), so a log axis reads 1000, 10000, 1e5, 1e6 rather than 100000, 1e+06.
std::string tick_label(double x) {
  if (x == 0 || (std::abs(x) < 1e5 && std::abs(x) >= 1e-4)) return fmt::format("{:g}", x);
  const int exponent = static_cast<int>(std::floor(std::log10(std::abs(x))));
  const double mantissa = x / std::pow(10.0, exponent);
  return fmt::format("{:g}e{}", std::round(mantissa * 1e6) / 1e6, exponent);
}

/// The last kMaxMessage bytes of `text` on one line: gnuplot's own message comes last, after the
/// echoed command and the caret line.
std::string squash(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  if (out.size() > kMaxMessage) {
    std::size_t start = out.size() - kMaxMessage;
    while (start < out.size() && (static_cast<unsigned char>(out[start]) & 0xC0) == 0x80) ++start;
    out = "..." + out.substr(start);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Numbers on log axes

/// m·10^k as the double nearest to the decimal value (10^k is exact up to 10^22).
double decimal(int m, int k) {
  double p = 1.0;
  for (int i = 0; i < std::abs(k) && i < 22; ++i) p *= 10.0;
  if (std::abs(k) > 22) p = std::pow(10.0, std::abs(k));
  return k >= 0 ? m * p : m / p;
}

int decade_of(double v) { return static_cast<int>(std::floor(std::log10(v))); }

/// Largest "nice" value ≤ v, nice = m·10^k with m in `steps` (ascending).
template <std::size_t N>
double nice_floor(double v, const std::array<int, N>& steps) {
  for (int k = decade_of(v) + 1; k >= decade_of(v) - 1; --k) {
    for (auto m = steps.rbegin(); m != steps.rend(); ++m) {
      if (decimal(*m, k) <= v) return decimal(*m, k);
    }
  }
  return v;
}

/// Smallest nice value ≥ v.
template <std::size_t N>
double nice_ceil(double v, const std::array<int, N>& steps) {
  for (int k = decade_of(v) - 1; k <= decade_of(v) + 1; ++k) {
    for (const int m : steps) {
      if (decimal(m, k) >= v) return decimal(m, k);
    }
  }
  return v;
}

constexpr std::array<int, 3> k125 = {1, 2, 5};
constexpr std::array<int, 1> k1 = {1};

/// The range shown on an autoscaled log axis: the data range widened to 1-2-5 values, or to whole
/// decades when that is still wider than kMaxRatioFor125, so the ends carry ticks.
std::pair<double, double> nice_log_range(double lo, double hi) {
  double a = nice_floor(lo, k125);
  double b = nice_ceil(hi, k125);
  if (a == b) {  // a single value: one 1-2-5 step either side
    a = nice_floor(std::nextafter(a, 0.0), k125);
    b = nice_ceil(std::nextafter(b, INFINITY), k125);
  }
  if (b / a > kMaxRatioFor125) {
    a = nice_floor(lo, k1);
    b = nice_ceil(hi, k1);
  }
  return {a, b};
}

// ---------------------------------------------------------------------------------------------
// Validation

void check_range(const std::optional<std::pair<double, double>>& range, const char* name, bool log) {
  if (!range) return;
  const auto [lo, hi] = *range;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    throw InvalidArgument(fmt::format("{} must be finite with min < max (got [{}, {}])", name, lo, hi));
  }
  if (log && lo <= 0) {
    throw InvalidArgument(fmt::format("{} must be > 0 on a logarithmic axis (got [{}, {}])", name, lo, hi));
  }
}

void check_color(int color, const std::string& what) {
  if (color < -1) {
    throw InvalidArgument(
        fmt::format("{}: colour must be -1 (automatic) or a palette index >= 0 (got {})", what, color));
  }
}

void check_finite(const Eigen::VectorXd& v, const std::string& what) {
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw InvalidArgument(fmt::format("{}[{}] must be finite (got {})", what, i, v[i]));
    }
  }
}

void check_coordinate(double v, bool log, const std::string& what) {
  if (!std::isfinite(v)) throw InvalidArgument(fmt::format("{} must be finite (got {})", what, v));
  if (log && v <= 0) {
    throw InvalidArgument(fmt::format("{} must be > 0 on a logarithmic axis (got {})", what, v));
  }
}

std::string describe(const char* kind, std::size_t i, const std::string& label) {
  return label.empty() ? fmt::format("{} {}", kind, i) : fmt::format("{} {} ('{}')", kind, i, squash(label));
}

void validate(const Figure& f, const std::vector<Output>& outputs, const Style& style) {
  if (style.width < kMinPixels || style.width > kMaxPixels) {
    throw InvalidArgument(
        fmt::format("figure width must be between {} and {} pixels (got {})", kMinPixels, kMaxPixels, style.width));
  }
  if (style.height < kMinPixels || style.height > kMaxPixels) {
    throw InvalidArgument(
        fmt::format("figure height must be between {} and {} pixels (got {})", kMinPixels, kMaxPixels, style.height));
  }
  if (style.font_size < kMinFontSize || style.font_size > kMaxFontSize) {
    throw InvalidArgument(fmt::format("font size must be between {} and {} points (got {})", kMinFontSize, kMaxFontSize,
                                      style.font_size));
  }
  if (style.lang != "en" && style.lang != "zh") {
    throw InvalidArgument(fmt::format("figure language must be 'en' or 'zh' (got '{}')", style.lang));
  }
  if (outputs.empty()) throw InvalidArgument("no output file given: a figure needs at least one");
  for (const Output& out : outputs) {
    if (out.path.empty()) throw InvalidArgument("output path is empty");
    if (has_control_character(out.path)) {
      throw InvalidArgument(fmt::format("output path '{}' contains a control character", squash(out.path)));
    }
  }
  if (f.series.empty() && f.bands.empty() && !f.heatmap) {
    throw InvalidArgument("figure has nothing to draw: give at least one series, band or heatmap");
  }
  check_range(f.xrange, "xrange", f.log_x);
  check_range(f.yrange, "yrange", f.log_y);

  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const Series& s = f.series[i];
    const std::string what = describe("series", i, s.label);
    if (s.x.size() != s.y.size()) {
      throw InvalidArgument(
          fmt::format("{}: x and y must have the same length (got {} and {})", what, s.x.size(), s.y.size()));
    }
    if (s.x.size() == 0) throw InvalidArgument(fmt::format("{}: x and y must not be empty", what));
    check_finite(s.x, what + ": x");
    check_color(s.color, what);
    if (!std::isfinite(s.line_width) || s.line_width <= 0) {
      throw InvalidArgument(fmt::format("{}: line width must be finite and > 0 (got {})", what, s.line_width));
    }
  }
  for (std::size_t i = 0; i < f.bands.size(); ++i) {
    const Band& b = f.bands[i];
    const std::string what = describe("band", i, b.label);
    if (b.x.size() != b.lower.size() || b.x.size() != b.upper.size()) {
      throw InvalidArgument(fmt::format("{}: x, lower and upper must have the same length (got {}, {} and {})", what,
                                        b.x.size(), b.lower.size(), b.upper.size()));
    }
    if (b.x.size() == 0) throw InvalidArgument(fmt::format("{}: x, lower and upper must not be empty", what));
    check_finite(b.x, what + ": x");
    check_color(b.color, what);
  }
  for (std::size_t i = 0; i < f.lines.size(); ++i) {
    const ReferenceLine& r = f.lines[i];
    const std::string what = describe("reference line", i, r.label);
    const bool log = r.axis == ReferenceLine::Axis::X ? f.log_x : f.log_y;
    check_coordinate(r.value, log, what + ": value");
    check_color(r.color, what);
  }
  for (std::size_t i = 0; i < f.labels.size(); ++i) {
    const Label& l = f.labels[i];
    const std::string what = describe("label", i, l.text);
    check_coordinate(l.x, f.log_x, what + ": x");
    check_coordinate(l.y, f.log_y, what + ": y");
    if (l.arrow_x.has_value() != l.arrow_y.has_value()) {
      throw InvalidArgument(fmt::format("{}: arrow_x and arrow_y must be given together", what));
    }
    if (l.arrow_x) {
      check_coordinate(*l.arrow_x, f.log_x, what + ": arrow_x");
      check_coordinate(*l.arrow_y, f.log_y, what + ": arrow_y");
    }
  }
  if (f.heatmap) {
    const Heatmap& h = *f.heatmap;
    if (h.z.size() == 0) {
      throw InvalidArgument(fmt::format("heatmap must have at least one cell (got {}×{})", h.z.rows(), h.z.cols()));
    }
    if (!std::isfinite(h.x0) || !std::isfinite(h.y0)) {
      throw InvalidArgument(fmt::format("heatmap x0 and y0 must be finite (got {} and {})", h.x0, h.y0));
    }
    if (!std::isfinite(h.dx) || !std::isfinite(h.dy) || h.dx <= 0 || h.dy <= 0) {
      throw InvalidArgument(fmt::format("heatmap dx and dy must be finite and > 0 (got {} and {})", h.dx, h.dy));
    }
    if (f.log_x || f.log_y) {
      throw InvalidArgument("a heatmap needs linear axes (log_x and log_y must be off)");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Script pieces

const char* color_of(int index) { return kPalette[static_cast<std::size_t>(index) % kPalette.size()]; }

/// Series colours: an explicit index is kept; -1 takes the next palette colour that no series chose
/// explicitly (cycling when all are taken).
std::vector<const char*> series_colors(const std::vector<Series>& series) {
  std::array<bool, kPalette.size()> taken{};
  for (const Series& s : series) {
    if (s.color >= 0) taken[static_cast<std::size_t>(s.color) % kPalette.size()] = true;
  }
  std::vector<const char*> colors;
  std::size_t next = 0;
  const bool all_taken = std::all_of(taken.begin(), taken.end(), [](bool t) { return t; });
  for (const Series& s : series) {
    if (s.color >= 0) {
      colors.push_back(color_of(s.color));
      continue;
    }
    while (!all_taken && taken[next % kPalette.size()]) ++next;
    colors.push_back(kPalette[next % kPalette.size()]);
    ++next;
  }
  return colors;
}

std::string title_of(const std::string& label) {
  return label.empty() ? std::string("notitle") : "title " + quote(label) + " noenhanced";
}

/// Extent of the positive finite values an autoscaled log axis must show.
struct Extent {
  double lo = INFINITY;
  double hi = -INFINITY;
  void add(double v) {
    if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  void add(const Eigen::VectorXd& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) add(v[i]);
  }
  bool empty() const { return !(lo <= hi); }
};

Extent log_extent(const Figure& f, bool x_axis) {
  Extent e;
  for (const Series& s : f.series) e.add(x_axis ? s.x : s.y);
  for (const Band& b : f.bands) {
    if (x_axis) {
      e.add(b.x);
    } else {
      e.add(b.lower), e.add(b.upper);
    }
  }
  for (const ReferenceLine& r : f.lines) {
    if ((r.axis == ReferenceLine::Axis::X) == x_axis) e.add(r.value);
  }
  for (const Label& l : f.labels) {
    e.add(x_axis ? l.x : l.y);
    if (l.arrow_x) e.add(x_axis ? *l.arrow_x : *l.arrow_y);
  }
  return e;
}

/// Emits the range and ticks of a log axis ("x" or "y"): explicit range as given, otherwise the data
/// range widened by nice_log_range; ticks from log_ticks with compact labels.
void log_axis(std::string& out, const Figure& f, bool x_axis) {
  const char* axis = x_axis ? "x" : "y";
  const auto& range = x_axis ? f.xrange : f.yrange;
  std::pair<double, double> shown;
  if (range) {
    shown = *range;
  } else {
    const Extent e = log_extent(f, x_axis);
    if (e.empty()) {
      throw InvalidArgument(fmt::format("the logarithmic {} axis has no positive finite value to show", axis));
    }
    shown = nice_log_range(e.lo, e.hi);
  }
  std::vector<std::string> ticks;
  for (const double t : log_ticks(shown.first, shown.second)) {
    ticks.push_back(fmt::format("{} {}", quote(tick_label(t)), num(t)));
  }
  fmt::format_to(std::back_inserter(out), "set logscale {} 10\nset {}range [{}:{}]\nset {}tics ({})\n", axis, axis,
                 num(shown.first), num(shown.second), axis, fmt::join(ticks, ", "));
}

void datablock_header(std::string& out, const std::string& name, const char* what) {
  fmt::format_to(std::back_inserter(out), "# {}\n${} << EOD\n", what, name);
}

/// Whether a reference line at `value` falls inside an explicitly given range (always true when the
/// axis is autoscaled: the anchors below make autoscaling include it).
bool inside(const std::optional<std::pair<double, double>>& range, double value) {
  return !range || (value >= range->first && value <= range->second);
}

/// A finite coordinate from the data, usable on the axis (positive on a log axis): where an invisible
/// anchor point is put so autoscaling includes a reference line or label on the other axis.
std::optional<double> some_coordinate(const Figure& f, bool x_axis) {
  const bool log = x_axis ? f.log_x : f.log_y;
  const auto usable = [&](double v) { return std::isfinite(v) && (!log || v > 0); };
  for (const Series& s : f.series) {
    const Eigen::VectorXd& v = x_axis ? s.x : s.y;
    for (Eigen::Index i = 0; i < v.size(); ++i) {
      if (usable(v[i])) return v[i];
    }
  }
  for (const Band& b : f.bands) {
    for (Eigen::Index i = 0; i < b.x.size(); ++i) {
      const double v = x_axis ? b.x[i] : b.lower[i];
      if (usable(v)) return v;
    }
  }
  return std::nullopt;
}

std::string terminal_line(Format format, const Style& style) {
  const std::string face = style.lang == "zh" ? "WenQuanYi Micro Hei" : "Sans";
  const std::string font = quote(fmt::format("{},{}", face, style.font_size));
  switch (format) {
    case Format::Png:
      return fmt::format("set terminal pngcairo size {},{} noenhanced font {} background '#ffffff'", style.width,
                         style.height, font);
    case Format::Svg:
      return fmt::format("set terminal svg size {},{} fixed noenhanced font {} fontscale {} background '#ffffff'",
                         style.width, style.height, font, num(kSvgFontScale));
    case Format::Pdf:
      return fmt::format("set terminal pdfcairo size {}in,{}in noenhanced font {} background '#ffffff'",
                         num(style.width / 96.0), num(style.height / 96.0), font);
  }
  throw InvalidArgument("unknown output format");
}

const char* format_name(Format format) {
  switch (format) {
    case Format::Png: return "PNG";
    case Format::Svg: return "SVG";
    case Format::Pdf: return "PDF";
  }
  return "?";
}

}  // namespace

// -------------------------------------------------------------------------------------------------

Format format_from_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".png") return Format::Png;
  if (ext == ".svg") return Format::Svg;
  if (ext == ".pdf") return Format::Pdf;
  throw InvalidArgument(
      fmt::format("cannot tell the figure format of '{}': the name must end in .png, .svg or .pdf", path));
}

std::string quote(std::string_view text) {
  // First the characters: controls become spaces (a raw newline would end the string and start a new
  // command), bytes that are not UTF-8 become U+FFFD (keeps the SVG valid XML).
  std::string clean;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (!cp) {
      clean += "\xEF\xBF\xBD";
    } else if (*cp < 0x20 || (*cp >= 0x7F && *cp <= 0x9F)) {
      clean += ' ';
    } else {
      clean.append(text.substr(start, i - start));
    }
  }
  // Then the quotes. gnuplot 5.4's scanner reads '' as a quote only after another character inside the
  // literal: not at its start, not twice in a row (scanner.c looks one character back). Those quotes go
  // into a double-quoted string of quotes only, cut to length: its even count of ' keeps the @macro
  // pass (which toggles "inside single quotes" at every ') in step, so '@x' after it stays literal.
  std::vector<std::string> pieces;
  std::string literal;
  i = 0;
  while (i < clean.size()) {
    if (clean[i] != '\'') {
      literal += clean[i++];
      continue;
    }
    std::size_t run = 0;
    while (i + run < clean.size() && clean[i + run] == '\'') ++run;
    i += run;
    if (run == 1 && !literal.empty()) {
      literal += "''";
      continue;
    }
    if (!literal.empty()) pieces.push_back("'" + literal + "'");
    literal.clear();
    pieces.push_back(fmt::format("\"{}\"[1:{}]", std::string(2 * run, '\''), run));
  }
  if (!literal.empty() || pieces.empty()) pieces.push_back("'" + literal + "'");
  return fmt::format("{}", fmt::join(pieces, " . "));
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(lo < hi) || !std::isfinite(hi)) {
    throw InvalidArgument(fmt::format("log ticks need 0 < lo < hi, both finite (got {} and {})", lo, hi));
  }
  // Values computed by arithmetic (hi = 50.000000000000007) still count as their nice neighbour.
  const double slack = 1e-9;
  const auto collect = [&](auto steps) {
    std::vector<double> ticks;
    for (int k = decade_of(lo) - 1; k <= decade_of(hi) + 1; ++k) {
      for (const int m : steps) {
        const double v = decimal(m, k);
        if (v >= lo * (1 - slack) && v <= hi * (1 + slack)) ticks.push_back(v);
      }
    }
    return ticks;
  };
  std::vector<double> ticks = hi / lo <= kMaxRatioFor125 ? collect(k125) : collect(k1);
  if (ticks.size() < 2) ticks = collect(std::array<int, 9>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  if (ticks.size() < 2) ticks = {lo, hi};
  return ticks;
}

namespace {

/// The rows of a curve that are drawn: all of them up to kMaxPlottedPoints; beyond, the first, the last,
/// and in each of kMaxPlottedPoints/2 consecutive buckets the row where `low` is smallest and the one
/// where `high` is largest, in order. A plot is at most a few thousand pixels wide, so this min/max
/// envelope looks the same as the full curve while gnuplot draws 10^6 points in a fraction of the time
/// (about a minute otherwise). Every drawn point is a row of the data.
std::vector<Eigen::Index> plotted_rows(const Eigen::VectorXd& low, const Eigen::VectorXd& high) {
  const Eigen::Index n = low.size();
  std::vector<Eigen::Index> rows;
  if (n <= kMaxPlottedPoints) {
    for (Eigen::Index k = 0; k < n; ++k) rows.push_back(k);
    return rows;
  }
  const Eigen::Index buckets = kMaxPlottedPoints / 2 - 1;
  rows.push_back(0);
  for (Eigen::Index b = 0; b < buckets; ++b) {
    const Eigen::Index begin = 1 + b * (n - 2) / buckets;
    const Eigen::Index end = 1 + (b + 1) * (n - 2) / buckets;
    Eigen::Index lo = begin, hi = begin;
    for (Eigen::Index k = begin; k < end; ++k) {
      if (low[k] < low[lo]) lo = k;
      if (high[k] > high[hi]) hi = k;
    }
    rows.push_back(std::min(lo, hi));
    if (lo != hi) rows.push_back(std::max(lo, hi));
  }
  rows.push_back(n - 1);
  return rows;
}

}  // namespace

std::string gnuplot_script(const Figure& f, const std::vector<Output>& outputs, const Style& style) {
  validate(f, outputs, style);
  std::string out;
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };

  emit("# Figure written by rope. Run it with: gnuplot FILE\n");
  emit("# Every text is single-quoted and 'noenhanced', so _ ^ {{ }} @ & are printed as typed.\n");
  emit("reset\nset encoding utf8\n\n");

  // Data.
  std::vector<std::string> plots;
  const std::vector<const char*> colors = series_colors(f.series);
  if (f.heatmap) {
    const Heatmap& h = *f.heatmap;
    datablock_header(out, "heat", "heatmap: x y z, one block per row");
    // `with image` needs at least 2×2 points: a single row (column) is written twice, a quarter cell
    // either side of its centre, which covers exactly the same rectangle.
    std::vector<std::pair<Eigen::Index, double>> rows;
    for (Eigen::Index r = 0; r < h.z.rows(); ++r) {
      const double y = h.y0 + static_cast<double>(r) * h.dy;
      if (h.z.rows() == 1) {
        rows.push_back({r, y - h.dy / 4}), rows.push_back({r, y + h.dy / 4});
      } else {
        rows.push_back({r, y});
      }
    }
    std::vector<std::pair<Eigen::Index, double>> cols;
    for (Eigen::Index c = 0; c < h.z.cols(); ++c) {
      const double x = h.x0 + static_cast<double>(c) * h.dx;
      if (h.z.cols() == 1) {
        cols.push_back({c, x - h.dx / 4}), cols.push_back({c, x + h.dx / 4});
      } else {
        cols.push_back({c, x});
      }
    }
    for (const auto& [r, y] : rows) {
      for (const auto& [c, x] : cols) emit("{} {} {}\n", num(x), num(y), data_value(h.z(r, c)));
      emit("\n");
    }
    emit("EOD\n");
    plots.push_back("$heat using 1:2:3 with image notitle");
  }
  for (std::size_t i = 0; i < f.bands.size(); ++i) {
    const Band& b = f.bands[i];
    const std::string name = fmt::format("band{}", i);
    datablock_header(out, name, "band: x lower upper");
    for (const Eigen::Index k : plotted_rows(b.lower, b.upper)) {
      emit("{} {} {}\n", num(b.x[k]), data_value(b.lower[k]), data_value(b.upper[k]));
    }
    emit("EOD\n");
    // A band's automatic colour is that of the series with the same index: it shades around it.
    const char* color = b.color >= 0        ? color_of(b.color)
                        : i < colors.size() ? colors[i]
                                            : color_of(static_cast<int>(i));
    plots.push_back(
        fmt::format("${} using 1:2:3 with filledcurves lc rgb '{}' fillstyle transparent solid {} noborder {}", name,
                    color, num(kBandOpacity), title_of(b.label)));
  }
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const Series& s = f.series[i];
    const std::string name = fmt::format("series{}", i);
    datablock_header(out, name, "series: x y");
    for (const Eigen::Index k : plotted_rows(s.y, s.y)) emit("{} {}\n", num(s.x[k]), data_value(s.y[k]));
    emit("EOD\n");
    if (s.points) {
      plots.push_back(fmt::format("${} using 1:2 with points pt 7 ps {} lc rgb '{}' {}", name, num(s.line_width / 2.5),
                                  colors[i], title_of(s.label)));
    } else {
      plots.push_back(fmt::format("${} using 1:2 with lines lw {} dt {} lc rgb '{}' {}", name, num(s.line_width),
                                  s.dashed ? 2 : 1, colors[i], title_of(s.label)));
    }
  }
  // Invisible points (single points "with lines" draw nothing, in a fully transparent colour besides)
  // that make gnuplot's autoscaling include reference lines and labels.
  std::vector<std::pair<double, double>> anchors;
  const bool auto_x = !f.heatmap && !f.xrange && !f.log_x;
  const bool auto_y = !f.heatmap && !f.yrange && !f.log_y;
  const std::optional<double> any_x = some_coordinate(f, true);
  const std::optional<double> any_y = some_coordinate(f, false);
  for (const ReferenceLine& r : f.lines) {
    if (r.axis == ReferenceLine::Axis::X && auto_x && any_y) anchors.push_back({r.value, *any_y});
    if (r.axis == ReferenceLine::Axis::Y && auto_y && any_x) anchors.push_back({*any_x, r.value});
  }
  if (auto_x || auto_y) {
    for (const Label& l : f.labels) {
      anchors.push_back({l.x, l.y});
      if (l.arrow_x) anchors.push_back({*l.arrow_x, *l.arrow_y});
    }
  }
  if (!anchors.empty()) {
    datablock_header(out, "anchors",
                     "invisible points that keep reference lines and labels inside the autoscaled range");
    for (const auto& [x, y] : anchors) emit("{} {}\n\n", num(x), num(y));
    emit("EOD\n");
    plots.push_back("$anchors using 1:2 with lines lc rgb '#FF000000' notitle");
  }

  // Settings.
  emit("\n");
  if (!f.title.empty()) emit("set title {} noenhanced font ',{}'\n", quote(f.title), style.font_size + 2);
  if (!f.xlabel.empty()) emit("set xlabel {} noenhanced\n", quote(f.xlabel));
  if (!f.ylabel.empty()) emit("set ylabel {} noenhanced\n", quote(f.ylabel));
  const bool any_key =
      std::any_of(f.series.begin(), f.series.end(), [](const Series& s) { return !s.label.empty(); }) ||
      std::any_of(f.bands.begin(), f.bands.end(), [](const Band& b) { return !b.label.empty(); });
  if (any_key) {
    const char* where = "inside top right";
    switch (f.key) {
      case Figure::Key::TopRight: where = "inside top right"; break;
      case Figure::Key::TopLeft: where = "inside top left"; break;
      case Figure::Key::BottomRight: where = "inside bottom right"; break;
      case Figure::Key::BottomLeft: where = "inside bottom left"; break;
      case Figure::Key::Below: where = "below center horizontal"; break;
    }
    if (f.key == Figure::Key::Below) {
      // No frame below the plot: gnuplot 5.4 lets a framed key there overlap the x label.
      emit("set key {} nobox Left reverse noenhanced samplen 2 spacing 1.1 width 1\n", where);
    } else {
      // Opaque: the key hides the data behind it instead of mixing with it.
      emit("set style line 100 lt 1 lc rgb '#bbbbbb' lw 1  # the key's frame\n");
      emit("set key {} box ls 100 opaque Left reverse noenhanced samplen 2 spacing 1.1 width 1\n", where);
    }
  } else {
    emit("unset key\n");
  }
  if (f.heatmap) {
    emit("unset grid\nset tics out front nomirror\n");
  } else {
    emit("set grid xtics ytics back lt 1 lc rgb '{}' lw 1\n", kGridGrey);
  }
  emit("set style textbox opaque noborder margins 1, 1\n");

  // Ranges and ticks. An autoscaled linear x axis ends at the data (a curve over 0…4096 should not run
  // on to 4500); y keeps gnuplot's widening to the next tick, which leaves headroom for the key.
  if (auto_x) emit("set autoscale xfix\n");
  if (f.log_x) log_axis(out, f, true);
  if (f.log_y) log_axis(out, f, false);
  if (f.heatmap) {
    const Heatmap& h = *f.heatmap;
    const double x_lo = h.x0 - h.dx / 2;
    const double x_hi = h.x0 + (static_cast<double>(h.z.cols()) - 0.5) * h.dx;
    const double y_lo = h.y0 - h.dy / 2;
    const double y_hi = h.y0 + (static_cast<double>(h.z.rows()) - 0.5) * h.dy;
    if (!f.xrange) emit("set xrange [{}:{}]\n", num(x_lo), num(x_hi));
    if (!f.yrange) {
      if (h.rows_downward) {
        emit("set yrange [{}:{}]  # reversed: row 0 at the top\n", num(y_hi), num(y_lo));
      } else {
        emit("set yrange [{}:{}]\n", num(y_lo), num(y_hi));
      }
    }
    double z_min = INFINITY;
    double z_max = -INFINITY;
    for (Eigen::Index k = 0; k < h.z.size(); ++k) {
      const double z = h.z.data()[k];
      if (std::isfinite(z)) z_min = std::min(z_min, z), z_max = std::max(z_max, z);
    }
    if (h.diverging) {
      double a = std::max(std::abs(z_min), std::abs(z_max));
      if (!(a > 0) || !std::isfinite(a)) a = 1.0;  // all zero (or no finite value)
      emit("set palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')  # blue < 0 < red\n");
      emit("set cbrange [{}:{}]\n", num(-a), num(a));
    } else {
      if (!(z_min <= z_max)) z_min = 0, z_max = 1;
      if (z_min == z_max) z_min -= 1, z_max += 1;
      emit("set palette defined (0 '#440154', 0.5 '#21908C', 1 '#FDE725')  # viridis-like\n");
      emit("set cbrange [{}:{}]\n", num(z_min), num(z_max));
    }
    if (!h.colorbar_label.empty()) emit("set cblabel {} noenhanced\n", quote(h.colorbar_label));
  }
  if (f.xrange && !f.log_x) emit("set xrange [{}:{}]\n", num(f.xrange->first), num(f.xrange->second));
  if (f.yrange && !f.log_y) emit("set yrange [{}:{}]\n", num(f.yrange->first), num(f.yrange->second));

  // Reference lines and labels.
  int arrow = 0;
  int label = 0;
  for (const ReferenceLine& r : f.lines) {
    const bool vertical = r.axis == ReferenceLine::Axis::X;
    if (!inside(vertical ? f.xrange : f.yrange, r.value)) continue;  // gnuplot would draw it outside the frame
    const char* line_color = r.color >= 0 ? color_of(r.color) : kReferenceGrey;
    const char* text_color = r.color >= 0 ? color_of(r.color) : kReferenceTextGrey;
    const std::string v = num(r.value);
    if (vertical) {
      emit("set arrow {} from first {}, graph 0 to first {}, graph 1 nohead dt 2 lw 2 lc rgb '{}' back\n", ++arrow, v,
           v, line_color);
    } else {
      emit("set arrow {} from graph 0, first {} to graph 1, first {} nohead dt 2 lw 2 lc rgb '{}' back\n", ++arrow, v,
           v, line_color);
    }
    if (r.label.empty()) continue;
    if (vertical) {
      // Reads upwards along the left of the line, ending near the top.
      emit(
          "set label {} {} at first {}, graph 0.97 right rotate by 90 offset character -1.5, 0 tc rgb '{}' boxed front "
          "noenhanced\n",
          ++label, quote(r.label), v, text_color);
    } else {
      emit("set label {} {} at graph 0.02, first {} left offset character 0, 0.8 tc rgb '{}' boxed front noenhanced\n",
           ++label, quote(r.label), v, text_color);
    }
  }
  for (const Label& l : f.labels) {
    const char* anchor = l.anchor == Label::Anchor::Left     ? "left"
                         : l.anchor == Label::Anchor::Center ? "center"
                                                             : "right";
    if (l.arrow_x) {
      // Drawn before the label, whose opaque box then hides the start of the arrow.
      emit(
          "set arrow {} from first {}, first {} to first {}, first {} head filled size screen 0.015, 20 lw 1.5 lc rgb "
          "'#333333' front\n",
          ++arrow, num(l.x), num(l.y), num(*l.arrow_x), num(*l.arrow_y));
    }
    emit("set label {} {} at first {}, first {} {} boxed front noenhanced\n", ++label, quote(l.text), num(l.x),
         num(l.y), anchor);
  }

  // Outputs.
  const std::string plot_command = fmt::format("plot {}\n", fmt::join(plots, ", \\\n     "));
  for (const Output& o : outputs) {
    emit("\n# {}\n{}\nset output {}\n{}unset output\n", format_name(o.format), terminal_line(o.format, style),
         quote(o.path), plot_command);
  }
  return out;
}

// -------------------------------------------------------------------------------------------------
// Running programs

namespace {

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

/// Files removed when the guard goes out of scope, unless released (renamed into place).
class TempFiles {
 public:
  TempFiles() = default;
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;
  ~TempFiles() {
    for (const auto& [p, slot] : paths_) {
      ::unlink(p.c_str());
      unregister_temp(slot);
    }
  }
  /// Also registered for removal on SIGINT (interrupt.hpp).
  void add(std::string path) {
    const int slot = register_temp(path.c_str());
    paths_.emplace_back(std::move(path), slot);
  }
  void release(const std::string& path) {
    for (auto it = paths_.begin(); it != paths_.end();) {
      if (it->first == path) {
        unregister_temp(it->second);
        it = paths_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  std::vector<std::pair<std::string, int>> paths_;
};

/// A new empty file from a mkstemps template (the suffix length counted from the end), mode 0666 &
/// ~umask, registered in `temps` before anything can throw. Returns the open descriptor. Errors say
/// "cannot write <what>: <reason>", `what` being the quoted output path or "the gnuplot script in 'DIR'"
/// (a temporary name in a message would differ from run to run).
int make_temp(std::string& path, int suffix, TempFiles& temps, const std::string& what) {
  const int fd = ::mkstemps(path.data(), suffix);
  if (fd < 0) throw IoError(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
  temps.add(path);
  if (::fchmod(fd, 0666 & ~current_umask()) != 0) {
    const int err = errno;
    ::close(fd);
    throw IoError(fmt::format("cannot write {}: {}", what, std::strerror(err)));
  }
  return fd;
}

void write_all(int fd, std::string_view content, const std::string& what) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw IoError(fmt::format("cannot write {}: {}", what, std::strerror(err)));
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::close(fd) != 0) throw IoError(fmt::format("cannot write {}: {}", what, std::strerror(errno)));
}

struct RunResult {
  int spawn_error = 0;  ///< errno from posix_spawnp; 0 if the program started
  bool timed_out = false;
  int status = 0;  ///< from waitpid
  std::string captured;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

/// Runs `argv` (argv[0] looked up on PATH, no shell) with stdin from /dev/null, `capture_fd` (stdout
/// or stderr) into a pipe whose last kMaxCaptured bytes are kept, and the other one to /dev/null.
/// The child gets its own process group, so a timeout kills whatever it started too.
RunResult run_program(std::vector<std::string> argv, int capture_fd, double timeout_seconds) {
  RunResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw IoError(fmt::format("cannot run '{}': pipe: {}", argv[0], std::strerror(errno)));
  }
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const int other = capture_fd == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO;
  posix_spawn_file_actions_addopen(&actions, other, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), capture_fd);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  // The interrupting signals wait until the child is registered: a Ctrl-C right after the spawn still
  // kills it (interrupt.hpp). The child itself starts with no signal blocked (setsigmask above).
  sigset_t interrupting, previous;
  sigemptyset(&interrupting);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&interrupting, sig);
  ::pthread_sigmask(SIG_BLOCK, &interrupting, &previous);
  result.spawn_error = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  if (result.spawn_error == 0) set_running_child(pid);  // its process group is killed on SIGINT
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (result.spawn_error != 0) return result;
  struct ChildGuard {
    ~ChildGuard() { set_running_child(0); }
  } child_guard;
  write_end.reset();

  char buffer[4096];
  const auto keep = [&](ssize_t n) {  // the last kMaxCaptured bytes: an error message comes last
    result.captured.append(buffer, static_cast<std::size_t>(n));
    if (result.captured.size() > kMaxCaptured) result.captured.erase(0, result.captured.size() - kMaxCaptured);
  };
  const auto read_some = [&]() -> bool {  // false at end of file
    const ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
    if (n > 0) keep(n);
    return n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN));
  };

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool pipe_open = true;
  for (;;) {
    const pid_t done = ::waitpid(pid, &result.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      throw IoError(fmt::format("cannot wait for '{}': {}", argv[0], std::strerror(errno)));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
      }
      result.timed_out = true;
      return result;  // a grandchild may still hold the pipe: do not wait for its end
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int wait_ms = static_cast<int>(std::clamp<long long>(left, 1, 10));
    if (pipe_open) {
      pollfd p{read_end.get(), POLLIN, 0};
      if (::poll(&p, 1, wait_ms) > 0) pipe_open = read_some();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
  }
  // The child has exited: what it wrote is in the pipe; take it without waiting for anyone else.
  if (pipe_open && ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK) == 0) {
    for (;;) {
      const ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
      if (n > 0) {
        keep(n);
      } else if (!(n < 0 && errno == EINTR)) {
        break;
      }
    }
  }
  return result;
}

std::vector<const std::string*> figure_texts(const Figure& f) {
  std::vector<const std::string*> texts = {&f.title, &f.xlabel, &f.ylabel};
  for (const Series& s : f.series) texts.push_back(&s.label);
  for (const Band& b : f.bands) texts.push_back(&b.label);
  for (const ReferenceLine& r : f.lines) texts.push_back(&r.label);
  for (const Label& l : f.labels) texts.push_back(&l.text);
  if (f.heatmap) texts.push_back(&f.heatmap->colorbar_label);
  return texts;
}

}  // namespace

std::string gnuplot_program() {
  const char* env = std::getenv("ROPE_GNUPLOT");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("gnuplot");
}

bool cjk_font_available() {
  // A generous limit: the first fc-list after installing fonts builds fontconfig's cache.
  const RunResult r = run_program({"fc-list", ":lang=zh", "family"}, STDOUT_FILENO, 60.0);
  if (r.spawn_error != 0 || r.timed_out) return false;
  return std::any_of(r.captured.begin(), r.captured.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) == 0; });
}

bool needs_cjk_font(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (cp && is_cjk(*cp)) return true;
  }
  return false;
}

void render(const Figure& figure, const std::vector<Output>& outputs, const RenderOptions& options) {
  const std::string final_script = gnuplot_script(figure, outputs, options.style);
  if (!std::isfinite(options.timeout_seconds) || options.timeout_seconds <= 0) {
    throw InvalidArgument(
        fmt::format("gnuplot timeout must be finite and > 0 seconds (got {})", options.timeout_seconds));
  }
  const auto texts = figure_texts(figure);
  const bool cjk = options.style.lang == "zh" ||
                   std::any_of(texts.begin(), texts.end(), [](const std::string* t) { return needs_cjk_font(*t); });
  if (cjk && !cjk_font_available()) {
    throw IoError("no Chinese font found by fontconfig (fc-list :lang=zh is empty): install fonts-wqy-microhei");
  }
  if (!options.keep_script.empty()) write_file_atomically(options.keep_script, final_script);

  TempFiles temps;
  std::vector<Output> temp_outputs;
  for (const Output& o : outputs) {
    std::error_code ec;
    if (fs::is_directory(o.path, ec)) {
      throw IoError(fmt::format("cannot write '{}': {}", o.path, std::strerror(EISDIR)));
    }
    const fs::path target(o.path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string ext = target.extension().string();
    std::string temp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX" + ext)).string();
    ::close(make_temp(temp, static_cast<int>(ext.size()), temps, fmt::format("'{}'", o.path)));
    temp_outputs.push_back({temp, o.format});
  }
  const std::string run_script = gnuplot_script(figure, temp_outputs, options.style);

  std::string script_path;
  fs::path temp_dir;
  try {
    temp_dir = fs::temp_directory_path();
  } catch (const fs::filesystem_error& e) {
    throw IoError(fmt::format("cannot find a directory for temporary files: {}", e.what()));
  }
  script_path = (temp_dir / "rope-XXXXXX.gp").string();
  const std::string script_what = fmt::format("the gnuplot script in '{}'", temp_dir.string());
  write_all(make_temp(script_path, 3, temps, script_what), run_script, script_what);

  const std::string program = gnuplot_program();
  const RunResult r = run_program({program, script_path}, STDERR_FILENO, options.timeout_seconds);
  if (r.spawn_error == ENOENT) {
    throw IoError(fmt::format("gnuplot not found (install gnuplot-nox): cannot run '{}'", program));
  }
  if (r.spawn_error != 0) {
    throw IoError(fmt::format("cannot run gnuplot '{}': {}", program, std::strerror(r.spawn_error)));
  }
  if (r.timed_out) {
    throw IoError(fmt::format("gnuplot did not finish within {:g} s and was stopped", options.timeout_seconds));
  }
  const std::string message = squash(r.captured);
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    if (!message.empty()) throw IoError(fmt::format("gnuplot failed: {}", message));
    if (WIFSIGNALED(r.status)) throw IoError(fmt::format("gnuplot failed: killed by signal {}", WTERMSIG(r.status)));
    throw IoError(fmt::format("gnuplot failed with exit status {}", WEXITSTATUS(r.status)));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    struct stat st {};
    if (::stat(temp_outputs[i].path.c_str(), &st) != 0 || st.st_size == 0) {
      throw IoError(fmt::format("gnuplot failed: it wrote nothing for '{}'{}{}", outputs[i].path,
                                message.empty() ? "" : ": ", message));
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (::rename(temp_outputs[i].path.c_str(), outputs[i].path.c_str()) != 0) {
      throw IoError(fmt::format("cannot write '{}': {}", outputs[i].path, std::strerror(errno)));
    }
    temps.release(temp_outputs[i].path);
  }
}

}  // namespace rope::plot
