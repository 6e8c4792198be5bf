/// @file
/// The one table of the context-extension methods: each method's canonical name (Hugging Face's
/// `rope_type`), the other names accepted for it, and the keys of the scaling block it reads and
/// requires. `--scaling NAME` on the command line and `rope_type` (or the legacy `type`) in a
/// config.json both go through it, so they accept the same names and say the same things about them.
/// docs/scaling.md has the formulas; scaling.hpp computes them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"

namespace rope {

enum class ScalingType { Default, Linear, Ntk, Dynamic, Yarn, Llama3, LongRope, Proportional };

struct RopeConfig;  // scaling.hpp

/// One row of the table.
struct ScalingMethod {
  ScalingType type;
  std::string_view name;                ///< canonical, as HF's rope_type: "yarn"
  std::vector<std::string_view> reads;  ///< keys of the scaling block the method uses; others get a warning
  std::vector<std::string_view>
      required;  ///< keys a config must give (HF raises KeyError without them), in the order checked
};

/// A name accepted besides the canonical ones.
struct ScalingAlias {
  std::string_view name;        ///< "su"
  ScalingType type;             ///< what it means: ScalingType::LongRope
  std::optional<Message> note;  ///< said wherever the name is used, when it is not a plain synonym
};

/// The methods, in the order of the enum: default, linear, ntk, dynamic, yarn, llama3, longrope, proportional.
const std::vector<ScalingMethod>& scaling_methods();
/// The other accepted names, in the order messages list them: su (= longrope), none and mrope (= default).
const std::vector<ScalingAlias>& scaling_aliases();
/// Every key a scaling block may hold for some method (the union of `reads`), in a fixed order.
const std::vector<std::string_view>& scaling_keys();

/// The row of `type`.
const ScalingMethod& scaling_method(ScalingType type);

/// Whether `config` gives the scaling key `key` (one of scaling_keys(); a list counts when it is not empty).
bool scaling_key_given(const RopeConfig& config, std::string_view key);

/// The scaling of `config` and the keys of its scaling block that it gives, with their values, for a report's
/// header: "yarn: factor 4, original_max_position_embeddings 2048", "longrope: short_factor (32 numbers), …";
/// "default" for plain RoPE.
std::string scaling_parameters(const RopeConfig& config);

/// What a name means: a canonical name or an alias, with the alias's note.
struct ScalingName {
  ScalingType type;
  std::optional<Message> note;
};
/// The method called `text` (canonical name or alias), or nothing.
std::optional<ScalingName> find_scaling_name(std::string_view text);
/// As find_scaling_name. @throws InvalidArgument "unknown scaling type 'x': expected default, linear, …,
///         longrope or proportional (also su = longrope, none = default, mrope = default)".
ScalingName parse_scaling_name(std::string_view text);

/// "default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional".
std::string_view to_string(ScalingType type);
/// parse_scaling_name(text).type. @throws InvalidArgument as parse_scaling_name.
ScalingType parse_scaling_type(std::string_view text);

/// The canonical names: "default, linear, ntk, dynamic, yarn, llama3, longrope, proportional".
std::string scaling_method_names();
/// The aliases joined by ", ": "su, none, mrope".
std::string scaling_alias_names();

}  // namespace rope
