// Hostile input to the moelab executable: one test per class of defect found, each case a
// command that once crashed, answered wrongly with exit 0, or exited with the wrong code. Every bad
// input must exit 2 with a message naming the option or key, write nothing, and never reach the
// "internal error" path.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/process.hpp"

// This file's own names, apart from those of the other test files compiled in its unity batch.
namespace hardening_test {

namespace fs = std::filesystem;
using namespace moelab::test_cli;

namespace {

const char* const kSuite = "moelab_hardening_test";
fs::path scratch(const std::string& name) { return scratch_in(kSuite, name); }
fs::path write(const std::string& name, const std::string& text) { return write_in(kSuite, name, text); }

const std::string kScenarios = std::string(MOELAB_SOURCE_DIR) + "/scenarios/";
const char* const kTw = kTinyTw;

}  // namespace

TEST_CASE("thread counts above what the runtime can create are refused, not crashed on", "[cli][hardening]") {
  const fs::path out = scratch("threads.csv");
  fs::remove(out);
  const fs::path sc = write("threads.toml", std::string(kTw) + "threads = 65536\n");
  require_refused(run("run " + sc.string() + " -o " + out.string()), "monte_carlo.threads");
  require_refused(run("run " + write("tw.toml", kTw).string() + " --threads 65536 -o " + out.string()), "--threads");
  require_refused(run("check --threads 65536 --only nothing"), "--threads");
  const Result env = run_shell("OMP_NUM_THREADS=65536 " + std::string(MOELAB_EXE) + " list studies 2>&1");
  CHECK(env.code == 2);
  CHECK(env.out.find("OMP_NUM_THREADS") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("64-bit values beyond a parameter's domain are refused, never narrowed", "[cli][hardening]") {
  const fs::path out = scratch("wrap.csv");
  fs::remove(out);
  // 4294967336 = 2^32 + 40 once ran as n = 40; 2^32 bins once became 0 and crashed.
  require_refused(run("run " + write("n.toml", "study = \"spectra.tw\"\n[params]\nn = 4294967336\np = 20\n").string() + " -o " +
                      out.string()),
                  "params.n");
  require_refused(run("run " + write("bins.toml", "study = \"spectra.tw\"\n[params]\nn = 40\np = 20\nbins = 4294967296\n").string() + " -o " +
                      out.string()),
                  "params.bins");
  require_refused(run("run " + write("tw.toml", kTw).string() + " --trials 99999999999999999999 -o " + out.string()), "--trials");
  require_refused(run("run " + write("tw.toml", kTw).string() + " --trials 2.5 -o " + out.string()), "--trials");
  require_refused(run("bound patterns --m 4294967312 --routers 10"), "--m");
  require_refused(run("bound patterns --seed -1 --routers 10"), "--seed");
  CHECK_FALSE(fs::exists(out));
  // An exact integer in scientific notation is an integer.
  CHECK(run("bound patterns --m 4 --routers 1e2").code == 0);
}

TEST_CASE("NaN and infinities are refused wherever a finite value is meant, naming the option", "[cli][hardening]") {
  require_refused(run("spectrum tw --quantile nan"), "--quantile");
  require_refused(run("spectrum tw --to inf --points 3"), "--to");
  require_refused(run("spectrum tw --from nan"), "--from");  // once blamed on --to
  require_refused(run("spectrum mp --c nan"), "--c");        // once an internal check, exit 3
  require_refused(run("spectrum spike --ell nan"), "--ell");
  require_refused(run("spectrum mp --c 1e400"), "--c");
  require_refused(run("bound theorem1 --delta nan"), "--delta");
  require_refused(run("kstar --m inf"), "--m");
}

TEST_CASE("list options refuse empty items instead of dropping them", "[cli][hardening]") {
  require_refused(run("bound theorem1 --m 1,,2"), "--m");
  require_refused(run("bound theorem1 --m ,1"), "--m");
  require_refused(run("kstar --T 4,"), "--T");
  require_refused(run("spectrum ds --atoms 1,,2 --weights 0.5,0.5"), "--atoms");
  CHECK(run("bound theorem1 --m 100,200").code == 0);
}

TEST_CASE("fuzz findings stay fixed", "[cli][hardening]") {
  // tests/fuzz: growth sums over min(d, m) > 1e7 terms ended in an internal check (exit 3).
  require_refused(run("bound growth --m 1e12 --d 2,4294967336 --labels 3,3"), "--d");
  // 10-minute fuzz run of H1: a subnormal ratio broke the Dozier-Silverstein solver's bracket.
  require_refused(run("spectrum ds --atoms 0,1 --weights 0.5,0.5 --c 1e-320 --points 5"), "--c");
  CHECK(run("spectrum ds --atoms 0,1 --weights 0.5,0.5 --c 1e-12 --points 5").code == 0);
}

TEST_CASE("an empty output path, a directory or an unwritable place is refused before any work", "[cli][hardening]") {
  require_refused(run("run " + write("tw.toml", kTw).string() + " -o ''"), "--output");
  require_refused(run("spectrum mp -o ''"), "--output");
  // A directory is found when the options are read, not after the computation (once exit 3 at the final
  // rename). Checked by behaviour, not by the clock: exit 2 with the reason, and `timeout 120` as a guard
  // against a run that computes first (1e7 Wishart matrices of 2000 x 1000: ~4000 s by the tool's own
  // estimate, so such a run ends as exit 124, not a refusal).
  require_refused(run_shell("timeout 120 " + std::string(MOELAB_EXE) + " run " +
                            write("big.toml", "study = \"spectra.tw\"\n[params]\nn = 2000\np = 1000\n[monte_carlo]\ntrials = "
                                              "10000000\n").string() + " -o " + fs::temp_directory_path().string() + " 2>&1"),
                  "is a directory");
  std::ofstream(scratch("plain_file")) << "x";
  require_refused(run("kstar -o " + (scratch("plain_file") / "x.csv").string()), "--output");
  require_refused(run("spectrum mp -o /dev/null"), "--output");  // a device is never replaced by rename
  const fs::path d = scratch("outdir_sc");
  fs::create_directories(d / "x.csv");
  require_refused(run("run " + write("dirout.toml", std::string(kTw) + "[output]\ncsv = \"" + (d / "x.csv").string() + "\"\n").string()),
                  "output.csv");
}

TEST_CASE("a grid whose size overflows is refused and leaves an existing output untouched", "[cli][hardening]") {
  std::string list;
  for (int i = 1; i <= 200; ++i) list += (i > 1 ? "," : "") + std::to_string(i * 100);
  // 200^9 = 5e20 points wraps a 64-bit count (once to 0 rows, exit 0, output replaced).
  const fs::path keep = scratch("keep.csv");
  std::ofstream(keep) << "keep\n";
  const std::string l = " " + list;
  const Result r = run("bound theorem1 --m" + l + " --T" + l + " --k 1 --N" + l + " --d-N" + l + " --C" + l + " --rademacher" + l +
                       " --max-gate-weight 1 --delta 0.05 -o " + keep.string());
  require_refused(r, "points (at most 1e7)");
  CHECK(slurp(keep) == "keep\n");
  require_refused(run("kstar --m" + l + " --T" + l + " --N" + l + " --a" + l + " --b" + l + " -o " + keep.string()),
                  "(at most 1e7)");
  CHECK(slurp(keep) == "keep\n");
}

TEST_CASE("messages are about the right thing: directories, non-numbers, binary bytes", "[cli][hardening]") {
  const Result dir = run("run " + fs::temp_directory_path().string());
  require_refused(dir, "is a directory, not a scenario file");
  const Result abc = run("run " + write("tw.toml", kTw).string() + " --threads abc");
  require_refused(abc, "--threads");
  CHECK(abc.out.find("'abc'") != std::string::npos);
  const Result neg = run("run " + write("tw.toml", kTw).string() + " --trials -5");
  require_refused(neg, "--trials");
  CHECK(neg.out.find("an integer in [1,") != std::string::npos);
  // A covariance file of binary bytes: the message shows them escaped, not raw.
  std::ofstream(scratch("bin.txt"), std::ios::binary) << "1 \x01\xff\xfe 2\n";
  const fs::path cov = write("cov.toml", "study = \"noisy.risk\"\n[model]\nk = 1\nblock_sizes = [2]\np = [1.0]\nsigma2 = 1\n"
                                         "[model.covariance]\nkind = \"file\"\npath = \"" + scratch("bin.txt").string() + "\"\n"
                                         "[model.beta]\nkind = \"random\"\nseed = 1\n");
  const Result bin = run("run " + cov.string() + " -o " + scratch("cov.csv").string());
  INFO(bin.out);
  CHECK(bin.code == 2);
  CHECK(bin.out.find("\\xff\\xfe") != std::string::npos);
  CHECK(bin.out.find('\xff') == std::string::npos);
}

TEST_CASE("a run whose estimated memory exceeds the limit is refused with the estimate", "[cli][hardening]") {
  const fs::path out = scratch("mem.csv");
  fs::remove(out);
  // 1e12 trials keep 1e12 results: terabytes, refused before the first trial (once bad_alloc after 31 s).
  const Result huge = run("run " + write("tw.toml", kTw).string() + " --trials 1000000000000 -o " + out.string());
  require_refused(huge, "monte_carlo.max_memory");
  CHECK(huge.out.find("TB") != std::string::npos);
  // --max-memory lowers the limit; the estimate of a small run fits the default.
  require_refused(run("run " + write("tw.toml", kTw).string() + " --max-memory 1k -o " + out.string()), "--max-memory");
  require_refused(run("run " + write("tw.toml", kTw).string() + " --max-memory lots -o " + out.string()), "--max-memory");
  // A 1e7-point sweep is refused against a small limit before its points are built.
  const fs::path sweep = write("sweep.toml", "study = \"sparsity.kstar\"\n[params]\nN = 4\nm = 10000\nd_N = 2\nT = 64\n"
                                             "[sweep]\n\"params.m\" = {from = 1, to = 1e7, steps = 10000000}\n"
                                             "[monte_carlo]\nmax_memory = \"100M\"\n");
  require_refused(run("run " + sweep.string() + " -o " + out.string()), "sweep points");
  CHECK_FALSE(fs::exists(out));
  require_refused(run("kstar --curve --T 1000000 --N 1,2,3,4,5,6,7,8,9,10 --max-memory 100M"), "--T");
  require_refused(run("bound patterns --m 1000000 --d 10000 --routers 100000000 --max-memory 1G"), "--m");
  CHECK(run("run " + write("tw.toml", kTw).string() + " -o " + out.string()).code == 0);
}

TEST_CASE("SIGINT stops a long point inside the point, exits 130 and writes nothing", "[cli][hardening][signal]") {
  const fs::path out = scratch("sigint.csv");
  fs::remove(out);
  // A stale temporary of a killed run (pid 2^22 + 1 is above the kernel's default pid_max... or dead).
  const fs::path stale = scratch(".sigint.csv.tmp.4194305.AbCdEf");
  std::ofstream(stale) << "partial";
  // One point of 10^7 Wishart matrices (n = 2000, p = 1000): ~4000 s of work in one sweep point by the
  // tool's estimate (160 MB), a few tenths of a second per matrix.
  const fs::path sc = write("long.toml", "study = \"spectra.tw\"\n[params]\nn = 2000\np = 1000\n[monte_carlo]\ntrials = 10000000\n");
  const pid_t pid = spawn({"run", sc.string(), "-o", out.string()}, /*quiet=*/false);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, SIGINT);
  // Stopping inside the point, by behaviour rather than by a clock bound (which flakes on a loaded
  // machine): the point is ~4000 s of work, so a run that exits 130 within the wait stopped inside it.
  // The wait is a guard against a hang (120 s, then SIGKILL: not exit 130), not a latency measurement.
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 12000 && !ended; ++i) {
    ended = ::waitpid(pid, &status, WNOHANG) == pid;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK_FALSE(fs::exists(out));
  // The next write beside it removes the dead process's temporary.
  REQUIRE(run("run " + write("tw.toml", kTw).string() + " -o " + out.string()).code == 0);
  CHECK_FALSE(fs::exists(stale));
}

namespace {

/// Runs `args`, requires a refusal naming `key` with the cost estimate. That it comes before any work
/// is behaviour, not timing: each budget below needs terabytes, so a run that started its work would
/// fail to allocate (exit 3) instead of this refusal (exit 2) with the estimate.
void require_refused_before_work(const std::string& args, const std::string& key) {
  const Result r = run(args);
  INFO(args);
  require_refused(r, key);
  CHECK(r.out.find("would need about") != std::string::npos);
}

const char* kNoisyModel = "[model]\nk = 2\nblock_size = 8\np = \"uniform\"\nsigma2 = 0.5\n"
                          "[model.covariance]\nkind = \"identity\"\n[model.beta]\nkind = \"ones\"\n";

}  // namespace

// Every topic's cost model: an absurd but in-domain budget is refused before any work,
// with the estimate, the point and the limit. --max-memory 64G makes the refusal independent of the
// machine (each estimate below is far above 64 GB; the comment gives its dominant term).
TEST_CASE("absurd in-domain budgets are refused by each topic's cost model before any work", "[cli][hardening][cost]") {
  const std::string out = " --max-memory 64G -o " + scratch("absurd.csv").string();
  // noisy: n = 1e9 samples of d = 16 features: a training set is 3 x 8 n d = 384 GB per running trial.
  require_refused_before_work("run " + write("noisy_n.toml", std::string("study = \"noisy.excess_risk\"\n[params]\nn = 1000000000\n") +
                                                           kNoisyModel).string() + out,
                          "monte_carlo.max_memory");
  // spectra: a 65536 x 1048576 spiked sample (8 M N = 550 GB per running trial).
  require_refused_before_work("run " + write("spike.toml", "study = \"spectra.spike\"\n[params]\nM = 65536\nN = 1048576\nell = 3\n"
                                                       "law = \"rademacher\"\n").string() + " --trials 2" + out,
                          "monte_carlo.max_memory");
  // bounds: 2e9 points in d = 1000 (8 d m = 16 TB of points).
  require_refused_before_work("run " + write("patterns.toml", "study = \"bounds.patterns\"\n[params]\nm = 2000000000\nd = 1000\n"
                                                          "T = 8\nk = 2\n").string() + " --trials 2" + out,
                          "monte_carlo.max_memory");
  // sparsity: the trade-off curve at T = 1e6 is 1e6 rows of 13 cells (~1.2 GB), over --max-memory 100M.
  require_refused_before_work("run " + write("tradeoff.toml", "study = \"sparsity.tradeoff\"\n[params]\nN = 4\nm = 1e4\nT = 1000000\n")
                                       .string() + " --max-memory 100M -o " + scratch("absurd.csv").string(),
                          "monte_carlo.max_memory");
  // routing: C(64, 8) = 4.4e9 regions hit by 4e9 points: the hashed histogram alone is ~0.5 TB.
  require_refused_before_work("run " + write("balance.toml", "study = \"routing.balance\"\n[params]\nm = 64\nk = 8\nd = 64\n"
                                                         "points = 4000000000\n").string() + " --trials 2" + out,
                          "monte_carlo.max_memory");
  // moe: 2^40 samples at batch 1 are 1.1e12 steps, whose loss history alone is ~18 TB.
  require_refused_before_work("run " + write("moe.toml", "study = \"moe.teacher_student\"\n[params]\nd = 8\nteacher_k = 1\n"
                                                     "teacher_active_neurons = 8\nstudent_k = 1\nstudent_active_neurons = 8\n"
                                                     "learning_rates = [0.01]\nsamples = 1099511627776\nbatch = 1\n")
                                     .string() + " --trials 1" + out,
                          "monte_carlo.max_memory");
  // scaling: closed forms whatever the numbers (constant cost): absurd values run, and are not refused.
  const Result scaling = run("run " + write("covering.toml", "study = \"scaling.covering\"\n[params]\nP_exp = 1e300\nM = 1e300\n"
                                                             "k = 1e299\ndelta = 0.5\n").string() + out);
  INFO(scaling.out);
  CHECK(scaling.code == 0);
}

TEST_CASE("covariance and scenario files that are devices, FIFOs, directories or huge are refused unread", "[cli][hardening]") {
  const auto scenario_with = [&](const std::string& name, const std::string& path) {
    return write(name, std::string("study = \"noisy.risk\"\n[model]\nk = 1\nblock_sizes = [2]\np = [1.0]\nsigma2 = 1\n"
                                   "[model.covariance]\nkind = \"file\"\npath = \"") + path + "\"\n[model.beta]\nkind = \"ones\"\n");
  };
  const std::string out = " -o " + scratch("cov_dev.csv").string();
  // /dev/zero was read as one endless line (unbounded memory); now refused by its type, unread.
  const fs::path fifo = scratch("cov.fifo");
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const fs::path huge = scratch("huge_cov.txt");
  { std::ofstream(huge) << "1 0\n0 1\n"; }
  fs::resize_file(huge, std::uintmax_t{300} << 20);  // sparse: 300 MB over the 256 MiB cap, no disk used
  for (const auto& [path, reason] : {std::pair{std::string("/dev/zero"), std::string("is a device, FIFO or socket")},
                                     std::pair{fifo.string(), std::string("is a device, FIFO or socket")},
                                     std::pair{fs::temp_directory_path().string(), std::string("is a directory")},
                                     std::pair{huge.string(), std::string("larger than the 268435456 bytes")}}) {
    // `timeout` guards the test itself: a FIFO opened for reading would block forever. "Unread" is
    // shown by the reason (the file's type or size, known without reading it), not by a clock bound.
    const Result r = run_shell("timeout 20 " + std::string(MOELAB_EXE) + " run " +
                               scenario_with("cov_dev.toml", path).string() + out + " 2>&1");
    INFO(path);
    require_refused(r, "model.covariance.path");
    CHECK(r.out.find(reason) != std::string::npos);
  }
  // The scenario path itself: a device or a FIFO is refused, not read or waited on.
  require_refused(run_shell("timeout 20 " + std::string(MOELAB_EXE) + " run /dev/zero 2>&1"), "is a device, FIFO or socket");
  require_refused(run_shell("timeout 20 " + std::string(MOELAB_EXE) + " run " + fifo.string() + " 2>&1"),
                  "is a device, FIFO or socket, not a scenario file");
  fs::remove(fifo);
  fs::remove(huge);
}

}  // namespace hardening_test
