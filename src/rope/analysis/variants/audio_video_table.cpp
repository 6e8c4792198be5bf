// audio-video-table: LTX-2's audio turned by the video's count of frequencies.
// LTX-2's audio stream has one axis, so LTX2AudioVideoRotaryPosEmbed.forward builds dim // 2 frequencies over it
// (num_rope_elems = num_pos_dims · 2 = 2, models/grid_rope.hpp (G7)); the mistake fixes num_rope_elems at the video's
// 6: dim // 6 frequencies, the dim/2 − dim // 6 pairs before them padded (cos 1, sin 0), which rope_type split runs
// without an error (found "frequencies").
// Corpus rows (tests/cli/corpus_answers.json) that it matches: ltx2_rope/mistake_ltx2_audio_video_table_f32.
#ifdef ROPE_VARIANT_DOCS
// clang-format off
ROPE_VARIANT_DOC("audio-video-table",
  R"md(`matches LTX-2's audio turned by 21 frequencies (dim // 6, the video's three axes), the 43 pairs before them unturned, where its one audio axis takes dim // 2 = 64 …`)md",
  R"md(LTX-2's audio stream (one axis t) turned by F = r/6 frequencies (π/2)·θ^(k/(F−1)) after r/2 − F pairs that do not turn, where (G7) has F = r/2 (`found.frequencies`))md",
  R"md(a port of LTX2AudioVideoRotaryPosEmbed.forward with `num_rope_elems` fixed at 6 (three axes × cos, sin) for the audio stream, or LTX-Video's `dim // 6` reused for it (transformer_ltx2.py:1009-1036))md")
// clang-format on
#else
namespace rope::variants::audio_video_table {

/// (G7) with the video's count: F = r/6 frequencies (π/2)·θ^(k/(F−1)) on the last F pairs, the r/2 − F before them
/// θ = 0 (forward's padding at 1054-1068).
void video_table_build(F f, Out out) {
  const RopeExpectation& e = f.expected;
  const int pairs = e.rotary_dim() / 2;
  const int n = e.rotary_dim() / 6;
  const double base = e.base();
  if (n < 2 || n >= pairs || !(base > 1)) return;
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(pairs);
  for (int k = 0; k < n; ++k) {
    theta[pairs - n + k] = kPi / 2 * std::pow(base, static_cast<double>(k) / static_cast<double>(n - 1));
  }
  RopeExpectation s = with_theta(e, std::move(theta));
  s.rope.axes->padding = pairs - n;
  put(out, std::move(s)).found = {{"frequencies", static_cast<double>(n)}};
}

VariantRow row() {
  VariantRow r;
  r.name = "audio-video-table";
  r.detection = VariantDetection::Compared;
  r.parameters = "frequencies";
  r.changes = [](E) { return msg("LTX-2's audio turned by the video's count of frequencies"); };
  r.says = [](S c) {
    const auto n = static_cast<long>(found_value(c));
    const long pairs = c.expected.rotary_dim() / 2;
    return msg(
        "matches LTX-2's audio turned by {0} frequencies (dim // 6, the video's three axes), the {1} pairs before "
        "them unturned, where its one audio axis takes dim // 2 = {2}: is num_rope_elems fixed at the video's 6? "
        "(transformer_ltx2.py:1009-1036)",
        n, pairs - n, pairs);
  };
  r.from_expectation = {[](F f) {
                          // LTX-2's audio stream: its per-frequency table (G4) over one axis
                          return has_axes(f) && f.expected.rope.model_type == "LTX2VideoTransformer3DModel" &&
                                 f.expected.rope.axes->grid() && f.expected.rope.axes->per_frequency &&
                                 f.expected.rope.axes->axes == 1;
                        },
                        video_table_build};
  return r;
}
const Registered registered{row()};

}  // namespace rope::variants::audio_video_table
#endif
