#include "rope/cli/cli.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/help_formatter.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <fmt/format.h>
#include <unistd.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/output.hpp"
#include "rope/core/error.hpp"
#include "rope/io/atomic_file.hpp"
#include "rope/version.hpp"

namespace rope::cli {

namespace {

/// One line, whatever the message holds: trailing line breaks dropped, every control character
/// escaped (output.hpp).
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return escape_controls(text);
}

void report(std::ostream& err, const std::string& message) { err << "rope: " << one_line(message) << '\n'; }

/// CLI11's message, except for words nobody expected: CLI11 lists them last word first ("zh --lang"),
/// so they are listed here in the order typed, and an option of the commands given before any command
/// (`rope --lang zh`) says where it belongs.
std::string parse_error_message(const CLI::ParseError& e, const CLI::App& failed, bool top_level) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return e.what();
  const std::vector<std::string> words = failed.remaining();
  if (words.empty()) return e.what();
  std::string message = fmt::format("{} {} not expected: {}", words.size() == 1 ? "this argument" : "these arguments",
                                    words.size() == 1 ? "was" : "were", fmt::join(words, " "));
  if (top_level && words.front().rfind("--", 0) == 0) {
    message += fmt::format("; {} is an option of each command: put it after the command, e.g. 'rope frequencies {}'",
                           words.front(), fmt::join(words, " "));
  }
  return message;
}

/// The options that name an output file.
constexpr const char* kOutputOptions[] = {"--csv", "--png", "--svg", "--pdf", "--output", "--keep-script"};

/// Two outputs of one run naming the same file would overwrite each other: refused, naming both options.
void check_distinct_outputs(const CLI::App& command) {
  std::vector<std::pair<std::string, std::string>> given;  // option, path
  for (const char* name : kOutputOptions) {
    const CLI::Option* option = nullptr;
    try {
      option = command.get_option(name);
    } catch (const CLI::OptionNotFound&) {
      continue;
    }
    if (option->count() == 0) continue;
    for (const std::string& value : option->results()) {
      if (value != "-") given.emplace_back(name, value);
    }
  }
  namespace fs = std::filesystem;
  const auto same = [](const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code ea, eb;
    if (fs::exists(a, ea) && fs::exists(b, eb)) return fs::equivalent(a, b, ea);
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea), cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    return !ea && !eb && ca == cb;
  };
  for (std::size_t i = 0; i < given.size(); ++i) {
    for (std::size_t j = i + 1; j < given.size(); ++j) {
      if (same(given[i].second, given[j].second)) {
        throw InvalidArgument(fmt::format("{} and {} name the same file '{}': each output needs its own path",
                                          given[i].first, given[j].first, given[j].second));
      }
    }
  }
}

/// Runs the command with every output file staged in one batch, committed only when the command
/// succeeded and its standard output was written: all outputs of a run, or none.
int run_command(const Command& command, std::ostream& out, std::ostream& err) {
  check_distinct_outputs(*command.app);
  OutputBatch batch;
  const auto* fd_out = dynamic_cast<const FdOutputBuffer*>(out.rdbuf());
  const FigureTerminal terminal(out, fd_out != nullptr && ::isatty(fd_out->fd()) == 1);  // for --term
  const int code = command.run(out);
  errno = 0;
  out.flush();
  if (!out) {
    const auto* fd_buffer = dynamic_cast<const FdOutputBuffer*>(out.rdbuf());
    const int error = fd_buffer != nullptr && fd_buffer->error() != 0 ? fd_buffer->error() : errno != 0 ? errno : EIO;
    report(err, fmt::format("cannot write standard output: {}", std::strerror(error)));
    return kIoError;
  }
  if (code == kOk || code == kVerifyFailed) batch.commit();
  return code;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"rope: compute, verify and plot Rotary Position Embeddings (RoPE).", "rope"};
  app.formatter(make_help_formatter());
  app.set_version_flag("--version", std::string("rope ") + kVersion);
  app.require_subcommand(0, 1);  // "no command" is reported below, after unknown words
  app.footer(
      "Every command has --help with an example. Exit codes: 0 ok, 1 a check failed,\n"
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
      add_permute_command(app),
      add_check_command(app),
      add_identify_command(app),
      add_lesson_command(app),
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
    report(err, fmt::format("{} (see '{} --help')", parse_error_message(e, *failed, failed == &app),
                            failed == &app ? "rope" : "rope " + failed->get_name()));
    return kInvalidInput;
  } catch (const InvalidArgument& e) {
    report(err, e.what());
    return kInvalidInput;
  } catch (const std::bad_alloc&) {
    report(err, "out of memory: the job needs more memory than this machine allows (docs/errors.md, Limits)");
    return kIoError;
  }

  try {
    for (const auto& command : commands) {
      if (command.app->parsed()) return run_command(command, out, err);
    }
    report(err, "no command given (see 'rope --help')");
    return kInvalidInput;
  } catch (const InvalidArgument& e) {
    report(err, e.what());
    return kInvalidInput;
  } catch (const IoError& e) {
    report(err, e.what());
    return kIoError;
  } catch (const std::bad_alloc&) {
    report(err, "out of memory: the job needs more memory than this machine allows (docs/errors.md, Limits)");
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
