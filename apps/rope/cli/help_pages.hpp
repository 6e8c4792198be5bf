/// @file
/// The help pages that are not one command's CLI11 help: the overview of a bare `rope` (and `rope
/// --help`, `rope help`), the short help of `rope COMMAND -h`, the topics of `rope help scaling|figures|
/// language` (the options every command shares, which a command's --help summarises in one line each).
/// Every help text is broken at the terminal's width by help_wrap.hpp.
///
///     rope                      the overview: the commands in four groups, one line each
///     rope frequencies -h       what it does, usage, its own options, one example (at most 25 lines)
///     rope frequencies --help   everything; the shared groups one line each (--help-all: in full)
///     rope help scaling         the model and scaling options, in full
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/cli/help_wrap.hpp"
#include "rope/cli/lang.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

/// The topic of `rope help` an option shared by many commands belongs to: "scaling" (model and scaling:
/// scaling_options.hpp), "figures" (figure_options.hpp) or "language" (--lang); "" for a command's own.
std::string shared_topic(const CLI::Option& option);

/// The topics of `rope help TOPIC`, in order.
const std::vector<std::string>& help_topics();

/// The group of `command` in the overview, from its row of kCommands (commands.hpp): "Learn", "Compute", "Check a
/// model" or "Figures"; "" for a name that is no command.
const char* command_group(std::string_view command);

/// The overview: the description, usage, the commands by group, the topics; `full` (rope --help, rope help)
/// adds the footer of `app` (exit codes). `commands` in the order of build_app.
std::string overview_help(const CLI::App& app, const std::vector<const CLI::App*>& commands, Lang lang, bool full);

/// `rope COMMAND -h`: the description, usage, the command's own options (not the shared ones; cut to fit),
/// the first example and where the rest is; at most 25 lines.
std::string short_help(const CLI::App& command, Lang lang);

/// `rope help TOPIC`: every option of the topic with its help; nullopt for a word that is no topic.
std::optional<std::string> topic_help(std::string_view topic, Lang lang);

/// The lines of a command's --help that summarise the shared groups it has, one line each (the heading
/// first); "" when it has none.
std::string shared_summary(const CLI::App& command, Lang lang);

}  // namespace rope::cli
