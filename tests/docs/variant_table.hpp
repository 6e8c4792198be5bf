/// @file
/// The table of known variants of docs/check.md ("What each diagnosis means"), written by rope_docgen from the rows of
/// the variant table (src/rope/analysis/check/check_table.hpp) between the markers `<!-- rope_docgen: variants -->` and
/// `<!-- rope_docgen: end -->`: per row, in the order check compares the variants, its `matches` id, how it is found
/// and the keys of its `found` (from the row), then the docs' words: an example of its diagnosis, what the dump
/// matches and the usual cause, with the sources that cite it. The words are each variant file's ROPE_VARIANT_DOC
/// entries (src/rope/analysis/variants/<name>.cpp), which only this generator compiles (they spell the command line's
/// options, which no library string may): one entry per row or per set of rows said in one sentence ("(or f16)"); an
/// entry without a row follows the one before it ("": a diagnosis beside that row's, its first column "—"), or comes
/// after every row ("*": the diagnoses no row names, below).
/// rope_docgen fails naming a row without an entry, or an entry naming no row.
#pragma once

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rope/analysis/check/check_table.hpp"

namespace rope::docs {

/// The docs' words of one row or of a set of rows.
struct VariantDoc {
  const char* names;  ///< the rows' `matches` ids, space-separated; "": follows the entry before; "*": after every row
  const char* diagnosis;  ///< an example of the diagnosis, as the report says it (markdown)
  const char* matches;    ///< what the dump matches
  const char* cause;      ///< the usual cause, with its sources
};

/// Every entry: the variant files' (in the table's order, as variant_list.hpp includes them, each file read for its
/// ROPE_VARIANT_DOC entries alone), then the diagnoses no row names ("*").
#define ROPE_VARIANT_DOCS
#define ROPE_VARIANT_DOC(names, diagnosis, matches, cause) {names, diagnosis, matches, cause},
// clang-format off
inline const std::vector<VariantDoc> kVariantDocs = {
#include "rope/analysis/variants/variant_list.hpp"
    {"*",
     R"md(`this layer has no RoPE in smollm3-3b (…), but the dump is rotated: it matches the RoPE of the model's layers that have one`)md",
     R"md(the RoPE of the model's other layers, on a layer without RoPE (`--layer-type`))md",
     R"md(a port that applies RoPE in every layer where the model skips some (SmolLM3's `no_rope_layers`, Llama 4's every 4th layer, Qwen3-Next's linear-attention layers))md"},
    {"*",
     R"md(`PASS as a sliding_attention layer: the model has the layer types sliding_attention, full_attention; give --layer-type to check one type` (a note), or `the dump matches none of the model's layer types (sliding_attention, full_attention)`)md",
     R"md(a model of several layer types checked without `--layer-type` (Gemma 3: sliding layers base 10000 unscaled, full layers base 1e6 with linear 8): when the default type fails, each distinct RoPE of the types is checked once (names that share one share a try; every type's RoPE from the run's one resolution of the model), at most 16 of them, the types of the others named as not tried (a note; JSON `layer_types_not_tried`), and the dump passes as the one it matches (JSON `layer_type`, `layer_types`); a message lists at most 16 names of at most 48 bytes each, then "and N more")md",
     R"md(not a bug: a dump of layer 0 of Gemma 3 is a sliding layer; give `--layer-type` (a name or a layer index) to check one type)md"},
    {"*",
     R"md(``no known variant explains the dump; the dump first departs at position -377, pair 26 (channels 26, 58): it turns that pair by -0.1536 rad where RoPE turns it by -0.212 rad, its norm ×1.128: run `rope identify` to see what the dump does``)md",
     R"md(nothing known and no parameter measured different, though a variant explains at least half of the dump's elements (here a bf16 K cache re-rotated 64 times, `--shift-map`: 7 of 6144 elements off, a cos/sin table rounded to bf16 explaining the others and not the cause))md",
     R"md(no closest variant: one that explains most of the dump without being its cause is no lead (a precision variant near a positional bug); where the dump first departs and what it does there, in `departure` of `--json`; look there and run `rope identify`)md"},
    {"*",
     R"md(``no known variant explains the dump; measured, its RoPE differs from the expected one in partner 32 → 1 (expected → found), which explains 65496 of 65536 elements (99.9 %): the others are not RoPE's; run `rope identify` to see what the dump does``)md",
     R"md(nothing listed matches; the dump measured ([the measurement](#the-measurement-what-a-failing-dump-does) below) differs from the expected RoPE in parameters that no one difference confirms over the whole dump (here: the interleaved layout and 40 elements wrong besides))md",
     R"md(the difference itself is the lead, each parameter with its expected and found value (JSON `diagnosis.difference`, the dump's RoPE in `diagnosis.measured`); no closest variant is offered in its place)md"},
    {"*",
     R"md(``no known variant comes close (none explains half of the dump); the dump first departs at position 1, pair 0 (channels 0, 32): it turns that pair by 2 rad where RoPE turns it by 1 rad, its norm ×1``)md",
     R"md(nothing known, no variant explaining half of the dump, and no parameter measured different (a mistake the measurement does not model))md",
     R"md(no hint that would point the wrong way: where the dump first departs (position, pair, channels) and what it does to that pair there (the angle and the norm identify measures), in `departure` of `--json`)md"},
};
// clang-format on
#undef ROPE_VARIANT_DOC
#undef ROPE_VARIANT_DOCS

inline constexpr const char* kVariantsMarker = "<!-- rope_docgen: variants -->";
inline constexpr const char* kVariantsEnd = "<!-- rope_docgen: end -->";

/// How a row is found, in the words of the paragraph above the table.
inline const char* found_how(VariantDetection detection) {
  switch (detection) {
    case VariantDetection::Compared:
      return "compared";
    case VariantDetection::FromDump:
      return "built from the dump";
    case VariantDetection::Measured:
      return "measured";
    case VariantDetection::Searched:
      return "searched";
    case VariantDetection::Screened:
      return "screened";
    case VariantDetection::InMode:
      return "in its mode";
    case VariantDetection::Paired:
      return "with q and k";
  }
  return "?";
}

inline std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  std::istringstream in(names);
  for (std::string name; in >> name;) out.push_back(name);
  return out;
}

