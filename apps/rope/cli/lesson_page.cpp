#include "rope/cli/lesson_page.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "rope/analysis/teaching/explain.hpp"
#include "rope/analysis/teaching/sections_run.hpp"
#include "rope/cli/cli.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/lesson_parts.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/interrupt.hpp"
#include "rope/core/utf8.hpp"
#include "rope/plot/text.hpp"
#include "rope/report/sections_report.hpp"

namespace rope::cli {

// docs/classroom.md and docs/classroom.zh.md, compiled in by apps/CMakeLists.txt (scripts/embed_po.cmake).
extern const char kClassroomMd[];
extern const std::size_t kClassroomMd_size;
extern const char kClassroomZhMd[];
extern const std::size_t kClassroomZhMd_size;
// data/dumps/q_spectrum.npy (tests/reference/spectrum.py), compiled in by apps/CMakeLists.txt (embed_bytes.cmake).
extern const unsigned char kSpectrumDump[];
extern const std::size_t kSpectrumDump_size;

namespace {

namespace fs = std::filesystem;

/// The doc's path of the example dump of `rope spectrum` (Part 5), which the page writes from the program.
constexpr const char* kLessonSpectrumDump = "data/dumps/q_spectrum.npy";

/// A private directory for the figures, removed at the end.
class TempDir {
 public:
  TempDir() {  // in $TMPDIR, or /tmp when it is unset or empty; never an exception of std::filesystem
    const char* env = std::getenv("TMPDIR");
    const bool from_env = env != nullptr && *env != '\0';
    const std::string dir = from_env ? env : "/tmp";
    // The figures are drawn in this directory, and a figure's output path may hold no control character
    // (rope/plot/figure.cpp): say so of TMPDIR itself, not of a path inside it the user never named.
    if (from_env && plot::has_control_character(dir)) {
      throw InvalidArgument(error_msg(
          "TMPDIR '{0}' contains a control character: rope lesson draws its figures there, and an output path "
          "must not contain one; set TMPDIR to a directory without control characters",
          dir));
    }
    std::string name = dir + (dir.back() == '/' ? "" : "/") + "rope-lesson-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) {
      const char* reason = std::strerror(errno);
      if (from_env) throw IoError(error_msg("cannot create a temporary directory in TMPDIR '{0}': {1}", dir, reason));
      throw IoError(error_msg("cannot create a temporary directory in {0}: {1}", dir, reason));
    }
    path_ = name;
    slot_ = register_temp_dir(path_.c_str());  // removed on Ctrl-C too (io/interrupt.hpp), its figures first
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
    unregister_temp(slot_);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int slot_ = -1;
};

/// A file registered for removal on a signal while it exists (io/interrupt.hpp), removed when it goes out of scope.
class LessonFigureFile {
 public:
  explicit LessonFigureFile(fs::path path) : path_(std::move(path)), slot_(register_temp(path_.c_str())) {}
  LessonFigureFile(const LessonFigureFile&) = delete;
  LessonFigureFile& operator=(const LessonFigureFile&) = delete;
  ~LessonFigureFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
    unregister_temp(slot_);
  }

