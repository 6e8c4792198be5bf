// The printers of rope positions, M-RoPE (positions_report.hpp): the text, the CSV and the figure.
#include "rope/report/positions_report.hpp"

#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/model_config.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// "token" or "tokens" after a count in English; the Chinese sentence names the tokens itself (a measure word).
const char* positions_tokens_word(long n, const Text& t) {
  return (t.lang() == Lang::Zh) ? "" : n == 1 ? "token" : "tokens";
}

std::string positions_segment_text(const Segment& s, long merge, const Text& t) {
  const std::string name = segment_name(s.kind).in(t.lang());
  if (s.kind == SegmentKind::Text) return fmt::format("{} {}", name, s.tokens);
  const long merged = s.grid[0] * (s.grid[1] / merge) * (s.grid[2] / merge);
  // TRANSLATORS: a segment, its grid t×h×w and the merged grid in tokens: "image 1x28x28 → 1×14×14 tokens"; {7}
  // is the English word "token" or "tokens", empty under zh.
  return t.tr("{0} {1}x{2}x{3} → {4}×{5}×{6} {7}", name, s.grid[0], s.grid[1], s.grid[2], s.grid[0], s.grid[1] / merge,
              s.grid[2] / merge, positions_tokens_word(merged, t));
}

}  // namespace

namespace {

/// %.17g: every digit a float64 needs to read back the same number.
std::string exact(double v) { return fmt::format("{:.17g}", v); }

const char* grid_kind(int kind) {
  return kind == 1   ? "text"
         : kind == 2 ? "reference"
         : kind == 3 ? "padding"
         : kind == 4 ? "audio"
         : kind == 5 ? "siglip"
                     : "latent";
}

/// A diffusers transformer's positions (grid_rope.hpp): axes, one list per token.
Value grid_value(const PositionsRun& run) {
  const GridPositions& g = *run.grid;
  // A value per number: refused above the bound before any is made (CSV writes a line per token).
  if (g.tokens.size() > static_cast<std::size_t>(kMaxGridJsonTokens)) {
    throw InvalidArgument(
        error_msg("{0} holds at most {1} tokens' positions (a value per number): the latent gives "
                  "{2}; {3} writes them all",
                  option_name("json"), kMaxGridJsonTokens, g.tokens.size(), option_name("positions_csv")));
  }
  Value v = Value::object();
  v["model"] = Value(run.request.model->spec.name);
  v["class_name"] = run.request.model->spec.model_type;
  Value axes = Value::array();
  for (const std::string& a : g.axes) axes.push_back(a);
  v["axes"] = axes;
  Value grid = Value::array();
  for (const long n : g.grid) grid.push_back(n);
  v["grid"] = grid;
  Value kinds = Value::array();
  Value positions = Value::array();
  for (const GridToken& tok : g.tokens) {
    Value one = Value::array();
    for (std::size_t a = 0; a < g.axes.size(); ++a) one.push_back(tok.p[a]);
    positions.push_back(std::move(one));
    kinds.push_back(std::string(grid_kind(tok.kind)));
  }
  v["positions"] = std::move(positions);
  v["kinds"] = std::move(kinds);
  return v;
}

}  // namespace

Value positions_value(const PositionsRun& run) {
  if (run.grid) return grid_value(run);
  const PositionRules& rules = run.rules;
  Value v = Value::object();
  v["model"] = run.request.model ? Value(run.request.model->spec.name) : Value();
  Value origin = Value::array();
  for (const Message& m : run.origin) origin.push_back(m.en);
  v["origin"] = origin;
  Value r = Value::object();
  r["spatial_merge_size"] = rules.spatial_merge_size;
  r["tokens_per_second"] = rules.tokens_per_second;
  r["second_per_grid"] = rules.second_per_grid;
  r["frame_text"] = rules.frame_text;
  r["bailing"] = rules.bailing;
  r["pangu"] = rules.pangu;
  r["xdrope"] = rules.xdrope;
  v["rules"] = r;
  Value tokens = Value::array();
  for (const XdropePosition& p : run.streams) {  // HunyuanVL (X1): p, w, h, t
    Value one = Value::object();
    one["segment"] = p.segment;
    one["kind"] = std::string(to_string(p.kind));
    for (int k = 0; k < 4; ++k) one[std::string(xdrope_letter(k))] = p.pwht[static_cast<std::size_t>(k)];
    tokens.push_back(one);
  }
  for (const TokenPosition& p : run.ids) {
    Value one = Value::object();
    one["segment"] = p.segment;
    one["kind"] = std::string(to_string(p.kind));
    one["t"] = p.thw[0];
    one["h"] = p.thw[1];
    one["w"] = p.thw[2];
    tokens.push_back(one);
  }
  v["tokens"] = tokens;
  v["prefill"] = run.prefill;
  v["rope_delta"] = rules.xdrope ? Value() : Value(run.delta);  // p is the index: no rope_deltas (X2)
  return v;
}

