// The malformed-input corpus (fixtures/bad, listed in fixtures/bad/cases.tsv)
// through the CLI: each file must fail with the listed exit code and one
// `tracecompact: error: ...` line, and must leave nothing behind — no output, no
// temporary file, no spooled stdin, no change to an existing file.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using testsupport::CliIo;
using testsupport::CliOutcome;
using testsupport::entries_of;
using testsupport::join;
using testsupport::run_cli;

namespace {

const std::string kPrefix = "tracecompact: error: ";

struct BadCase {
  std::string file;
  int exit_code = 0;
  std::string substring;
  std::string note;
};

fs::path bad_dir() {
  return fs::path(TRACECOMPACT_FIXTURES) / "bad";
}

std::vector<BadCase> load_cases() {
  std::ifstream in(bad_dir() / "cases.tsv");
  REQUIRE(in.good());
  std::vector<BadCase> cases;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {  // file, exit_code, stderr_substring, note
      header = false;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> columns;
    std::stringstream fields(line);
    for (std::string column; std::getline(fields, column, '\t');) columns.push_back(column);
    INFO("cases.tsv line: " << line);
    REQUIRE(columns.size() == 4);
    cases.push_back({columns[0], std::stoi(columns[1]), columns[2], columns[3]});
  }
  return cases;
}

// One line, with the prefix, containing the expected text, and the exit code.
void check_error(const CliOutcome& result, const BadCase& c) {
  INFO(result.describe());
  CHECK(result.exited);
  CHECK(result.exit_code == c.exit_code);
  CHECK(result.exit_code != 0);
  CHECK(result.err_lines() == 1);
  CHECK(!result.err.empty());
  if (!result.err.empty()) CHECK(result.err.back() == '\n');
  CHECK(result.err.rfind(kPrefix, 0) == 0);
  CHECK(result.err.find(c.substring) != std::string::npos);
}

// A private TMPDIR for the child, so that a leaked stdin spool file shows.
struct Scratch {
  testsupport::TempDir work;   // the output folder
  testsupport::TempDir spool;  // the child's TMPDIR
  CliIo io(const std::string& stdin_path = "/dev/null") const {
    CliIo io;
    io.stdin_path = stdin_path;
    io.env = {{"TMPDIR", spool.root().string()}};
    return io;
  }
};

}  // namespace

TEST_CASE("bad corpus: every file is listed in cases.tsv and the other way round", "[bad_input]") {
  const auto cases = load_cases();
  CHECK(cases.size() >= 35);
  std::set<std::string> listed;
  for (const auto& c : cases) {
    INFO(c.file);
    CHECK(listed.insert(c.file).second);  // no duplicate rows
    CHECK(fs::is_regular_file(bad_dir() / c.file));
    CHECK(c.exit_code != 0);
    CHECK(!c.substring.empty());
    CHECK(!c.note.empty());
  }
  for (const auto& name : entries_of(bad_dir())) {
    if (name == "cases.tsv" || name == "generate.py") continue;
    INFO("unlisted file fixtures/bad/" << name);
    CHECK(listed.count(name) == 1);
  }
}

TEST_CASE("bad inputs fail with one error line and create no file", "[bad_input]") {
  for (const auto& c : load_cases()) {
    INFO("fixtures/bad/" << c.file << " (" << c.note << ")");
    Scratch scratch;
    const std::string input = (bad_dir() / c.file).string();
    const std::string output = scratch.work.path("out.json");
    const CliOutcome result = run_cli({input, "-o", output}, scratch.io());
    check_error(result, c);
    // Neither out.json nor a leftover .out.json.tmp-XXXXXX.
    CHECK(join(entries_of(scratch.work.root())).empty());
    CHECK(join(entries_of(scratch.spool.root())).empty());
  }
}

