// Hostile input to the moelab executable, round 2 (the surfaces added since round 1: training runs,
// journals, the activation reader, signals, outputs). One test per defect; each writes its own input.
// Every bad input exits 2 with one message naming the file or option, and writes nothing.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/process.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace hardening_round2_test {

namespace fs = std::filesystem;
using namespace moelab::test_cli;

namespace {

const char* const kSuite = "moelab_hardening2_test";
fs::path scratch(const std::string& name) { return scratch_in(kSuite, name); }
fs::path write(const std::string& name, const std::string& text) { return write_in(kSuite, name, text); }

// A refused input's message here may be up to 3000 characters (require_refused, process.hpp): some
// name a whole path.
constexpr std::size_t kMessageChars = 3000;

const char* const kTw = kTinyTw;
// One point of 10^6 Wishart matrices (n = 400, p = 200): minutes of work in one sweep point.
const char* kLong = "study = \"spectra.tw\"\n[params]\nn = 400\np = 200\n[monte_carlo]\ntrials = 1000000\n";

/// Many cheap points, so that a journal has records soon after the start (~1 s in all).
std::string sweep_toml(int points = 60) {
  std::string n;
  for (int i = 0; i < points; ++i) n += (i ? ", " : "") + std::to_string(4 + 2 * i);
  return "study = \"noisy.excess_risk\"\n[model]\nk = 2\nblock_size = 3\nsigma2 = 0.5\n[model.covariance]\n"
         "kind = \"identity\"\n[model.beta]\nkind = \"ones\"\n[sweep]\n\"params.n\" = [" + n +
         "]\n[monte_carlo]\ntrials = 300\nseed = 3\n";
}

/// Waits for `pid` at most `limit`; kills it (SIGKILL) past that. Returns the wait status and the
/// seconds waited.
std::pair<int, double> wait_at_most(pid_t pid, std::chrono::seconds limit) {
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - t0 > limit) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

void wait_for_file(const fs::path& p) {
  for (int i = 0; i < 6000 && !fs::exists(p); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}


}  // namespace

TEST_CASE("an address-space limit is counted by the memory check, and a failed allocation exits 3, not a crash",
          "[cli][hardening2][memory]") {
  // d = 16, n = 3e7: the design alone is 3.8 GB; under ulimit -v 3000000 (3 GB) it cannot fit.
  const fs::path sc = write("oom.toml", "study = \"noisy.excess_risk\"\n[params]\nn = 30000000\n[model]\nk = 2\nblock_size = 8\n"
                                        "p = \"uniform\"\nsigma2 = 0.5\n[model.covariance]\nkind = \"identity\"\n"
                                        "[model.beta]\nkind = \"ones\"\n[monte_carlo]\ntrials = 2\n");
  const fs::path out = scratch("oom.csv");
  fs::remove(out);
  const std::string exe = "ulimit -v 3000000 && exec " + std::string(MOELAB_EXE) + " run " + sc.string() + " --threads 1 -o " + out.string();
  // Refused before any work: the limit counts RLIMIT_AS (it once admitted the run).
  const Result refused = run_shell(exe + " 2>&1");
  require_refused(refused, "monte_carlo.max_memory", kMessageChars);
  CHECK(refused.out.find("ulimit") != std::string::npos);
#if !defined(__SANITIZE_ADDRESS__)  // ASan reserves terabytes of address space: no ulimit -v there
  // Forced past the check (--max-memory): the allocation fails inside a thread's reused training set;
  // "out of memory", exit 3, and no segfault at exit (the storage was left valid).
  const Result oom = run_shell(exe + " --max-memory 1T 2>&1");
  INFO(oom.out);
  CHECK(oom.code == 3);
  CHECK(oom.out.find("out of memory") != std::string::npos);
#endif
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a second run writing the same output is refused with exit 2 while the first runs", "[cli][hardening2][journal]") {
  const fs::path sc = write("long.toml", kLong), out = scratch("two.csv");
  const fs::path journal = out.string() + ".journal";
  fs::remove(out);
  fs::remove(journal);
  const pid_t first = spawn({"run", sc.string(), "-o", out.string()});
  wait_for_file(journal);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::string before = slurp(journal);
  const Result second = run("run " + write("tw.toml", kTw).string() + " --seed 4 -o " + out.string());
  require_refused(second, "another moelab run is writing this output", kMessageChars);
  CHECK(slurp(journal) == before);  // the first run's journal was neither truncated nor appended to
  ::kill(first, SIGINT);
  const auto [status, seconds] = wait_at_most(first, std::chrono::seconds(30));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  // Once the first has stopped, the output is free again.
  CHECK(run("run " + write("tw.toml", kTw).string() + " -o " + out.string()).code == 0);
}

TEST_CASE("SIGTERM is handled like SIGINT: a message, the journal kept, exit 143, and --resume finishes",
          "[cli][hardening2][signal]") {
  const fs::path sc = write("term.toml", sweep_toml()), out = scratch("term.csv"), ref = scratch("term_ref.csv");
  const fs::path journal = out.string() + ".journal";
  fs::remove(out);
  fs::remove(journal);
  REQUIRE(run("run " + sc.string() + " --threads 1 -o " + ref.string()).code == 0);
  const fs::path log = scratch("term.log");
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::execl(MOELAB_EXE, MOELAB_EXE, "run", sc.c_str(), "--threads", "1", "-o", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  wait_for_file(journal);
  for (int i = 0; i < 500 && slurp(journal).find("\nunit ") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(pid, SIGTERM);
  const auto [status, seconds] = wait_at_most(pid, std::chrono::seconds(30));
  const std::string message = slurp(log);
  INFO(message);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    SUCCEED("the run finished before the signal (a fast machine); nothing to check");
    return;
  }
  CHECK(WIFEXITED(status));  // not killed by the signal: it handled it
  // Handled (exit 143 with the message and the journal kept), not how fast: a clock bound flakes on a
  // loaded machine. The 30 s wait above is a hang guard (past it SIGKILL, which fails these checks).
  INFO("stopped after " << seconds << " s");
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(message.find("interrupted by SIGTERM") != std::string::npos);
  CHECK(message.find(journal.string()) != std::string::npos);
  CHECK(fs::exists(journal));
  CHECK_FALSE(fs::exists(out));
  REQUIRE(run("run " + sc.string() + " --threads 1 --resume -o " + out.string()).code == 0);
  CHECK(slurp(out) == slurp(ref));
}

TEST_CASE("SIGINT stops a training run inside training (trained studies poll inside training)", "[cli][hardening2][signal]") {
  // 16 million AdamW steps: minutes of training in one trial of one point.
  const std::string gap = "study = \"trained.generalization_gap\"\n[params]\nd = 4\nT = 4\nk = 2\nm = 32\ntest_size = 64\n"
                          "steps = 16000000\nbatch = 32\nrademacher_draws = 2\n[monte_carlo]\ntrials = 2\n";
  const std::string scaling = "study = \"trained.scaling\"\n[params]\naxis = \"active\"\nwidths = [2, 4]\nsteps = 16000000\n"
                              "test_size = 64\n[monte_carlo]\ntrials = 2\n";
  for (const auto& [name, text] : {std::pair{"gap", gap}, std::pair{"scaling", scaling}}) {
    INFO(name);
    const fs::path sc = write(std::string(name) + "_long.toml", text), out = scratch(std::string(name) + "_long.csv");
    const pid_t pid = spawn({"run", sc.string(), "--no-journal", "-o", out.string()});
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::kill(pid, SIGINT);
    const auto [status, seconds] = wait_at_most(pid, std::chrono::seconds(20));
    CHECK(WIFEXITED(status));
    // Stopped inside training, shown by behaviour: one trial is 1.6e7 AdamW steps (minutes), so exit
    // 130 within the 20 s hang guard (past it SIGKILL, not 130) means the loop polled the signal.
    INFO("stopped after " << seconds << " s");
    CHECK(WEXITSTATUS(status) == 130);
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("a journal path that is a FIFO, a link or a directory is refused with exit 2, its target untouched",
          "[cli][hardening2][journal]") {
  const fs::path sc = write("tw.toml", kTw), out = scratch("jpath.csv");
  const fs::path journal = out.string() + ".journal";
  const auto run_timed = [&](const std::string& extra) {
    return run_shell("timeout 20 " + std::string(MOELAB_EXE) + " run " + sc.string() + " " + extra + " -o " + out.string() + " 2>&1");
  };
  // A FIFO (once blocked forever), with and without --resume.
  fs::remove_all(journal);
  REQUIRE(::mkfifo(journal.c_str(), 0600) == 0);
  require_refused(run_timed(""), "FIFO", kMessageChars);
  require_refused(run_timed("--resume"), "FIFO", kMessageChars);
  // A symlink to /dev/zero (once read until memory ran out).
  fs::remove_all(journal);
  fs::create_symlink("/dev/zero", journal);
  require_refused(run_timed("--resume"), "symbolic link", kMessageChars);
  // A planted symlink to a file of the user's: once truncated and overwritten with exit 0.
  const fs::path victim = write("victim.txt", "precious\n");
  fs::remove_all(journal);
  fs::create_symlink(victim, journal);
  require_refused(run_timed(""), "symbolic link", kMessageChars);
  CHECK(slurp(victim) == "precious\n");
  CHECK(fs::is_symlink(journal));
  // A directory (once exit 3).
  fs::remove_all(journal);
  fs::create_directories(journal);
  require_refused(run_timed("--resume"), "directory", kMessageChars);
  fs::remove_all(journal);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a journal damaged in the middle is reported as damage, not as an incomplete last record", "[cli][hardening2][journal]") {
  const fs::path sc = write("damage.toml", sweep_toml()), out = scratch("damage.csv"), ref = scratch("damage_ref.csv");
  const fs::path journal = out.string() + ".journal";
  REQUIRE(run("run " + sc.string() + " --threads 1 -o " + ref.string()).code == 0);
  fs::remove(out);
  fs::remove(journal);
  // Kill the run (SIGKILL) once its journal holds 3 records.
  const pid_t pid = spawn({"run", sc.string(), "--threads", "1", "-o", out.string()});
  std::string text;
  const auto records = [&] {
    std::size_t n = 0;
    for (auto at = text.find("\nunit "); at != std::string::npos; at = text.find("\nunit ", at + 1)) ++n;
    return n;
  };
  for (int i = 0; i < 20000 && records() < 3; ++i) {
    text = slurp(journal);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  text = slurp(journal);
  if (records() < 3 || fs::exists(out)) {
    SUCCEED("the run finished before 3 records could be caught");
    return;
  }
  // Damage the second record (one hex digit of its payload), not the last one.
  const auto first = text.find("\nunit ");
  const auto second = text.find("\nunit ", first + 1);
  const auto digit = text.find(' ', text.find(' ', text.find(' ', second + 1) + 1) + 1) + 1;
  text[digit] = text[digit] == '0' ? '1' : '0';
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << text;
  const Result r = run("run " + sc.string() + " --threads 1 --resume -o " + out.string());
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.find("damaged at line") != std::string::npos);
  CHECK(r.out.find("incomplete last record") == std::string::npos);
  CHECK(slurp(out) == slurp(ref));
}

TEST_CASE("derived names over NAME_MAX are refused before any work", "[cli][hardening2][output]") {
  // 240 bytes is a legal file name, but its temporary ".<name>.tmp.<pid>.XXXXXX" is not: once all the
  // work was done, then exit 3 "File name too long".
  const std::string name(240, 'a');
  const fs::path out = scratch(name + ".csv");
  // Before any work by behaviour, not by the clock: the refusal is exit 2 naming the file name, where a
  // check after the work was exit 3 from the failed write.
  const Result r = run("run " + write("long_name.toml", kLong).string() + " --no-journal -o " + out.string());
  require_refused(r, "file name is", kMessageChars);
  // The journal name (<name>.journal, 8 bytes more) is checked too.
  require_refused(run("run " + write("long_name.toml", kLong).string() + " -o " + scratch(std::string(245, 'b')).string()),
                  "file name is", kMessageChars);
}

TEST_CASE("control characters in metadata values are escaped, so every line above the header is a comment",
          "[cli][hardening2][output]") {
  const fs::path dir = scratch("meta\ndir");
  fs::create_directories(dir);
  const fs::path sc = dir / "t.toml";
  std::ofstream(sc) << "study = \"spectra.tw\"\ntitle = \"line one\\nn,p,bins\\rX\"\n[params]\nn = 40\np = 20\n"
                       "[monte_carlo]\ntrials = 10\n";
  const fs::path out = scratch("meta.csv");
  REQUIRE(run("run '" + sc.string() + "' -o " + out.string()).code == 0);
  const std::string csv = slurp(out);
  const auto header = csv.find("\n", csv.rfind("\n# ") + 1);
  std::string above = csv.substr(0, header);
  std::size_t lines = 0;
  for (std::size_t at = 0; at < above.size(); at = above.find('\n', at) + 1) {
    ++lines;
    INFO(above.substr(at, above.find('\n', at) - at));
    CHECK(above.compare(at, 2, "# ") == 0);
    if (above.find('\n', at) == std::string::npos) break;
  }
  CHECK(lines > 3);
  CHECK(csv.find("# title: line one\\nn,p,bins\\rX\n") != std::string::npos);
  CHECK(csv.find("meta\\ndir") != std::string::npos);  // the scenario path's newline
  CHECK(csv.find('\r') == std::string::npos);
}

TEST_CASE("a write-protected output is refused, and -o - writes the CSV to stdout", "[cli][hardening2][output]") {
  const fs::path out = write("ro.csv", "keep me\n");
  ::chmod(out.c_str(), 0444);
  require_refused(run("run " + write("tw.toml", kTw).string() + " -o " + out.string()), "write-protected", kMessageChars);
  CHECK(slurp(out) == "keep me\n");
  struct stat st {};
  REQUIRE(::stat(out.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0444);
  ::chmod(out.c_str(), 0644);
  // "-": stdout, and no file named "-" (run in a directory of its own).
  const fs::path cwd = scratch("dash");
  fs::create_directories(cwd);
  fs::remove(cwd / "-");
  const Result r = run_shell("cd " + cwd.string() + " && " + MOELAB_EXE + " run " + write("tw.toml", kTw).string() + " -o - 2>/dev/null");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("# tool: moelab", 0) == 0);
  CHECK(r.out.find("\nn,p,") != std::string::npos);
  CHECK_FALSE(fs::exists(cwd / "-"));
  CHECK(fs::is_empty(cwd));
  const Result k = run_shell("cd " + cwd.string() + " && " + MOELAB_EXE + " kstar --N 4 --T 8 -o - 2>/dev/null");
  CHECK(k.code == 0);
  CHECK_FALSE(fs::exists(cwd / "-"));
}

TEST_CASE("a table header with 50,000 dotted parts is refused, not a stack overflow", "[cli][hardening2][toml]") {
  std::string header = "[a";
  for (int i = 0; i < 50000; ++i) header += ".a";
  const fs::path sc = write("deep.toml", "study = \"spectra.tw\"\n" + header + "]\nx = 1\n");
  require_refused(run("run " + sc.string() + " -o " + scratch("deep.csv").string()), "nested deeper than 64", kMessageChars);
  std::string key = "a";
  for (int i = 0; i < 50000; ++i) key += ".a";
  require_refused(run("run " + write("deep_key.toml", "study = \"spectra.tw\"\n" + key + " = 1\n").string() + " -o " +
                      scratch("deep.csv").string()), "nested deeper than 64", kMessageChars);
  // Dots inside strings and comments are not key parts.
  const std::string dots(200, '.');
  CHECK(run("run " + write("dots.toml", "title = \"" + dots + "\" # " + dots + "\n" + kTw).string() + " -o " +
            scratch("dots.csv").string()).code == 0);
}

TEST_CASE("small items: --seeds '', --out-dir /proc, and huge inputs cut in messages", "[cli][hardening2]") {
  require_refused(run("check --only sparsity.remark3.peak --seeds '' --out-dir " + scratch("seeds").string()), "--seeds", kMessageChars);
  require_refused(run("check --only sparsity.remark3.peak --out-dir /proc"), "--out-dir", kMessageChars);
  require_refused(run("check --only sparsity.remark3.peak --out-dir /proc/moelab"), "--out-dir", kMessageChars);
  // A 200 kB key: the message quotes at most a few hundred bytes of it.
  const std::string big(200000, 'k');
  const Result r = run("run " + write("bigkey.toml", "study = \"spectra.tw\"\n[params]\nn = 40\np = 20\n" + big + " = 1\n").string() +
                       " -o " + scratch("big.csv").string());
  require_refused(r, "more bytes", kMessageChars);
}

}  // namespace hardening_round2_test
