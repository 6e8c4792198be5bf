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
#include "rope/io/utf8.hpp"
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

/// The script as a memory file gnuplot reads as "/dev/fd/N": no file to leave behind.
class ScriptFile {
 public:
  explicit ScriptFile(const std::string& text) : fd_(::memfd_create("rope-script", MFD_CLOEXEC)) {
    const auto fail = [this](int err) {
      if (fd_ >= 0) ::close(fd_);  // the destructor does not run after a throw from here
      throw IoError(fmt::format("cannot write the gnuplot script: {}", std::strerror(err)));
    };
    if (fd_ < 0) fail(errno);
    std::string_view rest = text;
    while (!rest.empty()) {
      const ssize_t n = ::write(fd_, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(errno);
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  ScriptFile(const ScriptFile&) = delete;
  ScriptFile& operator=(const ScriptFile&) = delete;
  ~ScriptFile() { ::close(fd_); }
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

void render(const Figure& figure, const std::vector<Output>& outputs, const RenderOptions& options) {
  const std::string final_script = gnuplot_script(figure, outputs, options.style);
  if (!std::isfinite(options.timeout_seconds) || options.timeout_seconds <= 0) {
    throw InvalidArgument(
        fmt::format("gnuplot timeout must be finite and > 0 seconds (got {})", options.timeout_seconds));
  }
  const auto texts = figure_texts(figure);
  const bool cjk = options.style.lang == "zh" ||
                   std::any_of(texts.begin(), texts.end(), [](const std::string* t) { return needs_cjk_font(*t); });
  if (cjk && !cjk_font_available()) {
    throw IoError("no Chinese font found by fontconfig (fc-list :lang=zh is empty): install fonts-wqy-microhei");
  }
  // PNG and PDF carry the glyphs cairo drew: with no font at all the texts come out blank (an SVG names
  // its font and the viewer draws it).
  const bool drawn_text = std::any_of(outputs.begin(), outputs.end(), [](const Output& o) { return o.format != Format::Svg; });
  if (!cjk && drawn_text && any_font_available() == std::optional<bool>(false)) {
    throw IoError("no font found by fontconfig for the figure's text (font 'Sans'; fc-list is empty): install "
                  "fonts-dejavu-core (and fontconfig)");
  }
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
  const ScriptFile script(gnuplot_script(figure, temp_outputs, options.style));
  ChildOptions child;
  child.keep_fds = staged.program_fds();
  child.keep_fds.push_back(script.fd());
  // Default settings: no ~/.gnuplot, no system gnuplotrc (gnuplot -d), no load path from the environment.
  child.unset_env = {"GNUPLOT_LIB", "GNUPLOT_DRIVER_DIR", "GNUPLOT_PS_DIR"};

  const std::string program = gnuplot_program();
  const ChildResult r = run_child({program, "-d", fmt::format("/dev/fd/{}", script.fd())}, Capture::Stderr,
                                  options.timeout_seconds, child);
  if (r.spawn_error == ENOENT) {
    throw IoError(fmt::format("gnuplot not found (install gnuplot-nox): cannot run '{}'", program));
  }
  if (r.spawn_error != 0) {
    throw IoError(fmt::format("cannot run gnuplot '{}': {}", program, std::strerror(r.spawn_error)));
  }
  if (r.timed_out) {
    throw IoError(fmt::format("gnuplot did not finish within {:g} s and was stopped", options.timeout_seconds));
  }
  const std::string message = squash(r.captured);
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    if (!message.empty()) throw IoError(fmt::format("gnuplot failed: {}", message));
    if (WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGXFSZ) {
      throw IoError(fmt::format("gnuplot failed: {}", likely_reason(RLIM_INFINITY)));
    }
    if (WIFSIGNALED(r.status)) throw IoError(fmt::format("gnuplot failed: killed by signal {}", WTERMSIG(r.status)));
    throw IoError(fmt::format("gnuplot failed with exit status {}", WEXITSTATUS(r.status)));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::uint64_t size = staged.content_size(index[i]);
    const std::string missing = incomplete(outputs[i].format, size, staged.content_tail(index[i], 1024));
    if (size == 0 && likely_reason(size).find("ulimit") == std::string::npos) {
      throw IoError(fmt::format("gnuplot failed: it wrote nothing for '{}'{}{}", outputs[i].path,
                                message.empty() ? "" : ": ", message));
    }
    if (!missing.empty()) {
      throw IoError(fmt::format("cannot write '{}': the figure gnuplot wrote is incomplete ({} bytes, {}): {}{}{}",
                                outputs[i].path, size, missing, likely_reason(size), message.empty() ? "" : "; gnuplot: ",
                                message));
    }
  }
  if (&staged == &local) local.commit();
}

}  // namespace rope::plot