 private:
  fs::path path_;
  int slot_;
};

/// gnuplot's SVG from its <svg element on (no XML declaration or DOCTYPE inside HTML), its <title> (what a
/// browser shows on hovering: gnuplot writes "Gnuplot") the figure's `title`.
std::string inline_svg(const std::string& svg, std::string_view title) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string::npos) throw IoError(error_msg("gnuplot's SVG has no <svg> element"));
  std::string out = svg.substr(start);
  constexpr std::string_view kGnuplotTitle = "<title>Gnuplot</title>";
  const std::size_t at = out.find(kGnuplotTitle);
  if (at != std::string::npos) out.replace(at, kGnuplotTitle.size(), "<title>" + html_escape(title) + "</title>");
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw IoError(error_msg("cannot read the lesson's figure '{0}'", p.string()));
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The step's command in-process, in the language of the page, a figure (--png FILE) drawn as SVG in `dir`
/// instead: its standard output, and the figure's SVG if it draws one.
std::pair<std::string, std::string> run_step(const LessonStep& step, Lang lang, const fs::path& dir, int index) {
  std::vector<std::string> args = {"rope"};
  const fs::path svg = dir / fmt::format("figure{}.svg", index);
  std::string png;                     // the step's --png FILE, which its "wrote FILE" names in place of the page's SVG
  const LessonFigureFile figure(svg);  // read below, then removed: a signal leaves no figure in the directory
  std::optional<LessonFigureFile> dump_file;  // the same for the example dump: registered before it is written
  for (std::size_t k = 0; k < step.args.size(); ++k) {
    if (step.args[k] == kLessonSpectrumDump) {  // the example dump, written where the page is made
      const fs::path dump = dir / "q_spectrum.npy";
      if (!dump_file) dump_file.emplace(dump);
      std::ofstream(dump, std::ios::binary)
          .write(reinterpret_cast<const char*>(kSpectrumDump), static_cast<std::streamsize>(kSpectrumDump_size));
      args.push_back(dump.string());
    } else if (step.args[k] == "--png" && k + 1 < step.args.size()) {
      args.insert(args.end(), {"--svg", svg.string()});
      png = step.args[++k];
    } else {
      args.push_back(step.args[k]);
    }
  }
  if (lang == Lang::Zh) args.insert(args.end(), {"--lang", "zh"});
  std::ostringstream out;
  std::ostringstream err;
  const int code = run(args, out, err);
  if (code != 0) {
    throw IoError(fmt::format("the lesson's command '{}' failed with exit code {}: {}", lesson_command(step, lang),
                              code, err.str()));
  }
  std::string text = out.str();
  // The example dump is named as the doc names it, not by the page's private directory.
  const std::string written = (dir / "q_spectrum.npy").string();
  for (std::size_t at = text.find(written); at != std::string::npos; at = text.find(written, at))
    text.replace(at, written.size(), kLessonSpectrumDump);
  if (!png.empty()) {
    for (std::size_t at = text.find(svg.string()); at != std::string::npos; at = text.find(svg.string(), at))
      text.replace(at, svg.string().size(), png);
  }
  return {text, step.caption.empty() ? std::string() : inline_svg(read_file(svg), step.caption)};
}

/// The first `lines` lines of `output` (all of it for 0), then one line saying how many the page leaves out.
std::string first_lines(const std::string& output, std::size_t lines, const Text& t) {
  if (lines == 0) return output;
  std::size_t at = 0;
  for (std::size_t k = 0; k < lines && at != std::string::npos; ++k) {
    at = output.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos || at >= output.size()) return output;
  const auto rest = std::count(output.begin() + static_cast<std::ptrdiff_t>(at), output.end(), '\n');
  return output.substr(0, at) + t.tr("… {0} more lines: the command prints them all\n", rest);
}

/// Markdown's inline marks of docs/classroom.md as HTML: `code`, **strong**, *emphasis*, [links](target); the rest
/// escaped. A link to the web keeps its address; one to a heading or file of the docs (which the page, written
/// anywhere, does not have) is its words alone.
std::string inline_html(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '[') {
      const std::size_t close = text.find("](", i);
      const std::size_t end = close == std::string_view::npos ? close : text.find(')', close + 2);
      if (end != std::string_view::npos && text.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
        const std::string words = inline_html(text.substr(i + 1, close - i - 1));
        const std::string_view target = text.substr(close + 2, end - close - 2);
        if (target.substr(0, 8) == "https://" || target.substr(0, 7) == "http://") {
          fmt::format_to(std::back_inserter(out), "<a href=\"{}\">{}</a>", html_escape(target), words);
        } else {
          out += words;
        }
        i = end + 1;
        continue;
      }
    }
    const auto span = [&](std::string_view mark, const char* tag) {
      if (text.substr(i, mark.size()) != mark) return false;
      const std::size_t end = text.find(mark, i + mark.size());
      if (end == std::string_view::npos) return false;
      const std::string_view inside = text.substr(i + mark.size(), end - i - mark.size());
      fmt::format_to(std::back_inserter(out), "<{0}>{1}</{0}>", tag,
                     std::string_view(tag) == "code" ? html_escape(inside) : inline_html(inside));
      i = end + mark.size();
      return true;
    };
    if (span("`", "code") || span("**", "strong") || span("*", "em")) continue;
    out += html_escape(text.substr(i, 1));
    ++i;
  }
  return out;
}

