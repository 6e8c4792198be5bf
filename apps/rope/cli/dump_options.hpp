/// @file
/// The options `rope check`, `diff` and `identify` share: the two dumps (--before, --after), their positions,
/// axes, the safetensors tensor name and --bf16-bits, bound to the library's DumpFiles (analysis/check/dump_files.hpp,
/// which reads them; report/dump_text.hpp names them in a report).
#pragma once

#include "rope/analysis/check/dump_files.hpp"
#include "rope/cli/lang.hpp"
#include "rope/report/dump_text.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace rope::cli {

/// The files of a dump pair, as the shared options fill them.
using DumpOptions = DumpFiles;

/// Adds the shared options; `axis_positions` adds --axis-positions too (rope check, for M-RoPE); without
/// `after` the command names its outputs itself (rope diff's --after-a and --after-b).
void add_dump_options(CLI::App& app, DumpOptions& options, bool axis_positions = false, bool after = true);

}  // namespace rope::cli
