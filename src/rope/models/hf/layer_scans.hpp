/// @file
/// The work of read_layer_types counted (hf_config_layers.cpp): the passes it has made over a config's list of
/// layers to find each name's layers, in this process. One per parse whatever the number of names: tests bound the
/// work of a parse by it.
#pragma once

namespace rope::detail {

long layer_scans();

}  // namespace rope::detail