TEST_CASE("bad inputs leave an existing output byte-for-byte unchanged with --overwrite",
          "[bad_input]") {
  const std::string known = "KNOWN BYTES \x01\x02\n{\"traceEvents\": []}\n";
  for (const auto& c : load_cases()) {
    INFO("fixtures/bad/" << c.file << " (" << c.note << ")");
    Scratch scratch;
    const std::string existing = scratch.work.path("existing.json");
    testsupport::write_bytes(existing, known);
    struct stat before {};
    REQUIRE(::stat(existing.c_str(), &before) == 0);

    const CliOutcome result =
        run_cli({(bad_dir() / c.file).string(), "-o", existing, "--overwrite"}, scratch.io());
    check_error(result, c);
    CHECK(testsupport::read_bytes(existing) == known);
    struct stat after {};
    REQUIRE(::stat(existing.c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);  // not replaced by a rename either
    CHECK(join(entries_of(scratch.work.root())) == "existing.json");
  }
}

// One case of each kind (a CLI run costs tens of milliseconds; the whole corpus
// runs through the two tests above).
const std::set<std::string> kStdinCases = {
    "empty.json",
    "utf16le_bom.json",
    "gzip_bad_crc.json.gz",
    "gzip_truncated.json.gz",
    "cut_in_string.json",
    "cut_before_closing_brace.json",
    "trailing_garbage.json",
    "nan_literal.json",
    "deep_nesting_args.json",
    "repeated_trace_events.json",
    "kernel_negative_dur.json",
    "no_gpu_slices.json",
    "ac2g_unmatched.json",
    "annotation_string_pid.json",
};

TEST_CASE("bad inputs on stdin create no file and write nothing to stdout", "[bad_input]") {
  size_t ran = 0;
  for (const auto& c : load_cases()) {
    if (!kStdinCases.count(c.file)) continue;
    ++ran;
    INFO("fixtures/bad/" << c.file << " on stdin (" << c.note << ")");
    const std::string input = (bad_dir() / c.file).string();
    {
      // `-` with -o FILE: nothing in the output folder, no spool file left in TMPDIR.
      Scratch scratch;
      const CliOutcome result =
          run_cli({"-", "-o", scratch.work.path("out.json")}, scratch.io(input));
      check_error(result, c);
      CHECK(join(entries_of(scratch.work.root())).empty());
      CHECK(join(entries_of(scratch.spool.root())).empty());
    }
    {
      // `-` with -o -: the error line and not a byte on stdout.
      Scratch scratch;
      const CliOutcome result = run_cli({"-", "-o", "-"}, scratch.io(input));
      check_error(result, c);
      CHECK(result.out.empty());
      CHECK(join(entries_of(scratch.spool.root())).empty());
    }
  }
  CHECK(ran == kStdinCases.size());
}

// Regression: a failed run creates the missing parent
// folders of OUTPUT and leaves them behind (the reference only creates them
// when it saves).
TEST_CASE("a failed run leaves no newly created output folder", "[bad_input]") {
  Scratch scratch;
  const std::string output = scratch.work.path("new/sub/out.json");
  const CliOutcome result =
      run_cli({(bad_dir() / "kernel_negative_dur.json").string(), "-o", output}, scratch.io());
  INFO(result.describe());
  CHECK(result.exit_code == 1);
  CHECK(join(entries_of(scratch.work.root())).empty());
}

// Regression: when reading stdin fails (here: stdin is a
// folder, read() gives EISDIR) the spool file $TMPDIR/tracecompact-in-XXXXXX
// is left behind.
TEST_CASE("a stdin read error leaves no spool file", "[bad_input]") {
  Scratch scratch;
  testsupport::TempDir folder;
  const CliOutcome result =
      run_cli({"-", "-o", scratch.work.path("out.json")}, scratch.io(folder.root().string()));
  INFO(result.describe());
  CHECK(result.exit_code == 3);
  CHECK(result.err_lines() == 1);
  CHECK(join(entries_of(scratch.work.root())).empty());
  CHECK(join(entries_of(scratch.spool.root())).empty());
}
