#include "rope/plot/render.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <sys/stat.h>
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

bool needs_cjk_font(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (cp && is_cjk(*cp)) return true;
  }
  return false;
}

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
  if (!options.keep_script.empty()) write_file_atomically(options.keep_script, final_script);

  StagedOutputs staged;
  std::vector<Output> temp_outputs;
  for (const Output& o : outputs) {
    TempFile& temp = staged.stage(o.path, /*keep_extension=*/true);
    temp.close();
    temp_outputs.push_back({temp.path(), o.format});
  }
  const std::string run_script = gnuplot_script(figure, temp_outputs, options.style);

  fs::path temp_dir;
  try {
    temp_dir = fs::temp_directory_path();
  } catch (const fs::filesystem_error& e) {
    throw IoError(fmt::format("cannot find a directory for temporary files: {}", e.what()));
  }
  TempFile script((temp_dir / "rope-XXXXXX.gp").string(), 3,
                  fmt::format("the gnuplot script in '{}'", temp_dir.string()));
  script.write(run_script);

  const std::string program = gnuplot_program();
  const ChildResult r = run_child({program, script.path()}, Capture::Stderr, options.timeout_seconds);
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
    if (WIFSIGNALED(r.status)) throw IoError(fmt::format("gnuplot failed: killed by signal {}", WTERMSIG(r.status)));
    throw IoError(fmt::format("gnuplot failed with exit status {}", WEXITSTATUS(r.status)));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    struct stat st {};
    if (::stat(temp_outputs[i].path.c_str(), &st) != 0 || st.st_size == 0) {
      throw IoError(fmt::format("gnuplot failed: it wrote nothing for '{}'{}{}", outputs[i].path,
                                message.empty() ? "" : ": ", message));
    }
  }
  staged.commit();
}

}  // namespace rope::plot
