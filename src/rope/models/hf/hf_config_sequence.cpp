#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/models/hf/hf_config.hpp"

// The rules by which a Qwen-VL model lays out the position ids of a text + image + video sequence
// (docs/multi-axis.md §2, (Q1)–(Q4)), from its vision_config as HF's get_rope_index reads them:
//   Qwen2-VL (modeling_qwen2_vl.py): vision_config.spatial_merge_size (Qwen2VLVisionConfig default 2); the
//     time index is the frame index;
//   Qwen2.5-VL (modeling_qwen2_5_vl.py): the same and vision_config.tokens_per_second (Qwen2_5_VLVisionConfig
//     default 4; the 7B's config.json says 2) for (Q3);
//   Qwen3-VL (modeling_qwen3_vl.py): spatial_merge_size (Qwen3VLVisionConfig default 2); a video is split into
//     its frames (grid 1×H×W each), separated by timestamp text tokens.
//   Bailing (Ling/Ming VL, model_type bailing_moe_v3_vl; sglang python/sglang/srt/layers/rotary_embedding/
//     bailing_mrope.py @ 3176746068, bailing_3drope_get_input_positions_tensor): vision_config.spatial_merge_size
//     (read without a default there: 2 assumed when absent, said so), and the language model's
//     use_interleaved_frame_timestamp (default False) splitting a video into frames as Qwen3-VL does; rule (B1).
//   openPangu-VL (a config whose rope_type is openpangu; vLLM vllm/model_executor/models/openpangu_vl.py @ 00d1d4c552,
//     get_mrope_input_positions): vision_config.spatial_merge_size (read without a default: 2 assumed when absent,
//     said so) and getattr(vision_config, "tokens_per_second", 1.0); rule (P1).
//   HunyuanVL (model_type hunyuan_vl; vLLM vllm/model_executor/models/hunyuan_vision.py @ 1c1b86e166,
//     get_xdrope_input_positions): vision_config.spatial_merge_size (HunYuanVLVisionConfig default 2, HF
//     modular_hunyuan_vl.py @ 17963211f4); the four streams (X1).

namespace rope::detail {

void ConfigParser::read_sequence_positions() {
  const auto type = r_.string(doc_, "", "model_type").value_or("");
  const bool bailing = type == "bailing_moe_v3_vl";
  const bool pangu = m_.mrope && m_.mrope->order == SectionOrder::PanguGreedy;
  const bool xdrope = type == "hunyuan_vl";
  if (type != "qwen2_vl" && type != "qwen2_5_vl" && type != "qwen3_vl" && !bailing && !pangu && !xdrope) return;
  try {
    const json* v = r_.object(doc_, "", "vision_config");
    SequencePositions s;
    const auto from = [&](const char* key, const std::string& value, bool in_file) {
      s.origin.push_back(in_file ? msg("{0}: {1} (vision_config.{2})", key, value, key)
                                 : msg("{0}: {1} (not in the file: the vision config class's default)", key, value));
    };
    const auto merge = v ? r_.count(*v, "vision_config", "spatial_merge_size") : std::nullopt;
    if (merge && *merge > kMaxMergeSize) {
      r_.fail("vision_config.spatial_merge_size", fmt::format("must be at most {}, got {}", kMaxMergeSize, *merge));
    }
    s.rules.spatial_merge_size = merge.value_or(2);
    if (pangu && !merge) {
      s.origin.push_back(
          msg("{0}: {1} (not in the file: assumed, as every Qwen-VL config says; vLLM's openpangu_vl.py reads "
              "vision_config.{0} without a default)",
              "spatial_merge_size", s.rules.spatial_merge_size));
    } else if (bailing && !merge) {
      s.origin.push_back(
          msg("{0}: {1} (not in the file: assumed, as every Qwen-VL config says; sglang reads "
              "vision_config.{0} without a default)",
              "spatial_merge_size", s.rules.spatial_merge_size));
    } else {
      from("spatial_merge_size", std::to_string(s.rules.spatial_merge_size), merge.has_value());
    }
    if (bailing) {
      s.rules.bailing = true;
      const auto frames = r_.boolean(*cfg_, prefix_, "use_interleaved_frame_timestamp");
      s.frames_with_timestamps = frames.value_or(false);
      s.family = "Bailing";
      m_.sequence_positions = s;
      return;
    }
    if (xdrope) {
      s.rules.xdrope = true;
      s.family = "HunyuanVL";
      m_.sequence_positions = s;
      return;
    }
    if (pangu) {
      const auto tps = v ? r_.positive(*v, "vision_config", "tokens_per_second") : std::nullopt;
      if (tps && *tps > kMaxTimeScale) {
        r_.fail("vision_config.tokens_per_second",
                fmt::format("must be at most {:g}, got {}", kMaxTimeScale, num(*tps)));
      }
      s.rules.pangu = true;
      s.rules.tokens_per_second = tps.value_or(1.0);
      s.origin.push_back(tps ? msg("{0}: {1} (vision_config.{2})", "tokens_per_second", num(*tps), "tokens_per_second")
                             : msg("{0}: {1} (not in the file: vLLM's getattr(vision_config, \"{0}\", 1.0))",
                                   "tokens_per_second", num(1.0)));
      s.family = "openPangu-VL";
      m_.sequence_positions = s;
      return;
    }
    if (type == "qwen2_5_vl") {
      const auto tps = v ? r_.positive(*v, "vision_config", "tokens_per_second") : std::nullopt;
      if (tps && *tps > kMaxTimeScale) {
        r_.fail("vision_config.tokens_per_second",
                fmt::format("must be at most {:g}, got {}", kMaxTimeScale, num(*tps)));
      }
      s.rules.tokens_per_second = tps.value_or(4.0);
      from("tokens_per_second", num(*s.rules.tokens_per_second), tps.has_value());
    }
    s.frames_with_timestamps = type == "qwen3_vl";
    s.family = type == "qwen2_vl" ? "Qwen2-VL" : type == "qwen2_5_vl" ? "Qwen2.5-VL" : "Qwen3-VL";
    m_.sequence_positions = s;
  } catch (const InvalidArgument& e) {
    m_.sequence_positions_error = e.what();  // the language model is still read; rope positions reports this
  }
}

}  // namespace rope::detail
