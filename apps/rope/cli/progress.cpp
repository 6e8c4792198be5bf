#include "rope/cli/progress.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>

#include <fmt/format.h>

#include "rope/io/interrupt.hpp"

namespace rope::cli {

ProgressBar::ProgressBar(std::uint64_t bytes, const Text& t) : bytes_(bytes), t_(t) {
  enabled_ = bytes > 0 && ::isatty(STDERR_FILENO) == 1;
  start_ = pass_start_ = shown_ = std::chrono::steady_clock::now();
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(double done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < last_) ++pass_, pass_start_ = now;
  last_ = done;
  using seconds = std::chrono::duration<double>;
  if (seconds(now - start_).count() < 0.5 || (drawn_ && seconds(now - shown_).count() < 0.1 && done < 1)) return;
  shown_ = now;
  const double elapsed = std::max(1e-9, seconds(now - pass_start_).count());
  const double gbps = done * static_cast<double>(bytes_) / elapsed / 1e9;
  const int width = 30, filled = static_cast<int>(width * done);
  const std::string text = t_.tr("pass {0}: {1:3.0f} %, {2:.2f} GB/s", pass_, 100 * done, gbps);
  std::fprintf(stderr, "\r[%s%s] %s", std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), text.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

VerifyProgressBar::VerifyProgressBar(const Text& t)
    : bar_(::isatty(STDERR_FILENO) == 1), trials_word_(t.tr("trials")), t_(t) {}

void VerifyProgressBar::start(bool stoppable) {
  set_interrupt_deferred(stoppable);
  start_ = std::chrono::steady_clock::now();
}

std::string time_left(double elapsed, long done, long total, const Text& t) {
  if (elapsed < 1.0 || done <= 0 || total <= 0 || 100.0 * static_cast<double>(done) < total) return "";
  const double left = elapsed * static_cast<double>(total - done) / static_cast<double>(done);
  if (left < 90) return t.tr("about {0} s left", static_cast<long>(std::ceil(left)));
  if (left < 90 * 60) return t.tr("about {0} min left", static_cast<long>(std::ceil(left / 60)));
  return t.tr("about {0} h left", fmt::format("{:.1f}", left / 3600));
}

bool VerifyProgressBar::update(long done, long total) {
  if (bar_ && (drawn_ || done < total)) {
    const int width = 30, filled = static_cast<int>(static_cast<double>(width) * done / total);
    using seconds = std::chrono::duration<double>;
    const std::string left = time_left(seconds(std::chrono::steady_clock::now() - start_).count(), done, total, t_);
    std::fprintf(stderr, "\r[%s%s] %3d%%  %ld / %ld %s%s%s\033[K", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), static_cast<int>(100.0 * done / total), done, total,
                 trials_word_.c_str(), left.empty() ? "" : ", ", left.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
  return !interrupt_requested();
}

void VerifyProgressBar::finish() {
  set_interrupt_deferred(false);
  if (drawn_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
  drawn_ = false;
}

}  // namespace rope::cli
