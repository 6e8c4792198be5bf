// The corpus of generated dumps with their truth (tests/reference/corpus.py) and the answers recorded for them
// (tests/cli/corpus_answers.json), read by the test that runs its rows (test_corpus.cpp): check and identify agreeing
// with the record, and check's fast path against its exact path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rope::test {

// tests/CMakeLists.txt writes the corpus beside the variant dumps (ROPE_CORPUS_DUMPS); its answers are in the source
// tree beside the tests.
inline const std::string kCorpus = ROPE_VARIANT_DUMPS "/../corpus/corpus.json";
inline const std::string kCorpusAnswers = ROPE_REFERENCE_DIR "/../cli/corpus_answers.json";

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

/// The corpus's rows by id (the check and identify arguments, the truth).
inline const std::map<std::string, nlohmann::json>& corpus_rows() {
  static const std::map<std::string, nlohmann::json> rows = [] {
    std::map<std::string, nlohmann::json> out;
    const nlohmann::json corpus = read_json(kCorpus);  // held: a temporary's rows would not outlive the loop's start
    for (const nlohmann::json& r : corpus["rows"]) out[r["id"].get<std::string>()] = r;
    return out;
  }();
  return rows;
}

/// The rows of the recorded answers, the tests' cases (known before the corpus is written).
inline std::vector<std::string> corpus_ids() {
  std::vector<std::string> ids;
  const nlohmann::json recorded = read_json(kCorpusAnswers);
  for (const auto& [id, answer] : recorded.items()) ids.push_back(id);
  return ids;
}

/// The bytes of the files a row's check reads (its arguments that name a file), 0 where none is there.
inline std::uintmax_t row_bytes(const nlohmann::json& row) {
  std::uintmax_t bytes = 0;
  std::error_code error;
  for (const nlohmann::json& a : row["check"]) {
    const std::string arg = a.get<std::string>();
    if (std::filesystem::is_regular_file(arg, error)) bytes += std::filesystem::file_size(arg, error);
  }
  return bytes;
}

/// The rows a test binary runs. With ROPE_CORPUS_EVERY_ROW (rope_answer_tests, CI's Release tier) every row; otherwise
/// (rope_tests, CI's sanitizer tree, where a row costs ~6× its Release time) one row of each kind of check answer,
/// recorded — its exit status, verdict, and the variant it names or the closest — the one whose dumps are smallest:
/// each of check's paths to an answer runs under the sanitizers, and every row runs in Release.
inline std::vector<std::string> corpus_cases() {
#ifdef ROPE_CORPUS_EVERY_ROW
  return corpus_ids();
#else
  using Kind = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Kind, std::pair<std::uintmax_t, std::string>> smallest;
  const nlohmann::json recorded = read_json(kCorpusAnswers);
  std::error_code error;
  const auto* rows = std::filesystem::is_regular_file(kCorpus, error) ? &corpus_rows() : nullptr;  // else no sizes
  for (const auto& [id, answer] : recorded.items()) {
    const nlohmann::json& c = answer["check"];
    const Kind kind{c.value("exit", nlohmann::json()).dump(), c.value("passed", nlohmann::json()).dump(),
                    c.value("matches", nlohmann::json()).dump(), c.value("closest", nlohmann::json()).dump()};
    std::uintmax_t bytes = 0;
    if (rows != nullptr) {
      if (const auto row = rows->find(id); row != rows->end()) bytes = row_bytes(row->second);
    }
    const auto it = smallest.find(kind);
    if (it == smallest.end() || bytes < it->second.first) smallest[kind] = {bytes, id};
  }
  std::vector<std::string> ids;
  for (const auto& [kind, row] : smallest) ids.push_back(row.second);
  std::sort(ids.begin(), ids.end());
  return ids;
#endif
}

}  // namespace rope::test
