// rope positions: the M-RoPE position ids (t, h, w) of a text + image + video sequence as HF's
// get_rope_index builds them, docs/multi-axis.md (Q1)-(Q4), openPangu-VL's (P1) and HunyuanVL's four XD-RoPE
// streams (X1)-(X2) as vLLM's model files build them (analysis/teaching/positions_run.hpp, its report
// report/positions_report.hpp); with --cp-size, the positions one rank of a
// context-parallel run holds (analysis/dumps/cp_positions.hpp, on the report layer: report/cp_positions_report.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/analysis/teaching/positions_run.hpp"
#include "rope/core/utf8.hpp"
#include "rope/report/cp_positions_report.hpp"
#include "rope/report/positions_report.hpp"
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
#include "rope/models/axes.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/mrope_positions.hpp"
#include "rope/models/resolve.hpp"

namespace rope::cli {

struct PositionsOptions {
  std::vector<std::string> text, image, video;  ///< as typed; their order comes from CLI11's parse order
  std::string model, config;                    ///< a vision-language model whose config gives the rules
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
  // A diffusers transformer's latent (--latent-shape, grid_rope.hpp).
  std::string latent_shape;
  long reference_images = 0;
  std::optional<double> fps;
  std::string scale_factor;                   ///< Kandinsky 5: T,H,W
  std::optional<long> audio_frames;           ///< LTX-2: the audio latent's frames (its audio tokens' positions)
  std::vector<std::string> condition_images;  ///< Z-Image omni: each condition image's latent FxHxW
  std::vector<std::string> siglip_grids;      ///< Z-Image omni: each condition image's SigLIP grid RxC
  bool omni = false;                          ///< Z-Image's omni mode (with no condition image: its text-to-image)
  CLI::Option* cp_size_option = nullptr;
  CLI::App* app = nullptr;
  CLI::Option* text_option = nullptr;
  CLI::Option* image_option = nullptr;
  CLI::Option* video_option = nullptr;
  CLI::Option* merge_option = nullptr;
};

namespace {

/// A SigLIP grid "RxC" as typed (its sides' limits are the library's).
std::array<long, 2> parse_siglip_grid(const std::string& text) {
  const std::size_t x = text.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == text.size() || text.find('x', x + 1) != std::string::npos) {
    throw InvalidArgument(error_msg("{0} must be a grid RxC of two whole numbers, e.g. 3x4 (got '{1}')",
                                    "--siglip-grid", escape_controls(text, kQuotedBytes)));
  }
  return {parse_integer(text.substr(0, x), "--siglip-grid"), parse_integer(text.substr(x + 1), "--siglip-grid")};
}

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

/// The request of the options: the segments in their order, the model resolved once (models/resolve.hpp;
/// --config or --model, not both, is its rule), what the command line types over its rules.
PositionsRequest positions_request(const PositionsOptions& opt) {
  PositionsRequest r;
  if (!opt.latent_shape.empty() || opt.audio_frames) {
    const char* option = opt.audio_frames ? "--audio-frames" : "--latent-shape";
    if (opt.figure.wanted() || opt.figure.animated()) {  // a grid's positions have no figure: refused, not dropped
      throw InvalidArgument(
          error_msg("{0} prints a diffusers transformer's positions (text, {1}, {2}): it draws no "
                    "figure, leave out the figure's options",
                    option, "--json", "--csv"));
    }
    GridRequest g;
    if (opt.audio_frames) {
      if (*opt.audio_frames < 1 || *opt.audio_frames > kMaxGridTokens) {
        throw InvalidArgument(error_msg("{0} must be between 1 and {1} audio latent frames (got {2})", "--audio-frames",
                                        kMaxGridTokens, *opt.audio_frames));
      }
      g.audio = true;
      g.latent = {*opt.audio_frames, 1, 1};
    } else {
      g.latent = parse_grid(opt.latent_shape, "--latent-shape");
    }
    for (const std::string& n : opt.text) {  // the text tokens the model places in the same sequence
      const long tokens = parse_integer(n, "--text");
      if (tokens < 1 || tokens > kMaxGridTokens) {
        throw InvalidArgument(error_msg("--text must be between 1 and {0} tokens (got {1})", kMaxGridTokens, tokens));
      }
      g.text += tokens;
      g.captions.push_back(tokens);
    }
    for (const std::string& c : opt.condition_images) g.condition_images.push_back(parse_grid(c, "--condition-image"));
    for (const std::string& s : opt.siglip_grids) g.siglip.push_back(parse_siglip_grid(s));
    g.omni = opt.omni;
    g.reference_images = opt.reference_images;
    g.fps = opt.fps;
    if (!opt.scale_factor.empty()) {
      const std::vector<double> v = parse_list_argument(opt.scale_factor, "--scale-factor");
      if (v.size() != 3) {
        throw InvalidArgument(error_msg("{0} takes three factors T,H,W (got {1})", "--scale-factor", v.size()));
      }
      g.scale_factor = std::array<double, 3>{v[0], v[1], v[2]};
    }
    r.latent = g;
    RopeOverrides stream;
    if (opt.audio_frames) stream.tower = Tower::Audio;  // LTX-2's audio stream (grid_rope.hpp (G7))
    if (!opt.model.empty() || !opt.config.empty()) r.model = resolve_model_rope({opt.model, opt.config}, stream);
    r.csv = !opt.csv.empty();
    return r;
  }
  r.segments = segments_of(opt);
  RopeOverrides rules_only;
  rules_only.fope = FopeUse::Theta;  // the model's position rules alone: FoPE's positions are one per token
  if (!opt.model.empty() || !opt.config.empty()) r.model = resolve_model_rope({opt.model, opt.config}, rules_only);
  if (opt.merge_option->count() > 0) r.merge_size = opt.merge_size;
  r.tokens_per_second = opt.tokens_per_second;
  r.second_per_grid = opt.second_per_grid;
  r.frame_text = opt.frame_text;
  r.decode = opt.decode;
  r.bailing = opt.bailing;
  r.csv = !opt.csv.empty();
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
                                    escape_controls(opt.cp_layout, kQuotedBytes)));
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
  const PositionsRun run = rope::run_positions(positions_request(opt));
  const Text t = opt.figure.tr();
  emit_report(out, run, {opt.json, t.lang(), std::nullopt, opt.csv}, [&] {
    if (opt.figure.wanted() && !run.grid) draw(positions_figure(run, t), opt.figure);
  });
  return kOk;
}

