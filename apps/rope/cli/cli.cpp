#include "rope/cli/cli.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/help_formatter.hpp"
#include "rope/cli/help_pages.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <memory>
#include <optional>

#include "rope/cli/commands.hpp"
#include "rope/cli/error_zh.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/output_paths.hpp"
#include "rope/core/error.hpp"
#include "rope/core/suggest.hpp"
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

constexpr const char* kDescription = "rope: compute, verify and plot Rotary Position Embeddings (RoPE).";

/// The one line of an error, in Chinese when `lang` is (error_zh.hpp: an English message without a
/// Chinese template is shown as it is).
void report_in(std::ostream& err, Lang lang, const std::string& message) {
  std::string shown = message;
  if (lang == Lang::Zh) {
    try {
      shown = error_zh(message);
    } catch (const std::exception&) {  // out of memory while translating: the English still says it
    }
  }
  err << "rope: " << one_line(shown) << '\n';
}

/// CLI11's message, except for words nobody expected: CLI11 lists them last word first ("zh --lang"),
/// so they are listed here in the order typed, and an option of the commands given before any command
/// (`rope --lang zh`) says where it belongs.
/// A mistyped option ("--dmi") is named with the closest option of the command, whatever error CLI11
/// stopped at (a required option the typo meant to give, or the word itself).
/// rope identify given an option of rope check that names what identify finds from the numbers: says so.
std::optional<std::string> identify_infers(const CLI::App& failed, const std::string& word) {
  if (failed.get_name() != "identify") return std::nullopt;
  const std::string option = word.substr(0, word.find('='));
  if (option == "--layout") {
    return error_msg(
               "rope identify infers the layout from the dumps: leave out {0} (rope check {1} checks a dump "
               "against the layout you give)",
               option, option)
        .en;
  }
  if (option == "--model" || option == "--config") {
    return error_msg(
               "rope identify infers the RoPE from the dumps, with no model: leave out {0} (rope check {1} "
               "checks a dump against the model's RoPE)",
               option, option)
        .en;
  }
  if (option == "--base" || option == "--dim" || option == "--scaling" || option == "--factor" ||
      option == "--attention-factor" || option == "--partial-rotary-factor") {
    return error_msg(
               "rope identify infers the rotary dimension, θ per pair, the scaling and the attention factor "
               "from the dumps: leave out {0} (rope check {1} checks a dump against the value you give)",
               option, option)
        .en;
  }
  return std::nullopt;
}

