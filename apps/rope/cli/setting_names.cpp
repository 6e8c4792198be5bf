#include "rope/cli/setting_names.hpp"

namespace rope::cli {

namespace {

struct SettingName {
  std::string_view setting;
  const char* shown;
};

/// Settings whose option is not "--" and the setting's name with '-' for '_'.
constexpr SettingName kSpecial[] = {
    {"original_max_position_embeddings", "--original-max-position"},
    {"positions_csv", "rope positions --csv"},
    {"scaling_methods", "rope --scaling"},  // the methods of --scaling, which every command with a model takes
};

}  // namespace

std::string option_for_setting(std::string_view setting) {
  // "name=": a value to give (the Python module shows its keyword "name="), the option alone on the command line.
  if (!setting.empty() && setting.back() == '=') setting.remove_suffix(1);
  for (const SettingName& s : kSpecial) {
    if (s.setting == setting) return s.shown;
  }
  std::string out;
  // "command.name": another command's option ("inspect.list" → "rope inspect --list").
  if (const auto dot = setting.find('.'); dot != std::string_view::npos) {
    out = "rope " + std::string(setting.substr(0, dot)) + " ";
    setting.remove_prefix(dot + 1);
  }
  out += "--";
  for (const char c : setting) out += c == '_' ? '-' : c;
  return out;
}

}  // namespace rope::cli
