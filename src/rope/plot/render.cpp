#include "rope/plot/render.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fmt/format.h>
#include <optional>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

#include "rope/core/error.hpp"
#include "rope/io/atomic_file.hpp"
#include "rope/io/child_process.hpp"
#include "rope/core/utf8.hpp"
#include "rope/plot/animation.hpp"
#include "rope/plot/script.hpp"
#include "rope/plot/text.hpp"

namespace rope::plot {

namespace {

namespace fs = std::filesystem;

bool is_cjk(char32_t cp) {
  return (cp >= 0x2E80 && cp <= 0x9FFF)     // radicals, kana, CJK punctuation, Han
         || (cp >= 0xAC00 && cp <= 0xD7AF)  // Hangul syllables
         || (cp >= 0xF900 && cp <= 0xFAFF)  // CJK compatibility ideographs
         || (cp >= 0xFF00 && cp <= 0xFFEF)  // full-width and half-width forms
         || cp >= 0x20000;                  // Han extensions B and later
}

std::vector<const std::string*> figure_texts(const Figure& f) {
  std::vector<const std::string*> texts = {&f.title, &f.xlabel, &f.ylabel};
  for (const Series& s : f.series) texts.push_back(&s.label);
  for (const Band& b : f.bands) texts.push_back(&b.label);
  for (const ReferenceLine& r : f.lines) texts.push_back(&r.label);
  for (const Label& l : f.labels) texts.push_back(&l.text);
  if (f.heatmap) texts.push_back(&f.heatmap->colorbar_label);
  return texts;
}

}  // namespace

std::string gnuplot_program() {
  const char* env = std::getenv("ROPE_GNUPLOT");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("gnuplot");
}

bool cjk_font_available() {
  // A generous limit: the first fc-list after installing fonts builds fontconfig's cache.
  const ChildResult r = run_child({"fc-list", ":lang=zh", "family"}, Capture::Stdout, 60.0);
  if (r.spawn_error != 0 || r.timed_out) return false;
  return std::any_of(r.captured.begin(), r.captured.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) == 0; });
}

std::optional<bool> any_font_available() {
  const ChildResult r = run_child({"fc-list", ":", "family"}, Capture::Stdout, 60.0);
  if (r.spawn_error != 0 || r.timed_out) return std::nullopt;
  return std::any_of(r.captured.begin(), r.captured.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) == 0; });
}

bool needs_cjk_font(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (cp && is_cjk(*cp)) return true;
  }
  return false;
}

namespace {

/// Whether `content_tail` (the last bytes of a file of `size` bytes) ends as a complete file of the
/// format does; "" if so, else what is missing.
std::string incomplete(Format format, std::uint64_t size, const std::string& tail) {
  if (size == 0) return "it is empty";
  switch (format) {
    case Format::Png: {  // the IEND chunk: length 0, type, CRC (PNG specification, section 11.2.5)
      static const std::string kIend("\0\0\0\0IEND\xAE\x42\x60\x82", 12);
      return tail.size() >= kIend.size() && tail.compare(tail.size() - kIend.size(), kIend.size(), kIend) == 0
                 ? ""
                 : "no IEND chunk at its end";
    }
    case Format::Svg: {
      const std::size_t end = tail.find_last_not_of(" \t\r\n");
      return end != std::string::npos && end + 1 >= 6 && tail.compare(end + 1 - 6, 6, "</svg>") == 0
                 ? ""
                 : "no closing </svg> tag";
    }
    case Format::Pdf:
      return tail.find("%%EOF") != std::string::npos ? "" : "no %%EOF marker at its end";
    case Format::Gif:  // the trailer byte 0x3B (GIF89a specification, section 27)
      return tail.back() == '\x3B' ? "" : "no trailer byte 0x3B at its end";
    case Format::Sixel: {  // the string terminator ESC \ (DEC STD 070, sixel graphics)
      const std::size_t end = tail.find_last_not_of(" \t\r\n");
      return end != std::string::npos && end >= 1 && tail.compare(end - 1, 2, "\x1b\\") == 0
                 ? ""
                 : "no string terminator ESC \\ at its end";
    }
    case Format::Text:
    case Format::TextColor:
      return "";
  }
  return "";
}

/// Why a file may have stopped short: a file size limit it reached, else a full disk or memory.
std::string likely_reason(std::uint64_t size) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && size >= limit.rlim_cur) {
    return fmt::format("{} (the file size limit, ulimit -f, is {} bytes)", std::strerror(EFBIG), limit.rlim_cur);
  }
  return "gnuplot could not write all of it (out of memory or space?)";
}

