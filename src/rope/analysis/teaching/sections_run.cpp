#include "rope/analysis/teaching/sections_run.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/io/csv.hpp"

namespace rope {

namespace {

std::vector<int> parse_sections_list(const std::string& text) {
  std::vector<int> out;
  for (double x : parse_real_list(text, option_name("sections"))) {
    if (!(x >= 0 && x <= 65536) || x != std::floor(x)) {
      throw InvalidArgument(error_msg("{0}: every section is a whole number in 0 … 65536 (got {1})",
                                      option_name("sections"), format_number(x)));
    }
    out.push_back(static_cast<int>(x));
  }
  return out;
}

SectionsRun vision_sections(const SectionsRequest& request) {
  SectionsRun run;
  run.spec = request.rope.spec;
  run.vision = true;
  run.chosen = parse_vision_rope(run.spec.axes->vision_kind);
  for (VisionRope k : {VisionRope::Qwen2VL, VisionRope::LlamaCpp, VisionRope::Pixtral, VisionRope::Llama4,
                       VisionRope::Axial, VisionRope::Gemma4}) {
    run.towers.push_back(vision_pairs(k, run.spec.rotary_dim, run.spec.config.base));
  }
  return run;
}

/// The grid of the request under the model's own map, else Qwen3-VL's interleave (A3), HF's second map.
void add_grid(SectionsRun& run, const SectionsRequest& request) {
  if (!request.grid) return;
  if (run.marked) {
    run.grid_map = *run.marked;
  } else if (run.hf) {
    run.grid_map = 1;  // interleaved (A3)
  } else {
    throw InvalidArgument(
        error_msg("{0} reads HF's maps of three sections t,h,w; llama.cpp's four slots [{1}] have none",
                  option_name("grid"), fmt::format("{}", fmt::join(run.sections, ", "))));
  }
  AxesGridRequest g;
  g.rope = request.rope;
  g.map = run.maps[run.grid_map].map;
  g.frames = (*request.grid)[0], g.rows = (*request.grid)[1], g.columns = (*request.grid)[2];
  g.patch = request.patch;
  g.walk = request.walk;
  run.grid = run_axes_grid(g);
}

}  // namespace

SectionsRun run_sections(const SectionsRequest& request) {
  const ModelRope& rope = request.rope;
  if (request.grid && !rope.plain && rope.spec.axes && rope.spec.axes->vision()) {
    throw InvalidArgument(
        error_msg("{0}: a vision tower's patch has a row and a column, no frame: the grid reads three "
                  "axes t,h,w",
                  option_name("grid")));
  }
  if (!rope.plain && rope.spec.axes && rope.spec.axes->vision()) {
    if (!request.sections.empty()) {
      throw InvalidArgument(
          error_msg("{0}: a vision tower's map is fixed by its implementation ({1}, {2} vision); it reads no sections",
                    option_name("sections"), option_name("vision"), option_name("tower")));
    }
    return vision_sections(request);
  }
  SectionsRun run;
  run.spec = rope.spec;
  run.theta = rope.spec.params.inv_freq;
  const int pairs = run.pairs();
  std::vector<int> sections{24, 20, 20};
  const AxisMap* model_map = nullptr;  // the model's own map, marked in the figure
  if (!rope.plain && rope.spec.axes) {
    sections = rope.spec.axes->source.sections;
    run.from = SectionsFrom::Model;
    model_map = &*rope.spec.axes;
  }
  if (model_map && model_map->grid() && request.sections.empty()) {
    // A diffusion transformer's latent grid (models/grid_rope.hpp): its own map alone, the pairs of each axis; no
    // other map reads its widths (each axis its own ladder, LTX's axes in turn per frequency).
    run.sections = model_map->source.sections;
    run.model_map = true;
    run.ggml_sections = run.sections;
    run.maps.push_back(
        {*model_map, "grid", msg("latent grid:"), Message::same(fmt::format("{} (G1)", rope.spec.model_type))});
    run.marked = 0;
    add_grid(run, request);
    return run;
  }
  if (!request.sections.empty()) {
    sections = parse_sections_list(request.sections);
    run.from = SectionsFrom::Typed;
    model_map = nullptr;
  }
  // ERNIE-4.5-VL writes its sections (h, w, t) and has its own map (A8): Qwen's maps beside it get the same pairs
  // per axis in their order t, h, w.
  if (model_map && model_map->source.order == SectionOrder::Ernie3d) run.ernie = *model_map;
  if (run.ernie) sections = {sections[2], sections[0], sections[1]};
  // Bailing (Ling/Ming) writes its sections t, h, w and has its own map (A9), beside Qwen's of the same sections.
  if (model_map && model_map->source.order == SectionOrder::Bailing) run.bailing = *model_map;
  // openPangu-VL (A10) interleaves the same sections (t, h, w) by its own rule, beside Qwen3-VL's (A3).
  if (model_map && model_map->source.order == SectionOrder::PanguGreedy) run.pangu = *model_map;
  if (sections.size() != 3 && sections.size() != 4 && request.sections.empty()) {  // the model's, not the user's
    throw InvalidArgument(
        error_msg("{0}: the M-RoPE sections [{1}]: the maps need 3 sections, t,h,w (HF), or 4, t,h,w,e (llama.cpp)",
                  rope.spec.name, fmt::format("{}", fmt::join(sections, ", "))));
  }
  if (sections.size() != 3 && sections.size() != 4) {
    throw InvalidArgument(error_msg("{0} needs 3 numbers t,h,w (HF) or 4 t,h,w,e (llama.cpp) (got {1})",
                                    option_name("sections"), sections.size()));
  }
  run.sections = sections;
  run.model_map = model_map != nullptr;
  // HF's maps (A2), (A3) read three sections adding up to d/2; llama.cpp's (A2) modulo Σs and (A4) read four,
  // HF's padded with a 0 as convert_hf_to_gguf.py writes rope.dimension_sections.
  run.four = sections.size() == 4;
  run.ggml_sections = sections;
  if (!run.four) run.ggml_sections.push_back(0);
  const std::vector<int> hf_sections(sections.begin(), sections.begin() + 3);
  run.hf = !run.four || (sections[3] == 0 && hf_sections[0] + hf_sections[1] + hf_sections[2] == pairs);
  std::vector<SectionsMap>& rows = run.maps;
  if (run.hf) {
    rows.push_back({make_axis_map({hf_sections, SectionOrder::Chunked}, pairs), "chunked", msg("chunked:"),
                    msg("chunked (A2): Qwen2-VL, Qwen2.5-VL, GLM-4.1V, GLM-4.5V")});
    rows.push_back({make_axis_map({hf_sections, SectionOrder::Interleaved}, pairs), "interleaved", msg("interleaved:"),
                    msg("interleaved (A3): Qwen3-VL, Qwen3.5")});
  }
  if (run.ernie) rows.push_back({*run.ernie, "ernie_3d", msg("ERNIE 3-D:"), msg("ERNIE 3-D (A8): ERNIE-4.5-VL")});
  if (run.bailing) {
    rows.push_back({*run.bailing, "bailing", Message::same("Bailing:"), msg("Bailing (A9): Ling, Ming (vLLM)")});
  }
  if (run.pangu) {
    rows.push_back({*run.pangu, "openpangu", Message::same("openPangu:"), msg("openPangu-VL (A10): greedy (vLLM)")});
    if (run.hf) run.pangu_differs = first_differing_pair(*run.pangu, rows[1].map);
  }
  run.mrope = make_axis_map({run.ggml_sections, SectionOrder::GgmlMrope}, pairs);
  run.imrope = make_axis_map({run.ggml_sections, SectionOrder::GgmlImrope}, pairs);
  if (run.four) {
    rows.push_back({run.mrope, "llama_cpp_mrope", Message::same("MROPE:"), msg("llama.cpp MROPE (A2): qwen2vl")});
    rows.push_back({run.imrope, "llama_cpp_imrope", Message::same("IMROPE:"), msg("llama.cpp IMROPE (A4): qwen3vl")});
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (model_map && rows[r].map.source.order == model_map->source.order) run.marked = r;
  }
  add_grid(run, request);
  return run;
}

}  // namespace rope
