/// @file
/// The command line's names for the library's settings (rope::option_name, core/message.hpp): the library
/// says "the setting float32", never a flag, and the command line shows its option, "--float32".
/// catalog.cpp installs it with the message catalog, before main.
#pragma once

#include <string>
#include <string_view>

namespace rope::cli {

/// "--" and the setting's name with '-' for '_' ("bf16_bits" → "--bf16-bits"); "command.name" another
/// command's option ("inspect.list" → "rope inspect --list"); or the few that differ ("positions_csv" →
/// "rope positions --csv").
std::string option_for_setting(std::string_view setting);

}  // namespace rope::cli
