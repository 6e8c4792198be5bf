/// @file
/// A progress bar on stderr for a long pass over files (rope check on streamed dumps): drawn only when stderr
/// is a terminal, only once the pass has run for half a second, at most ten times a second, and erased when
/// the pass ends, so that redirected output and short runs never see it. rope verify's trials have their own
/// (VerifyProgressBar), which also lets Ctrl-C stop them.
#pragma once

#include <chrono>
#include <cstdint>

#include <optional>
#include <string>

#include "rope/analysis/check/check_run.hpp"
#include "rope/analysis/verify/verify_run.hpp"
#include "rope/cli/lang.hpp"

namespace rope::cli {

class ProgressBar {
 public:
  /// `bytes`: what one pass reads (0: no bar).
  ProgressBar(std::uint64_t bytes, const Text& t);
  ~ProgressBar();
  bool enabled() const { return enabled_; }
  /// The fraction of the current pass done; a fraction below the last one starts a new pass.
  void update(double done);
  /// Erases the bar.
  void finish();

 private:
  bool enabled_ = false, drawn_ = false;
  std::uint64_t bytes_;
  const Text& t_;
  double last_ = 0;
  int pass_ = 1;
  std::chrono::steady_clock::time_point start_, pass_start_, shown_;
};

/// A check's progress (analysis/check/check_run.hpp) drawn as a ProgressBar.
class CheckProgressBar final : public CheckProgress {
 public:
  explicit CheckProgressBar(const Text& t) : t_(t) {}
  bool start(std::uint64_t bytes) override {
    bar_.emplace(bytes, t_);
    return bar_->enabled();
  }
  void update(double done) override {
    if (bar_) bar_->update(done);
  }
  void finish() override {
    if (bar_) bar_->finish();
  }

 private:
  const Text& t_;
  std::optional<ProgressBar> bar_;
};

/// rope verify's trials (analysis/verify/verify_run.hpp): a bar on stderr, only on a terminal, and Ctrl-C deferred
/// while they run on the fast path, so that it stops them and the report covers the trials done (io/interrupt.hpp).
class VerifyProgressBar final : public VerifyWatch {
 public:
  explicit VerifyProgressBar(const Text& t);
  void start(bool stoppable) override;
  bool update(long done, long total) override;
  void finish() override;

 private:
  bool bar_ = false, drawn_ = false;
  std::string trials_word_;
  Text t_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The time left of a run `done` of `total` through after `elapsed` seconds, at the rate so far, for a
/// progress line: "about 40 s left", "about 12 min left", "about 3.5 h left"; empty before 1 s or 1 %.
std::string time_left(double elapsed, long done, long total, const Text& t);

}  // namespace rope::cli
