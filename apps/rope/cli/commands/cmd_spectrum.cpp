// rope spectrum: which pairs of a dumped q or k carry energy, and how periodic each pair's norm is along the
// sequence (docs/spectrum.md). The computation is rope/analysis/spectrum/spectrum.hpp, its report
// rope/report/spectrum_report.hpp.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/report/spectrum_report.hpp"
#include "rope/report/text.hpp"

namespace rope::cli {

namespace {

struct SpectrumOptions {
  DumpFiles dump;
  std::optional<double> base;
  std::optional<Layout> layout;
  ScalingOptions scaling;
  bool json = false;
  FigureOptions figure;
};

/// The heat map's files: each of the figure's with "_heads" before its extension (out/s.png → out/s_heads.png).
FigureOptions spectrum_heads_options(FigureOptions f) {
  for (std::string* path : {&f.png, &f.svg, &f.pdf, &f.output}) {
    if (path->empty()) continue;
    const std::filesystem::path p(*path);
    *path = (p.parent_path() / (p.stem().string() + "_heads" + p.extension().string())).string();
  }
  return f;
}

SpectrumRequest spectrum_request(const SpectrumOptions& opt) {
  SpectrumRequest r;
  r.dump = opt.dump;
  r.settings.source = opt.scaling.source;
  r.settings.rope = scaling_overrides(opt.scaling);
  r.settings.base = opt.base;
  r.settings.layout = opt.layout;
  r.settings.longrope = longrope_rule(opt.scaling.engine, opt.scaling.max_model_len, opt.scaling.n_ctx);
  return r;
}

}  // namespace

int run_spectrum(const SpectrumOptions& opt, std::ostream& out) {
  check_figure_options(opt.figure);
  const SpectrumRun run = rope::run_spectrum(spectrum_request(opt));
  const Text t = opt.figure.tr();
  emit_report(out, run, {opt.json, t.lang()}, [&] {
    draw(spectrum_figure(run, t), opt.figure);
    draw(spectrum_heads_figure(run, t), spectrum_heads_options(opt.figure));
  });
  return kOk;
}

Command add_spectrum_command(CLI::App& app) {
  auto opt = std::make_shared<SpectrumOptions>();
  CLI::App* sub = app.add_subcommand(
      "spectrum", "Which pairs of a dumped q or k carry energy and position: energy share and frequency entropy");
  sub->add_option("--dump", opt->dump.before, "the dumped q or k, before or after RoPE: .npy, .safetensors or .csv")
      ->required()
      ->type_name("FILE");
  sub->add_option(
         "--positions", opt->dump.positions,
         "position of each sequence index: a range A:B or A:B:STEP, a list 0,1,5, or a file (@FILE or its path: "
         ".npy, safetensors or text; [seq], [batch, seq] or [3, batch, seq]) (default 0:seq)")
      ->type_name("POS");
  sub->add_option("--axes", opt->dump.axes,
                  "axes of the shape: seq,d | seq,heads,d | batch,heads,seq,d | batch,seq,heads,d")
      ->type_name("AXES");
  sub->add_option("--tensor", opt->dump.tensor, "safetensors: the tensor to read (default: the only one)")
      ->type_name("NAME");
  sub->add_flag("--bf16-bits", opt->dump.bf16_bits, ".npy 16-bit integers (<u2, <i2) are bfloat16 bit patterns");
  add_base_option(*sub, opt->base);
  add_choice_option(*sub, "--layout", opt->layout, kLayoutWords, parse_layout,
                    "the pair layout of the dump (default: the model's, else half)", "LAYOUT");
  sub->add_flag("--json", opt->json, "print the report as JSON");
  add_scaling_options(*sub, opt->scaling);
  add_figure_options(*sub, opt->figure);
  sub->footer("Example:\n  rope spectrum --dump data/dumps/q_spectrum.npy --png spectrum.png");
  return {sub, [opt](std::ostream& out) { return run_spectrum(*opt, out); }};
}

}  // namespace rope::cli
