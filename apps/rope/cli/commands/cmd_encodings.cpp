// rope encodings: the comparison table of position encodings that explainers print (blog posts on RoPE often have one:
// explicit relative position, long-range decay, parameters, extrapolation) for absolute sinusoidal, learned
// absolute, T5 bias, ALiBi and RoPE, each claim next to the number rope computes for it, or its source. The
// computation is rope/analysis/teaching/encodings_run.hpp, its report rope/report/encodings_report.hpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/teaching/alibi.hpp"
#include "rope/analysis/teaching/encodings_run.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/encodings_report.hpp"

namespace rope::cli {

struct EncodingsOptions {
  EncodingsRequest request;
  Lang lang = Lang::En;
  std::optional<int> digits;  ///< --digits N: significant digits of RoPE's |Δ|/S and its tolerance (digits.hpp)
};

int run_encodings(const EncodingsOptions& opt, std::ostream& out) {
  const EncodingsRun run = rope::run_encodings(opt.request);
  emit_report(out, run, {false, opt.lang, opt.digits});
  return run.passed() ? kOk : kVerifyFailed;
}

Command add_encodings_command(CLI::App& app) {
  auto opt = std::make_shared<EncodingsOptions>();
  CLI::App* sub = app.add_subcommand(
      "encodings", "Sinusoidal, learned, T5 bias, ALiBi and RoPE compared, each claim with the number behind it");
  add_int_option(*sub, "-n,--tokens", opt->request.tokens,
                 fmt::format("tokens N of the shift test (1 … {})", kMaxAttentionTokens));
  add_int_option(*sub, "-d,--dim", opt->request.dim, fmt::format("head dimension d: even, 2 … {}", kMaxAttentionDim));
  add_int_option(*sub, "--heads", opt->request.heads,
                 "heads of the model: ALiBi's slopes, T5's parameters, d_model = heads·d");
  add_long_option(*sub, "--context", opt->request.context,
                  fmt::format("trained length L (1 … {})", kMaxEncodingsContext));
  add_long_option(*sub, "--shift", opt->request.shift,
                  fmt::format("shift test: move every position by C (0 … {}, tokens + C <= L)", kMaxEncodingsShift));
  add_seed_option(*sub, opt->request.seed, "seed of q, k and of the random stand-ins for trained tables");
  add_base_option(*sub, opt->request.base);
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Exit codes: 0 ok; 1 RoPE's shift test exceeded its rounding tolerance, or T5's or ALiBi's was not 0.\n\n"
      "Example:\n  rope encodings\n  rope encodings --dim 128 --heads 32 --context 4096");
  return {sub, [opt](std::ostream& out) { return run_encodings(*opt, out); }};
}

}  // namespace rope::cli
