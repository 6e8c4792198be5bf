#include "rope/analysis/check/check.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/check/fast/check_kernel.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"

namespace rope {

double RopeExpectation::query_scale(double position) const {
  // (S21); (S20) with query_shift 1
  return query_beta == 0 ? 1.0 : 1.0 + query_beta * std::log1p(std::floor((position + query_shift) / query_original));
}

void RopeExpectation::set_theta(Eigen::VectorXd theta) {
  rope.rotary_dim = 2 * static_cast<int>(theta.size());
  rope.params.inv_freq = std::move(theta);
}

namespace {

/// The pairs llama.cpp's IMROPE feeds from its fourth position slot (e) for sections (s_t, s_h, s_w): pair j is h when
/// j mod 3 = 1 and j < 3·s_h, w when j mod 3 = 2 and j < 3·s_w, t when j mod 3 = 0 and j < 3·s_t, else e
/// (ggml/src/ggml-cpu/ops.cpp, rope_yarn_cache_init's IMROPE branch, ggml-org/llama.cpp de3ff815ea7d). Hugging Face's
/// interleaved map (A3) gives those pairs to t, so a llama.cpp text token (p, p, p, 0) leaves them unrotated.
std::vector<int> imrope_e_pairs(const std::vector<int>& sections, int pairs) {
  std::vector<int> out;
  const auto sec = [&](std::size_t k) { return k < sections.size() ? sections[k] : 0; };
  for (int j = 0; j < pairs; ++j) {
    const bool h = j % 3 == 1 && j < 3 * sec(1), w = j % 3 == 2 && j < 3 * sec(2), t = j % 3 == 0 && j < 3 * sec(0);
    if (!h && !w && !t) out.push_back(j);
  }
  return out;
}

}  // namespace

std::pair<int, int> pair_channels(const RopeExpectation& e, int i, bool output) {
  const int r = e.rotary_dim();
  const bool deinterleaved = output && e.rope.deinterleaved_output && e.rope.layout == Layout::Interleaved;
  const auto [a, b] = e.rope.head_slices > 1 ? head_slice_pair_channels(r, i, e.rope.layout, e.rope.head_slices)
                      : e.rope.axis_blocks   ? axis_block_pair_channels(r, i, e.rope.layout)
                                             : pair_channels(r, i, deinterleaved ? Layout::Half : e.rope.layout);
  return {a + e.rope.rotary_offset, b + e.rope.rotary_offset};
}

std::vector<int> llama_cpp_unrotated_pairs(const RopeExpectation& e) {
  if (!e.rope.axes || e.rope.axes->source.order != SectionOrder::Interleaved) return {};
  return imrope_e_pairs(e.rope.axes->source.sections, e.rotary_dim() / 2);
}

std::vector<int> ggml_fourth_slot_pairs(const RopeExpectation& e) {
  if (!e.rope.axes || e.rope.axes->axes < 4) return {};
  const SectionOrder order = e.rope.axes->source.order;
  if (order != SectionOrder::GgmlMrope && order != SectionOrder::GgmlImrope) return {};
  std::vector<int> pairs;
  for (std::size_t j = 0; j < e.rope.axes->pair_axis.size(); ++j) {
    if (e.rope.axes->pair_axis[j] == 3) pairs.push_back(static_cast<int>(j));
  }
  return pairs;
}

std::size_t height_component(const AxisPosition& p) { return p.count == 2 ? 0 : 1; }

MemorySource::MemorySource(const DumpVectors& before, const DumpVectors& after) : before_(before), after_(after) {
  if (before.seq != after.seq || before.groups() != after.groups() || before.d != after.d) {
    throw InvalidArgument(
        error_msg("the dumps before and after differ in shape: {0} × {1} × {2} against {3} × {4} × {5}", before.seq,
                  before.groups(), before.d, after.seq, after.groups(), after.d));
  }
}

std::vector<DumpComparison> MemorySource::compare(long start, const std::vector<AxisPosition>& positions,
                                                  const std::vector<Variant>& variants, const ComparePass& pass) const {
  const long length = static_cast<long>(positions.size());
  if (start < 0 || start + length > before_.seq) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before_.seq));
  }
  const BlockShape shape{length, before_.groups(), before_.d, after_.dtype, before_.heads};
  const long stride = before_.groups() * before_.d;
  const BlockFetch fetch = [&](long s0, long, BlockBuffers&, BlockView& view) {
    view.before = before_.values.data() + (start + s0) * stride;
    view.after = after_.values.data() + (start + s0) * stride;
    view.type = BlockElement::F64;
  };
  return compare_blocks(shape, positions, variants, fetch, block_positions_for(before_.groups(), before_.d, 1L << 14),
                        nullptr, pass);
}

bool MemorySource::after_looks_like_bf16() const { return looks_like_bf16(after_); }

std::pair<std::vector<double>, std::vector<double>> MemorySource::vector_at(long index, long group) const {
  const double* x = before_.vector(index, group);
  const double* y = after_.vector(index, group);
  return {{x, x + before_.d}, {y, y + after_.d}};
}

DumpComparison compare_dump(const DumpVectors& before, const DumpVectors& after,
                            const std::vector<AxisPosition>& positions, const Variant& variant) {
  const MemorySource source(before, after);
  if (static_cast<long>(positions.size()) != before.seq) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before.seq));
  }
  return source.compare(0, positions, {variant}).front();
}

}  // namespace rope
