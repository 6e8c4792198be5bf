#include "rope/cli/scaling_options.hpp"

#include "rope/report/printing.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/options.hpp"
#include "rope/core/error.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/longrope_rule.hpp"
#include "rope/report/rope_text.hpp"

namespace rope::cli {

namespace {

template <typename T>
CLI::Option* add_optional(CLI::App& app, const std::string& name, std::optional<T>& target, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [&target, name](const std::string& text) {
            if constexpr (std::is_same_v<T, double>) {
              target = parse_real(text, name);
            } else {
              static_assert(std::is_same_v<T, long>);
              target = parse_integer(text, name);
            }
          },
          help)
      ->type_name(std::is_same_v<T, long> ? "INT" : "NUM")
      ->group("Scaling");
}

/// The value of --truncate: true or 1, false or 0.
bool parse_truncate(std::string_view text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw InvalidArgument(error_msg("{0} must be true or false (got '{1}')", option_name("truncate"), text));
}

}  // namespace

bool ScalingOptions::any() const {
  return source.any() || !rope.first_scaling_setting().empty() || !rope.vision.empty() || !short_factor.empty() ||
         !long_factor.empty() || !tower.empty() || !engine.empty() || max_model_len || n_ctx;
}

void add_float32_options(CLI::App& app, ScalingOptions& o) {
  app.add_flag("--float32", o.rope.float32,
               "frequencies, angles, cos and sin in float32 as Hugging Face computes them (docs/scaling.md (F1)–(F3))")
      ->group("Scaling");
  app.add_option_function<std::string>(
         "--inv-freq-dtype",
         [&o](const std::string& text) {
           if (text != "f32" && text != "f64") {
             throw InvalidArgument(error_msg("--inv-freq-dtype must be f32 or f64 (got '{0}')", text));
           }
           o.rope.float32 = text == "f32";
         },
         "f32: the same as --float32; f64: rope's float64 (the default)")
      ->type_name("DTYPE")
      ->group("Scaling");
}

void check_float32_position(const ScalingOptions& o, const AxisPosition& p) {
  if (o.rope.float32 && p.multi()) {
    throw InvalidArgument(
        error_msg("--float32 computes HF's angles at one position m, but --position {0} has {1} "
                  "components: give a single number with --float32",
                  p.text(), p.count));
  }
}

void add_scaling_options(CLI::App& app, ScalingOptions& o) {
  app.add_option(
         "--config", o.source.file,
         "read the model's RoPE from a Hugging Face config.json, a model folder (its config.json or transformer/config.json) or a GGUF file")
      ->type_name("FILE")
      ->group("Scaling");
  app.add_option("--model", o.source.preset, "a model preset (rope inspect --list)")
      ->type_name("NAME")
      ->group("Scaling");
  app.add_option("--scaling", o.rope.scaling,
                 fmt::format("context extension: {} (docs/scaling.md)", scaling_method_names()))
      ->type_name("TYPE")
      ->group("Scaling");
  add_optional(app, "--factor", o.rope.factor, "scaling factor f (Hugging Face's factor; llama.cpp's --rope-scale)");
  add_optional(app, "--original-max-position", o.rope.original_max_position_embeddings,
               "original_max_position_embeddings L0");
  add_optional(app, "--max-position-embeddings", o.rope.max_position_embeddings, "max_position_embeddings M");
  add_optional(app, "--beta-fast", o.rope.beta_fast, "yarn beta_fast (default 32)");
  add_optional(app, "--beta-slow", o.rope.beta_slow, "yarn beta_slow (default 1)");
  add_choice_option(app, "--truncate", o.rope.truncate, {"true", "1", "false", "0"}, parse_truncate,
                    "yarn: round the correction range to whole pairs (default true)", "BOOL")
      ->group("Scaling");
  app.add_option("--yarn-variant", o.rope.yarn_variant,
                 "yarn with another engine's constants: hf (default), telechat3, grok-yarn-log or grok-theta-scale "
                 "(vLLM; docs/scaling.md)")
      ->type_name("NAME")
      ->group("Scaling");
  app.add_option("--xdrope-map", o.rope.xdrope_map,
                 "HunyuanVL's XD-RoPE: hf (default: HF's doubled sections, the two channels of a pair may read two "
                 "streams) or tencent (Tencent's and mlx-vlm's repeated list) (docs/multi-axis.md (A11))")
      ->type_name("NAME")
      ->group("Scaling");
  app.add_option("--engine", o.engine,
                 "whose reading of the config: hf (default), vllm (--max-model-len), sglang, llamacpp (--n-ctx) or "
                 "official: LongRoPE's list, dynamic NTK's length (hf, vllm), DeepSeek-V4's layers (docs/scaling.md)")
      ->type_name("NAME")
      ->group("Scaling");
  add_optional(app, "--max-model-len", o.max_model_len, "with --engine vllm: vLLM's max_model_len");
  add_optional(app, "--n-ctx", o.n_ctx, "with --engine llamacpp: llama.cpp's context per sequence");
  add_optional(app, "--mscale", o.rope.mscale, "yarn mscale (DeepSeek)");
  add_optional(app, "--mscale-all-dim", o.rope.mscale_all_dim, "yarn mscale_all_dim (DeepSeek)");
  add_optional(app, "--attention-factor", o.rope.attention_factor, "explicit attention factor (yarn, longrope)");
  add_optional(app, "--low-freq-factor", o.rope.low_freq_factor, "llama3 low_freq_factor");
  add_optional(app, "--high-freq-factor", o.rope.high_freq_factor, "llama3 high_freq_factor");
  app.add_option("--short-factor", o.short_factor, "longrope short_factor: d/2 numbers, comma list or @FILE")
      ->type_name("LIST")
      ->group("Scaling");
  app.add_option("--long-factor", o.long_factor, "longrope long_factor: d/2 numbers, comma list or @FILE")
      ->type_name("LIST")
      ->group("Scaling");
  add_optional(app, "--seq-len", o.rope.seq_len, "current sequence length (dynamic; longrope picks its list by it)");
  app.add_option("--layer-type", o.rope.layer_type,
                 "with --model/--config: the RoPE of this layer type (rope inspect lists them) or of this layer index")
      ->type_name("NAME")
      ->group("Scaling");
  add_optional(app, "--partial-rotary-factor", o.rope.partial_rotary_factor,
               "fraction of the head dimension that rotates: d = int(head_dim × factor)");
  app.add_option("--vision", o.rope.vision,
                 "a vision tower's 2-D RoPE of --dim and --base: qwen2-vl, llama.cpp, pixtral, llama4, axial or gemma4 "
                 "(docs/multi-axis.md §6)")
      ->type_name("KIND")
      ->group("Scaling");
  app.add_option("--tower", o.tower,
                 "with --model/--config of a vision-language model: the RoPE of its language model (text, the "
                 "default) or of its vision tower (vision); of LTX-2, its audio stream's (audio)")
      ->type_name("TOWER")
      ->group("Scaling");
}

