#include "rope/analysis/check/check.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/check/check_kernel.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/models/scaling/scaling.hpp"

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

Eigen::VectorXd default_theta(double base, int rotary_dim) {
  Eigen::VectorXd t(rotary_dim / 2);
  for (int i = 0; i < rotary_dim / 2; ++i) t[i] = std::pow(base, -2.0 * i / rotary_dim);
  return t;
}

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
  const auto [a, b] = e.rope.axis_blocks ? axis_block_pair_channels(r, i, e.rope.layout)
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

std::vector<Variant> check_variants(const RopeExpectation& e) {
  std::vector<Variant> v;
  const int r = e.rotary_dim();
  auto add = [&](VariantKind kind, RopeExpectation spec, double offset = 0,
                 std::optional<DType> angles = std::nullopt) -> Variant& {
    Variant x;
    x.kind = kind, x.spec = std::move(spec), x.position_offset = offset, x.angle_type = angles;
    v.push_back(std::move(x));
    return v.back();
  };
  if (e.fope) {
    // FoPE (models/fope.hpp): its padded pairs with sin 1 (F3), and the variants that keep its coefficients and θ.
    const long padded = r / 2 - e.fope->kept;
    if (padded > 0 && e.fope_pad_sin != 1.0) {
      RopeExpectation one = e;
      one.fope_pad_sin = 1.0;
      add(VariantKind::FopeSinPaddedOne, one).found = {{"padded", static_cast<double>(padded)}};
    }
    RopeExpectation other = e;
    other.rope.layout = e.rope.layout == Layout::Half ? Layout::Interleaved : Layout::Half;
    add(VariantKind::LayoutSwapped, other);
    add(VariantKind::PositionsPlusOne, e, 1.0);
    add(VariantKind::PositionsMinusOne, e, -1.0);
    add(VariantKind::RotationReversed, e).reversed = true;
    return v;
  }
  RopeExpectation s = e;
  RopeExpectation at_zero = e;  // the partial-rotary variants rotate from channel 0
  at_zero.rope.rotary_offset = 0;
  s.rope.layout = e.rope.layout == Layout::Half ? Layout::Interleaved : Layout::Half;
  s.rope.deinterleaved_output = false;  // the other layout, read and written in place
  add(VariantKind::LayoutSwapped, s);
  if (e.rope.layout == Layout::Interleaved && !e.rope.axis_blocks) {
    // The pairs (2i, 2i + 1) written back in place, or de-interleaved to (i, i + r/2): HF's DeepSeek-V3
    // (apply_rotary_pos_emb_interleave, transformers src/transformers/models/deepseek_v3/modeling_deepseek_v3.py at
    // 00b676f8f048: view(b, h, s, d/2, 2).transpose(4, 3).reshape, then rotate_half) de-interleaves its output;
    // llama.cpp's (src/models/deepseek2.cpp at 07bede6a8f32: q_pe = ggml_rope_ext(…, rope_type NORM, …)) keeps the
    // channels in their interleaved order. q·k is the same either way; the dumps differ.
    s = e;
    s.rope.deinterleaved_output = !e.rope.deinterleaved_output;
    add(e.rope.deinterleaved_output ? VariantKind::OutputInterleaved : VariantKind::OutputDeinterleaved, s);
  }
  if (e.base() != kDefaultBase) {
    s = e;
    s.set_theta(default_theta(kDefaultBase, r));
    add(VariantKind::Base10000, s);
  }
  if (e.scaled() && e.base() != kDefaultBase && e.rope.config.type != ScalingType::LongRope) {
    // The scaling kept with rope_theta not read: the model's scaled frequencies recomputed at base 10000
    // (models/scaling/scaling.hpp rope_parameters), where the plain variant above drops the scaling too.
    RopeConfig c = e.rope.config;
    c.base = kDefaultBase;
    try {
      const RopeParameters p = rope_parameters(c);
      if (p.inv_freq.size() == e.theta().size()) {
        s = e;
        s.set_theta(p.inv_freq);
        add(VariantKind::ScaledBase10000, s).found = {{"base", kDefaultBase}};
      }
    } catch (const InvalidArgument&) {
      // the config's scaling does not compute at base 10000: no such variant
    }
  }
  for (const DType type : {DType::BF16, DType::F16}) {
    // inv_freq stored in a 16-bit type, the product m·θ in float32 (sglang-jax #1472: a bf16 inv_freq buffer).
    Eigen::VectorXd rounded = e.theta();
    for (Eigen::Index i = 0; i < rounded.size(); ++i) rounded[i] = round_to(type, rounded[i]);
    if (rounded == e.theta()) continue;
    s = e;
    s.set_theta(rounded);
    add(type == DType::BF16 ? VariantKind::InvFreqBf16 : VariantKind::InvFreqF16, s);
  }
  if (e.scaled() || e.attention_factor() != 1.0) {
    s = e;
    s.set_theta(default_theta(e.base(), r));
    s.rope.params.attention_factor = 1.0;
    add(VariantKind::ScalingIgnored, s);
  }
  if (e.attention_factor() != 1.0) {
    s = e;
    s.rope.params.attention_factor = 1.0;
    add(VariantKind::FactorMissing, s);
  }
  add(VariantKind::PositionsPlusOne, e, 1.0);
  add(VariantKind::PositionsMinusOne, e, -1.0);
  if (e.yarn_factor > 1) {
    // YaRN run without ext_factor (llama.cpp's yarn_ext_factor 0): ggml's rope_yarn then interpolates every pair
    // linearly, θ_i/f, and leaves out its magnitude 1 + 0.1·ln f (ggml/src/ggml-cpu/ops.cpp rope_yarn).
    s = e;
    s.set_theta(default_theta(e.base(), r) / e.yarn_factor);
    s.rope.params.attention_factor = 1.0;
    add(VariantKind::YarnWithoutExtFactor, s);
  }
  if (e.longrope_other) {
    s = e;
    s.set_theta(e.longrope_other->theta);
    add(VariantKind::LongRopeOtherList, s);
  }
  std::vector<int> unrotated = llama_cpp_unrotated_pairs(e);
  if (unrotated.empty()) unrotated = ggml_fourth_slot_pairs(e);
  if (!unrotated.empty()) {
    s = e;
    for (const int j : unrotated) s.rope.params.inv_freq[j] = 0;
    add(VariantKind::EslotUnrotated, s);
  }
  {
    // Nothing turned: the dump "before" was read after an in-place RoPE had rotated it, or RoPE never ran. Before
    // the classic bugs below: at one large position (llama.cpp's deepseek4 compress state at 65408) θ = 1 for every
    // pair turns by 65408 rad, 0.04 rad from a whole number of turns, within ggml's angle tolerance there, and the
    // earlier variant wins a tie.
    s = e;
    s.set_theta(Eigen::VectorXd::Zero(e.theta().size()));
    s.rope.params.attention_factor = 1.0;
    add(VariantKind::BeforeEqualsAfter, s);
  }
  // Issue 53's classic bugs. sin's sign flipped (or R(m)ᵀ applied): every pair turns by −m·θ.
  add(VariantKind::RotationReversed, e).reversed = true;
  // Issue 66 (check_mode.hpp): a gradient never written, 0 everywhere; a shift that applies the magnitude again.
  if (e.mode == CheckMode::Grad) add(VariantKind::OutputZero, e).zero = true;
  if (e.mode == CheckMode::Shift && e.shift_magnitude != 1.0) {
    s = e;
    s.rope.params.attention_factor = e.shift_magnitude;
    add(VariantKind::MagnitudeReapplied, s).found = {{"factor", e.shift_magnitude}};
  }
  // rope_theta not read, another base than 10000 in its place: check_source measures it where the dump departs.
  {
    // inv_freq = 1 / base^(arange(0, d, 2) // d): integer division makes every exponent 0, θ = 1 for every pair.
    s = e;
    s.set_theta(Eigen::VectorXd::Ones(e.theta().size()));
    add(VariantKind::InvFreqIntegerDivision, s);
  }
  if (e.scaled() && e.base() > 0) {
    // The scaling's ratio applied twice (GGUF rope_freqs on top of rope_scaling): θ_i · (θ_i / θ0_i).
    const Eigen::VectorXd plain = default_theta(e.base(), r);
    s = e;
    s.set_theta(e.theta().cwiseProduct(e.theta()).cwiseQuotient(plain));
    const double factor = (plain.cwiseQuotient(e.theta())).maxCoeff();
    if (s.theta() != e.theta() && std::isfinite(factor)) add(VariantKind::ScalingTwice, s).found = {{"factor", factor}};
  }
  if (e.yarn_truncated_theta.size() == e.theta().size()) {
    s = e;
    s.set_theta(e.yarn_truncated_theta);
    add(VariantKind::YarnTruncated, s);
  }
  if (e.rope_delta != 0) {
    // M-RoPE decode tokens at their sequence index, rope_deltas dropped (TensorRT-LLM PR #15661).
    add(VariantKind::MropeDeltaMissing, e, -e.rope_delta).found = {{"delta", e.rope_delta}};
  }
  if (e.rope.axes && !e.rope.axes->vision() && e.rope.axes->axes >= 3) {
    add(VariantKind::MropeTForAll, e).t_for_all = true;
    for (const int k : {1, 2}) {  // (t, h, w) read as (h, w, t) or (w, t, h) (vLLM PR #40680)
      Variant& x = add(VariantKind::MropeAxesShifted, e);
      x.axis_shift = k;
      x.found = {{"shift", k}};
    }
  }
  if (!e.rope.axes && e.rope.layout == Layout::Half && r < e.rope.head_dim && e.rope.rotary_offset == 0 &&
      !e.rope.deinterleaved_output && !e.rope.axis_blocks && r / 2 + e.rope.head_dim / 2 <= e.rope.head_dim &&
      r / 2 != e.rope.head_dim / 2) {
    // Partial rotary paired (i, i + d/2), rotate_half over the head where it belongs over the rotary part.
    Variant& x = add(VariantKind::PartialPairing, e);
    x.partner = e.rope.head_dim / 2;
    x.found = {{"partner", e.rope.head_dim / 2}};
  }
  if (e.rope.axes) {
    // Height and width exchanged: a tower's patch at (column, row), M-RoPE's h and w read the other way round.
    Variant swapped;
    swapped.kind = VariantKind::AxesSwapped, swapped.spec = e, swapped.swap_hw = true;
    v.push_back(std::move(swapped));
    // M-RoPE's own ways to go wrong: HF's other section order (the same sections, where they fit it), and
    // the multimodal branch never reached, image tokens rotated by their 1-D index in the sequence.
    const SectionOrder order = e.rope.axes->source.order;
    if (order == SectionOrder::Chunked || order == SectionOrder::Interleaved) {
      const SectionOrder other = order == SectionOrder::Chunked ? SectionOrder::Interleaved : SectionOrder::Chunked;
      try {
        s = e;
        s.rope.axes = make_axis_map({e.rope.axes->source.sections, other}, r / 2);
        add(other == SectionOrder::Chunked ? VariantKind::SectionsChunked : VariantKind::SectionsInterleaved, s);
      } catch (const InvalidArgument&) {
        // the sections do not fit the other order: no such variant
      }
    }
    if ((order == SectionOrder::Interleaved || order == SectionOrder::PanguGreedy) &&
        e.rope.axes->source.sections.size() == 3) {
      // The other interleaved order of the same sections (docs/multi-axis.md (A3), (A10)), where the two part.
      const SectionOrder other =
          order == SectionOrder::Interleaved ? SectionOrder::PanguGreedy : SectionOrder::Interleaved;
      try {
        s = e;
        s.rope.axes = make_axis_map({e.rope.axes->source.sections, other}, r / 2);
        const int pair = first_differing_pair(*s.rope.axes, *e.rope.axes);
        if (pair >= 0) {
          add(other == SectionOrder::PanguGreedy ? VariantKind::SectionsPangu : VariantKind::SectionsQwen3, s).found = {
              {"pair", pair}};
        }
      } catch (const InvalidArgument&) {
        // the sections do not fit the other order: no such variant
      }
    }
    if (e.rope.axes->xdrope()) {
      // HunyuanVL's other XD-RoPE map (docs/multi-axis.md (A11)): HF's doubled sections against Tencent's repeated
      // list, found at the first pair one of whose channels reads another stream.
      const SectionOrder other = order == SectionOrder::XdropeHf ? SectionOrder::XdropeTencent : SectionOrder::XdropeHf;
      try {
        s = e;
        s.rope.axes = make_axis_map({e.rope.axes->source.sections, other}, r / 2);
        const int pair = first_differing_pair(*s.rope.axes, *e.rope.axes);
        if (pair >= 0) {
          add(other == SectionOrder::XdropeHf ? VariantKind::XdropeHfMap : VariantKind::XdropeTencentMap, s).found = {
              {"pair", pair}};
        }
      } catch (const InvalidArgument&) {
        // the sections do not fit the other map: no such variant
      }
    }
    if (!e.rope.axes->vision()) {
      s = e;
      s.rope.axes.reset();
      Variant x;
      x.kind = VariantKind::MropeIgnored, x.spec = s, x.sequence_index = true;
      v.push_back(std::move(x));
    }
    add(VariantKind::AnglesBf16, e, 0.0, DType::BF16);
    add(VariantKind::AnglesF16, e, 0.0, DType::F16);
    return v;  // M-RoPE models and vision towers rotate the whole head: no partial-rotary variants
  }
  if (r == e.rope.head_dim && r % 4 == 0 && e.rope.rotary_offset == 0) {
    // A model that rotates the whole head, run with n_dims = d/2 (llama.cpp's rope.dimension_count halved).
    s = e;
    s.set_theta(default_theta(e.base(), r / 2));
    add(VariantKind::RotaryDimHalved, s);
  }
  if (r < e.rope.head_dim && !e.rope.axis_blocks) {
    // The rotated block elsewhere in the head: at its end where the spec has it first (DeepSeek's q = cat(q_nope,
    // q_pe) rotates the last r channels), or first where the spec has it at an offset.
    s = e;
    s.rope.rotary_offset = e.rope.rotary_offset == 0 ? e.rope.head_dim - r : 0;
    add(VariantKind::RotaryOffsetOther, s).found = {{"offset", s.rope.rotary_offset}};
  }
  if (r < e.rope.head_dim) {
    s = at_zero;
    s.set_theta(default_theta(e.base(), e.rope.head_dim));
    add(VariantKind::PartialWholeHead, s);
    const int twice = 2 * static_cast<int>(static_cast<double>(r) * r / e.rope.head_dim / 2.0);
    if (twice >= 2 && twice < r) {
      s = at_zero;
      s.set_theta(default_theta(e.base(), twice));
      add(VariantKind::PartialTwice, s);
    }
  }
  add(VariantKind::AnglesBf16, e, 0.0, DType::BF16);
  add(VariantKind::AnglesF16, e, 0.0, DType::F16);
  return v;
}

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
