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
constexpr const char* kOutputOptions[] = {"--csv",  "--png",    "--svg", "--pdf",        "--gif",
                                          "--html", "--output", "--npy", "--keep-script"};

bool is_output_option(const std::string& name) {
  for (const char* output : kOutputOptions) {
    if (name == output) return true;
  }
  return false;
}

/// A file a run reads: the option (or positional) that named it, and the directory it lies in when the option named
/// a directory (a checkpoint, whose config.json, shards and index the command reads).
struct InputFile {
  std::string option;
  std::string path;
  std::string directory;  ///< empty: the option named the file itself
};

/// A directory named as an input is read down to this depth (a checkpoint's subfolders: diffusers' transformer/,
/// text_encoder/), at most this many entries: the rest is still held by the readers (note_input_file, checked at
/// commit).
constexpr int kInputDirectoryDepth = 2;
constexpr std::size_t kInputDirectoryEntries = 4096;

/// The files a run reads, whatever the type name of the option or positional that named them: every value of every
/// option that is not an output and names an existing file (a list's @FILE too), and the regular files of a
/// directory so named. A value that names nothing (a number, a range) is no input.
std::vector<InputFile> input_files(const CLI::App& command) {
  namespace fs = std::filesystem;
  std::vector<InputFile> inputs;
  for (const CLI::Option* option : command.get_options()) {
    const std::string name = option->get_name();
    if (option->count() == 0 || is_output_option(name) || option->get_type_size_max() == 0) continue;  // a flag
    std::vector<std::string> paths;  // a value, and the file of a list's @FILE
    for (const std::string& value : option->results()) {
      paths.push_back(value);
      if (value.size() > 1 && value[0] == '@') paths.push_back(value.substr(1));
    }
    for (const std::string& path : paths) {
      std::error_code ec;
      const fs::file_status status = fs::status(path, ec);
      if (ec || !fs::exists(status)) continue;
      if (!fs::is_directory(status)) {
        inputs.push_back({name, path, ""});
        continue;
      }
      std::size_t seen = 0;
      for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end && seen < kInputDirectoryEntries; it.increment(ec), ++seen) {
        if (it.depth() >= kInputDirectoryDepth - 1) it.disable_recursion_pending();
        std::error_code file_ec;
        if (it->is_regular_file(file_ec)) inputs.push_back({name, it->path().string(), path});
      }
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
  std::vector<std::pair<std::string, struct stat>> targets;  // the outputs that exist
  for (const auto& [output, target] : given) {
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) targets.emplace_back(output, st);
  }
  if (!targets.empty()) {
    for (const InputFile& input : input_files(command)) {
      struct stat in {};
      if (::stat(input.path.c_str(), &in) != 0) continue;
      for (const auto& [output, st] : targets) {
        if (st.st_dev != in.st_dev || st.st_ino != in.st_ino) continue;
        if (input.directory.empty()) {
          throw InvalidArgument(error_msg("{0} and {1} name the same file '{2}': an output never replaces an input",
                                          input.option, output, input.path));
        }
        throw InvalidArgument(
            error_msg("{0} and {1} name the same file '{2}' (in {3}): an output never replaces an input", input.option,
                      output, input.path, input.directory));
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