/// A memory file, "/dev/fd/N" for gnuplot: the script it reads, or the text figure it writes. No file
/// to leave behind.
class MemoryFile {
 public:
  explicit MemoryFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) throw IoError(error_msg("cannot create a memory file for gnuplot: {0}", std::strerror(errno)));
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() { ::close(fd_); }
  int fd() const { return fd_; }

  /// Everything written to it (by another process too), at most `limit` bytes.
  /// @throws IoError if it holds more or cannot be read.
  std::string contents(std::size_t limit) const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw IoError(error_msg("cannot read gnuplot's output: {0}", std::strerror(errno)));
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > limit) {
      throw IoError(
          error_msg("gnuplot's output for the terminal is {0} bytes, more than the limit of {1}", size, limit));
    }
    std::string text(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::pread(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw IoError(error_msg("cannot read gnuplot's output: {0}", std::strerror(errno)));
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    text.resize(done);
    return text;
  }

 private:
  int fd_;
};

/// The script as a memory file gnuplot reads as "/dev/fd/N".
class ScriptFile : public MemoryFile {
 public:
  explicit ScriptFile(const std::string& text) : MemoryFile("rope-script") {
    std::string_view rest = text;
    while (!rest.empty()) {
      const ssize_t n = ::write(fd(), rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw IoError(error_msg("cannot write the gnuplot script: {0}", std::strerror(errno)));
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  }
};

}  // namespace

namespace {

/// Whether the figures need a Chinese font; then one must be installed.
void check_fonts(const std::vector<const Figure*>& figures, const Style& style, const std::vector<Format>& formats) {
  // A text terminal draws characters, not glyphs: it needs no font.
  if (std::all_of(formats.begin(), formats.end(),
                  [](Format f) { return f == Format::Text || f == Format::TextColor; })) {
    return;
  }
  bool cjk = style.lang == "zh";
  for (const Figure* f : figures) {
    const auto texts = figure_texts(*f);
    cjk = cjk || std::any_of(texts.begin(), texts.end(), [](const std::string* t) { return needs_cjk_font(*t); });
  }
  if (cjk && !cjk_font_available()) {
    throw IoError(
        error_msg("no Chinese font found by fontconfig (fc-list :lang=zh is empty): install fonts-wqy-microhei"));
  }
  // PNG, PDF, GIF and sixel carry the glyphs gnuplot drew: with no font at all the texts come out blank
  // (an SVG names its font and the viewer draws it).
  const bool drawn_text = std::any_of(formats.begin(), formats.end(), [](Format f) {
    return f == Format::Png || f == Format::Pdf || f == Format::Gif || f == Format::Sixel;
  });
  if (!cjk && drawn_text && any_font_available() == std::optional<bool>(false)) {
    throw IoError(
        error_msg("no font found by fontconfig for the figure's text (font 'Sans'; fc-list is empty): install "
                  "fonts-dejavu-core (and fontconfig)"));
  }
}

/// Runs gnuplot on `script_text` with `keep_fds` open; returns what it wrote to stderr (squashed).
/// @throws IoError as render() documents.
std::string run_gnuplot(const std::string& script_text, std::vector<int> keep_fds, double timeout_seconds) {
  if (!std::isfinite(timeout_seconds) || timeout_seconds <= 0) {
    throw InvalidArgument(error_msg("gnuplot timeout must be finite and > 0 seconds (got {0})", timeout_seconds));
  }
  const ScriptFile script(script_text);
  ChildOptions child;
  child.keep_fds = std::move(keep_fds);
  child.keep_fds.push_back(script.fd());
  // Default settings: no ~/.gnuplot, no system gnuplotrc (gnuplot -d), no load path from the environment.
  child.unset_env = {"GNUPLOT_LIB", "GNUPLOT_DRIVER_DIR", "GNUPLOT_PS_DIR"};

  const std::string program = gnuplot_program();
  const ChildResult r =
      run_child({program, "-d", fmt::format("/dev/fd/{}", script.fd())}, Capture::Stderr, timeout_seconds, child);
  if (r.spawn_error == ENOENT) {
    throw IoError(error_msg("gnuplot not found (install gnuplot-nox): cannot run '{0}'", program));
  }
  if (r.spawn_error != 0) {
    throw IoError(error_msg("cannot run gnuplot '{0}': {1}", program, std::strerror(r.spawn_error)));
  }
  if (r.timed_out) {
    throw IoError(
        error_msg("gnuplot did not finish within {0} s and was stopped", fmt::format("{:g}", timeout_seconds)));
  }
  const std::string message = squash(r.captured);
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    if (!message.empty()) throw IoError(error_msg("gnuplot failed: {0}", message));
    if (WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGXFSZ) {
      throw IoError(error_msg("gnuplot failed: {0}", likely_reason(RLIM_INFINITY)));
    }
    if (WIFSIGNALED(r.status)) throw IoError(error_msg("gnuplot failed: killed by signal {0}", WTERMSIG(r.status)));
    throw IoError(error_msg("gnuplot failed with exit status {0}", WEXITSTATUS(r.status)));
  }
  return message;
}

/// Stages every output, runs the script that `make_script` writes for the staged names, checks that
/// every output is complete, and commits (unless inside an OutputBatch).
void render_staged(const std::vector<Output>& outputs, const RenderOptions& options,
                   const std::function<std::string(const std::vector<Output>&)>& make_script) {
  const std::string final_script = make_script(outputs);  // validates before anything is staged
  // Inside an OutputBatch (the CLI) the figures commit with the run's other outputs; else here.
  StagedOutputs local;
  StagedOutputs& staged = current_output_batch() != nullptr ? *current_output_batch() : local;
  if (!options.keep_script.empty()) staged.stage(options.keep_script).write(final_script);

  std::vector<std::size_t> index;
  std::vector<Output> temp_outputs;
  for (const Output& o : outputs) {
    index.push_back(staged.stage_for_program(o.path));
    temp_outputs.push_back({staged.program_path(index.back()), o.format});
  }
  // Only names chosen by rope ("/dev/fd/N") reach the script that gnuplot runs.
  const std::string message = run_gnuplot(make_script(temp_outputs), staged.program_fds(), options.timeout_seconds);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::uint64_t size = staged.content_size(index[i]);
    const std::string missing = incomplete(outputs[i].format, size, staged.content_tail(index[i], 1024));
    if (size == 0 && likely_reason(size).find("ulimit") == std::string::npos) {
      throw IoError(error_msg("gnuplot failed: {0}", fmt::format("it wrote nothing for '{}'{}{}", outputs[i].path,
                                                                 message.empty() ? "" : ": ", message)));
    }
    if (!missing.empty()) {
      throw IoError(
          error_msg("cannot write '{0}': {1}", outputs[i].path,
                    fmt::format("the figure gnuplot wrote is incomplete ({} bytes, {}): {}{}{}", size, missing,
                                likely_reason(size), message.empty() ? "" : "; gnuplot: ", message)));
    }
  }
  if (&staged == &local) local.commit();
}

}  // namespace