/// The first column of an entry: its rows' ids, how they are found and the keys of their `found`.
inline std::string rows_cell(const std::vector<const VariantRow*>& rows) {
  if (rows.empty()) return "—";
  std::string ids, found, keys = rows.front()->parameters;
  for (const VariantRow* row : rows) ids += (ids.empty() ? "`" : ", `") + std::string(row->name) + "`";
  std::replace(keys.begin(), keys.end(), ',', ' ');
  for (const std::string& key : split_names(keys)) found += (found.empty() ? "`" : ", `") + key + "`";
  std::string how = found_how(rows.front()->detection);
  if (rows.front()->from_dump && rows.front()->detection != VariantDetection::FromDump) how += ", built from the dump";
  return ids + " (" + how + (found.empty() ? "" : "; found " + found) + ")";
}

/// The table, in the variant table's order, from its rows and kVariantDocs. @throws std::runtime_error naming a row
/// without an entry or an entry naming no row.
inline std::string variant_table_markdown() {
  const std::vector<VariantRow>& table = variant_table();
  const auto row_named = [&](const std::string& name) -> const VariantRow* {
    for (const VariantRow& row : table) {
      if (name == row.name) return &row;
    }
    return nullptr;
  };
  // Each entry (with its followers) under the first of its rows in the table's order.
  struct Placed {
    std::size_t at;
    std::vector<const VariantRow*> rows;
    std::vector<const VariantDoc*> docs;  // the entry and the ones that follow it
  };
  std::vector<Placed> placed, last;
  std::vector<Placed>* previous = nullptr;  // the list of the entry before
  std::vector<int> documented(table.size(), 0);
  for (const VariantDoc& doc : kVariantDocs) {
    const std::string names = doc.names;
    if (names.empty()) {
      if (previous == nullptr) throw std::runtime_error("the first variant docs entry follows nothing");
      previous->back().docs.push_back(&doc);
      continue;
    }
    if (names == "*") {
      last.push_back({table.size(), {}, {&doc}});
      previous = &last;
      continue;
    }
    Placed p{table.size(), {}, {&doc}};
    for (const std::string& name : split_names(names)) {
      const VariantRow* row = row_named(name);
      if (row == nullptr) throw std::runtime_error("the variant docs name no row " + name);
      const auto k = static_cast<std::size_t>(row - table.data());
      ++documented[k];
      p.at = std::min(p.at, k);
      p.rows.push_back(row);
    }
    std::sort(p.rows.begin(), p.rows.end());
    placed.push_back(std::move(p));
    previous = &placed;
  }
  for (std::size_t k = 0; k < table.size(); ++k) {
    if (table[k].kind != known_variant("expected") && documented[k] == 0) {
      throw std::runtime_error(
          std::string("the variant ") + table[k].name +
          " has no ROPE_VARIANT_DOC entry in src/rope/analysis/variants/ (its row of docs/check.md's table)");
    }
  }
  std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.at < b.at; });
  std::string out = "| `matches` | diagnosis | the dump matches | usual cause |\n|---|---|---|---|\n";
  for (const std::vector<Placed>* part : {&placed, &last}) {
    for (const Placed& p : *part) {
      for (const VariantDoc* doc : p.docs) {  // an entry that follows another names no row of its own: "—"
        const std::string rows = doc == p.docs.front() ? rows_cell(p.rows) : rows_cell({});
        out += "| " + rows + " | " + doc->diagnosis + " | " + doc->matches + " | " + doc->cause + " |\n";
      }
    }
  }
  return out;
}

/// `markdown` with the block between kVariantsMarker and kVariantsEnd written from the rows (unchanged without the
/// marker). @throws std::runtime_error for a marker without its end.
inline std::string update_variant_table(const std::string& markdown) {
  const std::size_t begin = markdown.find(std::string(kVariantsMarker) + "\n");
  if (begin == std::string::npos) return markdown;
  const std::size_t body = begin + std::string(kVariantsMarker).size() + 1;
  const std::size_t end = markdown.find(std::string(kVariantsEnd) + "\n", body);
  if (end == std::string::npos) {
    throw std::runtime_error(std::string("the block '") + kVariantsMarker + "' has no '" + kVariantsEnd + "'");
  }
  return markdown.substr(0, body) + variant_table_markdown() + markdown.substr(end);
}

}  // namespace rope::docs
