// rope._rope.mrope_positions: the M-RoPE position ids (t, h, w) of a text + image + video sequence and the decode
// steps after it, from the library's port of Hugging Face's get_rope_index (models/mrope_positions.hpp, the
// numbers of `rope positions`), for rope.mrope_positions and the multi-axis cases of rope.testing.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "report.hpp"
#include "rope/analysis/dumps/cp_positions.hpp"
#include "rope/core/error.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/mrope_positions.hpp"
#include "rope/models/xdrope_positions.hpp"
#include "rope/report/check_ranks_report.hpp"
#include "rope/report/cp_positions_report.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"

namespace rope::python {

namespace {

/// Every rank's report merged (rope.distributed.check_ranks on rank 0), held for its faces: the JSON of
/// `rope check --merge --json` and its text in either language (report/check_ranks_report.hpp, the one renderer).
struct RanksResult {
  std::shared_ptr<const CheckRanksReport> report;
};

using SegmentTuple = std::tuple<std::string, long, long, long>;  // ("text", n, 0, 0) or ("image"/"video", T, H, W)

std::vector<Segment> segments_of(const std::vector<SegmentTuple>& given) {
  std::vector<Segment> out;
  for (const auto& [kind, a, b, c] : given) {
    Segment s;
    if (kind == "text") {
      s.kind = SegmentKind::Text;
      s.tokens = a;
      if (a < 1 || a > kMaxSequenceTokens) {
        throw InvalidArgument(
            error_msg("{0} must be between 1 and {1} tokens (got {2})", option_name("text"), kMaxSequenceTokens, a));
      }
    } else {
      s.kind = kind == "image" ? SegmentKind::Image : SegmentKind::Video;
      s.grid = parse_grid(fmt::format("{}x{}x{}", a, b, c), kind == "image" ? "image" : "video");
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace

void bind_positions(py::module_& m) {
  // (position ids [3, n] int64: the prefill then `decode` steps, rope_deltas, the prefill's length)
  m.def(
      "mrope_positions",
      [](const Spec* spec, const std::vector<SegmentTuple>& given, long decode, std::optional<long> frame_text,
         std::optional<long> merge_size) {
        const std::vector<Segment> segments = segments_of(given);
        PositionRules rules;
        if (spec != nullptr) {
          const bool has_video = std::any_of(segments.begin(), segments.end(),
                                             [](const Segment& s) { return s.kind == SegmentKind::Video; });
          rules = sequence_positions_for(spec->rope, has_video, false, frame_text.has_value()).rules;
        }
        if (merge_size) rules.spatial_merge_size = *merge_size;
        rules.frame_text = frame_text;
        if (rules.xdrope) {  // HunyuanVL (X1), (X2): [p, w, h, t] of every token, p the index (no rope_deltas: 0)
          std::vector<XdropePosition> ids = xdrope_index(segments, rules.spatial_merge_size);
          const long prefill = static_cast<long>(ids.size());
          const std::vector<XdropePosition> steps = xdrope_decode(ids.size(), ids.back().segment + 1, decode);
          ids.insert(ids.end(), steps.begin(), steps.end());
          py::array_t<long long> out({static_cast<py::ssize_t>(4), static_cast<py::ssize_t>(ids.size())});
          auto a = out.mutable_unchecked<2>();
          for (std::size_t k = 0; k < ids.size(); ++k) {
            for (int s = 0; s < 4; ++s) a(s, static_cast<py::ssize_t>(k)) = ids[k].pwht[static_cast<std::size_t>(s)];
          }
          return py::make_tuple(out, 0L, prefill);
        }
        std::vector<TokenPosition> ids = rope_index(segments, rules);
        const long prefill = static_cast<long>(ids.size());
        const long delta = rope_delta(ids);
        const std::vector<TokenPosition> steps = decode_positions(ids, decode);
        ids.insert(ids.end(), steps.begin(), steps.end());
        py::array_t<long long> out({static_cast<py::ssize_t>(3), static_cast<py::ssize_t>(ids.size())});
        auto a = out.mutable_unchecked<2>();
        for (std::size_t k = 0; k < ids.size(); ++k) {
          for (int axis = 0; axis < 3; ++axis) a(axis, static_cast<py::ssize_t>(k)) = ids[k].thw[axis];
        }
        return py::make_tuple(out, delta, prefill);
      },
      py::arg("spec"), py::arg("segments"), py::arg("decode"), py::arg("frame_text"), py::arg("merge_size"));
  // A diffusers transformer's positions (models/grid_rope.hpp, the numbers of `rope positions --latent-shape`):
  // float64 [n, axes].
  m.def(
      "grid_positions",
      [](const Spec& spec, long f, long h, long w, const std::vector<long>& text, bool segments, long reference_images,
         std::optional<double> fps, std::optional<std::vector<double>> scale_factor,
         const std::vector<std::array<long, 3>>& condition_images, const std::vector<std::array<long, 2>>& siglip_grids,
         bool omni) {
        if (!spec.rope.model.grid) {
          throw InvalidArgument(
              error_msg("grid_positions: {0} is no diffusers transformer (its config's _class_name "
                        "one of WanTransformer3DModel, FluxTransformer2DModel, …)",
                        spec.rope.spec.name));
        }
        GridRequest r;
        r.latent = {f, h, w};
        // Text segments (a sequence): each one --text of the command, between 1 and kMaxGridTokens as its rule, their
        // sum the text tokens, each a caption of Z-Image's omni mode. One number: the text tokens, which the library
        // checks, one caption where it is within that rule.
        for (const long n : text) {
          if (segments && (n < 1 || n > kMaxGridTokens)) {
            throw InvalidArgument(
                error_msg("{0} must be between 1 and {1} tokens (got {2})", option_name("text"), kMaxGridTokens, n));
          }
          r.text += n;
          if (n >= 1 && n <= kMaxGridTokens) r.captions.push_back(n);
        }
        r.condition_images = condition_images;
        r.siglip = siglip_grids;
        r.omni = omni;
        r.reference_images = reference_images;
        r.fps = fps;
        if (scale_factor) {  // Kandinsky 5's (t, h, w), each axis's angle divided by it (grid_rope.hpp)
          if (scale_factor->size() != 3) {
            throw InvalidArgument(
                error_msg("grid_positions: scale_factor takes three factors (t, h, w), got {0}", scale_factor->size()));
          }
          r.scale_factor = std::array<double, 3>{(*scale_factor)[0], (*scale_factor)[1], (*scale_factor)[2]};
        }
        const GridPositions g = grid_positions(*spec.rope.model.grid, r);
        const auto axes = static_cast<py::ssize_t>(g.axes.size());
        py::array_t<double> out({static_cast<py::ssize_t>(g.tokens.size()), axes});
        auto a = out.mutable_unchecked<2>();
        for (std::size_t k = 0; k < g.tokens.size(); ++k) {
          for (py::ssize_t x = 0; x < axes; ++x) {
            a(static_cast<py::ssize_t>(k), x) = g.tokens[k].p[static_cast<std::size_t>(x)];
          }
        }
        return py::make_tuple(out, g.axes);
      },
      py::arg("spec"), py::arg("f"), py::arg("h"), py::arg("w"), py::arg("text"), py::arg("segments"),
      py::arg("reference_images"), py::arg("fps"), py::arg("scale_factor"), py::arg("condition_images"),
      py::arg("siglip_grids"), py::arg("omni"));
  // One context-parallel rank's positions (analysis/dumps/cp_positions.hpp): (positions int64 [n], the report's value).
  m.def(
      "cp_positions",
      [](const std::vector<long>& sequence_starts, long cp_size, long cp_rank, const std::string& layout) {
        const auto l = parse_cp_layout(layout);
        if (!l) {
          throw InvalidArgument(
              error_msg("{0} must be zigzag, round-robin or contiguous (got '{1}')", option_name("layout"), layout));
        }
        const CpPositions run = cp_positions({sequence_starts, cp_size, cp_rank, *l});
        py::array_t<long long> out(static_cast<py::ssize_t>(run.positions.size()));
        auto a = out.mutable_unchecked<1>();
        for (std::size_t k = 0; k < run.positions.size(); ++k) a(static_cast<py::ssize_t>(k)) = run.positions[k];
        return py::make_tuple(out, to_python(cp_positions_value(run)));
      },
      py::arg("sequence_starts"), py::arg("cp_size"), py::arg("cp_rank"), py::arg("layout"));
  py::class_<RanksResult>(m, "RanksResult")
      .def("json",
           [](const RanksResult& r) {
             std::ostringstream out;
             emit(out, *r.report, {Format::Json, Lang::En, std::nullopt});
             return out.str();
           })
      .def(
          "text",
          [](const RanksResult& r, const std::string& lang) {
            std::ostringstream out;
            emit(out, *r.report, {Format::Text, parse_lang(lang), std::nullopt});
            return out.str();
          },
          py::arg("lang") = "en");
  // The ranks' reports of one run merged by the library (`rope check --merge`'s merge): [(name, JSON text)] ->
  // {"data": the merged report's value, "result": its faces}.
  m.def(
      "merge_rank_reports",
      [](const std::vector<std::pair<std::string, std::string>>& reports) {
        std::vector<RankReportText> texts;
        texts.reserve(reports.size());
        for (const auto& [name, text] : reports) texts.push_back({name, text});
        auto merged = std::make_shared<const CheckRanksReport>(merge_rank_report_texts(texts));
        py::dict out;
        out["data"] = to_python(check_ranks_value(*merged));
        out["result"] = RanksResult{merged};
        return out;
      },
      py::arg("reports"));
}

}  // namespace rope::python
