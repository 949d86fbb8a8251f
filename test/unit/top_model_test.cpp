// SPDX-License-Identifier: MIT
// `uringscope top`'s model as a user drives it, without a terminal: readings in, keys in,
// the composed screen's text out.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "top/model.h"
#include "top/screen.h"
#include "top_fixture.h"

namespace uringscope::top_test {
namespace {

using top::Key;
using top::KeyCode;
using top::Tab;
using top::TopModel;

// A model after two readings a second apart: db did 400 READs and 100 WRITEs, web 50
// RECVs (10 punted) and 50 SENDs.
TopModel busy_model(bool files_on = true) {
  TopModel m({.interval_s = 1, .files_on = files_on});
  m.set_size(80, 24);
  m.on_reading(reading(0, 0, 0, 0));
  m.on_reading(reading(kSecond, 400, 100, 50, 10));
  return m;
}

TEST(TopModel, RingsTabShowsEachRingsRateAndCountsSinceTheBaseline) {
  TopModel m = busy_model();
  const auto db = words(line_with(m, "db[10]"));
  ASSERT_GE(db.size(), 9u) << line_with(m, "db[10]");
  EXPECT_EQ(db[0], "#0");
  EXPECT_EQ(db[2], "500.0");  // cqe/s over the 1 s interval
  EXPECT_EQ(db[3], "500");    // CQEs since the baseline
  EXPECT_EQ(db[4], "8.1");    // batch: 500 SQEs in 62 submitting enters
  const auto web = words(line_with(m, "web[20]"));
  ASSERT_GE(web.size(), 7u);
  EXPECT_EQ(web[3], "100");
  EXPECT_EQ(web[6], "10.0%");  // 10 of 100 submissions punted
  // Sorted by CQEs, the busiest first: db's row comes before web's.
  const auto lines = screen_text(m);
  std::size_t db_at = 0, web_at = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("db[10]") != std::string::npos && !db_at) db_at = i;
    if (lines[i].find("web[20]") != std::string::npos && !web_at) web_at = i;
  }
  EXPECT_LT(db_at, web_at);
}

TEST(TopModel, TheNextIntervalShowsItsOwnRateAndTheGrowingTotal) {
  TopModel m = busy_model();
  m.on_reading(reading(3 * kSecond, 600, 100, 50, 10));  // 200 READs in 2 s
  const auto db = words(line_with(m, "db[10]"));
  EXPECT_EQ(db[2], "100.0");
  EXPECT_EQ(db[3], "700");
}

TEST(TopModel, OpsTabMergesEveryRing) {
  TopModel m = busy_model();
  type(m, "2");
  EXPECT_EQ(m.tab(), Tab::Ops);
  EXPECT_EQ(words(line_with(m, "READ"))[2], "400");
  EXPECT_EQ(words(line_with(m, "WRITE"))[2], "100");
  EXPECT_EQ(words(line_with(m, "RECV"))[2], "50");
}

TEST(TopModel, EnterPushesAFilterThatScopesEveryTabAndEscPopsIt) {
  TopModel m = busy_model();
  type(m, "4");  // processes, busiest first: db
  ASSERT_EQ(m.tab(), Tab::Processes);
  m.on_key(Key{KeyCode::Down});  // web
  m.on_key(Key{KeyCode::Enter});
  ASSERT_EQ(m.filters().size(), 1u);
  EXPECT_NE(top::status_line(m).text.find("filter: pid=20(web)"), std::string::npos);
  type(m, "2");
  EXPECT_EQ(line_with(m, "READ"), "");
  EXPECT_NE(line_with(m, "RECV"), "");
  // A second frame: the op under the cursor; the two combine.
  m.on_key(Key{KeyCode::Enter});
  EXPECT_NE(top::status_line(m).text.find("filter: pid=20(web) > op=SEND"), std::string::npos)
      << top::status_line(m).text;
  EXPECT_EQ(m.table().rows.size(), 1u);
  // Where the stack does not fit, the newest frames are the ones shown.
  m.set_size(60, 24);
  EXPECT_NE(top::status_line(m).text.find("filter: ... > op=SEND"), std::string::npos)
      << top::status_line(m).text;
  m.set_size(80, 24);
  m.on_key(Key{KeyCode::Escape});
  m.on_key(Key{KeyCode::Escape});
  EXPECT_TRUE(m.filters().empty());
  EXPECT_NE(line_with(m, "READ"), "");
  EXPECT_NE(top::prompt_line(m).text.find("filter popped"), std::string::npos);
}

