/// @file
/// How a front end asks for a report, and the one `emit` that prints every report: its format (text for
/// people, JSON, CSV) and, for text, the language and the significant digits of the numbers compared
/// (report/digits.hpp). The command line, the Python module and the live page only choose these.
///
/// A report plugs in by specialising `Report<Run>` for the run type its analysis returns, in its
/// report/<name>_report.hpp (the printers themselves in the .cpp):
///
///     template <>
///     struct Report<DecayRun> {
///       static Value value(const DecayRun& run);                       // the fields (JSON, Python, the page)
///       static void text(std::ostream& out, const DecayRun& run, const Printing& how);  // for people
///       static Table csv(const DecayRun& run);                         // optional: its CSV rows
///     };
///
/// `csv` is optional and returns a `Table` (written in pieces, never as one string) or the CSV text.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/json.hpp"
#include "rope/report/text.hpp"
#include "rope/report/value.hpp"

namespace rope {

enum class Format { Text, Json, Csv };

struct Printing {
  Printing() = default;
  Printing(Format format_, Lang lang_, std::optional<int> digits_ = std::nullopt, bool wide_ = false)
      : format(format_), lang(lang_), digits(digits_), wide(wide_) {}

  Format format = Format::Text;
  Lang lang = Lang::En;
  std::optional<int> digits;  ///< the significant digits of the numbers compared; nullopt: the report's default
  bool wide = false;          ///< text: every column where the report has a narrow and a wide table (verify)
};

/// A run type's report: value, text and (optionally) csv, as above. Not defined for a type without one.
template <class Run>
struct Report;

/// Where CSV goes, piece by piece (a stream, a staged file).
using CsvWrite = std::function<void(std::string_view)>;

namespace report_detail {

template <class Run, class = void>
struct HasCsv : std::false_type {};
template <class Run>
struct HasCsv<Run, std::void_t<decltype(Report<Run>::csv(std::declval<const Run&>()))>> : std::true_type {};

inline void write_csv_rows(const Table& table, const CsvWrite& write) { write_csv(table, write); }
inline void write_csv_rows(const std::string& text, const CsvWrite& write) { write(text); }

}  // namespace report_detail

/// Whether `Run`'s report has CSV rows.
template <class Run>
inline constexpr bool has_csv = report_detail::HasCsv<Run>::value;

/// The report's CSV, handed to `write` in pieces.
template <class Run>
void emit_csv(const Run& run, const CsvWrite& write) {
  static_assert(has_csv<Run>, "this report has no CSV rows (Report<Run>::csv)");
  report_detail::write_csv_rows(Report<Run>::csv(run), write);
}

/// The report of `run` on `out` as `how` asks.
/// @throws std::logic_error for Format::Csv of a report without CSV rows (a front end's mistake).
template <class Run>
void emit(std::ostream& out, const Run& run, const Printing& how) {
  switch (how.format) {
    case Format::Json:
      out << json_text(Report<Run>::value(run)) << '\n';
      return;
    case Format::Csv:
      if constexpr (has_csv<Run>) {
        emit_csv(run, [&](std::string_view s) { out.write(s.data(), static_cast<std::streamsize>(s.size())); });
        return;
      } else {
        throw std::logic_error("this report has no CSV rows");
      }
    case Format::Text:
      Report<Run>::text(out, run, how);
      return;
  }
}

}  // namespace rope
