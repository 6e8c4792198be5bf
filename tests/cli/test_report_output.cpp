// The one emit (report/emit.hpp) and the command line's one helper (apps/rope/cli/report_output.hpp) on a report
// made up here: a run type plugs in with its value, text and CSV, and --json, --csv FILE, --csv - and --lang
// choose what is written where.
#include "rope/cli/report_output.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>
#include <stdexcept>
#include <string>

#include "rope/report/json.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {

/// A report of two numbers, as a run type of the library would be.
struct PairRun {
  double a = 1.5;
  double b = 2;
};

template <>
struct Report<PairRun> {
  static Value value(const PairRun& run) {
    Value v = Value::object();
    v["b"] = run.b;
    v["a"] = run.a;
    return v;
  }
  static void text(std::ostream& out, const PairRun& run, const Printing& how) {
    out << (how.lang == Lang::Zh ? "zh " : "en ") << run.a << ' ' << run.b << (how.wide ? " wide" : "") << '\n';
  }
  static std::string csv(const PairRun& run) { return "a,b\n" + format_number(run.a) + ",2\n"; }
};

/// A report without CSV rows.
struct WordRun {};

template <>
struct Report<WordRun> {
  static Value value(const WordRun&) { return Value("word"); }
  static void text(std::ostream& out, const WordRun&, const Printing&) { out << "word\n"; }
};

namespace {

static_assert(has_csv<PairRun> && !has_csv<WordRun>);

std::string emitted(const PairRun& run, const Printing& how) {
  std::ostringstream out;
  emit(out, run, how);
  return out.str();
}

TEST(ReportEmit, OneEmitForEveryFormat) {
  const PairRun run;
  const std::string json = emitted(run, {Format::Json, Lang::En, std::nullopt});
  EXPECT_EQ(json, json_text(Report<PairRun>::value(run)) + "\n");
  EXPECT_LT(json.find("\"a\""), json.find("\"b\""));  // the one JSON printer: keys sorted
  EXPECT_EQ(emitted(run, {Format::Csv, Lang::Zh, std::nullopt}), "a,b\n1.5,2\n");
  EXPECT_EQ(emitted(run, {Format::Text, Lang::Zh, std::nullopt, true}), "zh 1.5 2 wide\n");
  std::ostringstream out;
  EXPECT_THROW(emit(out, WordRun{}, {Format::Csv, Lang::En, std::nullopt}), std::logic_error);
}

class ReportOutput : public test::TempDirTest {};

TEST_F(ReportOutput, TheFlagsChooseWhatGoesWhere) {
  const PairRun run;
  const auto with = [&](const cli::ReportFlags& flags) {
    std::ostringstream out;
    int order = 0, drawn_at = -1;
    cli::emit_report(out, run, flags, [&] { drawn_at = order++, out << "[figure]"; });
    return out.str() + (drawn_at == 0 ? "" : " (figure not drawn once)");
  };
  EXPECT_EQ(with({false, Lang::En}), "[figure]en 1.5 2\n");
  EXPECT_EQ(with({true, Lang::Zh}), "[figure]" + json_text(Report<PairRun>::value(run)) + "\n");
  EXPECT_EQ(with({false, Lang::En, std::nullopt, "-"}), "a,b\n1.5,2\n[figure]");  // --csv -: the CSV instead
  const std::string file = path("pair.csv");
  EXPECT_EQ(with({false, Lang::En, std::nullopt, file}), "[figure]en 1.5 2\n");
  EXPECT_EQ(read(file), "a,b\n1.5,2\n");
  std::filesystem::remove(file);
  EXPECT_EQ(with({false, Lang::En, std::nullopt, file, false, false}), "[figure]en 1.5 2\n");
  EXPECT_FALSE(std::filesystem::exists(file));  // an interrupted run writes no file
  EXPECT_EQ(with({false, Lang::En, std::nullopt, "-", false, false}), "a,b\n1.5,2\n[figure]");  // but prints it
  std::ostringstream out;
  cli::emit_report(out, WordRun{}, {false, Lang::En, std::nullopt, "-"});  // no CSV rows: nothing to print
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace rope