namespace {

/// The options as the library's overrides (models/resolve.hpp); the values that need parsing are parsed here.
RopeOverrides overrides_of(const ScalingOptions& o, const DimBase& flags) {
  if (!o.tower.empty() && o.tower != "text" && o.tower != "vision" && o.tower != "audio") {
    throw InvalidArgument(error_msg("--tower must be text, vision or audio (got '{0}')", o.tower));
  }
  RopeOverrides r = o.rope;
  r.head_dim = flags.dim;
  r.default_head_dim = flags.default_dim;
  r.base = flags.base;
  r.default_base = flags.default_base;
  r.layout = flags.layout;
  r.default_layout = flags.default_layout;
  if (!o.short_factor.empty()) r.short_factor = parse_list_argument(o.short_factor, "--short-factor");
  if (!o.long_factor.empty()) r.long_factor = parse_list_argument(o.long_factor, "--long-factor");
  r.tower = o.tower == "text"     ? Tower::Text
            : o.tower == "vision" ? Tower::Vision
            : o.tower == "audio"  ? Tower::Audio
                                  : Tower::Default;
  return r;
}

}  // namespace

RopeOverrides scaling_overrides(const ScalingOptions& o) { return overrides_of(o, DimBase{}); }

std::string band_name(Band band, const Text& t) { return rope::band_name(band, t.lang()); }

std::string band_counts(const RopeParameters& p, const Text& t) { return rope::band_counts(p, t.lang()); }

std::string model_name(const RopeSpec& spec, const Text& t) { return rope::model_name(spec, t.lang()); }

ModelRope resolve(const ScalingOptions& o, const DimBase& flags) {
  if (!o.any()) check_dimension(flags.dim.value_or(flags.default_dim), flags.max_dim);
  ModelRope r = with_longrope_rule(resolve_model_rope(o.source, overrides_of(o, flags)),
                                   longrope_rule(o.engine, o.max_model_len, o.n_ctx));
  if (r.spec.axis_blocks && !o.axis_blocks) {
    throw InvalidArgument(
        error_msg("Gemma 4's vision tower pairs channels inside each axis's block (docs/multi-axis.md (V6)), "
                  "which this command does not place: rope apply, check, diff, sections, inspect, "
                  "frequencies, wavelengths, decay, attention and matrix take it"));
  }
  return r;
}

}  // namespace rope::cli