Command add_positions_command(CLI::App& app) {
  auto opt = std::make_shared<PositionsOptions>();
  CLI::App* sub = app.add_subcommand(
      "positions",
      "The position ids of a text + image + video sequence (M-RoPE's t, h, w; HunyuanVL's p, w, h, t), "
      "or one context-parallel rank's positions");
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
  sub->add_option("--model", opt->model, "the position rules of a vision-language preset (rope inspect --list)")
      ->type_name("NAME");
  sub->add_option(
         "--config", opt->config,
         "the position rules of a vision-language config.json or model folder (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, openPangu-VL, HunyuanVL)")
      ->type_name("FILE");
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
  auto* latent =
      sub->add_option("--latent-shape", opt->latent_shape,
                      "a diffusers transformer's latent FxHxW (frames 1 for an image): every token's position as its "
                      "pipeline builds them (with --model or --config of the transformer)")
          ->type_name("FxHxW");
  latent->excludes("--image")->excludes("--video");
  add_long_option(*sub, "--audio-frames", opt->audio_frames, 0,
                  "LTX-2: the audio latent's frames N: every audio token's position (one axis t, seconds) as the "
                  "pipeline builds them (with --model or --config of the transformer)")
      ->default_str("")
      ->excludes(latent)
      ->excludes("--image")
      ->excludes("--video");
  add_long_option(*sub, "--reference-images", opt->reference_images,
                  "Flux.2: reference images of the latent's size after it (t = 10, 20, …)")
      ->needs(latent);
  sub->add_option("--condition-image", opt->condition_images,
                  "Z-Image omni: a condition image's latent FxHxW, before the target (repeatable, in the pipeline's "
                  "order); N of them take N + 2 --text segments, the prompt's split around the images")
      ->type_name("FxHxW")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->needs(latent);
  sub->add_option("--siglip-grid", opt->siglip_grids,
                  "Z-Image omni: a condition image's SigLIP grid RxC (repeatable, one per --condition-image; its "
                  "tokens after the images)")
      ->type_name("RxC")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->needs("--condition-image");
  sub->add_flag("--omni", opt->omni,
                "Z-Image: the omni pipeline's sequence [captions, images, SigLIP] (implied by --condition-image; "
                "without one, one --text segment and the image after it)")
      ->needs(latent);
  add_real_option(*sub, "--fps", opt->fps, 0.0,
                  "LTX-Video, Cosmos, Cosmos 3: the frame rate the transformer is given (LTX: 25 without it; "
                  "Cosmos: the temporal positions × 24 / fps; Cosmos 3: the latent's frames × base_fps / fps)")
      ->default_str("")
      ->needs(latent);
  sub->add_option("--scale-factor", opt->scale_factor,
                  "Kandinsky 5: the pipeline's scale_factor T,H,W each axis's angle is divided by (without it: "
                  "1,2,2 for a video whose frame is 480 to 854 pixels on both sides, else 1,3.16,3.16; 1,1,1 for an "
                  "image)")
      ->type_name("T,H,W")
      ->needs(latent);
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
  sub->add_flag("--json", opt->json,
                "print JSON: with --latent-shape, axes (their names) and positions (one list per token); with "
                "--cp-size, the split, the rank's positions (a flat list) and its sequence starts");
  sub->footer(
      "Example:\n  rope positions --text 5 --image 1x4x6 --text 3\n  rope positions --text 2 --video 4x2x4 --text 2 --tokens-per-second 2 --second-per-grid 0.5\n  rope positions --text 5 --image 1x8x8 --text 3 --png positions.png\n  rope positions --model qwen2.5-vl-7b --text 2 --video 4x2x4 --text 2\n  rope positions --text 4 --image 1x8x8 --text 4 --decode 3\n  rope positions --model qwen3-vl-8b --text 2 --video 3x4x4 --frame-text 4 --text 2 --decode 1\n  rope positions --bailing --text 3 --image 1x4x6 --text 2\n  rope positions --sequence-starts 0,8,20 --cp-size 2 --cp-rank 0 --cp-layout zigzag\n  rope positions --model wan2.1-t2v-1.3b --latent-shape 3x4x6 --csv -\n  rope positions --model flux.2-dev --latent-shape 1x4x4 --text 3 --reference-images 1\n  rope positions --model z-image-turbo --latent-shape 1x4x4 --text 3\n  rope positions --model z-image-turbo --latent-shape 1x4x6 --condition-image 1x6x4 --siglip-grid 3x2 --text 5 --text 7 --text 3\n  rope positions --model ltx-2 --audio-frames 4");
  return {sub, [opt](std::ostream& out) { return run_positions(*opt, out); }};
}

}  // namespace rope::cli
