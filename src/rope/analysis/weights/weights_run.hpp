/// @file
/// `rope weights REFERENCE CANDIDATE` as one call (docs/weights.md): every layer's q and k (weights and biases,
/// each its own entry) of two checkpoints of one model compared, the row permutation between them named from the
/// catalog (weights_catalog.hpp, matched by weights_match.hpp), and held to what the candidate's engine expects.
///
/// The expectation comes from the two sides' resolved RoPE (models/resolve.hpp: the family table's layout of a
/// Hugging Face model_type, llama.cpp's rope type of a GGUF architecture, NORM pairing adjacent rows): the rows of a
/// half-paired side must be permuted hf-to-gguf for an interleaved-pairing engine, gguf-to-hf the other way, and
/// left alone (identity) where both pair alike (NEOX families; Llama 4 and DeepSeek-2/3, interleaved in Hugging
/// Face, which llama.cpp's converter never permutes: conversion/llama.py Llama4Model.undo_permute = False,
/// conversion/deepseek.py DeepseekV2Model).
///
/// Memory: one layer's q and k of both sides at a time (read_weight), the correlation one head block (d × d) at a
/// time; tensors that are not q or k are counted and left alone.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/weights/weights_match.hpp"
#include "rope/core/message.hpp"
#include "rope/core/types.hpp"
#include "rope/models/hf/hf_fused_qkv.hpp"

namespace rope {

/// At most this many layers (a checkpoint's block count; DeepSeek-V3 has 61, the largest dense models about 130).
inline constexpr long kMaxWeightLayers = 4096;

struct WeightsRequest {
  std::string reference;
  std::string candidate;
  /// A config.json or GGUF that says the model for a side that has none beside it (a single .safetensors file).
  std::string config;
  /// The heat map's head block: its layer, head and tensor (k when `key`); nullopt: no heat map.
  std::optional<long> heatmap_layer;
  long heatmap_head = 0;
  bool heatmap_key = false;
};

/// One side as rope read it.
struct WeightSide {
  std::string path;
  bool gguf = false;
  std::string config;            ///< the file its model was read from
  bool config_borrowed = false;  ///< from the other side or the request's config, not beside it
  std::string model;             ///< model_type or general.architecture
  Layout layout = Layout::Half;  ///< the pairing of its rows (GGUF NORM: interleaved; NEOX: half)
  Message layout_reason;         ///< why: "model family llama", …
  long n_head = 0;
  long n_head_kv = 0;
  std::vector<std::string> dtypes;  ///< the types of its q/k tensors, distinct, in first-seen order
  /// How its family's fused q/k/v tensor is split (Hugging Face side of a family with fused_qkv); its n_head_kv
  /// is the side's.
  std::optional<FusedQkvSplit> fused;
};

struct WeightsTensor {
  std::string name;            ///< the candidate's
  std::string reference_name;  ///< the reference's
  long layer = 0;
  char kind = 'q';  ///< 'q' or 'k'
  bool bias = false;
  long rows = 0, cols = 0, heads = 1;
  std::string reference_dtype, candidate_dtype;
  WeightMatch match;
  WeightMap expected = WeightMap::Identity;
  /// The expected map, and it explains the candidate's rows (WeightMatch::explained).
  bool ok() const { return match.map == expected && match.explained; }
};

struct WeightsRun {
  WeightSide reference, candidate;
  WeightMap expected = WeightMap::Identity;  ///< from the two sides' pairings
  std::vector<WeightsTensor> tensors;        ///< by layer, q before k, weight before bias
  long other_tensors = 0;                    ///< tensors of the candidate that are not q or k: left alone
  /// The heat map's correlation (d × d) and which block it is.
  std::optional<Eigen::MatrixXd> heatmap;
  std::string heatmap_tensor;
  long heatmap_head = 0;
  bool passed() const;
};

/// Opens both checkpoints, resolves both models once, pairs their q/k tensors by layer and compares them, one
/// layer at a time.
/// @throws InvalidArgument for a side without a model (no config.json and no `config`), a q/k tensor on one side
///         only, shapes that differ, a fused qkv tensor, no q/k tensor at all, a heat map block that is not there, a
///         q/k tensor holding a value that is not a finite number (named with its element), a `config` neither side
///         needs (both have their own: it would be ignored);
///         IoError from the files.
WeightsRun run_weights(const WeightsRequest& request);

}  // namespace rope
