// The journal (core/journal.hpp) against a hostile file system and a second writer: records carry
// the run's identity, the file is locked, and links, FIFOs, devices and directories are refused.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "moelab/core/error.hpp"
#include "moelab/core/journal.hpp"

namespace fs = std::filesystem;
using namespace moelab;
using Catch::Matchers::Contains;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / "moelab_journal_test";
  fs::create_directories(d);
  const fs::path p = d / name;
  fs::remove_all(p);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

JournalIdentity identity(int seed) { return {{"kind", "run"}, {"seed", std::to_string(seed)}, {"trials", "10"}}; }

/// The InputError a journal opened with these arguments throws (fails the test when none is thrown).
InputError refusal(const fs::path& path, const JournalIdentity& id, bool resume) {
  try {
    Journal j(path.string(), id, resume);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for " << path);
  return InputError("", 0, "", "");
}

}  // namespace

TEST_CASE("a record copied from another run's journal is refused on resume", "[core][journal][hardening]") {
  const fs::path a = scratch("a.journal"), b = scratch("b.journal");
  {
    Journal j3(a.string(), identity(3), false);
    j3.append(0, "rows of seed 3");
    Journal j4(b.string(), identity(4), false);
    j4.append(1, "rows of seed 4");
    CHECK(j3.run_id() != j4.run_id());
  }
  // Seed 4's header with seed 3's record spliced in (what two interleaved writers once left).
  const std::string ta = slurp(a), tb = slurp(b);
  const std::string record3 = ta.substr(ta.find("\nunit ") + 1);
  std::ofstream(b, std::ios::binary | std::ios::app) << record3;
  const InputError e = refusal(b, identity(4), true);
  CHECK_THAT(std::string(e.what()), Contains("belongs to another run"));
  // Its own records resume.
  std::ofstream(b, std::ios::binary | std::ios::trunc) << tb;
  Journal ok(b.string(), identity(4), true);
  REQUIRE(ok.records().size() == 1);
  CHECK(ok.records().at(1) == "rows of seed 4");
}

TEST_CASE("a second writer of the same journal is refused while the first holds it", "[core][journal][hardening]") {
  const fs::path p = scratch("locked.journal");
  Journal first(p.string(), identity(3), false);
  first.append(0, "done");
  const InputError e = refusal(p, identity(4), false);
  CHECK_THAT(std::string(e.what()), Contains("another moelab run is writing"));
  // The first run's journal was not truncated or rewritten by the refused one.
  CHECK(slurp(p).find("seed: 3") != std::string::npos);
  CHECK(slurp(p).find("unit 0 ") != std::string::npos);
}

TEST_CASE("journal paths that are links, FIFOs, devices or directories are refused unread", "[core][journal][hardening]") {
  // "Unread" is shown by the reasons (the path's type, known without reading it), not by a clock bound
  // (which flakes on a loaded machine): /dev/zero read would never end, a FIFO opened would block.
  // A planted symlink to a file: refused, its target neither truncated nor written.
  const fs::path victim = scratch("victim.txt"), link = scratch("link.journal");
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, link);
  for (bool resume : {false, true}) CHECK_THAT(std::string(refusal(link, identity(1), resume).what()), Contains("symbolic link"));
  CHECK(slurp(victim) == "precious");
  // A symlink to /dev/zero (once read until memory ran out).
  const fs::path zero = scratch("zero.journal");
  fs::create_symlink("/dev/zero", zero);
  CHECK_THAT(std::string(refusal(zero, identity(1), true).what()), Contains("symbolic link"));
  // A FIFO without a writer (once blocked forever).
  const fs::path fifo = scratch("fifo.journal");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (bool resume : {false, true}) CHECK_THAT(std::string(refusal(fifo, identity(1), resume).what()), Contains("FIFO"));
  // A directory (once exit 3).
  const fs::path dir = scratch("dir.journal");
  fs::create_directories(dir);
  CHECK_THAT(std::string(refusal(dir, identity(1), true).what()), Contains("directory"));
  // Journal::remove leaves a link alone (it was never this run's journal).
  Journal::remove(link.string());
  CHECK(fs::is_symlink(link));
}

TEST_CASE("removing a finished run's journal leaves alone one that a new run holds", "[core][journal][hardening]") {
  const fs::path p = scratch("handover.journal");
  { Journal finished(p.string(), identity(3), false); }
  // A second run starts on the same output before the first removes its journal.
  Journal next(p.string(), identity(4), false);
  Journal::remove(p.string());
  CHECK(fs::exists(p));
  CHECK(slurp(p).find("seed: 4") != std::string::npos);
}
