#include "rope/cli/lesson_parts.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rope::cli {

std::vector<LessonPart> lesson_parts(const Text& t) {
  const std::string wavelengths_caption =
      t.tr("wavelength of every pair for d = 128, bases 10000 and 500000, with the context 4096");
  return {
      {1,
       t.tr("Part 1: one pair, one rotation"),
       t.tr("Each vector turns by its own position times θ; the score only sees N − M."),
       {{{"explain", "--step", "1"}, ""},
        {{"explain", "--step", "2", "--quiet"}, ""},
        {{"explain", "--step", "3", "--quiet"}, ""},
        {{"explain", "--step", "4", "--quiet"}, ""},
        {{"explain", "--step", "5", "--quiet"}, ""},
        {{"explain", "--step", "6"}, ""},
        {{"explain", "--png", "explain.png"}, t.tr("q and k, and their rotations by Mθ and Nθ")}},
       LessonFrames::Explain},
      {2,
       t.tr("Part 2: from 2 to d dimensions"),
       t.tr("In d dimensions the vector is cut into d/2 pairs; pair i turns by Mθ_i."),
       {{{"explain", "--step", "7"}, ""},
        {{"matrix", "--dim", "8", "--position", "3", "--png", "matrix.png"},
         t.tr("heatmap of the rotation matrix R for d = 8 at position 3")}}},
      {3,
       t.tr("Part 3: the identities, checked"),
       t.tr("Every identity of RoPE, checked on random vectors with a stated rounding tolerance."),
       {{{"verify"}, ""}, {{"verify", "--wide"}, ""}}},
      {4,
       t.tr("Part 4: the layout bug"),
       t.tr("Pairing channels the wrong way changes the scores."),
       {{{"layouts", "--dim", "8"}, ""},
        {{"layouts", "--dim", "64", "--max-distance", "256", "--png", "layouts.png"},
         t.tr("scores against distance: Meta's interleaved reference, rotate_half on unconverted weights, and the "
              "permuted fix")},
        // The cos/sin cache as each layout stores it: the header lines, then the figure.
        {{"layouts", "--dim", "64", "--cache", "--png", "layouts_cache.png"},
         t.tr("the cos, sin and angle tables of positions 0 to 15 for the half layout, the interleaved layout and "
              "gpt-oss's half-width tables, pair 0's channels joined by a black bar"),
         3}}},
      {5,
       t.tr("Part 5: fast and slow pairs"),
       t.tr("Small i turns fast, large i slowly; some pairs never complete a turn within the context."),
       {{{"frequencies", "--dim", "8"}, ""},
        {{"wavelengths", "--dim", "128", "--context", "4096"}, ""},
        {{"wavelengths", "--dim", "128", "--base", "10000", "--base", "500000", "--context", "4096", "--png",
          "wavelengths.png"},
         wavelengths_caption},
        // A dumped q (tests/reference/spectrum.py; the page writes it from the program): the energy band and the
        // periodic pair, its first 7 lines.
        {{"spectrum", "--dump", "data/dumps/q_spectrum.npy"}, "", 7}},
       LessonFrames::Wavelengths},
      {6,
       t.tr("Part 6: does RoPE make scores decay?"),
       t.tr("RoFormer's bound falls with distance; it is a bound, not the score."),
       {{{"decay"}, ""},
        {{"decay", "--base", "10000", "--base", "500000", "--png", "decay.png"},
         t.tr("RoFormer long-range decay bound f(m) for d = 128, bases 10000 and 500000")},
        {{"decay", "--kind", "random"}, ""},
        {{"decay", "--kind", "random", "--samples", "2000", "--max-distance", "1000", "--png", "decay_random.png"},
         t.tr("mean and one standard deviation of the score of 2000 random pairs, d = 128")}}},
      {7,
       t.tr("Part 7: relative vs absolute position"),
       t.tr("Shift every position by 100: RoPE's scores do not change."),
       {{{"attention", "--tokens", "8", "--dim", "16", "--shift", "100", "--encoding", "rope"}, ""},
        {{"attention", "--tokens", "8", "--dim", "16", "--shift", "100", "--encoding", "sinusoidal"}, ""},
        {{"attention", "--tokens", "32", "--dim", "64", "--encoding", "rope", "--causal", "--png",
          "attention_rope.png"},
         t.tr("softmax(QK^T/sqrt d) of 32 random tokens under RoPE, causal")},
        {{"attention", "--tokens", "32", "--dim", "64", "--encoding", "sinusoidal", "--causal", "--png",
          "attention_sinusoidal.png"},
         t.tr("the same 32 tokens under the additive sinusoidal encoding, causal")}}},
      {8,
       t.tr("Part 8: a real long-context model"),
       t.tr("To reach 128K tokens, Llama 3.1 leaves the fast pairs alone and stretches the slow ones by 8."),
       {{{"inspect", "--model", "llama-3.1-8b"}, ""},
        {{"wavelengths", "--model", "llama-3.1-8b", "--png", "llama3.png"}, t.tr("llama3 scaling of Llama 3.1 8B")}}},
      {9,
       t.tr("Part 9: optional: RoPE over several axes"),
       t.tr("A text token is one position on every axis; an image patch has a row and a column, a video patch a "
            "frame too, and each pair of the head reads one of the axes."),
       {{{"positions", "--model", "qwen2-vl-7b", "--text", "2", "--image", "1x4x6", "--text", "1"}, ""},
        {{"positions", "--model", "qwen2-vl-7b", "--text", "2", "--video", "2x4x4", "--text", "1"}, ""},
        {{"explain", "--step", "8"}, ""},
        {{"sections", "--model", "qwen2-vl-7b"}, ""},
        {{"sections", "--model", "qwen3-vl-8b", "--png", "sections.png"},
         t.tr("which pair turns with which axis in Qwen3-VL-8B: its sections chunked and interleaved")},
        {{"sections", "--model", "qwen3-vl-8b", "--grid", "2x3x4", "--png", "sections_grid.png"},
         t.tr("two patches p, p′ of one row in a 2×3×4 latent grid of Qwen3-VL-8B: only the w pairs turn them apart")}},
       LessonFrames::Grid},
      {0,
       t.tr("Common student questions"),
       t.tr("θ_i's i is the pair index; past the training length the slow pairs meet angles they never saw."),
       {{{"frequencies", "--dim", "128"}, "", 12},  // its header and pairs 0 … 7, as the first answer reads it
        {{"extrapolation", "--train-length", "4096"}, ""},
        {{"extrapolation", "--train-length", "4096", "--tune-length", "16384", "--png", "extrapolation.png"},
         t.tr("pairs beyond the training length 4096: the critical dimension and the extrapolation bound")}}},
  };
}

std::string lesson_command(const LessonStep& step, Lang lang) {
  std::vector<std::string> args = step.args;
  if (lang == Lang::Zh) {
    const auto png = std::find(args.begin(), args.end(), "--png");
    args.insert(png, {"--lang", "zh"});
  }
  return fmt::format("rope {}", fmt::join(args, " "));
}

}  // namespace rope::cli