void render(const Figure& figure, const std::vector<Output>& outputs, const RenderOptions& options) {
  gnuplot_script(figure, outputs, options.style);  // an invalid figure is InvalidArgument before anything else
  if (!std::isfinite(options.timeout_seconds) || options.timeout_seconds <= 0) {
    throw InvalidArgument(
        error_msg("gnuplot timeout must be finite and > 0 seconds (got {0})", options.timeout_seconds));
  }
  std::vector<Format> formats;
  for (const Output& o : outputs) formats.push_back(o.format);
  check_fonts({&figure}, options.style, formats);
  render_staged(outputs, options,
                [&](const std::vector<Output>& o) { return gnuplot_script(figure, o, options.style); });
}

void render_animation(const Animation& animation, const std::string& path, const RenderOptions& options) {
  animation_script(animation, {path, Format::Gif}, options.style);
  if (!std::isfinite(options.timeout_seconds) || options.timeout_seconds <= 0) {
    throw InvalidArgument(
        error_msg("gnuplot timeout must be finite and > 0 seconds (got {0})", options.timeout_seconds));
  }
  std::vector<const Figure*> frames;
  for (const Figure& f : animation.frames) frames.push_back(&f);
  check_fonts(frames, options.style, {Format::Gif});
  render_staged({{path, Format::Gif}}, options,
                [&](const std::vector<Output>& o) { return animation_script(animation, o.front(), options.style); });
}

std::string render_to_text(const Figure& figure, Format format, const RenderOptions& options) {
  if (format != Format::Sixel && format != Format::Text && format != Format::TextColor && format != Format::Svg) {
    throw InvalidArgument(error_msg("render_to_text draws sixel, text or SVG only"));
  }
  const MemoryFile output("rope-terminal");
  const std::vector<Output> outputs = {{fmt::format("/dev/fd/{}", output.fd()), format}};
  const std::string script = gnuplot_script(figure, outputs, options.style);
  check_fonts({&figure}, options.style, {format});
  const std::string message = run_gnuplot(script, {output.fd()}, options.timeout_seconds);
  std::string text = output.contents(kMaxTerminalBytes);
  if (format == Format::Text || format == Format::TextColor) {
    // gnuplot 5.4's dumb terminal starts every page with a form feed, even with nofeed: not for a pipe.
    text.erase(std::remove(text.begin(), text.end(), '\f'), text.end());
    text = fit_wide_characters(text);
  }
  const std::string missing =
      incomplete(format, text.size(), text.substr(text.size() - std::min<std::size_t>(text.size(), 1024)));
  if (!missing.empty()) {
    throw IoError(
        message.empty()
            ? error_msg("the figure gnuplot drew for the terminal is incomplete ({0} bytes, {1})", text.size(), missing)
            : error_msg("the figure gnuplot drew for the terminal is incomplete ({0} bytes, {1}): {2}", text.size(),
                        missing, message));
  }
  return text;
}

}  // namespace rope::plot
