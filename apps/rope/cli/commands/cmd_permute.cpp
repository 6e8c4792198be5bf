// rope permute: the q/k row order llama.cpp's converter applies (convert_hf_to_gguf.py LlamaModel.permute),
// the proof that NORM on permuted weights equals rotate_half on Hugging Face's, and the GQA bug of
// permuting k with the query head count (ggml-org/llama.cpp #2376, #3018). rope/analysis/weights/permute_run.hpp does
// the work, rope/report/permute_report.hpp prints it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/weights/permute_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/report/permute_report.hpp"

namespace rope::cli {

struct PermuteOptions {
  PermuteRequest request;
  std::string csv;
  bool json = false;
  FigureOptions figure;
  std::optional<int> digits;  ///< --digits N: significant digits of the difference and its tolerance (digits.hpp)
};

int run_permute(const PermuteOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  PermuteRequest request = opt.request;
  request.csv_written = !opt.csv.empty();
  const PermuteRun run = rope::run_permute(request);
  emit_report(out, run, {opt.json, opt.figure.lang, opt.digits, opt.csv},
              [&] { draw(permute_figure(run, opt.figure.tr()), opt.figure); });
  return run.passed() ? kOk : kVerifyFailed;
}

Command add_permute_command(CLI::App& app) {
  auto opt = std::make_shared<PermuteOptions>();
  PermuteRequest& q = opt->request;
  PermuteSettings& s = q.settings;
  CLI::App* sub =
      app.add_subcommand("permute", "The q/k row order of llama.cpp's converter, its proof, and the GQA bug");
  add_int_option(*sub, "--head-dim", q.head_dim, s.head_dim, "rows per head: even, 2 … 4096");
  add_long_option(*sub, "--heads", q.heads, s.n_head, "query heads n_head");
  add_long_option(*sub, "--kv-heads", q.kv_heads, s.n_head_kv, "key/value heads n_head_kv (GQA: fewer than --heads)");
  add_base_option(*sub, q.base, s.base);
  sub->add_option(
         "--config", q.config,
         "read the heads and the RoPE from a GGUF file, a Hugging Face config.json or a model folder holding one")
      ->type_name("FILE");
  sub->add_option("--layer-type", q.layer_type,
                  "with --config: the RoPE of this layer type (rope inspect lists them) or of this layer index; "
                  "layer types may differ in head size and base (Gemma 3, Gemma 4)")
      ->type_name("NAME")
      ->needs("--config");
  add_int_option(*sub, "--model-dim", s.width,
                 fmt::format("columns of the random weights (the model width): 1 … {}", kMaxPermuteWidth));
  add_seed_option(*sub, s.seed, "seed of the random weights and inputs (same seed, same output)");
  add_real_option(*sub, "--position", s.m, "the query's position m (|m| <= 1e9)");
  add_long_option(*sub, "--max-distance", s.max_distance,
                  fmt::format("keys at m + δ, δ = 0 … max-distance (0 … {})", kMaxPermuteDistance));
  sub->add_option("--csv", opt->csv, "write distance,score_hf,score_gguf[,score_bug] (head 0) to FILE ('-' for stdout)")
      ->type_name("FILE");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_figure_options(*sub, opt->figure);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Example:\n  rope permute\n  rope permute --head-dim 128 --heads 64 --kv-heads 8 --png permute.png\n"
      "  rope permute --config data/gguf/llama-3.1-8b.gguf");
  return {sub, [opt](std::ostream& out) { return run_permute(*opt, out); }};
}

}  // namespace rope::cli