/// Whether the first (or, with `last`, the last) character of `text` is a wide one (Chinese).
bool lesson_wide_at(std::string_view text, bool last) {
  if (text.empty()) return false;
  std::size_t i = 0;
  if (last) {
    i = text.size() - 1;
    while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
  }
  const std::size_t start = i;
  decode_utf8(text, i);
  return display_width(text.substr(start, i - start)) == 2;
}

/// Appends a line of the doc to a paragraph: a line break is a space in English, nothing beside Chinese (a wide
/// character ends or starts the line).
void join_doc_line(std::string& paragraph, std::string_view line) {
  const bool joined = paragraph.empty() || lesson_wide_at(paragraph, true) || lesson_wide_at(line, false);
  paragraph += (joined ? "" : " ") + std::string(line);
}

/// The students' questions and their answers, as docs/classroom.md (classroom.zh.md) writes them under its
/// heading `heading` (compiled in: apps/CMakeLists.txt), up to the next heading: paragraphs; a console block or
/// a figure of the doc is left to the part's own steps, so that each output is shown once.
std::string questions_html(std::string_view doc, std::string_view heading) {
  const std::size_t start = doc.find(heading);
  if (start == std::string_view::npos) return {};
  std::size_t end = doc.find("\n## ", start + heading.size());
  const std::string_view section =
      doc.substr(start + heading.size(), end == std::string_view::npos ? end : end - start - heading.size());
  std::string out = "<div class=\"questions\">\n";
  std::string paragraph;
  bool fenced = false;
  const auto flush = [&] {
    if (!paragraph.empty()) out += "<p>" + inline_html(paragraph) + "</p>\n";
    paragraph.clear();
  };
  std::size_t at = 0;
  while (at <= section.size()) {
    const std::size_t next = section.find('\n', at);
    const std::string_view line = section.substr(at, next == std::string_view::npos ? next : next - at);
    at = next == std::string_view::npos ? section.size() + 1 : next + 1;
    if (line.substr(0, 3) == "```") {  // a console block: its command is one of the part's steps, shown once there
      flush();
      fenced = !fenced;
    } else if (fenced) {
      continue;
    } else if (line.empty() || line.substr(0, 2) == "![" || line.substr(0, 4) == "<!--") {
      flush();
    } else {
      join_doc_line(paragraph, line);
    }
  }
  flush();
  return out + "</div>\n";
}

/// The exercises of docs/classroom.md (classroom.zh.md) under its heading `heading`, up to the next heading: each
/// question a paragraph, each answer folded (the doc's <details>): the doc's command run in-process in the
/// page's language (the doc writes its output, docs.examples compares it with a run), then the doc's words.
std::string exercises_html(std::string_view doc, std::string_view heading, Lang lang, const fs::path& dir) {
  const std::size_t start = doc.find(heading);
  if (start == std::string_view::npos) return {};
  const std::size_t end = doc.find("\n## ", start + heading.size());
  const std::string_view section =
      doc.substr(start + heading.size(), end == std::string_view::npos ? end : end - start - heading.size());
  std::string out = "<div class=\"exercises\">\n";
  std::string paragraph;
  bool fenced = false;
  bool command_read = false;
  const auto flush = [&] {
    if (!paragraph.empty()) out += "<p>" + inline_html(paragraph) + "</p>\n";
    paragraph.clear();
  };
  std::size_t at = 0;
  while (at <= section.size()) {
    const std::size_t next = section.find('\n', at);
    const std::string_view line = section.substr(at, next == std::string_view::npos ? next : next - at);
    at = next == std::string_view::npos ? section.size() + 1 : next + 1;
    if (line.substr(0, 3) == "```") {
      flush();
      fenced = !fenced;
      command_read = false;
    } else if (fenced) {
      if (command_read || line.substr(0, 7) != "$ rope ") continue;  // the doc's output: the page runs it
      command_read = true;
      LessonStep step;
      std::istringstream words{std::string(line.substr(7))};
      for (std::string word; words >> word;) {
        if (word == "--lang") {
          words >> word;  // the page's language, added by run_step
          continue;
        }
        step.args.push_back(word);
      }
      const auto [output, svg] = run_step(step, lang, dir, -1);
      fmt::format_to(std::back_inserter(out), "<code class=\"cmd\">$ {}</code>\n<pre>{}</pre>\n",
                     html_escape(lesson_command(step, lang)), pre_html(output));
    } else if (line.substr(0, 18) == "<details><summary>") {
      flush();
      const std::size_t close = line.find("</summary>");
      out += "<details class=\"answer\"><summary>" + html_escape(line.substr(18, close - 18)) + "</summary>\n";
    } else if (line.substr(0, 10) == "</details>") {
      flush();
      out += "</details>\n";
    } else if (line.empty() || line.substr(0, 4) == "<!--") {
      flush();
    } else {
      join_doc_line(paragraph, line);
    }
  }
  flush();
  return out + "</div>\n";
}