std::string positions_csv(const PositionsRun& run) {
  if (run.grid) {  // token,kind, then the model's axes, every digit a float64 needs
    std::string csv = "token,kind";
    for (const std::string& a : run.grid->axes) csv += "," + a;
    csv += "\n";
    for (std::size_t k = 0; k < run.grid->tokens.size(); ++k) {
      const GridToken& tok = run.grid->tokens[k];
      csv += fmt::format("{},{}", k, grid_kind(tok.kind));
      for (std::size_t a = 0; a < run.grid->axes.size(); ++a) csv += "," + exact(tok.p[a]);
      csv += "\n";
    }
    return csv;
  }
  if (run.rules.xdrope) {
    std::string csv = "token,segment,kind,p,w,h,t\n";
    for (std::size_t k = 0; k < run.streams.size(); ++k) {
      const XdropePosition& p = run.streams[k];
      csv += fmt::format("{},{},{},{},{},{},{}\n", k, p.segment, to_string(p.kind), p.pwht[0], p.pwht[1], p.pwht[2],
                         p.pwht[3]);
    }
    return csv;
  }
  std::string csv = "token,segment,kind,t,h,w\n";
  for (std::size_t k = 0; k < run.ids.size(); ++k) {
    const TokenPosition& p = run.ids[k];
    csv += fmt::format("{},{},{},{},{},{}\n", k, p.segment, to_string(p.kind), p.thw[0], p.thw[1], p.thw[2]);
  }
  return csv;
}

namespace {

/// HunyuanVL's four streams (X1), (X2): the rules, the sequence, the table, where the next token is.
void print_xdrope_positions(std::ostream& out, const PositionsRun& run, const Text& t) {
  const long merge = run.rules.spatial_merge_size;
  out << t.tr("XD-RoPE ids (p, w, h, t) as vLLM's get_xdrope_input_positions builds them (docs/multi-axis.md (X1))\n");
  out << t.tr("the rules of {0} (HunyuanVL):\n", run.request.model->spec.name);
  for (const Message& m : run.origin) out << "  " << m.in(t.lang()) << '\n';
  out << t.tr(
      "spatial merge size {0}; an image is its start token, an image token, H/{0} rows of W/{0} + 1 tokens\n"
      "(the last of each row its newline), an image token and its end token\n",
      merge);
  std::string list;
  for (const Segment& s : run.request.segments) {
    const std::string name = segment_name(s.kind).in(t.lang());
    list += list.empty() ? "" : ", ";
    if (s.kind == SegmentKind::Text) {
      list += fmt::format("{} {}", name, s.tokens);
    } else {
      const long tokens = xdrope_image_tokens(s.grid, merge);
      // TRANSLATORS: an image, its grid t×h×w and its tokens: "image 1x4x6 → 2×(3 + 1) + 4 = 12 tokens"; {7} is the
      // English word "token" or "tokens", empty under zh.
      list += t.tr("{0} {1}x{2}x{3} → {4}×({5} + 1) + 4 = {6} {7}", name, s.grid[0], s.grid[1], s.grid[2],
                   s.grid[1] / merge, s.grid[2] / merge, tokens, positions_tokens_word(tokens, t));
    }
  }
  out << t.tr("sequence: {0}; {1} {2}\n", list, run.prefill, positions_tokens_word(static_cast<long>(run.prefill), t));
  out << t.tr("an image's start and end tokens are counted in the image, not in {0}\n\n", option_name("text"));
  out << fmt::format("{:>7}  {:>7}  {:<6}  {:>8}  {:>8}  {:>8}  {:>8}\n", t.tr("token"), t.tr("segment"), t.tr("kind"),
                     "p", "w", "h", "t");
  for (std::size_t k = 0; k < run.streams.size() && k < kMaxPrintedPositions; ++k) {
    const XdropePosition& p = run.streams[k];
    out << fmt::format("{:>7}  {:>7}  {:<6}  {:>8}  {:>8}  {:>8}  {:>8}\n", k, p.segment,
                       segment_name(p.kind).in(t.lang()), p.pwht[0], p.pwht[1], p.pwht[2], p.pwht[3]);
  }
  if (run.streams.size() > kMaxPrintedPositions) {
    out << t.tr("… {0} more rows: write them all with {1} FILE\n", run.streams.size() - kMaxPrintedPositions,
                option_name("csv"));
  }
  out << (run.request.decode
              ? t.tr("\ndecode token i (i ≥ {0}) is at p = w = h = t = i: XD-RoPE is used in prefill only (X2),\n"
                     "a decode step turns every pair with p alone\n",
                     run.prefill)
              : t.tr("\nthe next token would be at p = {0}: p is the token's index, no rope_deltas (X2)\n",
                     run.prefill));
}

}  // namespace

