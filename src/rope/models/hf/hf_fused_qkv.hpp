/// @file
/// A Hugging Face checkpoint's fused q/k/v tensor (`query_key_value`) split as its family's modeling code splits
/// it: the family table's fused_qkv column (data/families.json, family_table.hpp) says which row layout the
/// tensor has under which config key, and how many KV heads it holds; this reads the keys from config.json.
#pragma once

#include <optional>
#include <string>

#include "rope/models/families/family_table.hpp"

namespace rope {

/// The split a checkpoint's config chooses from its family's rules.
struct FusedQkvSplit {
  std::string tensor;  ///< the fused tensor's name part, "query_key_value"
  FusedQkvLayout layout = FusedQkvLayout::Stacked;
  long n_head = 0;
  long n_head_kv = 0;
  std::string rule;    ///< the config key whose rule chose the layout; empty: the family's rule without a condition
  std::string source;  ///< the modeling code the layout was read from
};

/// Where q's (or k's) rows lie in a fused tensor of `head_rows` rows a head: `groups` blocks of `group_rows` rows,
/// each holding `rows` of them from its row `offset` (a stacked tensor is one block).
struct FusedRows {
  long groups = 1;
  long group_rows = 0;
  long offset = 0;
  long rows = 0;
};

/// q's rows (`key` false) or k's of `split` with heads of `head_rows` rows.
FusedRows fused_rows(const FusedQkvSplit& split, long head_rows, bool key);

/// The split of model_type's fused q/k/v under the config at `config_path` (a config.json; `n_head` its query
/// heads), or nullopt for a family without one in the table.
/// @throws InvalidArgument when a rule's key is not true or false, or a KV head count is not a whole number >= 1
///         that divides n_head (naming the file and the key); IoError when the file cannot be read.
std::optional<FusedQkvSplit> hf_fused_qkv_split(const std::string& config_path, const std::string& model_type,
                                                long n_head);

}  // namespace rope