std::string parse_error_message(const CLI::ParseError& e, const CLI::App& failed, bool top_level) {
  const std::vector<std::string> words = failed.remaining();
  if (words.empty()) return e.what();
  if (const auto inferred = identify_infers(failed, words.front())) return *inferred;
  if (!top_level && words.front().rfind("-", 0) == 0) {  // a mistyped option: the closest of the command's
    std::vector<std::string> names;
    for (const CLI::Option* option : failed.get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    }
    const std::string& typed = words.front();
    const std::string suggestion = closest_match(typed.substr(0, typed.find('=')), names);
    if (!suggestion.empty()) {
      const std::string list = fmt::format("{}", fmt::join(words, " "));
      return words.size() == 1
                 ? error_msg("this argument was not expected: {0}; did you mean {1}?", list, suggestion).en
                 : error_msg("these arguments were not expected: {0}; did you mean {1}?", list, suggestion).en;
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return e.what();
  std::string message = fmt::format("{} {} not expected: {}", words.size() == 1 ? "this argument" : "these arguments",
                                    words.size() == 1 ? "was" : "were", fmt::join(words, " "));
  if (top_level && words.front().rfind("--", 0) == 0) {
    message += fmt::format("; {} is an option of each command: put it after the command, e.g. 'rope frequencies {}'",
                           words.front(), fmt::join(words, " "));
  }
  return message;
}

/// Runs the command with every output file staged in one batch, committed only when the command
/// succeeded and its standard output was written: all outputs of a run, or none.
int run_command(const Command& command, std::ostream& out, std::ostream& err, Lang lang) {
  check_distinct_outputs(*command.app);
  OutputBatch batch;
  const auto* fd_out = dynamic_cast<const FdOutputBuffer*>(out.rdbuf());
  const FigureTerminal terminal(out, fd_out != nullptr && ::isatty(fd_out->fd()) == 1);  // for --term
  int code = kOk;
  {
    TerminalSafeBuffer safe_buffer(out);  // no string from a file or a path reaches the terminal raw
    std::ostream safe(&safe_buffer);
    code = command.run(safe);
    errno = 0;
    safe.flush();
  }
  if (!out) {
    const auto* fd_buffer = dynamic_cast<const FdOutputBuffer*>(out.rdbuf());
    const int error = fd_buffer != nullptr && fd_buffer->error() != 0 ? fd_buffer->error() : errno != 0 ? errno : EIO;
    report_in(err, lang, fmt::format("cannot write standard output: {}", std::strerror(error)));
    return kIoError;
  }
  if (code == kOk || code == kVerifyFailed) batch.commit();
  return code;
}

/// The application and its commands, with every text of --help in `lang`: every command, or only `only`
/// when that is one command's name or alias: the usual `rope COMMAND ...` does not build the other commands'
/// hundreds of options (CLI11 checks each new option against those before it), a few milliseconds of every run.
std::vector<Command> build_app(CLI::App& app, Lang lang, const std::string& only = {}) {
  set_default_lang(lang);  // each command's --lang starts here (lang.hpp)
  app.formatter(make_help_formatter(lang));
  app.set_version_flag("--version", std::string("rope ") + kVersion);
  // -h is the short help, made before parsing (help_pages.hpp); --help and --help-all are CLI11's, in the
  // formatter's form. Each command inherits them.
  app.set_help_flag("--help", "print every option (the shared groups one line each) and exit");
  app.set_help_all_flag("--help-all", "print every option, the shared groups in full, and exit");
  app.require_subcommand(0, 1);  // "no command" is reported below, after unknown words
  app.footer(
      "Every command has --help with an example. Exit codes: 0 ok, 1 a check failed,\n"
      "2 invalid input or usage, 3 I/O error, 4 internal error. The math: docs/math.md.");

  const auto named = [&only](const CommandEntry& entry) {
    return only == entry.name || (*entry.alias != '\0' && only == entry.alias);
  };
  const bool one = std::any_of(std::begin(kCommands), std::end(kCommands), named);
  std::vector<Command> commands;
  for (const CommandEntry& entry : kCommands) {
    if (!one || named(entry)) commands.push_back(entry.add(app));
  }

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
  return commands;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> command_table() {
  std::vector<std::pair<std::string, std::string>> table;
  for (const CommandEntry& entry : kCommands) table.emplace_back(entry.name, entry.alias);
  return table;
}

std::vector<std::string> help_texts_without_chinese() {
  CLI::App app{kDescription, "rope"};
  build_app(app, Lang::Zh);
  set_default_lang(Lang::En);
  return help_texts_without_chinese(app);
}

namespace {

/// The command named `word` (its name or an alias), or nullptr.
const Command* find_command(const std::vector<Command>& commands, const std::string& word) {
  for (const Command& command : commands) {
    if (command.app->check_name(word)) return &command;
  }
  return nullptr;
}

/// Every command's name and aliases, for "did you mean".
std::vector<std::string> command_names(const std::vector<Command>& commands) {
  std::vector<std::string> names;
  for (const Command& command : commands) {
    names.push_back(command.app->get_name());
    for (const std::string& alias : command.app->get_aliases()) names.push_back(alias);
  }
  return names;
}

/// The help CLI11 does not make (help_pages.hpp), written to `out`, or nullopt when the words are for
/// CLI11: a bare `rope` (the overview), `rope -h` or `rope --help` (with the footer), `rope help
/// [COMMAND|TOPIC]`, `rope COMMAND -h` (the short help). A first word that is no command is refused here,
/// before any --help after it would print the overview: @throws InvalidArgument with the closest command.
std::optional<int> help_request(const CLI::App& app, const std::vector<Command>& commands,
                                const std::vector<std::string>& words, Lang lang, std::ostream& out) {
  std::vector<const CLI::App*> apps;
  for (const Command& command : commands) apps.push_back(command.app);
  if (words.empty()) {
    out << overview_help(app, apps, lang, false);
    return kOk;
  }
  if (words[0] == "-h" || words[0] == "--help") {
    // `rope -h decay` asks for decay's help as `rope decay -h` does (--lang X may stand between them).
    std::size_t next = 1;
    while (next < words.size() && (words[next] == "--lang" || words[next].rfind("--lang=", 0) == 0)) {
      next += words[next] == "--lang" ? 2 : 1;
    }
    if (next < words.size()) {
      if (const Command* command = find_command(commands, words[next])) {
        out << (words[0] == "-h" ? short_help(*command->app, lang) : command->app->help("rope"));
        return kOk;
      }
    }
    out << overview_help(app, apps, lang, true);
    return kOk;
  }
  if (words[0] == "help") {
    std::vector<std::string> asked;
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "--lang") {
        ++i;
      } else if (words[i].rfind("--lang=", 0) != 0) {
        asked.push_back(words[i]);
      }
    }
    if (asked.empty()) {
      out << overview_help(app, apps, lang, true);
      return kOk;
    }
    if (asked.size() > 1) {
      throw InvalidArgument(
          error_msg("rope help takes one command or topic (got {0})", fmt::format("{}", fmt::join(asked, " "))));
    }
    if (const Command* command = find_command(commands, asked[0])) {
      out << command->app->help("rope");
      return kOk;
    }
    if (const std::optional<std::string> topic = topic_help(asked[0], lang)) {
      out << *topic;
      return kOk;
    }
    std::vector<std::string> names = command_names(commands);
    for (const std::string& topic : help_topics()) names.push_back(topic);
    const std::string suggestion = closest_match(asked[0], names);
    if (!suggestion.empty()) {
      throw InvalidArgument(
          error_msg("unknown command or help topic '{0}'; did you mean {1}? (see 'rope help')", asked[0], suggestion));
    }
    throw InvalidArgument(error_msg("unknown command or help topic '{0}' (see 'rope help')", asked[0]));
  }
  if (words[0].rfind("-", 0) == 0) return std::nullopt;  // an option before any command: CLI11's message
  const Command* command = find_command(commands, words[0]);
  if (command == nullptr) {
    const std::string suggestion = closest_match(words[0], command_names(commands));
    if (!suggestion.empty()) {
      throw InvalidArgument(
          error_msg("unknown command '{0}'; did you mean {1}? (see 'rope --help')", words[0], suggestion));
    }
    throw InvalidArgument(error_msg("unknown command '{0}' (see 'rope --help')", words[0]));
  }
  for (std::size_t i = 1; i < words.size() && words[i] != "--"; ++i) {
    if (words[i] == "-h") {
      out << short_help(*command->app, lang);
      return kOk;
    }
  }
  return std::nullopt;
}

}  // namespace

void visit_commands(const std::function<void(const std::vector<const CLI::App*>&)>& visit) {
  CLI::App app{kDescription, "rope"};
  const std::vector<Command> commands = build_app(app, Lang::En);
  std::vector<const CLI::App*> apps;
  for (const Command& command : commands) apps.push_back(command.app);
  visit(apps);
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const Lang lang = detect_lang(argc, argv);
  const auto report = [&err, lang](const std::string& message) { report_in(err, lang, message); };
  // An error in Chinese by its key: its message's id looked up in the catalog and filled with its values,
  // nested messages translated too (error_zh.hpp); an error of finished text only, by matching that text.
  const auto report_error = [&err, lang, &report](const Error& e) {
    if (lang == Lang::Zh) {
      std::string shown;
      try {
        shown = e.message() != nullptr ? error_zh(*e.message()) : error_zh(std::string(e.what()));
      } catch (const std::exception&) {  // out of memory while translating: the English still says it
        shown = e.what();
      }
      err << "rope: " << one_line(shown) << '\n';
    } else {
      report(e.what());
    }
  };
  CLI::App app{kDescription, "rope"};
  const std::vector<Command> commands = build_app(app, lang, argc > 1 ? std::string(argv[1]) : std::string());

  try {
    const std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
    if (const std::optional<int> code = help_request(app, commands, words, lang, out)) return *code;
  } catch (const InvalidArgument& e) {
    report_error(e);
    return kInvalidInput;
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
    report(fmt::format("{} (see '{} --help')", parse_error_message(e, *failed, failed == &app),
                       failed == &app ? "rope" : "rope " + failed->get_name()));
    return kInvalidInput;
  } catch (const InvalidArgument& e) {
    report_error(e);
    return kInvalidInput;
  } catch (const std::bad_alloc&) {
    report("out of memory: the job needs more memory than this machine allows (docs/errors.md, Limits)");
    return kIoError;
  }

  // An option whose value may be left out (--term) skips the validators on an empty value: refused here.
  for (const auto& command : commands) {
    if (!command.app->parsed()) continue;
    for (const CLI::Option* option : command.app->get_options()) {
      const auto& results = option->results();
      if (option->get_expected_min() == 0 && option->get_type_size_max() > 0 &&
          std::find(results.begin(), results.end(), std::string()) != results.end()) {
        report(fmt::format("{} (see 'rope {} --help')", error_msg("{0}: the value is empty", option->get_name()).en,
                           command.app->get_name()));
        return kInvalidInput;
      }
    }
  }

  try {
    for (const auto& command : commands) {
      if (command.app->parsed()) return run_command(command, out, err, lang);
    }
    report("no command given (see 'rope --help')");
    return kInvalidInput;
  } catch (const InvalidArgument& e) {
    report_error(e);
    return kInvalidInput;
  } catch (const IoError& e) {
    report_error(e);
    return kIoError;
  } catch (const std::bad_alloc&) {
    report("out of memory: the job needs more memory than this machine allows (docs/errors.md, Limits)");
    return kIoError;
  } catch (const std::exception& e) {
    report(fmt::format("internal error: {}", e.what()));
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
