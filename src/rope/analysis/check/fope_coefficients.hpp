/// @file
/// FoPE's coefficients (models/fope.hpp (F2)): which ones a command computes with (fope_coefficients_for, handed the
/// checkpoint by its front end), and their reader (fope_checkpoint.cpp), for `rope check --coefficients FILE`, through
/// the reader `rope weights` uses (io/weights_file.hpp: a directory with model.safetensors or the shards of
/// model.safetensors.index.json, or a .safetensors file; headers first, then the two tensors alone).
///
/// Tensor names, as the model stores them: Intern-S1-Pro's rotary_emb buffers cos_coef and sin_coef
/// (modeling_interns1_pro.py InternS1ProMoeTextFourierEmbedding, register_buffer(..., persistent=True)) of its text
/// model, model.language_model.rotary_emb.cos_coef / .sin_coef (vLLM interns1_pro.py load_weights maps
/// model.language_model. to its language_model.model.); a text-only checkpoint's model.rotary_emb.*; else the one
/// tensor whose name ends in rotary_emb.cos_coef (rotary_emb.sin_coef).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "rope/models/fope.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

/// Largest coefficient tensor read, in elements (each of cos_coef and sin_coef): 2^22, 32 MiB as float64
/// (Intern-S1-Pro's are 4 × 45 × 45 = 8100). Checked on the header's shape before the tensor is read.
inline constexpr long kMaxFopeCoefficientElements = 1L << 22;

/// The coefficients of a FoPE of `kept` pairs: with fope.sep_head a tensor [fope.kv_heads, K, K] each; otherwise
/// [K, K], or [n, K, K] of which the first matrix serves every head (vLLM fope.py @ 151a2c744a, sin_coef[0]).
/// Defined in fope_checkpoint.cpp (a file the live page, which opens no file, leaves out): a front end's reader.
/// @throws InvalidArgument (one line naming the file, the tensor and the rule) for a missing or ambiguous tensor, a
///         shape that is not the config's, a tensor over kMaxFopeCoefficientElements, a value that is not finite;
///         IoError from the files.
FopeCoefficients read_fope_coefficients(const std::string& path, const FopeConfig& fope, int kept);

/// FoPE's checkpoint as a front end hands it to a computation: the file it names and the reader that front end
/// reads it with (read_fope_coefficients of fope_checkpoint.hpp, on the command line and in Python), which the
/// computation calls once the model's FoPE says which coefficients it needs (fope_coefficients_for: the config's
/// kept pairs and heads). The computation never opens the file itself; a front end that opens no file (the live
/// page) hands none, and a FoPE model is then refused for want of coefficients.
struct FopeCheckpoint {
  std::string path;  ///< "" when none was given
  std::function<FopeCoefficients(const std::string& path, const FopeConfig& fope, int kept)> read;
};

/// The checkpoint at `path` read by read_fope_coefficients, as the command line and the Python module hand it to a
/// computation; no path ("") hands none. Defined in fope_checkpoint.cpp with the reader.
FopeCheckpoint fope_checkpoint(const std::string& path);

/// The coefficients a command computes the model `spec` with (rope check, diff, apply, matrix): read by the front
/// end's reader from `checkpoint.path` for a model with FoPE (K of its rotary dimension and base), nullptr for a
/// model without FoPE and no path.
/// @throws InvalidArgument for a FoPE model without a path (naming the option that gives it), a path for plain RoPE
///         (`plain`) or a model without FoPE; as the reader (read_fope_coefficients).
std::shared_ptr<const FopeCoefficients> fope_coefficients_for(const RopeSpec& spec, bool plain,
                                                              const FopeCheckpoint& checkpoint);

/// The key-value heads of the FoPE model `spec` whose coefficients are `c`: num_key_value_heads, else c's matrices.
long fope_kv_heads(const RopeSpec& spec, const FopeCoefficients& c);

/// The coefficients' matrix of key-value head `kv_head` (--kv-head) of the FoPE model `spec` (models/fope.hpp (F4)):
/// its own with fope_sep_head (the coefficients holding one matrix per key-value head), the one shared (0) otherwise.
/// @throws InvalidArgument naming --kv-head: for a model without FoPE (`c` null), or a head not 0 … heads − 1.
long fope_kv_matrix(const RopeSpec& spec, const FopeCoefficients* c, long kv_head);

}  // namespace rope