void print_positions(std::ostream& out, const PositionsRun& run, const Text& t) {
  if (run.grid) {
    const GridPositions& g = *run.grid;
    out << (g.audio ? t.tr("positions of {0}'s audio tokens as its pipeline builds them (docs/multi-axis.md §8, "
                           "(G7)): {1} in all, one axis t\n",
                           run.request.model->spec.model_type, g.tokens.size())
                    : t.tr("positions of a {0} latent as its pipeline builds them (docs/multi-axis.md §8): {1} × {2} "
                           "× {3} tokens (t, h, w), {4} in all\n",
                           run.request.model->spec.model_type, g.grid[0], g.grid[1], g.grid[2], g.tokens.size()));
    for (const Message& m : run.origin) out << "  " << m.in(t.lang()) << "\n";
    for (const Message& m : g.notes) out << "  " << m.in(t.lang()) << "\n";
    out << fmt::format("  {:>7}  {:<9}", t.tr("token"), t.tr("kind"));
    for (const std::string& a : g.axes) out << fmt::format("  {:>12}", a);
    out << "\n";
    for (std::size_t k = 0; k < g.tokens.size() && k < kMaxPrintedPositions; ++k) {
      out << fmt::format("  {:>7}  {:<9}", k, grid_kind(g.tokens[k].kind));
      for (std::size_t a = 0; a < g.axes.size(); ++a) out << fmt::format("  {:>12.6g}", g.tokens[k].p[a]);
      out << "\n";
    }
    if (g.tokens.size() > kMaxPrintedPositions && !run.request.csv) {
      out << t.tr("  … {0} more rows: {1} FILE writes every one\n", g.tokens.size() - kMaxPrintedPositions,
                  option_name("positions_csv"));
    }
    return;
  }
  if (run.rules.xdrope) {
    print_xdrope_positions(out, run, t);
    return;
  }
  const PositionRules& rules = run.rules;
  const std::optional<ModelRope>& model = run.request.model;
  out << (rules.bailing ? t.tr("M-RoPE position ids (t, h, w) as sglang's Bailing (Ling/Ming) rule builds them "
                               "(docs/multi-axis.md (B1))\n")
          : rules.pangu ? t.tr("M-RoPE position ids (t, h, w) as vLLM's openPangu-VL code builds them "
                               "(docs/multi-axis.md (P1))\n")
                        : t.tr("M-RoPE position ids (t, h, w) as HF's get_rope_index builds them (docs/multi-axis.md "
                               "(Q1)-(Q4))\n"));
  if (model) {
    out << (rules.bailing ? t.tr("the rules of {0} (sglang's Bailing position ids):\n", model->spec.name)
            : rules.pangu ? t.tr("the rules of {0} (vLLM's openPangu-VL position ids):\n", model->spec.name)
                          : t.tr("the rules of {0} ({1} get_rope_index):\n", model->spec.name,
                                 sequence_positions_of(*model).family));
    for (const Message& m : run.origin) out << "  " << m.in(t.lang()) << '\n';
  }
  out << t.tr(
      "spatial merge size {0}{1}; time index {2}\n", rules.spatial_merge_size,
      !model && !rules.bailing && rules.spatial_merge_size == 2
          ? t.tr(" (the value of every Qwen2-VL, Qwen2.5-VL and Qwen3-VL config)")
          : "",
      rules.bailing ? (rules.frame_text ? t.tr("2 · frame index from the block's start, height and width centred on "
                                               "the grid plus the time id, each video frame a block after {0} text "
                                               "tokens (Bailing, (B1))",
                                               *rules.frame_text)
                                        : t.tr("2 · frame index from the block's start, height and width centred on "
                                               "the grid plus the time id (Bailing, (B1))"))
      : rules.pangu ? t.tr("⌊t · {0}⌋ for images, video frames split (openPangu-VL, (P1))",
                           format_number(rules.tokens_per_second.value_or(1.0)))
      : rules.tokens_per_second ? t.tr("⌊t · {0} s · {1} tokens/s⌋ for video, 0 for images (Qwen2.5-VL, (Q3))",
                                       format_number(rules.second_per_grid), format_number(*rules.tokens_per_second))
      : rules.frame_text ? t.tr("= its block's start, each video frame a block after {0} text tokens (Qwen3-VL, (Q3'))",
                                *rules.frame_text)
                         : t.tr("= frame index (Qwen2-VL)"));
  std::string list;
  for (const Segment& s : run.request.segments) {
    list += (list.empty() ? "" : ", ") + positions_segment_text(s, rules.spatial_merge_size, t);
  }
  out << t.tr("sequence: {0}; {1} {2}\n", list, run.prefill, positions_tokens_word(static_cast<long>(run.prefill), t));
  out << t.tr("text tokens include the vision start and end tokens around an image: count them in {0}\n\n",
              option_name("text"));
  out << fmt::format("{:>7}  {:>7}  {:<6}  {:>8}  {:>8}  {:>8}\n", t.tr("token"), t.tr("segment"), t.tr("kind"), "t",
                     "h", "w");
  for (std::size_t k = 0; k < run.ids.size() && k < kMaxPrintedPositions; ++k) {
    const TokenPosition& p = run.ids[k];
    out << fmt::format("{:>7}  {:>7}  {:<6}  {:>8}  {:>8}  {:>8}\n", k, p.segment, segment_name(p.kind).in(t.lang()),
                       p.thw[0], p.thw[1], p.thw[2]);
  }
  if (run.ids.size() > kMaxPrintedPositions) {
    out << t.tr("… {0} more rows: write them all with {1} FILE\n", run.ids.size() - kMaxPrintedPositions,
                option_name("csv"));
  }
  const long delta = run.delta;
  const std::size_t prefill = run.prefill;
  if (!run.request.decode) {
    const long next = delta + static_cast<long>(prefill);
    out << (rules.bailing ? t.tr("\nthe next token would start at {0} (the largest time id + 1, (B1))\n", next)
                          : t.tr("\nthe next token would start at {0} (the largest id + 1, (Q4))\n", next));
    return;
  }
  out << (rules.bailing
              ? t.tr("\nrope_deltas = {0}: the largest time id + 1 − the prefill's {1} tokens (B1)\n", delta, prefill)
              : t.tr("\nrope_deltas = {0}: the largest id + 1 − the prefill's {1} tokens (Q5)\n", delta, prefill));
  const std::string term = delta < 0 ? fmt::format("− {}", -delta) : fmt::format("+ {}", delta);
  out << t.tr("decode token i (i ≥ {0}) is at t = h = w = i {1}: check it with {2} and {3} {4}\n", prefill, term,
              option_name("positions"), option_name("rope_delta"), delta);
}

