// The corpus of generated dumps with their truth (tests/reference/corpus.py) and the answers recorded for them
// (tests/cli/corpus_answers.json), read by the tests that run every row: check and identify agreeing with the record,
// and check's fast path against its exact path.
#pragma once

#include <fstream>
#include <map>
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

}  // namespace rope::test
