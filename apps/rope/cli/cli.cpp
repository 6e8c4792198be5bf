#include "rope/cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <exception>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/core/error.hpp"
#include "rope/version.hpp"

namespace rope::cli {

namespace {

/// One line, whatever the message holds.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

void report(std::ostream& err, const std::string& message) { err << "rope: " << one_line(message) << '\n'; }

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"rope: compute, verify and plot Rotary Position Embeddings (RoPE).", "rope"};
  app.set_version_flag("--version", std::string("rope ") + kVersion);
  app.require_subcommand(0, 1);  // "no command" is reported below, after unknown words
  app.footer(
      "Every command has --help with an example. Exit codes: 0 ok, 1 a verification failed,\n"
      "2 invalid input or usage, 3 I/O error, 4 internal error. The math: docs/math.md.");

  const std::vector<Command> commands = {
      add_frequencies_command(app), add_matrix_command(app), add_apply_command(app),
      add_verify_command(app),      add_decay_command(app),       add_wavelengths_command(app), add_inspect_command(app),
      add_attention_command(app),
      add_encodings_command(app),
      add_layouts_command(app),
      add_explain_command(app),
      add_precision_command(app),
      add_bound_command(app),
      add_extrapolation_command(app),
      add_bench_command(app),
      add_check_command(app),
      add_identify_command(app),
  };

  // An empty value ("--csv ''", "--config \"$UNSET\"") is a mistake for every option: refused here
  // once, for every command, rather than read as "not given".
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("the value is empty") : std::string(); }, "",
      "non-empty");
  for (const auto& command : commands) {
    for (CLI::Option* option : command.app->get_options()) {
      if (option->get_type_size_max() > 0) option->check(non_empty);
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    const CLI::App* failed = &app;
    for (const auto& command : commands) {
      if (command.app->parsed()) failed = command.app;
    }
    report(err, fmt::format("{} (see '{} --help')", e.what(),
                            failed == &app ? "rope" : "rope " + failed->get_name()));
    return kInvalidInput;
  } catch (const InvalidArgument& e) {
    report(err, e.what());
    return kInvalidInput;
  }

  try {
    for (const auto& command : commands) {
      if (command.app->parsed()) return command.run(out);
    }
    report(err, "no command given (see 'rope --help')");
    return kInvalidInput;
  } catch (const InvalidArgument& e) {
    report(err, e.what());
    return kInvalidInput;
  } catch (const IoError& e) {
    report(err, e.what());
    return kIoError;
  } catch (const std::exception& e) {
    report(err, fmt::format("internal error: {}", e.what()));
    return kInternalError;
  }
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) argv.push_back(a.c_str());
  return run(static_cast<int>(argv.size()), argv.data(), out, err);
}

}  // namespace rope::cli
