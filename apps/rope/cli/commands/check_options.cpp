// The settings of rope check and rope diff from their options (check_options.hpp).
#include "rope/cli/commands/check_options.hpp"

#include <CLI/CLI.hpp>

#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/cli/options.hpp"

namespace rope::cli {

CheckSettings check_settings(const CheckOptions& opt) {
  CheckSettings s;
  s.source = opt.scaling.source;
  s.rope = scaling_overrides(opt.scaling);
  s.base = opt.base;
  s.layout = opt.layout;
  s.dtype = opt.dtype;
  s.angles = opt.angles;
  s.query = opt.query;
  s.mode = opt.grad        ? CheckMode::Grad
           : opt.shift     ? CheckMode::Shift
           : opt.shift_map ? CheckMode::ShiftMap
                           : CheckMode::Forward;
  s.shift = opt.shift.value_or(0.0);
  s.shift_map = opt.shift_map.value_or("");  // given empty: the mode all the same, and its file unreadable
  s.longrope = longrope_rule(opt.scaling.engine, opt.scaling.max_model_len, opt.scaling.n_ctx);
  s.strict_order = opt.strict_order;
  s.coefficients = fope_checkpoint(opt.coefficients);
  s.kv_head = opt.kv_head;
  s.table = opt.table;
  return s;
}

namespace {

CLI::Option* add_fope_coefficients_option(CLI::App& app, std::string& coefficients, ScalingOptions& scaling) {
  scaling.rope.fope = FopeUse::Computed;  // FoPE computed with the checkpoint's coefficients (fope.hpp)
  return app
      .add_option(
          "--coefficients", coefficients,
          "FoPE (Intern-S1-Pro): the checkpoint holding its cos_coef and sin_coef, a directory (model.safetensors "
          "or its index's shards) or a .safetensors file; each pair then a scaled rotation (docs/multi-axis.md, "
          "FoPE)")
      ->type_name("FILE");
}

}  // namespace

void add_coefficients_option(CLI::App& app, CheckOptions& opt) {
  add_fope_coefficients_option(app, opt.coefficients, opt.scaling);
  add_long_option(app, "--kv-head", opt.kv_head, 0,
                  "FoPE: the key-value head whose coefficients every vector of the dump takes, the dump holding that "
                  "head's heads alone (the key head, or query heads of its group); without it each head takes its "
                  "group's by its index")
      ->default_str("");
}

void add_fope_options(CLI::App& app, std::string& coefficients, std::optional<long>& kv_head, ScalingOptions& scaling) {
  add_fope_coefficients_option(app, coefficients, scaling);
  add_long_option(app, "--kv-head", kv_head, 0,
                  "FoPE: the key-value head whose coefficients apply, 0 … num_key_value_heads − 1 (query heads use "
                  "their group's)");
}

}  // namespace rope::cli
