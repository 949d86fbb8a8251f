// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "cli/options.h"

namespace uringscope {
namespace {

Options parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"uringscope"};
  argv.insert(argv.end(), args);
  return parse_options(static_cast<int>(argv.size()), argv.data());
}

// The message a bad command line produces (the test fails if it parses).
std::string error_of(std::initializer_list<const char*> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a usage error";
  return {};
}

// The options --help shows with a placeholder after their names ("-p,--pid PID[,PID]"),
// read from the help text: the pre-scan that finds where the command starts must skip the
// value of exactly these, and it reads them from the parser, not from a list of its own.
std::set<std::string, std::less<>> placeholders_in_help() {
  std::set<std::string, std::less<>> spellings;
  std::istringstream help(parse({"--help"}).help_text);
  for (std::string line; std::getline(help, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::size_t names_end = line.find(' ', 2);
    if (names_end == std::string::npos || names_end + 1 >= line.size() || line[names_end + 1] == ' ') {
      continue;  // no placeholder: a flag
    }
    std::string names = line.substr(2, names_end - 2);
    names = names.substr(0, names.find('{'));
    for (std::size_t start = 0; start <= names.size();) {
      const std::size_t comma = names.find(',', start);
      spellings.insert(names.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return spellings;
}

TEST(Options, ValueOptionsAreThoseWithAPlaceholderInHelp) {
  const auto from_help = placeholders_in_help();
  ASSERT_GE(from_help.size(), 15u);
  EXPECT_EQ(options_taking_values(), from_help);
}

TEST(Options, EveryValueOptionKeepsTheCommandAfterItsValue) {
  // A value that is also a plausible command name: taken as the command, the run would
  // trace `top` and the test would see it.
  for (const std::string& option : options_taking_values()) {
    if (option == "--json") continue;  // its value is optional: NormaliseJson covers it
    std::vector<const char*> argv{"uringscope", option.c_str(), "7", "./app", "arg"};
    try {
      const Options o = parse_options(static_cast<int>(argv.size()), argv.data());
      EXPECT_EQ(o.command, (std::vector<std::string>{"./app", "arg"})) << option;
    } catch (const UsageError& e) {
      // A value of 7 is wrong for some options; the error must be about the value, not
      // about a missing target.
      EXPECT_EQ(std::string(e.what()).find("nothing to trace"), std::string::npos)
          << option << ": " << e.what();
    }
  }
}

TEST(Options, CommandKeepsItsOwnFlags) {
  Options o = parse({"./app", "-p", "5", "--json"});
  EXPECT_EQ(o.command, (std::vector<std::string>{"./app", "-p", "5", "--json"}));
  EXPECT_TRUE(o.pids.empty());
  EXPECT_FALSE(o.json.has_value());
}

TEST(Options, DoubleDashStartsTheCommand) {
  Options o = parse({"-d", "2.5", "--", "./app", "--x"});
  EXPECT_EQ(o.command, (std::vector<std::string>{"./app", "--x"}));
  ASSERT_TRUE(o.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*o.duration_s, 2.5);
}

TEST(Options, PidList) {
  Options o = parse({"-p", "31337,42", "-d", "30"});
  EXPECT_EQ(o.pids, (std::vector<int>{31337, 42}));
  EXPECT_DOUBLE_EQ(o.duration_s.value(), 30.0);
  EXPECT_TRUE(o.command.empty());
}

TEST(Options, SystemWideWithFlags) {
  Options o = parse({"-a", "-v", "--keep-root"});
  EXPECT_TRUE(o.all);
  EXPECT_TRUE(o.verbose);
  EXPECT_TRUE(o.keep_root);
  EXPECT_FALSE(o.duration_s.has_value());
}

TEST(Options, JsonFileForms) {
  EXPECT_EQ(parse({"--json=r.json", "-a"}).json, "r.json");
  EXPECT_EQ(parse({"--json", "r.json", "-a"}).json, "r.json");
  EXPECT_EQ(parse({"--json", "-", "-a"}).json, "-");
  EXPECT_EQ(parse({"-a", "--json"}).json, "-");
  EXPECT_EQ(parse({"--json", "--", "./app"}).json, "-");
  EXPECT_EQ(parse({"-d", "3", "--json", "r.json", "-a"}).json, "r.json");
}

TEST(Options, AfterDoubleDashAnythingIsTheCommand) {
  EXPECT_EQ(parse({"--", "-odd-name"}).command, (std::vector<std::string>{"-odd-name"}));
}

TEST(Options, BareJsonBeforeACommandDoesNotEatIt) {
  Options o = parse({"--json", "./app", "arg"});
  EXPECT_EQ(o.json, "-");
  EXPECT_EQ(o.command, (std::vector<std::string>{"./app", "arg"}));
}

TEST(Options, VersionAndHelpNeedNoTarget) {
  EXPECT_TRUE(parse({"--version"}).version);
  Options help = parse({"-h"});
  EXPECT_TRUE(help.help);
  EXPECT_NE(help.help_text.find("Examples"), std::string::npos);
  EXPECT_NE(help.help_text.find("--json"), std::string::npos);
}

TEST(Options, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(error_of({}), "nothing to trace: give a command, -p PID or -a");
  EXPECT_EQ(error_of({"-p", "12x"}), "-p: '12x' is not a process id");
  EXPECT_EQ(error_of({"-p", "1,,2"}), "-p: '' is not a process id");
  EXPECT_EQ(error_of({"-p", "-4"}), "-p: '-4' is not a process id");
  EXPECT_EQ(error_of({"-a", "-d", "0"}), "-d wants a positive number of seconds");
  EXPECT_EQ(error_of({"-a", "-d", "-3"}), "-d wants a positive number of seconds");
  EXPECT_EQ(error_of({"-a", "-p", "1"}),
            "choose one target: a command, -p PID or -a (they cannot be combined)");
  EXPECT_EQ(error_of({"-p", "1", "./app"}),
            "choose one target: a command, -p PID or -a (they cannot be combined)");
  EXPECT_NE(error_of({"-a", "-d", "soon"}).find("-d"), std::string::npos);
  EXPECT_NE(error_of({"--bogus"}).find("--bogus"), std::string::npos);
}

// -e takes one expression; what follows it is the command, options and all.
TEST(Options, DisplayFilterTakesOneWord) {
  EXPECT_EQ(parse({"-e", "punt", "./app", "-e"}).command, (std::vector<std::string>{"./app", "-e"}));
  EXPECT_TRUE(parse({"-e", "punt", "./app"}).display_filter.punt);
}

// The spellings of the C releases mean what their uringscope options mean.
TEST(Options, AliasesOfTheCReleases) {
  EXPECT_TRUE(parse({"--summary", "-a"}).compact);
  EXPECT_TRUE(parse({"--no-doctor", "-a"}).no_findings);
  EXPECT_EQ(parse({"-t", "t.json", "-a"}).trace, "t.json");
  const Options filtered = parse({"--filter", "punt", "--filter", "op=READ", "-a"});
  EXPECT_TRUE(filtered.display_filter.punt);
  EXPECT_EQ(filtered.display_filter.ops, (std::set<uint32_t>{22}));
  EXPECT_TRUE(parse({"-e", "all", "-a"}).display_filter.empty());
  EXPECT_TRUE(parse({"-e", "all", "-e", "punt", "-a"}).display_filter.punt);
  // Their values are not taken for the command.
  EXPECT_EQ(parse({"-t", "t.json", "./app"}).command, (std::vector<std::string>{"./app"}));
  EXPECT_EQ(parse({"--filter", "punt", "./app"}).command, (std::vector<std::string>{"./app"}));
}

TEST(Options, FileTable) {
  Options defaults = parse({"-a"});
  EXPECT_FALSE(defaults.files);
  EXPECT_EQ(defaults.file_table.top, 10u);
  EXPECT_EQ(defaults.file_table.sort, FileSort::Time);
  Options o = parse({"--files", "--files-top", "3", "--files-sort", "bytes", "-a"});
  EXPECT_TRUE(o.files);
  EXPECT_EQ(o.file_table.top, 3u);
  EXPECT_EQ(o.file_table.sort, FileSort::Bytes);
  EXPECT_EQ(parse({"--files", "--files-top", "0", "-a"}).file_table.top, 0u);
  EXPECT_FALSE(parse({"--files", "--no-files", "-a"}).files);
  // "--files-top N CMD": N is the option's, the command starts after it.
  Options cmd = parse({"--files", "--files-top", "5", "fio", "job.fio"});
  EXPECT_EQ(cmd.command, (std::vector<std::string>{"fio", "job.fio"}));
}

TEST(Options, BadFileTableOptions) {
  EXPECT_EQ(error_of({"--files", "--files-top", "-1", "-a"}),
            "--files-top wants a number of rows, 0 or more");
  EXPECT_EQ(error_of({"--files", "--files-sort", "size", "-a"}),
            "--files-sort wants time, requests, bytes or name");
  EXPECT_EQ(error_of({"--files-top", "3", "-a"}),
            "--files-top and --files-sort shape the file table, which needs --files");
}

TEST(Options, MetricsFiles) {
  EXPECT_EQ(parse({"--metrics", ":0", "-a"}).metrics_files, 0u);
  EXPECT_EQ(parse({"--metrics", ":0", "--files", "--metrics-files", "20", "-a"}).metrics_files, 20u);
  EXPECT_EQ(error_of({"--metrics-files", "5", "-a"}),
            "--metrics-files adds series to --metrics, which is not given");
  EXPECT_EQ(error_of({"--metrics", ":0", "--files", "--metrics-files", "-2", "-a"}),
            "--metrics-files wants a number of files, 0 or more");
  EXPECT_EQ(error_of({"--metrics", ":0", "--metrics-files", "2", "-a"}),
            "--metrics-files needs the per-file rows of --files");
}

TEST(Options, FlameOutputsTurnOnFilesUnlessToldNot) {
  Options o = parse({"--folded", "io.folded", "--flamegraph", "io.svg", "fio", "job.fio"});
  EXPECT_EQ(o.folded, "io.folded");
  EXPECT_EQ(o.flamegraph, "io.svg");
  EXPECT_EQ(o.flame_weight, FlameWeight::Count);
  EXPECT_TRUE(o.files);
  EXPECT_EQ(o.command, (std::vector<std::string>{"fio", "job.fio"}));
  EXPECT_FALSE(parse({"--no-files", "--folded", "io.folded", "-a"}).files);
  EXPECT_EQ(parse({"--flamegraph", "io.svg", "--flame-weight", "bytes", "-a"}).flame_weight,
            FlameWeight::Bytes);
  EXPECT_EQ(parse({"--folded", "x", "--flame-weight", "time", "-a"}).flame_weight,
            FlameWeight::Time);
  EXPECT_FALSE(parse({"-a"}).files);
}

TEST(Options, RingsAndHistograms) {
  EXPECT_EQ(parse({"-a"}).full_rings, kDefaultFullRings);
  EXPECT_EQ(parse({"--rings", "3", "-a"}).full_rings, 3u);
  EXPECT_EQ(parse({"--rings", "0", "-a"}).full_rings, 0u);
  EXPECT_EQ(parse({"--rings", "all", "-a"}).full_rings, std::nullopt);
  // "--rings N CMD": N is the option's, the command starts after it.
  EXPECT_EQ(parse({"--rings", "5", "make", "check"}).command,
            (std::vector<std::string>{"make", "check"}));
  EXPECT_TRUE(parse({"-c", "--histograms", "-a"}).histograms);
  EXPECT_FALSE(parse({"-c", "-a"}).histograms);
  EXPECT_EQ(error_of({"--rings", "-1", "-a"}), "--rings wants a number of rings, 0 or more, or all");
  EXPECT_EQ(error_of({"--rings", "some", "-a"}), "--rings wants a number of rings, 0 or more, or all");
  EXPECT_EQ(error_of({"--histograms", "-a"}),
            "--histograms adds histograms to -c; the full report has them already");
}

TEST(Options, KeepRings) {
  EXPECT_EQ(parse({"-a"}).keep_rings, FoldLimits{}.rings);
  EXPECT_EQ(parse({"--keep-rings", "8", "-a"}).keep_rings, 8u);
  EXPECT_EQ(parse({"--keep-rings", "0", "-a"}).keep_rings, 0u);
  EXPECT_EQ(parse({"--keep-rings", "all", "-a"}).keep_rings, std::nullopt);
  EXPECT_EQ(error_of({"--keep-rings", "many", "-a"}),
            "--keep-rings wants a number of rings, 0 or more, or all");
}

TEST(Options, FlameOutputErrors) {
  EXPECT_EQ(error_of({"--folded", "x", "--flame-weight", "size", "-a"}),
            "--flame-weight wants count, bytes or time");
  EXPECT_EQ(error_of({"--flame-weight", "bytes", "-a"}),
            "--flame-weight weighs --folded or --flamegraph, neither given");
  EXPECT_EQ(error_of({"--folded", "", "-a"}), "--folded wants a file name");
  EXPECT_EQ(error_of({"--flamegraph", "", "-a"}), "--flamegraph wants a file name");
}

}  // namespace
}  // namespace uringscope