plot::Figure positions_figure(const PositionsRun& run, const Text& t) {
  if (run.rules.xdrope) {  // the four streams against the token index
    plot::Figure fig;
    fig.title = t.tr("XD-RoPE position ids per token (vLLM get_xdrope_input_positions)");
    fig.xlabel = t.tr("token index in the sequence");
    fig.ylabel = t.tr("position id");
    const auto n = static_cast<Eigen::Index>(run.streams.size());
    Eigen::VectorXd x(n);
    for (Eigen::Index k = 0; k < n; ++k) x[k] = static_cast<double>(k);
    const double point_size[] = {2.4, 1.8, 1.2, 0.6};  // p largest: equal ids show as rings
    for (int a = 0; a < 4; ++a) {
      plot::Series s;
      s.label = std::string(xdrope_letter(a));
      s.x = x;
      s.y.resize(n);
      for (Eigen::Index k = 0; k < n; ++k)
        s.y[k] = static_cast<double>(run.streams[static_cast<std::size_t>(k)].pwht[static_cast<std::size_t>(a)]);
      s.color = a;
      s.points = true;
      s.line_width = 2.5 * point_size[a];
      fig.series.push_back(s);
    }
    fig.key = plot::Figure::Key::TopLeft;
    return fig;
  }
  const std::vector<TokenPosition>& ids = run.ids;
  plot::Figure fig;
  fig.title = t.tr("M-RoPE position ids per token (HF get_rope_index)");
  fig.xlabel = t.tr("token index in the sequence");
  fig.ylabel = t.tr("position id");
  const auto n = static_cast<Eigen::Index>(ids.size());
  Eigen::VectorXd x(n);
  for (Eigen::Index k = 0; k < n; ++k) x[k] = static_cast<double>(k);
  for (int a = 0; a < 3; ++a) {
    plot::Series s;
    s.label = axis_label(a, t.lang());
    s.x = x;
    s.y.resize(n);
    for (Eigen::Index k = 0; k < n; ++k)
      s.y[k] = static_cast<double>(ids[static_cast<std::size_t>(k)].thw[static_cast<std::size_t>(a)]);
    s.color = a;
    s.points = true;
    // Text tokens have t = h = w and an image's first row shares t and h: same-sized dots would hide the
    // axes drawn first. t largest, w smallest, drawn in that order, so equal ids show as rings.
    const double point_size[] = {2.4, 1.6, 0.8};  // the plot draws points at line_width / 2.5
    s.line_width = 2.5 * point_size[a];
    fig.series.push_back(s);
  }
  fig.key = plot::Figure::Key::TopLeft;
  return fig;
}

}  // namespace rope
