#include "rope/cli/output_paths.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <utility>
#include <vector>

#include "rope/core/error.hpp"

namespace rope::cli {

namespace {

/// The options that name an output file.
constexpr const char* kOutputOptions[] = {"--csv", "--png",  "--svg",    "--pdf",
                                          "--gif", "--html", "--output", "--keep-script"};

bool is_output_option(const std::string& name) {
  for (const char* output : kOutputOptions) {
    if (name == output) return true;
  }
  return false;
}

/// The types of the options whose value may name a file by its path: FILE, and positions and sequence starts
/// (a range, a list, or a file named by @FILE or by its path: analysis/check/dump_files.cpp).
constexpr const char* kPathTypes[] = {"FILE", "POS", "STARTS"};

bool may_be_a_path(const std::string& type) {
  for (const char* path_type : kPathTypes) {
    if (type == path_type) return true;
  }
  return false;
}

/// The files a run reads: the values of every other option whose value may be a path (a value that names no
/// file is skipped by the caller), and a list's @FILE.
std::vector<std::pair<std::string, std::string>> input_files(const CLI::App& command) {
  std::vector<std::pair<std::string, std::string>> inputs;  // option, path
  for (const CLI::Option* option : command.get_options()) {
    const std::string name = option->get_name();
    if (option->count() == 0 || is_output_option(name)) continue;
    for (const std::string& value : option->results()) {
      if (value.size() > 1 && value[0] == '@' && option->get_type_name() != "FILE")
        inputs.emplace_back(name, value.substr(1));
      else if (may_be_a_path(option->get_type_name()))
        inputs.emplace_back(name, value);
    }
  }
  return inputs;
}

}  // namespace

/// Two outputs of one run naming the same file would overwrite each other: refused, naming both options.
void check_distinct_outputs(const CLI::App& command) {
  std::vector<std::pair<std::string, std::string>> given;  // option, path
  std::vector<std::string> to_stdout;                      // the options that write to standard output
  for (const char* name : kOutputOptions) {
    const CLI::Option* option = command.get_option_no_throw(name);
    if (option == nullptr || option->count() == 0) continue;
    for (const std::string& value : option->results()) {
      if (value != "-")
        given.emplace_back(name, value);
      else if (std::string_view(name) == "--csv")  // only a CSV table has a standard-output form
        to_stdout.emplace_back(name);
      // a figure's or a page's '-' is refused by that option's own rule (figure_options.cpp, the --html check)
    }
  }
  for (const char* name : {"--term", "--json"}) {  // a drawing, a JSON report: standard output too
    const CLI::Option* option = command.get_option_no_throw(name);
    if (option != nullptr && option->count() > 0) to_stdout.emplace_back(name);
  }
  if (to_stdout.size() > 1) {  // the CSV and the drawing (or the JSON) would be mixed in one stream
    throw InvalidArgument(error_msg("{0} and {1} both write to standard output: at most one of '-', --term and --json",
                                    to_stdout[0], to_stdout[1]));
  }
  namespace fs = std::filesystem;
  const auto same = [](const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code ea, eb;
    if (fs::exists(a, ea) && fs::exists(b, eb)) return fs::equivalent(a, b, ea);
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea),
                   cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    return !ea && !eb && ca == cb;
  };
  // An input named as an output would be overwritten by it: the same file (links followed), refused.
  for (const auto& [input, path] : input_files(command)) {
    struct stat in {};
    if (::stat(path.c_str(), &in) != 0) continue;
    for (const auto& [output, target] : given) {
      struct stat st {};
      if (::stat(target.c_str(), &st) == 0 && st.st_dev == in.st_dev && st.st_ino == in.st_ino) {
        throw InvalidArgument(error_msg("{0} and {1} name the same file '{2}': an output never replaces an input",
                                        input, output, target));
      }
    }
  }
  for (std::size_t i = 0; i < given.size(); ++i) {
    for (std::size_t j = i + 1; j < given.size(); ++j) {
      if (same(given[i].second, given[j].second)) {
        throw InvalidArgument(error_msg("{0} and {1} name the same file '{2}': each output needs its own path",
                                        given[i].first, given[j].first, given[j].second));
      }
    }
  }
}

}  // namespace rope::cli
