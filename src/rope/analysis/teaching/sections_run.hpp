/// @file
/// `rope sections` as one call (the report pattern of check_run.hpp): which pair turns with which position
/// axis, docs/multi-axis.md §1. For M-RoPE, HF's chunked (A2) and interleaved (A3) maps of the same sections, a
/// model's own map (ERNIE-4.5-VL (A8), Bailing (A9)) and llama.cpp's MROPE and IMROPE (A4) of four slots; for a
/// vision tower (§6), its 2-D map beside the other implementations' at the same d and base.
#pragma once

#include <Eigen/Core>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/teaching/axes_grid.hpp"
#include "rope/core/message.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/vision_rope.hpp"

namespace rope {

/// Qwen3-VL's text model (data/models/qwen3-vl-8b.json): the d and base of `rope sections` with no model.
inline constexpr int kDefaultSectionsDim = 128;
inline constexpr double kDefaultSectionsBase = 5e6;
/// Pixtral-12B's vision tower (HF PixtralVisionConfig: head_dim 64): the d of a vision tower with no model.
inline constexpr int kDefaultVisionDim = 64;

struct SectionsRequest {
  ModelRope rope;        ///< the model's RoPE, resolved once; plain: the d and base alone
  std::string sections;  ///< "24,20,20" or "t,h,w,e" as typed; empty: the model's, else Qwen3-VL's 24,20,20
  /// A latent grid of frames × rows × columns (--grid): which pairs turn two patches of one row apart, under the
  /// model's own map, else Qwen3-VL's interleave (A3) of the sections (axes_grid.hpp).
  std::optional<std::array<int, 3>> grid;
  std::array<int, 3> patch{0, 0, 0};  ///< the grid's first patch (frame, row, column)
  int walk = 0;                       ///< cells of the grid walked for a GIF (axes_grid.hpp)
};

/// One M-RoPE map: its CSV column, the name of its pattern line and its figure label.
struct SectionsMap {
  AxisMap map;
  std::string column;  ///< "chunked", "interleaved", "ernie_3d", "bailing", "openpangu", "llama_cpp_mrope", …
  Message pattern;     ///< "chunked:", "MROPE:", … before its pattern line
  Message label;       ///< "chunked (A2): Qwen2-VL, Qwen2.5-VL, …" in the figure
};

/// Where the sections come from.
enum class SectionsFrom { QwenDefault, Typed, Model };

struct SectionsRun {
  RopeSpec spec;  ///< the resolved spec: its name, base, frequencies and (a model's) axes
  bool vision = false;

  // A vision tower (vision): its kind and the six implementations' pairs at its d and base.
  VisionRope chosen = VisionRope::Qwen2VL;
  std::vector<VisionPairs> towers;

  // M-RoPE (not vision).
  Eigen::VectorXd theta;      ///< the frequencies (λ_j = 2π/θ_j)
  std::vector<int> sections;  ///< the pairs per axis t, h, w (, e), in Qwen's order t, h, w
  SectionsFrom from = SectionsFrom::QwenDefault;
  bool model_map = false;  ///< the model's own map is one of `maps` (the figure marks it: `marked`)
  std::optional<std::size_t> marked;
  std::optional<AxisMap> ernie;     ///< ERNIE-4.5-VL's map (A8) of its sections (h, w, t)
  std::optional<AxisMap> bailing;   ///< Bailing's map (A9) of its sections (t, h, w)
  std::optional<AxisMap> pangu;     ///< openPangu-VL's greedy map (A10) of its sections (t, h, w)
  int pangu_differs = -1;           ///< the first pair where (A10) leaves Qwen3-VL's (A3) of the same sections
  bool four = false;                ///< four sections: llama.cpp's slots
  bool hf = false;                  ///< HF's maps apply: three sections (or a fourth 0) adding up to d/2
  std::vector<int> ggml_sections;   ///< the four slots as a converted GGUF has them
  AxisMap mrope, imrope;            ///< llama.cpp's maps (A2) modulo Σs and (A4)
  std::vector<SectionsMap> maps;    ///< top to bottom: HF's, the model's own, llama.cpp's (four sections)
  std::optional<AxesGridRun> grid;  ///< with a grid requested: under maps[grid_map]
  std::size_t grid_map = 0;

  int pairs() const { return static_cast<int>(theta.size()); }
};

/// @throws InvalidArgument for sections typed for a vision tower, a section that is not a whole number in
/// 0 … 65536, other than 3 or 4 sections (typed or the model's), maps that do not fit the pairs; a grid for a vision
/// tower or for llama.cpp's four slots alone, or one axes_grid.hpp refuses.
SectionsRun run_sections(const SectionsRequest& request);

}  // namespace rope
