/// @file
/// Options shared by several commands, parsed strictly by rope/core/parse.hpp (decimal only, no junk, no
/// NaN): a bad value stops parsing with one line that names the option, the value and the rule.
#pragma once

#include "rope/io/text_file.hpp"  // parse_list_argument

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rope/cli/lang.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "rope/core/types.hpp"
#include "rope/models/axes.hpp"
#include "rope/report/model_text.hpp"  // layout_name

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& target, const std::string& help);
CLI::Option* add_long_option(CLI::App& app, const std::string& name, long& target, const std::string& help);
CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& target, const std::string& help);
/// The same for a value that matters only when typed: `target` stays nullopt unless the option is given;
/// --help shows `shown_default`, the value the command uses then.
CLI::Option* add_int_option(CLI::App& app, const std::string& name, std::optional<int>& target, int shown_default,
                            const std::string& help);
CLI::Option* add_long_option(CLI::App& app, const std::string& name, std::optional<long>& target, long shown_default,
                             const std::string& help);
CLI::Option* add_real_option(CLI::App& app, const std::string& name, std::optional<double>& target,
                             double shown_default, const std::string& help);
/// One or more values, given as `--name a b` or `--name a --name b`; replaces the default.
CLI::Option* add_reals_option(CLI::App& app, const std::string& name, std::vector<double>& target,
                              const std::string& help);

/// The same for values that matter only when typed: `target` stays nullopt unless the option is given;
/// --help shows `shown_default`.
CLI::Option* add_reals_option(CLI::App& app, const std::string& name, std::optional<std::vector<double>>& target,
                              const std::vector<double>& shown_default, const std::string& help);

/// A position "m" or, for a model with multimodal sections, one number per axis "t,h,w"
/// (rope/models/axes.hpp parse_axis_position); `target` stays nullopt unless given.
CLI::Option* add_position_option(CLI::App& app, const std::string& name, std::optional<AxisPosition>& target,
                                 const std::string& help);

/// --seed, a non-negative decimal integer.
CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& target, const std::string& help);
/// --seed that stays nullopt unless given; --help shows `shown_default`.
CLI::Option* add_seed_option(CLI::App& app, std::optional<std::uint64_t>& target, std::uint64_t shown_default,
                             const std::string& help);

/// The help text of `--digits` on the commands whose tables print computed numbers (frequencies, apply's
/// vectors): report/digits.hpp kTableDigits.
inline constexpr const char* kTableDigitsHelp =
    "significant digits of the table's numbers (0: every digit, the shortest that reads back; CSV and JSON "
    "always have every digit)";

/// The help text of `--digits` on every command that has it (options.hpp add_digits_option).
inline constexpr const char* kDigitsHelp =
    "significant digits of the numbers compared (default: as many as show different values different; "
    "0: every digit; CSV and JSON always have every digit)";

/// --wide: the wide tables of before the projector layout (every column, lines over 100 columns).
CLI::Option* add_wide_option(CLI::App& app, bool& target);
/// `--digits N`, 0 … 17, refused outside that range as it is parsed: the significant digits of a report's
/// compared numbers (digits.hpp; nullopt: the policy's own count, `shown_default` in --help).
CLI::Option* add_digits_option(CLI::App& app, std::optional<int>& target, const std::string& shown_default,
                               const std::string& help);

/// -d/--dim, the head dimension.
CLI::Option* add_dim_option(CLI::App& app, int& target);
CLI::Option* add_dim_option(CLI::App& app, std::optional<int>& target, int shown_default);
/// -b/--base, the RoPE base.
CLI::Option* add_base_option(CLI::App& app, double& target);
CLI::Option* add_base_option(CLI::App& app, std::optional<double>& target, double shown_default = kDefaultBase);
/// --layout interleaved|half.
CLI::Option* add_layout_option(CLI::App& app, Layout& target);
/// --layout that matters only when typed (a model's own layout wins otherwise); `shown_default` in --help.
CLI::Option* add_layout_option(CLI::App& app, std::optional<Layout>& target, Layout shown_default);

/// Which option sets which quantity of the library: {"sequence length", "--seq"}.
using OptionNames = std::vector<std::pair<std::string, std::string>>;

/// The library names a wrong quantity in its own words (rope/core/invalid_quantity.hpp); the command line
/// names the option the user typed. Throws `e` again as an InvalidArgument whose message names the
/// quantity's option in `options` instead ("--seq must be between 1 and 4096 (got 0)"), or as it is
/// when the quantity has no option there.
[[noreturn]] void rethrow_naming_option(const InvalidQuantity& e, const OptionNames& options);

}  // namespace rope::cli
