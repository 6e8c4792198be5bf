#include "rope/cli/lesson_page.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "rope/analysis/explain.hpp"
#include "rope/cli/cli.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

namespace rope::cli {

namespace {

namespace fs = std::filesystem;

enum class Frames { None, Explain, Wavelengths };

/// One part of the lesson: what to say, the command, and whether it draws a figure (--svg) and frames.
struct Part {
  std::string title;
  std::string say;
  std::vector<std::string> args;
  bool figure = false;
  Frames frames = Frames::None;
};

/// The parts of the lesson, their words in the language of t.
std::vector<Part> parts(const Text& t) {
  return {
      {t.tr("Part 1: one pair, one rotation"),
       t.tr("Each vector turns by its own position times θ; the score only sees N − M."),
       {"explain", "--step", "6"}, false, Frames::None},
      {t.tr("Part 1: the picture"),
       t.tr("Move both positions together: both turn, the angle between them stays."),
       {"explain", "--step", "5"}, true, Frames::Explain},
      {t.tr("Part 2: from 2 to d dimensions"),
       t.tr("In d dimensions the vector is cut into d/2 pairs; pair i turns by Mθ_i."),
       {"explain", "--step", "7"}, false, Frames::None},
      {t.tr("Part 3: the identities, checked"),
       t.tr("Every identity of RoPE, checked on random vectors with a stated rounding tolerance."),
       {"verify", "--trials", "200"}, false, Frames::None},
      {t.tr("Part 4: the layout bug"),
       t.tr("Pairing channels the wrong way changes the scores."),
       {"layouts", "--dim", "8"}, false, Frames::None},
      {t.tr("Part 5: fast and slow pairs"),
       t.tr("Small i turns fast, large i slowly; some pairs never complete a turn within the context."),
       {"wavelengths", "--dim", "128", "--context", "4096"}, true, Frames::Wavelengths},
      {t.tr("Part 6: does RoPE make scores decay?"),
       t.tr("RoFormer's bound falls with distance; it is a bound, not the score."),
       {"decay", "--dim", "128"}, true, Frames::None},
      {t.tr("Part 7: relative vs absolute position"),
       t.tr("Shift every position by 100: RoPE's scores do not change."),
       {"attention", "--tokens", "8", "--dim", "16", "--shift", "100", "--encoding", "rope"}, true, Frames::None},
  };
}

/// A private directory for the figures, removed at the end.
class TempDir {
 public:
  TempDir() {  // in $TMPDIR, or /tmp when it is unset or empty; never an exception of std::filesystem
    const char* env = std::getenv("TMPDIR");
    const bool from_env = env != nullptr && *env != '\0';
    const std::string dir = from_env ? env : "/tmp";
    std::string name = dir + (dir.back() == '/' ? "" : "/") + "rope-lesson-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) {
      const char* reason = std::strerror(errno);
      if (from_env) throw IoError(error_msg("cannot create a temporary directory in TMPDIR '{0}': {1}", dir, reason));
      throw IoError(error_msg("cannot create a temporary directory in {0}: {1}", dir, reason));
    }
    path_ = name;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// gnuplot's SVG from its <svg element on (no XML declaration or DOCTYPE inside HTML).
std::string inline_svg(const std::string& svg) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string::npos) throw IoError(error_msg("gnuplot's SVG has no <svg> element"));
  return svg.substr(start);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw IoError(error_msg("cannot read the lesson's figure '{0}'", p.string()));
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The part's command in-process: its standard output, and its figure as SVG if it draws one.
std::pair<std::string, std::string> run_part(const Part& part, Lang lang, const fs::path& dir, int index) {
  std::vector<std::string> args = {"rope"};
  args.insert(args.end(), part.args.begin(), part.args.end());
  if (lang == Lang::Zh) args.insert(args.end(), {"--lang", "zh"});
  const fs::path svg = dir / fmt::format("part{}.svg", index);
  if (part.figure) args.insert(args.end(), {"--svg", svg.string()});
  std::ostringstream out;
  std::ostringstream err;
  const int code = run(args, out, err);
  if (code != 0) {
    throw IoError(fmt::format("the lesson's command 'rope {}' failed with exit code {}: {}", fmt::join(part.args, " "),
                              code, err.str()));
  }
  return {out.str(), part.figure ? inline_svg(read_file(svg)) : std::string()};
}

std::vector<plot::Figure> frames_of(Frames kind, const FigureOptions& f) {
  switch (kind) {
    case Frames::Explain: return explain_frames(explain::Setup{}, f);
    case Frames::Wavelengths: return wavelength_frames(f, frequencies(128, kDefaultBase), "base = 10000", 4096);
    case Frames::None: break;
  }
  return {};
}

constexpr const char* kStyle = R"(body{font-family:sans-serif;max-width:1000px;margin:auto;padding:1em;color:#222}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:13px;line-height:1.3}
code.cmd{display:block;background:#222;color:#eee;padding:.4em .6em}
figure{margin:0}figure svg{width:100%;height:auto;max-width:900px}
.frame[hidden]{display:none}.controls{margin:.5em 0}.controls input{width:60%;vertical-align:middle})";

// Shows frame k of a set and hides the others; nothing is computed here.
constexpr const char* kScript = R"(function showFrame(set,k){
var frames=document.querySelectorAll('#'+set+' .frame');
for(var i=0;i<frames.length;i++){frames[i].hidden=(i!==Number(k));}
document.getElementById(set+'-n').textContent=String(Number(k)+1)+' / '+frames.length;}
function stepFrame(set,d){var r=document.getElementById(set+'-range');
var k=(Number(r.value)+d+Number(r.max)+1)%(Number(r.max)+1);r.value=k;showFrame(set,k);}
// file:///lesson.html#frame=K opens every slider at frame K (the browser test uses it).
document.addEventListener('DOMContentLoaded',function(){
var m=/^#frame=(\d+)$/.exec(location.hash);var sets=document.querySelectorAll('[data-frames]');
for(var i=0;i<sets.length;i++){var r=document.getElementById(sets[i].id+'-range');
var k=m?Math.min(Number(m[1]),Number(r.max)):0;r.value=k;showFrame(sets[i].id,k);}});)";

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string lesson_page(Lang lang) {
  const bool zh = lang == Lang::Zh;
  const TempDir dir;
  std::string page;
  auto emit = [&page](auto&&... args) { fmt::format_to(std::back_inserter(page), std::forward<decltype(args)>(args)...); };
  const Text t(lang);
  const std::string title = t.tr("A 20-minute RoPE lesson with rope");
  emit("<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{}\n</style>\n"
       "<script>\n{}\n</script>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n",
       zh ? "zh" : "en", html_escape(title), kStyle, kScript, html_escape(title),
       html_escape(t.tr("Each part: what to say, the command, what rope printed for it (run when this page was made) "
                        "and its figure. The sliders step through frames rope computed.")));
  int index = 0;
  for (const Part& part : parts(t)) {
    const auto [output, svg] = run_part(part, lang, dir.path(), index);
    std::string command = "$ rope";
    for (const std::string& a : part.args) command += " " + a;
    if (zh) command += " --lang zh";
    emit("<section id=\"part{}\">\n<h2>{}</h2>\n<p>{}</p>\n<code class=\"cmd\">{}</code>\n<pre>{}</pre>\n", index,
         html_escape(part.title), html_escape(part.say),
         html_escape(command), html_escape(output));
    if (!svg.empty()) emit("<figure>\n{}\n</figure>\n", svg);
    if (part.frames != Frames::None) {
      FigureOptions f;
      f.lang = lang;
      f.frames = kLessonFrames;
      if (part.frames == Frames::Explain) f.width = f.height = 900;  // square, as rope explain draws it
      const std::string set = fmt::format("frames{}", index);
      emit("<div class=\"controls\"><button type=\"button\" onclick=\"stepFrame('{0}',-1)\">&#9664;</button> "
           "<input type=\"range\" id=\"{0}-range\" min=\"0\" max=\"{1}\" value=\"0\" "
           "oninput=\"showFrame('{0}',this.value)\"> "
           "<button type=\"button\" onclick=\"stepFrame('{0}',1)\">&#9654;</button> <span id=\"{0}-n\">1 / {2}</span></div>\n"
           "<div id=\"{0}\" data-frames=\"{2}\">\n",
           set, kLessonFrames - 1, kLessonFrames);
      int k = 0;
      for (const plot::Figure& frame : frames_of(part.frames, f)) {
        emit("<figure class=\"frame\"{}>\n{}\n</figure>\n", k++ == 0 ? "" : " hidden", inline_svg(draw_svg(frame, f)));
      }
      emit("</div>\n");
    }
    emit("</section>\n");
    ++index;
  }
  emit("</body>\n</html>\n");
  return page;
}

}  // namespace rope::cli
