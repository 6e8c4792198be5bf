// The names of rope check's variants: the short ones of the JSON output and the tests, and the words of docs/check.md's
// table for people (check.hpp).
#include "rope/analysis/check.hpp"

namespace rope {

const char* to_string(VariantKind kind) {
  switch (kind) {
    case VariantKind::Expected:
      return "expected";
    case VariantKind::LayoutSwapped:
      return "layout-swapped";
    case VariantKind::Base10000:
      return "base-10000";
    case VariantKind::ScalingIgnored:
      return "scaling-ignored";
    case VariantKind::FactorMissing:
      return "attention-factor-missing";
    case VariantKind::PositionsPlusOne:
      return "positions-plus-one";
    case VariantKind::PositionsMinusOne:
      return "positions-minus-one";
    case VariantKind::PartialWholeHead:
      return "partial-rotary-whole-head";
    case VariantKind::PartialTwice:
      return "partial-rotary-twice";
    case VariantKind::AnglesBf16:
      return "angles-bf16";
    case VariantKind::AnglesF16:
      return "angles-f16";
    case VariantKind::SectionsChunked:
      return "mrope-chunked";
    case VariantKind::SectionsInterleaved:
      return "mrope-interleaved";
    case VariantKind::MropeIgnored:
      return "mrope-ignored";
    case VariantKind::PositionsRestart:
      return "positions-restart";
    case VariantKind::Bf16AsFloat32:
      return "bf16-as-float32";
    case VariantKind::YarnWithoutExtFactor:
      return "yarn-without-ext-factor";
    case VariantKind::RotaryDimHalved:
      return "rotary-dim-halved";
    case VariantKind::EslotUnrotated:
      return "e-slot-unrotated";
    case VariantKind::BeforeEqualsAfter:
      return "before-equals-after";
    case VariantKind::LongRopeOtherList:
      return "longrope-other-list";
    case VariantKind::AxesSwapped:
      return "axes-swapped";
    case VariantKind::RotationReversed:
      return "rotation-reversed";
    case VariantKind::BaseOther:
      return "base-other";
    case VariantKind::InvFreqIntegerDivision:
      return "inv-freq-integer-division";
    case VariantKind::PartialPairing:
      return "partial-rotary-pairing";
    case VariantKind::ScalingTwice:
      return "scaling-applied-twice";
    case VariantKind::CacheShort:
      return "cos-sin-cache-short";
    case VariantKind::AnglesF16Overflow:
      return "angles-f16-overflow";
    case VariantKind::PositionIdsIgnored:
      return "position-ids-ignored";
    case VariantKind::HeadsSeqMixed:
      return "heads-seq-mixed";
    case VariantKind::MropeTForAll:
      return "mrope-t-for-all";
    case VariantKind::MropeAxesShifted:
      return "mrope-axes-shifted";
    case VariantKind::MropeDeltaMissing:
      return "mrope-delta-missing";
    case VariantKind::PassThroughChanged:
      return "pass-through-changed";
    case VariantKind::YarnTruncated:
      return "yarn-truncated";
    case VariantKind::MropeBatchRows:
      return "mrope-batch-rows";
    case VariantKind::NormScaled:
      return "norm-scaled";
    case VariantKind::OutputInterleaved:
      return "output-interleaved";
    case VariantKind::OutputDeinterleaved:
      return "output-deinterleaved";
    case VariantKind::RotaryOffsetOther:
      return "rotary-offset-other";
  }
  return "?";
}

Message describe(VariantKind kind, const RopeExpectation& e) {
  switch (kind) {
    case VariantKind::Expected:
      return msg("RoPE as specified");
    case VariantKind::LayoutSwapped:
      return e.layout == Layout::Half ? msg("the interleaved layout") : msg("the half layout");
    case VariantKind::Base10000:
      return msg("base 10000");
    case VariantKind::ScalingIgnored:
      return msg("plain RoPE without the scaling and its attention factor");
    case VariantKind::FactorMissing:
      return msg("no attention factor");
    case VariantKind::PositionsPlusOne:
      return msg("positions shifted by {0}", "+1");
    case VariantKind::PositionsMinusOne:
      return msg("positions shifted by {0}", "-1");
    case VariantKind::PartialWholeHead:
      return msg("RoPE over the whole head");
    case VariantKind::PartialTwice:
      return msg("the partial rotary factor applied twice");
    case VariantKind::AnglesBf16:
      return msg("angles computed in {0}", "bf16");
    case VariantKind::AnglesF16:
      return msg("angles computed in {0}", "f16");
    case VariantKind::SectionsChunked:
      return msg("mrope_section in chunks");
    case VariantKind::SectionsInterleaved:
      return msg("mrope_section interleaved");
    case VariantKind::MropeIgnored:
      return msg("plain RoPE at each token's index in the sequence");
    case VariantKind::PositionsRestart:
      return msg("positions that start again");
    case VariantKind::Bf16AsFloat32:
      return msg("bf16's tolerance");
    case VariantKind::YarnWithoutExtFactor:
      return msg("YaRN without ext_factor (linear interpolation, no ramp, no magnitude)");
    case VariantKind::RotaryDimHalved:
      return msg("the rotary dimension halved");
    case VariantKind::EslotUnrotated:
      return msg("llama.cpp's unrotated fourth-slot pairs");
    case VariantKind::BeforeEqualsAfter:
      return msg("no rotation at all");
    case VariantKind::LongRopeOtherList:
      return msg("LongRoPE's other factor list");
    case VariantKind::AxesSwapped:
      return msg("height and width exchanged");
    case VariantKind::RotationReversed:
      return msg("the rotation reversed");
    case VariantKind::BaseOther:
      return msg("another base");
    case VariantKind::InvFreqIntegerDivision:
      return msg("θ = 1 for every pair");
    case VariantKind::PartialPairing:
      return msg("the partial rotary part paired across the head");
    case VariantKind::ScalingTwice:
      return msg("the scaling applied twice");
    case VariantKind::CacheShort:
      return msg("a cos/sin cache built too short");
    case VariantKind::AnglesF16Overflow:
      return msg("angles in float16 overflowing");
    case VariantKind::PositionIdsIgnored:
      return msg("positions counted across the packed sequences");
    case VariantKind::HeadsSeqMixed:
      return msg("heads and sequence mixed by a reshape");
    case VariantKind::MropeTForAll:
      return msg("the t position on every axis");
    case VariantKind::MropeAxesShifted:
      return msg("the axis slots shifted");
    case VariantKind::MropeDeltaMissing:
      return msg("decode tokens without rope_deltas");
    case VariantKind::PassThroughChanged:
      return msg("pass-through channels changed");
    case VariantKind::YarnTruncated:
      return msg("YaRN's correction range truncated");
    case VariantKind::MropeBatchRows:
      return msg("batch rows read as t, h, w");
    case VariantKind::NormScaled:
      return msg("the output's norm scaled");
    case VariantKind::OutputInterleaved:
      return msg("the output in the interleaved order, as llama.cpp writes it");
    case VariantKind::OutputDeinterleaved:
      return msg("the output de-interleaved, as HF's DeepSeek-V3 writes it");
    case VariantKind::RotaryOffsetOther:
      return msg("the rotated channels at another offset");
  }
  return msg("RoPE as specified");
}

}  // namespace rope
