// rope positions: the M-RoPE position ids (t, h, w) of a text + image + video sequence as HF's
// get_rope_index builds them, docs/multi-axis.md (Q1)-(Q4); with --cp-size, the positions one rank of a
// context-parallel run holds (analysis/dumps/cp_positions.hpp, on the report layer: report/cp_positions_report.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/report/cp_positions_report.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/tensor_file.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/mrope_positions.hpp"
#include "rope/models/resolve.hpp"

namespace rope::cli {

/// The table prints at most this many rows (the CSV and the figure have them all).
inline constexpr std::size_t kMaxPrintedPositions = 2000;

struct PositionsOptions {
  std::vector<std::string> text, image, video;  ///< as typed; their order comes from CLI11's parse order
  std::string model, config;                    ///< a Qwen-VL model whose vision_config gives the rules
  long merge_size = 2;
  std::optional<double> tokens_per_second;
  std::optional<double> second_per_grid;
  std::optional<long> frame_text;  ///< Qwen3-VL: text tokens before each frame of a video (Q3')
  std::optional<long> decode;      ///< decode steps listed after the prefill (Q5)
  bool bailing = false;            ///< Bailing's rule (B1) without a model
  std::string csv;
  FigureOptions figure;
  // Context parallelism (--cp-size): the rank's positions of a packed batch.
  std::string sequence_starts, cp_layout = "zigzag", npy;
  long cp_size = 1, cp_rank = 0;
  bool json = false;
  CLI::Option* cp_size_option = nullptr;
  CLI::App* app = nullptr;
  CLI::Option* text_option = nullptr;
  CLI::Option* image_option = nullptr;
  CLI::Option* video_option = nullptr;
  CLI::Option* merge_option = nullptr;
};

namespace {

/// The segments in the order they were typed: CLI11 keeps every occurrence of --text, --image and
/// --video in parse order.
std::vector<Segment> segments_of(const PositionsOptions& opt) {
  std::vector<Segment> out;
  std::size_t next_text = 0, next_image = 0, next_video = 0;
  for (const CLI::Option* o : opt.app->parse_order()) {
    Segment s;
    if (o == opt.text_option) {
      s.kind = SegmentKind::Text;
      s.tokens = parse_integer(opt.text.at(next_text++), "--text");
      if (s.tokens < 1 || s.tokens > kMaxSequenceTokens) {
        throw InvalidArgument(
            error_msg("--text must be between 1 and {0} tokens (got {1})", kMaxSequenceTokens, s.tokens));
      }
    } else if (o == opt.image_option) {
      s.kind = SegmentKind::Image;
      s.grid = parse_grid(opt.image.at(next_image++), "--image");
    } else if (o == opt.video_option) {
      s.kind = SegmentKind::Video;
      s.grid = parse_grid(opt.video.at(next_video++), "--video");
    } else {
      continue;
    }
    out.push_back(s);
  }
  return out;
}

/// "token" or "tokens" after a count in English; the Chinese sentence names the tokens itself (a measure word).
const char* tokens_word(long n, const Text& t) { return (t.lang() == Lang::Zh) ? "" : n == 1 ? "token" : "tokens"; }

std::string segment_text(const Segment& s, long merge, const Text& t) {
  const std::string name = segment_name(s.kind).in(t.lang());
  if (s.kind == SegmentKind::Text) return fmt::format("{} {}", name, s.tokens);
  const long merged = s.grid[0] * (s.grid[1] / merge) * (s.grid[2] / merge);
  // TRANSLATORS: a segment, its grid t×h×w and the merged grid in tokens: "image 1x28x28 → 1×14×14 tokens"; {7}
  // is the English word "token" or "tokens", empty under zh.
  return t.tr("{0} {1}x{2}x{3} → {4}×{5}×{6} {7}", name, s.grid[0], s.grid[1], s.grid[2], s.grid[0], s.grid[1] / merge,
              s.grid[2] / merge, tokens_word(merged, t));
}

void draw_positions(const std::vector<TokenPosition>& ids, const PositionsOptions& opt) {
  const FigureOptions& f = opt.figure;
  plot::Figure fig;
  fig.title = f.tr("M-RoPE position ids per token (HF get_rope_index)");
  fig.xlabel = f.tr("token index in the sequence");
  fig.ylabel = f.tr("position id");
  const auto n = static_cast<Eigen::Index>(ids.size());
  Eigen::VectorXd x(n);
  for (Eigen::Index k = 0; k < n; ++k) x[k] = static_cast<double>(k);
  for (int a = 0; a < 3; ++a) {
    plot::Series s;
    s.label = rope::axis_label(a, f.lang);
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
  draw(fig, f);
}

/// The rules of --model/--config (their vision_config) with what the command line types over them, and
/// where each came from; without a model, the command line's.
struct Rules {
  PositionRules rules;
  std::optional<ModelRope> model;  ///< resolved as every command resolves a model (models/resolve.hpp)
  std::vector<Message> origin;
};

Rules rules_of(const PositionsOptions& opt, const std::vector<Segment>& segments) {
  Rules r;
  // The one resolution (resolve.hpp; --config or --model, not both, is its rule), and the rules between the
  // model and the options (--tokens-per-second, --video: resolve.hpp sequence_positions_for).
  if (!opt.model.empty() || !opt.config.empty()) {
    r.model = resolve_model_rope({opt.model, opt.config}, RopeOverrides());
    const bool has_video = std::any_of(segments.begin(), segments.end(),
                                       [](const Segment& seg) { return seg.kind == SegmentKind::Video; });
    const SequencePositions s =
        sequence_positions_for(*r.model, has_video, opt.tokens_per_second.has_value(), opt.frame_text.has_value());
    r.rules = s.rules;
    r.origin = s.origin;
    // A typed value replaces the config's line, saying so.
    if (opt.merge_option->count() > 0 && opt.merge_size != r.rules.spatial_merge_size) {
      r.origin[0] = msg("spatial_merge_size: {0} (--merge-size on the command line, over the config's {1})",
                        opt.merge_size, r.rules.spatial_merge_size);
    }
    if (opt.tokens_per_second && *opt.tokens_per_second != *r.rules.tokens_per_second) {
      const std::string typed = format_number(*opt.tokens_per_second), own = format_number(*r.rules.tokens_per_second);
      r.origin[1] =
          msg("tokens_per_second: {0} (--tokens-per-second on the command line, over the config's {1})", typed, own);
    }
  }
  if (!r.model || opt.merge_option->count() > 0) r.rules.spatial_merge_size = opt.merge_size;
  if (opt.tokens_per_second) r.rules.tokens_per_second = opt.tokens_per_second;
  if (opt.second_per_grid && !r.rules.tokens_per_second) {
    throw InvalidArgument(
        error_msg("--second-per-grid scales video time (Qwen2.5-VL): give it with --tokens-per-second"));
  }
  r.rules.second_per_grid = opt.second_per_grid.value_or(1.0);
  r.rules.frame_text = opt.frame_text;
  if (opt.bailing) r.rules.bailing = true;
  return r;
}

/// The request of --cp-size, --cp-rank, --cp-layout and --sequence-starts.
CpPositionsRequest cp_request(const PositionsOptions& opt) {
  CpPositionsRequest r;
  if (opt.sequence_starts.empty()) throw InvalidArgument(error_msg("--cp-size needs --sequence-starts"));
  for (const double v : parse_list_argument(opt.sequence_starts, "--sequence-starts")) {
    if (!(v >= 0 && v <= static_cast<double>(kMaxCpTokens) && v == std::floor(v))) {
      throw InvalidArgument(error_msg("--sequence-starts: {0} is not a token index in [0, {1}]", v, kMaxCpTokens));
    }
    r.sequence_starts.push_back(static_cast<long>(v));
  }
  const auto layout = parse_cp_layout(opt.cp_layout);
  if (!layout) {
    throw InvalidArgument(error_msg("--cp-layout must be zigzag, round-robin or contiguous (got '{0}')",
                                    escape_for_message(opt.cp_layout)));
  }
  r.layout = *layout;
  r.cp_size = opt.cp_size;
  r.cp_rank = opt.cp_rank;
  return r;
}

int run_cp_positions(const PositionsOptions& opt, std::ostream& out) {
  const CpPositions run = cp_positions(cp_request(opt));
  if (!opt.npy.empty()) write_output(opt.npy, cp_positions_npy(run), out);
  if (opt.npy != "-") emit_report(out, run, {opt.json, opt.figure.lang});
  return kOk;
}

}  // namespace

int run_positions(const PositionsOptions& opt, std::ostream& out) {
  if (opt.cp_size_option->count() > 0) return run_cp_positions(opt, out);
  check_figure_options(opt.figure);
  const std::vector<Segment> segments = segments_of(opt);
  const Rules given = rules_of(opt, segments);
  const PositionRules& rules = given.rules;
  std::vector<TokenPosition> ids;
  try {
    ids = rope_index(segments, rules);
  } catch (const InvalidQuantity& e) {
    // A config's values are checked when it is read, so a rule out of range here is one typed on the command line.
    rethrow_naming_option(e, {{"the spatial merge size", "--merge-size"},
                              {"tokens per second", "--tokens-per-second"},
                              {"seconds per grid", "--second-per-grid"}});
  }
  const std::size_t prefill = ids.size();
  if (opt.decode) {  // (Q5): the decode steps after the prefill, at index + rope_deltas
    const std::vector<TokenPosition> decoded = decode_positions(ids, *opt.decode, rules);
    ids.insert(ids.end(), decoded.begin(), decoded.end());
  }
  if (!opt.csv.empty()) {
    std::string csv = "token,segment,kind,t,h,w\n";
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const TokenPosition& p = ids[k];
      csv += fmt::format("{},{},{},{},{},{}\n", k, p.segment, to_string(p.kind), p.thw[0], p.thw[1], p.thw[2]);
    }
    write_output(opt.csv, csv, out);
  }
  if (opt.figure.wanted()) draw_positions(ids, opt);
  if (opt.csv == "-") return kOk;

