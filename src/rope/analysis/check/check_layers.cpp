// Every layer of a dump checked in one run (check_layers.hpp).
#include "rope/analysis/check/check_layers.hpp"

#include <algorithm>
#include <optional>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/tensor_directory.hpp"
#include "rope/io/tensor_list.hpp"
#include "rope/core/utf8.hpp"

namespace rope {

namespace {

int star_count(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '*')); }

}  // namespace

double layer_ratio(const CheckRun& run) {
  double r = run.report.comparison.max_ratio;
  if (run.k) r = std::max(r, run.k->report.comparison.max_ratio);
  return r;
}

namespace {}  // namespace

bool CheckLayersRun::passed() const {
  return std::all_of(layers.begin(), layers.end(), [](const CheckedLayer& l) { return l.run.all_passed(); });
}

bool names_layers(const DumpFiles& d) {
  for (const std::string* s : {&d.tensor, &d.before_tensor, &d.after_tensor})
    if (s->find('*') != std::string::npos) return true;
  return false;
}

CheckLayersRun run_check_layers(const CheckRequest& request) {
  const DumpFiles& d = request.dumps;
  CheckLayersRun out;
  out.before_file = d.before;
  out.after_file = d.after;
  out.before_pattern = d.before_tensor.empty() ? d.tensor : d.before_tensor;
  out.after_pattern = d.after_tensor.empty() ? d.tensor : d.after_tensor;
  const int stars = star_count(out.before_pattern);
  if (stars > kMaxTensorPatternStars || star_count(out.after_pattern) != stars) {
    throw InvalidArgument(error_msg("'{0}' and '{1}': the two tensor names need the same number of '*', at most {2}",
                                    escape_controls(out.before_pattern, kQuotedBytes),
                                    escape_controls(out.after_pattern, kQuotedBytes), kMaxTensorPatternStars));
  }
  // Each file opened once: its directory read here, every layer's tensors read from it (tensor_directory.hpp).
  const std::shared_ptr<const TensorDirectory> before_file = TensorDirectory::open(d.before);
  const std::shared_ptr<const TensorDirectory> after_file =
      d.after == d.before ? before_file : TensorDirectory::open(d.after);
  const TensorListing& before = before_file->listing();
  const TensorListing& after = after_file->listing();
  // q and k together: each layer's k named by k's patterns with the same runs as its q, so k's
  // names need q's count of '*' (--k-after-tensor defaults to --k-before-tensor's).
  std::optional<std::pair<std::string, std::string>> key_patterns;
  if (request.keys) {
    const KeyDumps& k = *request.keys;
    const std::string kb = k.before_tensor, ka = k.after_tensor.empty() ? k.before_tensor : k.after_tensor;
    if (star_count(kb) != stars || star_count(ka) != stars) {
      throw InvalidArgument(error_msg(
          "{0} '{1}' and {2} '{3}': each layer's k is named by the runs of q's '*', so k's tensor names need the same "
          "number of '*' as '{4}' ({5})",
          option_name("k_before_tensor"), escape_controls(kb, kQuotedBytes), option_name("k_after_tensor"),
          escape_controls(ka, kQuotedBytes), escape_controls(out.before_pattern, kQuotedBytes), stars));
    }
    key_patterns.emplace(kb, ka);
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::vector<std::string>> pair_runs;
  for (const TensorEntry& e : before.tensors) {
    std::vector<std::string> runs;
    if (!match_tensor_pattern(out.before_pattern, e.name, &runs)) continue;
    const std::string other = fill_tensor_pattern(out.after_pattern, runs);
    if (other == e.name && d.after == d.before) continue;  // the pattern pairs a tensor with itself
    const bool present =
        std::any_of(after.tensors.begin(), after.tensors.end(), [&](const TensorEntry& a) { return a.name == other; });
    if (!present) {
      throw InvalidArgument(error_msg("{0}: no tensor named '{1}', the pair of '{2}' in {3}",
                                      escape_controls(d.after, kQuotedBytes), escape_controls(other, kQuotedBytes),
                                      escape_controls(e.name, kQuotedBytes), escape_controls(d.before, kQuotedBytes)));
    }
    if (pairs.size() >= kMaxCheckedLayers) {
      throw InvalidArgument(error_msg("'{0}' matches more than the {1} layers one run checks",
                                      escape_controls(out.before_pattern, kQuotedBytes), kMaxCheckedLayers));
    }
    pairs.emplace_back(e.name, other);
    pair_runs.push_back(std::move(runs));
  }
  if (pairs.empty()) {
    throw InvalidArgument(error_msg("{0}: no tensor matches '{1}'", escape_controls(d.before, kQuotedBytes),
                                    escape_controls(out.before_pattern, kQuotedBytes)));
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [b, a] = pairs[i];
    CheckRequest one = request;
    one.dumps.tensor.clear();
    one.dumps.before_tensor = b;
    one.dumps.after_tensor = a;
    one.dumps.before_directory = before_file;
    one.dumps.after_directory = after_file;
    if (key_patterns) {
      one.keys->before_tensor = fill_tensor_pattern(key_patterns->first, pair_runs[i]);
      one.keys->after_tensor = fill_tensor_pattern(key_patterns->second, pair_runs[i]);
    }
    out.layers.push_back(
        {b, a, run_check(one), one.keys ? one.keys->before_tensor : "", one.keys ? one.keys->after_tensor : ""});
  }
  // with k, a layer passes where q, k and the pair do (CheckRun::all_passed)
  std::stable_sort(out.layers.begin(), out.layers.end(), [](const CheckedLayer& x, const CheckedLayer& y) {
    if (x.run.all_passed() != y.run.all_passed()) return !x.run.all_passed();
    return layer_ratio(x.run) > layer_ratio(y.run);
  });
  return out;
}

}  // namespace rope
