// rope_docgen: the option tables of docs/cli.md from the commands' CLI11 definitions
// (apps/rope/cli/option_tables.hpp), and the table of known variants of docs/check.md from the rows of the variant
// table (tests/docs/variant_table.hpp, the words of each variant file). A build tool, not a rope command.
//
//   rope_docgen --write FILE   rewrite FILE's generated blocks in place (`make docs`)
//   rope_docgen --print FILE   print FILE with its blocks regenerated (the tests docs.option_tables and
//                              docs.variant_table compare)
//   rope_docgen --list         every option of every command: "rope NAME<TAB>FLAGS<TAB>GROUP"
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "rope/cli/cli.hpp"
#include "rope/cli/option_tables.hpp"
#include "variant_table.hpp"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int usage() {
  std::cerr << "usage: rope_docgen --write FILE | --print FILE | --list\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 1 && args[0] == "--list") {
      rope::cli::visit_commands([](const auto& commands) { std::cout << rope::cli::option_list(commands); });
      return 0;
    }
    if (args.size() != 2 || (args[0] != "--write" && args[0] != "--print")) return usage();
    const std::string old_text = read(args[1]);
    // A page of option blocks (docs/cli.md) has every command's; a page without them keeps its text.
    std::string new_text = old_text;
    if (old_text.find("<!-- rope_docgen: options of rope ") != std::string::npos) {
      rope::cli::visit_commands(
          [&](const auto& commands) { new_text = rope::cli::update_option_tables(old_text, commands); });
    }
    new_text = rope::docs::update_variant_table(new_text);
    if (args[0] == "--print") {
      std::cout << new_text;
      return 0;
    }
    if (new_text != old_text) {
      std::ofstream out(args[1], std::ios::binary | std::ios::trunc);
      out << new_text;
      if (!out.flush()) throw std::runtime_error("cannot write " + args[1]);
    }
    std::cout << "rope_docgen: " << args[1] << (new_text == old_text ? " is up to date\n" : " rewritten\n");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "rope_docgen: " << e.what() << '\n';
    return 1;
  }
}