std::vector<plot::Figure> frames_of(LessonFrames kind, const FigureOptions& f) {
  switch (kind) {
    case LessonFrames::Explain:
      return explain_frames(explain::Setup{}, f);
    case LessonFrames::Wavelengths:
      return wavelength_frames(f, frequencies(128, kDefaultBase), "base = 10000", 4096);
    case LessonFrames::Grid: {  // Part 9: a patch walking Qwen3-VL-8B's 2×3×4 latent grid, each pair a dial
      SectionsRequest r;
      r.rope = resolve_model_rope({"qwen3-vl-8b", ""}, {});
      r.grid = std::array<int, 3>{2, 3, 4};
      r.walk = f.frame_count();
      return sections_grid_frames(run_sections(r), f.tr());
    }
    case LessonFrames::None:
      break;
  }
  return {};
}

// Type large enough to read beside a 900 px figure on a projector. Printed (the handout of docs/classroom.md): each
// part's title over its figures, two figures to a row across A4 (a part of two figures takes a row, a part of one
// half a row), captions at 9 pt, then the exercises without their answers; no outputs, sliders or answers. In
// <pre> every character that is not
// ASCII sits in a box of its terminal width (pre_html): a Chinese character two columns (2ch), θ or ✓
// one, whatever font the browser takes it from, so the tables rope prints keep their columns.
constexpr const char* kStyle =
    R"(body{font-family:sans-serif;font-size:20px;line-height:1.45;max-width:1000px;margin:auto;padding:1em;color:#222}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:16px;line-height:1.35;font-family:'DejaVu Sans Mono',monospace}
