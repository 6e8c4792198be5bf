#include "rope/cli/dump_options.hpp"

#include <CLI/CLI.hpp>

#include "rope/cli/options.hpp"

namespace rope::cli {

void add_dump_options(CLI::App& app, DumpOptions& o, bool axis_positions, bool after) {
  app.add_option("--before", o.before, "the tensor before RoPE: .npy, .safetensors, .pt (torch.save) or .csv")
      ->required()
      ->type_name("FILE");
  if (after)
    app.add_option("--after", o.after, "the same tensor after RoPE, same shape")->required()->type_name("FILE");
  app.add_option(
         "--positions", o.positions,
         "position of each sequence index: a range A:B or A:B:STEP, a list 0,1,5, or a file (@FILE or its path: "
         ".npy, safetensors or text; [seq], [batch, seq] or [3, batch, seq]) (default 0:seq)")
      ->type_name("POS");
  app.add_option(
         "--sequence-starts", o.sequence_starts,
         "packed sequences: the index where each starts (cu_seqlens), a list 0,128 or a file; positions restart "
         "at each unless --positions gives them")
      ->type_name("STARTS");
  if (axis_positions) {
    app.add_option("--axis-positions", o.axis_positions,
                   "M-RoPE and other multi-axis RoPE: the position of each sequence index per axis, a CSV whose "
                   "header names the axes (read by their names: t,h,w; p,w,h,t; t,h,w,e; h,w; rope positions --csv "
                   "writes one), rows of numbers without a header, or a tensor file of [3, seq] or [3, batch, seq] "
                   "(HF's position_ids, .npy); instead of --positions")
        ->type_name("FILE");
    add_real_option(app, "--rope-delta", o.rope_delta, 0.0,
                    "M-RoPE decoding: --positions gives the tokens' sequence indices, each rotated at index + D on "
                    "t, h and w (rope positions --decode prints D, HF's rope_deltas)")
        ->type_name("D")
        ->default_str("");
  }
  app.add_option("--axes", o.axes, "axes of the shape: seq,d | seq,heads,d | batch,heads,seq,d | batch,seq,heads,d")
      ->type_name("AXES");
  app.add_option("--tensor", o.tensor,
                 "safetensors or torch.save (.pt): the tensor to read from each file, nested keys joined with dots "
                 "(layers.0.q) (default: the only one)")
      ->type_name("NAME");
  app.add_option("--before-tensor", o.before_tensor, "the tensor of --before's file (over --tensor)")
      ->type_name("NAME");
  if (after) {
    app.add_option("--after-tensor", o.after_tensor, "the tensor of --after's file (over --tensor)")->type_name("NAME");
  }
  app.add_option("--positions-tensor", o.positions_tensor,
                 "the tensor of the --positions file (safetensors or torch.save) holding the positions")
      ->type_name("NAME");
  app.add_flag("--bf16-bits", o.bf16_bits, ".npy 16-bit integers (<u2, <i2) are bfloat16 bit patterns");
}

}  // namespace rope::cli