TEST(TopModel, AFileFrameRebuildsTheOpsFromThatFilesRows) {
  TopModel m = busy_model();
  type(m, "3");
  // Files by requests: a.dat READ (300), a.dat WRITE (100), b.dat READ (100).
  ASSERT_EQ(m.table().rows.size(), 3u);
  EXPECT_NE(m.table().rows[0].cells[0].find("a.dat"), std::string::npos);
  m.on_key(Key{KeyCode::Enter});
  type(m, "2");
  EXPECT_EQ(words(line_with(m, "READ"))[2], "300");
  EXPECT_EQ(words(line_with(m, "WRITE"))[2], "100");
  EXPECT_EQ(line_with(m, "RECV"), "");
}

TEST(TopModel, FilesCountPerIntervalAndSinceTheBaseline) {
  TopModel m = busy_model();
  m.on_reading(reading(2 * kSecond, 800, 100, 50));  // 400 more READs: 300 on a.dat
  type(m, "3");
  const auto a = words(line_with(m, "a.dat"));
  ASSERT_GE(a.size(), 4u);
  EXPECT_EQ(a[1], "READ");
  EXPECT_EQ(a[2], "300.0");  // the interval's, not the file's whole count
  EXPECT_EQ(a[3], "600");    // since the baseline
  type(m, "r");
  m.on_reading(reading(3 * kSecond, 804, 100, 50));
  EXPECT_EQ(words(line_with(m, "a.dat"))[3], "3");
}

TEST(TopModel, SortMovesAcrossColumnsAndReverses) {
  TopModel m = busy_model();
  type(m, "2");
  EXPECT_EQ(m.table().rows.front().cells[0], "READ");  // by CQEs
  // Two columns to the right of CQEs is p99: RECV's 500us is the slowest.
  type(m, "ll");
  EXPECT_EQ(m.table().columns[m.sort_column()].title, "p99");
  EXPECT_EQ(m.table().rows.front().cells[0], "RECV");
  type(m, "I");
  EXPECT_EQ(m.table().rows.back().cells[0], "RECV");
  EXPECT_NE(top::prompt_line(m).text.find("ascending"), std::string::npos);
  m.on_key(Key{KeyCode::Left});
  EXPECT_EQ(m.table().columns[m.sort_column()].title, "p50");
}

TEST(TopModel, TheCursorStaysOnItsRowWhenTheOrderChanges) {
  TopModel m = busy_model();
  m.on_key(Key{KeyCode::Down});
  ASSERT_NE(m.table().rows[m.tab_state().cursor].cells[0].find("web"), std::string::npos);
  // web overtakes db: the cursor follows web to the top.
  m.on_reading(reading(2 * kSecond, 400, 100, 1000, 10));
  EXPECT_EQ(m.tab_state().cursor, 0u);
  EXPECT_NE(m.table().rows[0].cells[0].find("web"), std::string::npos);
}

TEST(TopModel, SearchFindsTheNextMatchingRow) {
  TopModel m = busy_model();
  type(m, "/");
  EXPECT_TRUE(m.search().editing);
  EXPECT_NE(top::prompt_line(m).text.find("/"), std::string::npos);
  type(m, "WEB");
  m.on_key(Key{KeyCode::Enter});
  EXPECT_FALSE(m.search().editing);
  EXPECT_NE(m.table().rows[m.tab_state().cursor].cells[0].find("web"), std::string::npos);
  type(m, "/zzz");
  m.on_key(Key{KeyCode::Enter});
  EXPECT_NE(top::prompt_line(m).text.find("no row matches"), std::string::npos);
}

