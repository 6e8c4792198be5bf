#include "rope/cli/help_formatter.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace rope::cli {

namespace {

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    std::string out;
    if (opt->get_type_size() != 0) {
      if (!opt->get_type_name().empty()) out += " " + get_label(opt->get_type_name());
      const bool repeatable = opt->get_expected_max() == CLI::detail::expected_max_vector_size;
      const std::string& shown = opt->get_default_str();
      const bool show_default = !shown.empty() && !opt->get_required();
      if (repeatable) {
        out += " ...";
        if (show_default) out += " (default: " + shown + ")";
      } else {
        if (show_default) out += "=" + shown;
        if (opt->get_expected_min() > 1) out += " x " + std::to_string(opt->get_expected());
      }
      if (opt->get_required()) out += " " + get_label("REQUIRED");
    }
    if (!opt->get_needs().empty()) {
      out += " " + get_label("Needs") + ":";
      for (const CLI::Option* other : opt->get_needs()) out += " " + other->get_name();
    }
    if (!opt->get_excludes().empty()) {
      out += " " + get_label("Excludes") + ":";
      for (const CLI::Option* other : opt->get_excludes()) out += " " + other->get_name();
    }
    return out;
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> make_help_formatter() { return std::make_shared<HelpFormatter>(); }

}  // namespace rope::cli