pre .w1,pre .w2{display:inline-block;text-align:center}pre .w1{width:1ch}pre .w2{width:2ch}
code.cmd{display:block;background:#222;color:#eee;padding:.4em .6em;font-size:18px}
figure{margin:0 0 1em 0}figure svg{width:100%;height:auto;max-width:900px}figcaption{font-style:italic;margin:.3em 0}
.frame[hidden]{display:none}.controls{margin:.5em 0}.controls input{width:60%;vertical-align:middle}
.controls button{font-size:20px}
details.answer{border-left:4px solid #9ab;padding:0 .6em;margin:.4em 0 1em}details.answer summary{cursor:pointer;font-weight:bold}
@media print{body{font-size:10pt;max-width:none;padding:0;display:grid;grid-template-columns:1fr 1fr;column-gap:6mm;
align-items:start}h1,body>p,#exercises,section:has(>figure~figure){grid-column:1/-1}h1{font-size:15pt;margin:0 0 .2em}
pre,code.cmd,.controls,[data-frames],details,.questions,body>p,section>p{display:none}
section{break-inside:avoid;margin:0 0 2mm}section>h2{font-size:11pt;margin:0 0 1mm;break-after:avoid}
section:has(>figure~figure)>figure{display:inline-block;width:calc(50% - 3mm);vertical-align:top}
section:has(>figure~figure)>figure+figure{margin-left:6mm}figure{margin:0;break-inside:avoid}
figcaption{font-size:9pt;line-height:1.2;margin:.5mm 0 0}#exercises{break-inside:auto}#exercises>h2{font-size:13pt}
#exercises p{display:block;margin:.3em 0}@page{size:A4;margin:12mm}})";

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
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string pre_html(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      out += html_escape(text.substr(i, 1));
      ++i;
      continue;
    }
    decode_utf8(text, i);
    const std::string_view character = text.substr(start, i - start);
    const std::size_t width = display_width(character);
    if (width == 0) {  // a combining mark stays with the character before it
      out.append(character);
    } else {
      fmt::format_to(std::back_inserter(out), "<span class=\"w{}\">{}</span>", width, character);
    }
  }
  return out;
}

std::string lesson_page(Lang lang) {
  const bool zh = lang == Lang::Zh;
  const TempDir dir;
  std::string page;
  auto emit = [&page](auto&&... args) {
    fmt::format_to(std::back_inserter(page), std::forward<decltype(args)>(args)...);
  };
  const Text t(lang);
  const std::string title = t.tr("A 45-minute RoPE class with rope");
  emit(
      "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{}\n</style>\n"
      "<script>\n{}\n</script>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n",
      zh ? "zh" : "en", html_escape(title), kStyle, kScript, html_escape(title),
      html_escape(t.tr("Each part: what to say, the command, what rope printed for it (run when this page was made) "
                       "and its figure. The sliders step through frames rope computed.")));
  emit("<p>{}</p>\n", html_escape(t.tr("The commands are those of docs/classroom.md, in its order; a figure the "
                                       "lesson draws with --png is drawn here as SVG.")));
  int figure = 0;
  for (const LessonPart& part : lesson_parts(t)) {
    if (part.number == 0) {  // the exercises (their answers folded) before the students' questions
      emit("<section id=\"exercises\">\n<h2>{}</h2>\n{}</section>\n", html_escape(t.tr("Exercises")),
           zh ? exercises_html(std::string_view(kClassroomZhMd, kClassroomZhMd_size), "## 练习", lang, dir.path())
              : exercises_html(std::string_view(kClassroomMd, kClassroomMd_size), "## Exercises", lang, dir.path()));
    }
    emit("<section id=\"part{}\">\n<h2>{}</h2>\n<p>{}</p>\n", part.number, html_escape(part.title),
         html_escape(part.say));
    if (part.number == 0) {  // the questions and answers of the doc, then the commands they name
      emit("{}", zh ? questions_html(std::string_view(kClassroomZhMd, kClassroomZhMd_size), "## 学生常见问题")
                    : questions_html(std::string_view(kClassroomMd, kClassroomMd_size), "## Common student questions"));
    }
    // The part's moving picture first, under what to say (the slider of Part 1 then shows in the first
    // screen of the page); its commands, outputs and figures after it.
    if (part.frames != LessonFrames::None) {
      FigureOptions f;
      f.lang = lang;
      f.frames = kLessonFrames;
      if (part.frames == LessonFrames::Explain) f.width = f.height = 900;  // square, as rope explain draws it
      const std::string set = fmt::format("frames{}", part.number);
      emit(
          "<div class=\"controls\"><button type=\"button\" onclick=\"stepFrame('{0}',-1)\">&#9664;</button> "
          "<input type=\"range\" id=\"{0}-range\" min=\"0\" max=\"{1}\" value=\"0\" "
          "oninput=\"showFrame('{0}',this.value)\"> "
          "<button type=\"button\" onclick=\"stepFrame('{0}',1)\">&#9654;</button> <span id=\"{0}-n\">1 / {2}</span></div>\n"
          "<div id=\"{0}\" data-frames=\"{2}\">\n",
          set, kLessonFrames - 1, kLessonFrames);
      int k = 0;
      for (const plot::Figure& frame : frames_of(part.frames, f)) {
        emit("<figure class=\"frame\"{}>\n{}\n</figure>\n", k++ == 0 ? "" : " hidden",
             inline_svg(draw_svg(frame, f), frame.title));
      }
      emit("</div>\n");
    }
    for (const LessonStep& step : part.steps) {
      const auto [output, svg] = run_step(step, lang, dir.path(), figure);
      emit("<code class=\"cmd\">$ {}</code>\n<pre>{}</pre>\n", html_escape(lesson_command(step, lang)),
           pre_html(first_lines(output, step.lines, t)));
      if (!svg.empty()) {
        emit("<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>\n", svg, html_escape(step.caption));
        ++figure;
      }
    }
    emit("</section>\n");
  }
  emit("</body>\n</html>\n");
  return page;
}

}  // namespace rope::cli