TEST(TopModel, ResetCountsFromNow) {
  TopModel m = busy_model();
  type(m, "r");
  EXPECT_EQ(line_with(m, "db[10]"), "");  // nothing since the new baseline
  m.on_reading(reading(2 * kSecond, 410, 100, 50, 10));
  EXPECT_EQ(words(line_with(m, "db[10]"))[3], "10");
  EXPECT_NE(top::tab_bar(m).text.find("since +1s"), std::string::npos);
}

TEST(TopModel, PauseFreezesTheScreenNotTheCounting) {
  TopModel m = busy_model();
  type(m, " ");
  m.on_reading(reading(2 * kSecond, 900, 100, 50, 10));
  EXPECT_EQ(words(line_with(m, "db[10]"))[3], "500");
  EXPECT_NE(top::tab_bar(m).text.find("PAUSED"), std::string::npos);
  type(m, " ");
  EXPECT_EQ(words(line_with(m, "db[10]"))[3], "1,000");
}

TEST(TopModel, HelpListsEveryKeyAndAnyKeyClosesIt) {
  TopModel m = busy_model();
  type(m, "?");
  ASSERT_TRUE(m.help());
  const auto lines = screen_text(m);
  for (const top::KeyHelp& k : top::kKeyHelp) {
    const bool shown = std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(std::string(k.keys)) != std::string::npos;
    });
    EXPECT_TRUE(shown) << k.keys << " is not on the help screen at 80x24";
  }
  EXPECT_TRUE(m.on_key(top::char_key('q')));  // closes the help, does not quit
  EXPECT_FALSE(m.help());
  EXPECT_FALSE(m.on_key(top::char_key('q')));
}

TEST(TopModel, FilesTabSaysItNeedsFiles) {
  TopModel m = busy_model(false);
  type(m, "3");
  EXPECT_NE(line_with(m, "need --files"), "");
}

TEST(TopModel, FindingsTabShowsTheRulesOnTheIntervalAndTheTotal) {
  TopModel m({.interval_s = 1});
  m.set_size(100, 30);
  m.on_reading(reading(0, 0, 0, 0));
  m.on_reading(reading(kSecond, 0, 0, 2000, 2000));  // every RECV punted
  type(m, "5");
  const std::string interval = line_with(m, "interval");
  EXPECT_NE(interval.find("PUNT"), std::string::npos) << interval;
  EXPECT_NE(line_with(m, "total"), "");
  EXPECT_NE(top::tab_bar(m).text.find("findings("), std::string::npos);
  // Enter on a finding filters to its ring.
  m.on_key(Key{KeyCode::Enter});
  ASSERT_EQ(m.filters().size(), 1u);
  EXPECT_EQ(m.filters()[0].kind, top::FilterKind::Ring);
}

TEST(TopModel, EveryLineIsTheScreensWidthAndAResizeTakesEffect) {
  TopModel m = busy_model();
  for (std::size_t w : {80u, 132u, 40u}) {
    m.set_size(w, 30);
    for (Tab tab : top::kTabs) {
      type(m, std::string(1, static_cast<char>('1' + static_cast<int>(tab))));
      const auto lines = screen_text(m);
      ASSERT_EQ(lines.size(), 30u);
      for (const std::string& l : lines) EXPECT_EQ(l.size(), w) << "'" << l << "'";
    }
  }
  m.set_size(30, 8);
  EXPECT_NE(screen_text(m)[0].find("needs 40x10"), std::string::npos);
}

TEST(TopModel, QuitsOnQ) {
  TopModel m = busy_model();
  EXPECT_TRUE(m.on_key(top::char_key('j')));
  EXPECT_FALSE(m.on_key(top::char_key('q')));
}

TEST(TopDocs, DocsTopNamesEveryKeyOfTheHelpScreen) {
  const std::filesystem::path doc =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "docs" / "top.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << "cannot read " << doc;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const top::KeyHelp& k : top::kKeyHelp)
    EXPECT_NE(text.find("| " + std::string(k.keys) + " |"), std::string::npos)
        << "docs/top.md has no row for the keys '" << k.keys << "'";
}

}  // namespace
}  // namespace uringscope::top_test
