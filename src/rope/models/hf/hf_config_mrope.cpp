#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/hf/hf_config.hpp"

// The multimodal sections of a vision-language model's config (docs/multi-axis.md §1): Qwen2-VL and
// Qwen2.5-VL write "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]} (HF's
// configuration_qwen2_vl.py rewrites the type to default and keeps the sections); Qwen3-VL writes
// "rope_scaling": {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true} in
// text_config. The modeling code uses the sections whatever rope_type says (modeling_qwen2_vl.py,
// modeling_qwen3_vl.py), so rope does too.

namespace rope::detail {

/// HunyuanVL's XD-RoPE (docs/multi-axis.md (A11)): rope_scaling.xdrope_section, four streams p, w, h, t, read as HF's
/// HunYuanVLDenseV1Attention reads it (_normalize_xdrope_section: whole pairs summing to head_dim / 2, or ratios);
/// HF's map by default, Tencent's by the override (resolve.cpp). No xdrope_section: one position, plain RoPE.
void ConfigParser::read_xdrope(const ModelFamily& family) {
  const json* s = scaling_.dict;
  const json* v = s ? Reader::find(*s, "xdrope_section") : nullptr;
  if (!v) return;
  const std::string path = child(scaling_.path, "xdrope_section");
  if (!v->is_array()) r_.fail(path, fmt::format("expected a list of numbers, got {}", v->type_name()));
  std::vector<double> values;
  for (std::size_t i = 0; i < v->size() && i <= 64; ++i)
    values.push_back(r_.number_value((*v)[i], fmt::format("{}[{}]", path, i)));
  MropeSections sections;
  sections.order = SectionOrder::XdropeHf;
  try {
    sections.sections = xdrope_pairs(values, head_dim_, sections.order, path);
    (void)make_axis_map(sections, d_ / 2);
  } catch (const InvalidArgument& e) {
    r_.fail(path, e.what());
  }
  m_.mrope = sections;
  const std::string list = fmt::format("[{}]", fmt::join(sections.sections, ", "));
  origin("xdrope_section", list, path);
  note(
      msg("HunyuanVL's XD-RoPE: xdrope_section {0} pairs per stream p, w, h, t; in prefill every channel turns with "
          "one of the token's four positions, by HF's map ({1}: the doubled sections, so the two channels of a pair "
          "may read two streams) unless Tencent's is asked for (docs/multi-axis.md (A11)); decoding turns every pair "
          "with p alone, and a text token has one position on every stream",
          list, family.mrope_source));
}

void ConfigParser::read_mrope() {
  if (const ModelFamily* xd = find_model_family(m_.model_type); xd && xd->mrope_order == "xdrope") {
    read_xdrope(*xd);
    return;
  }
  // The family's code may fix the map whatever the keys say (family table mrope_order): Qwen3.5 always
  // interleaves (A3), ERNIE-4.5-VL has its own 3-D map (A8); both have sections of their own when the config
  // gives none (mrope_section_default).
  const ModelFamily* family = find_model_family(m_.model_type);
  const bool family_interleaves = family && family->mrope_order == "interleaved";
  const bool ernie = family && family->mrope_order == "ernie_3d";
  // Bailing (Ling/Ming, docs/multi-axis.md (A9)): the VL wrapper keeps mrope_section at its top level and copies it
  // into the language model's rope_parameters (sglang python/sglang/srt/configs/bailing_hybrid.py, a stored version
  // newer than d97eb111a3 whose commit the index did not name: BailingMoeV3VLConfig and _normalize_mrope_parameters,
  // "adapted from inclusionAI/Ling-3.0-flash @ 51fd444268 configuration_bailing_moe_v3.py"); its default
  // [12, 10, 10] is the wrapper class's.
  const bool bailing = family && family->mrope_order == "bailing";
  const json* s = scaling_.dict;
  std::string p = scaling_.path;
  const json* v = s ? Reader::find(*s, "mrope_section") : nullptr;
  const bool wrapped = cfg_ != &doc_;
  if (bailing && !v && wrapped) {
    if ((v = Reader::find(doc_, "mrope_section"))) p = "";
  }
  const auto interleaved = s ? r_.boolean(*s, p, "mrope_interleaved") : std::nullopt;
  // openPangu-VL (docs/multi-axis.md (A10)): rope_type openpangu, which vLLM's get_rope (rotary_embedding/__init__.py,
  // read at 07b12f1b16) accepts only with mrope_section and a true mrope_interleaved ("Pangu mrope interleaved lacks
  // necessary parameters mrope_section or mrope_interleaved.").
  const auto rope_type = s ? r_.string(*s, p, "rope_type") : std::nullopt;
  const bool pangu = rope_type == std::optional<std::string>("openpangu");
  if (pangu && (!v || !interleaved.value_or(false))) {
    r_.fail(
        child(p, v ? "mrope_interleaved" : "mrope_section"),
        "rope_type openpangu needs mrope_section and mrope_interleaved true (vLLM raises a ValueError without them)");
  }
  MropeSections sections;
  const std::string path = child(p, "mrope_section");
  if (v) {
    if (!v->is_array()) r_.fail(path, fmt::format("expected a list of whole numbers, got {}", v->type_name()));
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& x = (*v)[i];
      const std::string item = fmt::format("{}[{}]", path, i);
      const double value = r_.number_value(x, item);
      if (!(value >= 0 && value <= 65536) || value != std::floor(value)) {
        r_.fail(item, fmt::format("expected a whole number in 0 … 65536, got {}", num(value)));
      }
      sections.sections.push_back(static_cast<int>(value));
    }
  } else if ((family_interleaves || ernie || (bailing && wrapped)) && !family->mrope_section_default.empty()) {
    sections.sections = family->mrope_section_default;
  } else {
    if (interleaved) {
      note(msg("{0}.mrope_interleaved without mrope_section: ignored (no sections to interleave)", p));
    }
    return;
  }
  sections.order = ernie                                               ? SectionOrder::Ernie3d
                   : bailing                                           ? SectionOrder::Bailing
                   : pangu                                             ? SectionOrder::PanguGreedy
                   : family_interleaves || interleaved.value_or(false) ? SectionOrder::Interleaved
                                                                       : SectionOrder::Chunked;
  try {
    (void)make_axis_map(sections, d_ / 2);
  } catch (const InvalidArgument& e) {
    r_.fail(path, e.what());
  }
  m_.mrope = sections;
  const std::string list = fmt::format("[{}]", fmt::join(sections.sections, ", "));
  if (v) {
    origin("mrope_section", list, path);
  } else if (bailing) {
    origin("mrope_section", list, msg("the default of {0} (inclusionAI remote code)", "BailingMoeV3VLConfig"));
  } else {
    origin("mrope_section", list, msg("HF {0} default", family->config_class));
  }
  if (ernie) {
    note(msg(
        "{0}: 3-D RoPE, mrope_section {1} read as (h, w, t): the fastest {2} pairs alternate height and width, the "
        "slowest {3} turn with the time (docs/multi-axis.md (A8), {4}); a text token has the same position on every "
        "axis, so for text the frequencies are plain RoPE's",
        m_.model_type, list, sections.sections[0] + sections.sections[1], sections.sections[2], family->mrope_source));
    return;
  }
  if (bailing) {
    note(msg(
        "{0}: Bailing M-RoPE, mrope_section {1} read as (t, h, w): the fastest {2} pairs alternate height and "
        "width, the slowest {3} turn with the time (docs/multi-axis.md (A9), {4}); a text token has the same "
        "position on every axis, so for text the frequencies are plain RoPE's",
        m_.model_type, list, sections.sections[1] + sections.sections[2], sections.sections[0], family->mrope_source));
    return;
  }
  if (pangu) {
    origin("mrope_interleaved", "true", child(p, "mrope_interleaved"));
    const AxisMap own = make_axis_map(sections, d_ / 2);
    const int differs =
        first_differing_pair(own, make_axis_map({sections.sections, SectionOrder::Interleaved}, d_ / 2));
    note(
        differs < 0
            ? msg("openPangu-VL's interleaved M-RoPE (vLLM, rope_type openpangu): mrope_section {0} laid out greedily, "
                  "each pair on the axis placed least so far, never the previous one, the last pair on t "
                  "(docs/multi-axis.md (A10)); with these sections it is Qwen3-VL's interleaved order (A3) on every "
                  "pair",
                  list)
            : msg("openPangu-VL's interleaved M-RoPE (vLLM, rope_type openpangu): mrope_section {0} laid out greedily, "
                  "each pair on the axis placed least so far, never the previous one, the last pair on t "
                  "(docs/multi-axis.md (A10)); it is Qwen3-VL's interleaved order (A3) on pairs 0 … {1} and parts "
                  "from it at pair {2} ({3} here, {4} in Qwen3-VL's)",
                  list, differs - 1, differs, axis_letter(own.pair_axis[static_cast<std::size_t>(differs)]),
                  axis_letter(make_axis_map({sections.sections, SectionOrder::Interleaved}, d_ / 2)
                                  .pair_axis[static_cast<std::size_t>(differs)])));
    return;
  }
  if (family_interleaves && interleaved != std::optional<bool>(true)) {  // the key agrees: cited below
    origin("mrope_interleaved", "true",
           msg("HF {0}: the code always interleaves the sections ({1})", family->config_class, family->mrope_source));
    if (interleaved == std::optional<bool>(false)) {
      note(msg("{0}.mrope_interleaved false: ignored, {1}'s code interleaves the sections whatever it says ({2})", p,
               m_.model_type, family->mrope_source));
    }
  } else if (interleaved) {
    origin("mrope_interleaved", *interleaved ? "true" : "false", child(p, "mrope_interleaved"));
  }
  const bool inter = sections.order == SectionOrder::Interleaved;
  // Two sentences rather than one with "interleaved" / "in chunks" as a value: the Chinese puts an adverb there.
  note(
      inter
          ? msg("M-RoPE: every pair turns with the time, height or width position of the token, by mrope_section {0} "
                "interleaved (docs/multi-axis.md (A1), (A3)); a text token has the same position on every axis, so for "
                "text the frequencies are plain RoPE's",
                list)
          : msg("M-RoPE: every pair turns with the time, height or width position of the token, by mrope_section {0} "
                "in chunks (docs/multi-axis.md (A1), (A2)); a text token has the same position on every axis, so for "
                "text the frequencies are plain RoPE's",
                list));
}

}  // namespace rope::detail