  const Text t = opt.figure.tr();
  out << (rules.bailing ? t.tr("M-RoPE position ids (t, h, w) as sglang's Bailing (Ling/Ming) rule builds them "
                               "(docs/multi-axis.md (B1))\n")
                        : t.tr("M-RoPE position ids (t, h, w) as HF's get_rope_index builds them (docs/multi-axis.md "
                               "(Q1)-(Q4))\n"));
  if (given.model) {
    out << (rules.bailing ? t.tr("the rules of {0} (sglang's Bailing position ids):\n", given.model->spec.name)
                          : t.tr("the rules of {0} ({1} get_rope_index):\n", given.model->spec.name,
                                 sequence_positions_of(*given.model).family));
    for (const Message& m : given.origin) out << "  " << m.in(t.lang()) << '\n';
  }
  out << t.tr(
      "spatial merge size {0}{1}; time index {2}\n", rules.spatial_merge_size,
      !given.model && !rules.bailing && rules.spatial_merge_size == 2
          ? t.tr(" (the value of every Qwen2-VL, Qwen2.5-VL and Qwen3-VL config)")
          : "",
      rules.bailing ? (rules.frame_text ? t.tr("2 · frame index from the block's start, height and width centred on "
                                               "the grid plus the time id, each video frame a block after {0} text "
                                               "tokens (Bailing, (B1))",
                                               *rules.frame_text)
                                        : t.tr("2 · frame index from the block's start, height and width centred on "
                                               "the grid plus the time id (Bailing, (B1))"))
      : rules.tokens_per_second ? t.tr("⌊t · {0} s · {1} tokens/s⌋ for video, 0 for images (Qwen2.5-VL, (Q3))",
                                       format_number(rules.second_per_grid), format_number(*rules.tokens_per_second))
      : rules.frame_text ? t.tr("= its block's start, each video frame a block after {0} text tokens (Qwen3-VL, (Q3'))",
                                *rules.frame_text)
                         : t.tr("= frame index (Qwen2-VL)"));
  std::string list;
  for (const Segment& s : segments) list += (list.empty() ? "" : ", ") + segment_text(s, rules.spatial_merge_size, t);
  out << t.tr("sequence: {0}; {1} {2}\n", list, prefill, tokens_word(static_cast<long>(prefill), t));
  out << t.tr("text tokens include the vision start and end tokens around an image: count them in --text\n\n");
  out << fmt::format("{:>7}  {:>7}  {:<6}  {:>8}  {:>8}  {:>8}\n", t.tr("token"), t.tr("segment"), t.tr("kind"), "t",
                     "h", "w");
  for (std::size_t k = 0; k < ids.size() && k < kMaxPrintedPositions; ++k) {
    const TokenPosition& p = ids[k];
    out << fmt::format("{:>7}  {:>7}  {:<6}  {:>8}  {:>8}  {:>8}\n", k, p.segment, segment_name(p.kind).in(t.lang()),
                       p.thw[0], p.thw[1], p.thw[2]);
  }
  if (ids.size() > kMaxPrintedPositions) {
    out << t.tr("… {0} more rows: write them all with --csv FILE\n", ids.size() - kMaxPrintedPositions);
  }
  const long delta = rope_delta({ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(prefill)}, rules);
  if (!opt.decode) {
    const long next = delta + static_cast<long>(prefill);
    out << (rules.bailing ? t.tr("\nthe next token would start at {0} (the largest time id + 1, (B1))\n", next)
                          : t.tr("\nthe next token would start at {0} (the largest id + 1, (Q4))\n", next));
    return kOk;
  }
  out << (rules.bailing
              ? t.tr("\nrope_deltas = {0}: the largest time id + 1 − the prefill's {1} tokens (B1)\n", delta, prefill)
              : t.tr("\nrope_deltas = {0}: the largest id + 1 − the prefill's {1} tokens (Q5)\n", delta, prefill));
  const std::string term = delta < 0 ? fmt::format("− {}", -delta) : fmt::format("+ {}", delta);
  out << t.tr("decode token i (i ≥ {0}) is at t = h = w = i {1}: check it with --positions and --rope-delta {2}\n",
              prefill, term, delta);
  return kOk;
}

Command add_positions_command(CLI::App& app) {
  auto opt = std::make_shared<PositionsOptions>();
  CLI::App* sub = app.add_subcommand(
      "positions",
      "M-RoPE position ids (t, h, w) of a text + image + video sequence, or one context-parallel rank's positions");
  opt->app = sub;
  opt->text_option = sub->add_option("--text", opt->text, "N text tokens (repeatable; segments keep their order)")
                         ->type_name("INT")
                         ->expected(1)
                         ->allow_extra_args(false)
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  opt->image_option =
      sub->add_option("--image", opt->image, "an image of grid_thw TxHxW patches, e.g. 1x4x6 (repeatable)")
          ->type_name("TxHxW")
          ->expected(1)
          ->allow_extra_args(false)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  opt->video_option = sub->add_option("--video", opt->video, "a video of grid_thw TxHxW patches (repeatable)")
                          ->type_name("TxHxW")
                          ->expected(1)
                          ->allow_extra_args(false)
                          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--model", opt->model, "the rules of a Qwen-VL preset's vision_config (rope inspect --list)")
      ->type_name("NAME");
  sub->add_option("--config", opt->config, "the rules of a Qwen-VL config.json's vision_config")->type_name("FILE");
  opt->merge_option = add_long_option(*sub, "--merge-size", opt->merge_size,
                                      "spatial_merge_size: patches merged per side into one token (over the model's)");
  add_real_option(
      *sub, "--tokens-per-second", opt->tokens_per_second, 0.0,
      "Qwen2.5-VL time scaling: vision_config.tokens_per_second (without it and a model: time index = frame index)")
      ->default_str("");
  add_real_option(*sub, "--second-per-grid", opt->second_per_grid, 1.0,
                  "Qwen2.5-VL: seconds per temporal grid step of a video (temporal_patch_size / fps)");
  add_long_option(*sub, "--frame-text", opt->frame_text, 0,
                  "Qwen3-VL: text tokens before each frame of a video (its timestamp and vision start/end tokens); "
                  "each frame becomes its own 1xHxW block")
      ->default_str("");
  sub->add_flag("--bailing", opt->bailing,
                "Bailing (Ling/Ming VL) ids: time 2 per frame, height and width centred on the grid and added to the "
                "time id (sglang bailing_mrope.py)")
      ->excludes("--model")
      ->excludes("--config");
  add_long_option(*sub, "--decode", opt->decode, 0,
                  "list N decode tokens after the prefill, each at index + rope_deltas on t, h and w");
  sub->add_option("--csv", opt->csv, "write token,segment,kind,t,h,w to FILE ('-' for stdout)")->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  opt->cp_size_option =
      add_long_option(*sub, "--cp-size", opt->cp_size,
                      "context parallelism: the ranks a packed batch is split over; prints one rank's positions");
  opt->cp_size_option->excludes("--text")->excludes("--image")->excludes("--video")->excludes("--csv");
  add_long_option(*sub, "--cp-rank", opt->cp_rank, "context parallelism: the rank (0 … cp-size − 1)")
      ->needs(opt->cp_size_option);
  sub->add_option("--cp-layout", opt->cp_layout,
                  "context parallelism: zigzag (Megatron-LM, TransformerEngine), round-robin (SGLang) or contiguous")
      ->type_name("LAYOUT")
      ->needs(opt->cp_size_option);
  sub->add_option("--sequence-starts", opt->sequence_starts,
                  "context parallelism: the packed batch's sequence starts and its total (cu_seqlens), e.g. 0,8,20")
      ->type_name("STARTS")
      ->needs(opt->cp_size_option);
  sub->add_option("--npy", opt->npy, "context parallelism: write the rank's positions to FILE (int64 .npy)")
      ->type_name("FILE")
      ->needs(opt->cp_size_option);
  sub->add_flag(
         "--json", opt->json,
         "context parallelism: print JSON: the split, the rank's positions (a flat list) and its sequence starts")
      ->needs(opt->cp_size_option);
  sub->footer(
      "Example:\n  rope positions --text 5 --image 1x4x6 --text 3\n  rope positions --text 2 --video 4x2x4 --text 2 --tokens-per-second 2 --second-per-grid 0.5\n  rope positions --text 5 --image 1x8x8 --text 3 --png positions.png\n  rope positions --model qwen2.5-vl-7b --text 2 --video 4x2x4 --text 2\n  rope positions --text 4 --image 1x8x8 --text 4 --decode 3\n  rope positions --model qwen3-vl-8b --text 2 --video 3x4x4 --frame-text 4 --text 2 --decode 1\n  rope positions --bailing --text 3 --image 1x4x6 --text 2\n  rope positions --sequence-starts 0,8,20 --cp-size 2 --cp-rank 0 --cp-layout zigzag");
  return {sub, [opt](std::ostream& out) { return run_positions(*opt, out); }};
}

}  // namespace rope::cli
