// Scale-out and resume inside one process: exact byte encodings, the journal (identity,
// torn records, refusal of another run's journal), resume of a run from a journal to the same CSV
// bytes, and the runner's sharding over ranks simulated by threads (a Communicator over shared
// memory): the CSV is identical for 1, 2 and 3 ranks, and a failure on one rank ends every rank
// with one error. The real MPI runs are tests/scaleout (mpirun, skipped without MPI).
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "moelab/core/distributed.hpp"
#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/journal.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"

using namespace moelab;
namespace fs = std::filesystem;

namespace {

// ---- a toy study: counts how many points and trials ran -------------------------------------------

std::atomic<int> g_points_run{0};
std::atomic<std::int64_t> g_fail_at_n{-1};  // a point with this n throws RuntimeFailure

struct ToyPoint {
  std::int64_t n;
};

StudyDef toy_study() {
  StudyDef d;
  d.name = "toy.mean";
  d.summary = "mean of normals";
  d.trial_unit = "samples of n normals";
  d.params = {integer("params.n", "normals per trial").at_least(1).at_most(100000)};
  d.columns = {{"n", "draws per trial"}, {"mean", "mean over trials"}, {"first", "trial 0's value"}, {"trials", "trials"}};
  auto def = define_trial_study<ToyPoint, double>(
      std::move(d), [](const PointParams& p) { return ToyPoint{p.integer("params.n")}; },
      [](const ToyPoint& pt, const RunContext& ctx, std::int64_t t) {
        if (pt.n == g_fail_at_n.load()) throw RuntimeFailure("toy failure at n = " + std::to_string(pt.n));
        const RandomStream rs(ctx.key.seed(), StreamTag::property_test, static_cast<std::uint64_t>(t));
        double s = 0.0;
        for (std::int64_t j = 0; j < pt.n; ++j) s += rs.normal(static_cast<std::uint64_t>(j));
        return s / static_cast<double>(pt.n);
      },
      [](const ToyPoint& pt, std::span<const double> r, const RunContext& ctx, RowSink& rows) {
        ++g_points_run;
        double s = 0.0;
        for (double x : r) s += x;  // in trial order: a different order would change the last bits
        rows.row().set("n", pt.n).set("mean", s / static_cast<double>(r.size())).set("first", r[0]).set("trials", ctx.trials);
      });
  // Weights proportional to n: the largest point (n = 5000 below) is heavier than 1/R of the run for
  // R = 2 and 3, so its trials are split over the ranks; the others are assigned whole.
  set_cost<ToyPoint>(def, [](const ToyPoint& p, std::int64_t trials) {
    return StudyCost{64.0, static_cast<double>(p.n * trials)};
  });
  return def;
}

const char* kScenario =
    "study = \"toy.mean\"\n[params]\nn = 1\n[sweep]\n\"params.n\" = [3, 5000, 7, 11, 13, 17, 19, 23, 29, 31, 37]\n";

McBudget budget() {
  McBudget b;
  b.trials = 37;  // not a multiple of 2 or 3: uneven trial blocks
  b.seed = 11;
  b.threads = 1;
  b.backend = BackendRequest::cpu;
  return b;
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / "moelab_distributed_test";
  fs::create_directories(d);
  return d / name;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- ranks as threads -------------------------------------------------------------------------

/// Shared memory between the rank threads: an all-gather by generations, and rank 0's mailbox.
struct Hub {
  explicit Hub(int r) : ranks(r), slots(static_cast<std::size_t>(r)) {}
  std::vector<std::string> allgather(int rank, const std::string& data) {
    std::unique_lock<std::mutex> lock(m);
    const std::uint64_t my_gen = gen;
    slots[static_cast<std::size_t>(rank)] = data;
    if (++arrived == ranks) {
      result = slots;
      arrived = 0;
      ++gen;
      cv.notify_all();
    } else {
      cv.wait(lock, [&] { return gen != my_gen; });
    }
    return result;  // stable until every rank (this one included) arrives at the next round
  }
  int ranks;
  std::mutex m;
  std::condition_variable cv;
  std::uint64_t gen = 0;
  int arrived = 0;
  std::vector<std::string> slots, result;
  std::deque<std::pair<int, std::string>> mail;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(Hub& hub, int rank) : hub_(hub), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return hub_.ranks; }
  int max_all(int local) override {
    int m = std::numeric_limits<int>::min();
    for (const auto& s : hub_.allgather(rank_, std::to_string(local))) m = std::max(m, std::stoi(s));
    return m;
  }
  std::vector<std::string> gather(const std::string& mine) override {
    auto all = hub_.allgather(rank_, mine);
    return rank_ == 0 ? all : std::vector<std::string>{};
  }
  void broadcast(std::string& data) override { data = hub_.allgather(rank_, data)[0]; }
  void post(std::string data) override {
    std::lock_guard<std::mutex> lock(hub_.m);
    hub_.mail.emplace_back(rank_, std::move(data));
    hub_.cv.notify_all();
  }
  bool next(int& source, std::string& data, bool wait) override {
    std::unique_lock<std::mutex> lock(hub_.m);
    if (wait) hub_.cv.wait(lock, [&] { return !hub_.mail.empty(); });
    if (hub_.mail.empty()) return false;
    source = hub_.mail.front().first;
    data = std::move(hub_.mail.front().second);
    hub_.mail.pop_front();
    return true;
  }
  void complete_posts() override {}

 private:
  Hub& hub_;
  int rank_;
};

struct RankResult {
  std::string csv;  // rank 0: the CSV; others: must stay empty
  std::string error;
  int code = 0;
};

/// Runs the scenario on `ranks` threads, each with its communicator.
std::vector<RankResult> run_ranks(int ranks, const StudyDef& study, const Scenario& sc, const RunOptions& opts = {}) {
  Hub hub(ranks);
  std::vector<RankResult> out(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadCommunicator comm(hub, r);
      set_world(&comm);
      auto& res = out[static_cast<std::size_t>(r)];
      try {
        const CsvTable t = run_scenario(study, sc, budget(), r == 0 ? opts : RunOptions{});
        if (r == 0) res.csv = t.to_string();
        else res.csv = t.columns.empty() && t.rows.empty() ? "" : "rank > 0 returned a table";
      } catch (const QuietExit& e) {
        res.code = e.code();
      } catch (const std::exception& e) {
        res.error = e.what();
        res.code = exit_code_of(std::current_exception());
      }
      set_world(nullptr);
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace

TEST_CASE("byte records round-trip every cell exactly, types included", "[scaleout]") {
  const std::vector<std::vector<CsvCell>> rows = {
      {0.1, -0.0, std::numeric_limits<double>::quiet_NaN(), std::int64_t{-9007199254740993}, std::string("a,\"b\"\nc")},
      {std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::infinity(), 3.0, std::int64_t{3},
       std::string()}};
  ByteWriter w;
  put_rows(w, rows);
  w.str("tail");
  const std::string bytes = w.take();
  ByteReader r(bytes);
  const auto back = get_rows(r);
  REQUIRE(back.size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j) {
      INFO(i << "," << j);
      REQUIRE(back[i][j].index() == rows[i][j].index());  // 3.0 stays a double, 3 an integer
      if (const auto* d = std::get_if<double>(&rows[i][j])) {
        std::uint64_t a = 0, b = 0;
        std::memcpy(&a, d, 8);
        std::memcpy(&b, &std::get<double>(back[i][j]), 8);
        CHECK(a == b);  // bit patterns: -0.0 and NaN too
      } else {
        CHECK(back[i][j] == rows[i][j]);
      }
    }
  CHECK(r.str() == "tail");
  CHECK(r.done());
  ByteReader cut(std::string_view(bytes).substr(0, bytes.size() - 3));
  (void)get_rows(cut);
  CHECK_THROWS_AS(cut.str(), RuntimeFailure);  // a truncated record is an error, never a short value
}

TEST_CASE("a journal keeps its records, drops a torn last one and refuses another run's identity", "[scaleout]") {
  const fs::path p = scratch("j1.journal");
  fs::remove(p);
  const JournalIdentity id{{"kind", "run"}, {"seed", "1"}, {"trials", "10"}};
  {
    Journal j(p.string(), id, false);
    CHECK(j.records().empty());
    j.append(0, "zero");
    j.append(5, std::string("five\0\n", 6));
  }
  {
    Journal j(p.string(), id, true);
    REQUIRE(j.records().size() == 2);
    CHECK(j.records().at(5) == std::string("five\0\n", 6));
    j.append(2, "two");
  }
  // A record cut short (the process was killed inside write) is dropped; the others survive.
  {
    std::ofstream(p, std::ios::app) << "unit 7 abcd";
    Journal j(p.string(), id, true);
    CHECK(j.records().size() == 3);
    CHECK(j.records().count(7) == 0);
    j.append(7, "seven");
  }
  CHECK(Journal(p.string(), id, true).records().size() == 4);
  // A flipped byte in a record fails its checksum: that record and the rest are redone.
  {
    std::string text = slurp(p);
    const auto at = text.find("unit 2 ");
    REQUIRE(at != std::string::npos);
    text[at + 8] = text[at + 8] == '0' ? '1' : '0';
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    CHECK(Journal(p.string(), id, true).records().size() == 2);  // units 0 and 5, before the damaged one
  }
  // Another seed: refused, naming the key and both values; the journal is left as it was.
  const std::string before = slurp(p);
  try {
    Journal j(p.string(), {{"kind", "run"}, {"seed", "2"}, {"trials", "10"}}, true);
    FAIL("a journal of another seed was accepted");
  } catch (const InputError& e) {
    CHECK(e.key() == "seed");
    CHECK(std::string(e.what()).find("'1'") != std::string::npos);
    CHECK(std::string(e.what()).find("'2'") != std::string::npos);
  }
  CHECK(slurp(p) == before);
  // Without resume a new journal replaces it.
  CHECK(Journal(p.string(), {{"kind", "run"}, {"seed", "2"}, {"trials", "10"}}, false).records().empty());
  CHECK(Journal(p.string(), {{"kind", "run"}, {"seed", "2"}, {"trials", "10"}}, true).records().empty());
  Journal::remove(p.string());
  CHECK_FALSE(fs::exists(p));
}

TEST_CASE("a run resumed from a partial journal runs only the missing points and gives the same bytes", "[scaleout]") {
  const StudyDef study = toy_study();
  const Scenario sc = parse_scenario(kScenario, "<toy>");
  const std::string reference = run_scenario(study, sc, budget()).to_string();
  const fs::path jp = scratch("toy.journal");
  RunOptions opts{jp.string(), false};
  g_points_run = 0;
  CHECK(run_scenario(study, sc, budget(), opts).to_string() == reference);
  CHECK(g_points_run == 11);
  // Keep the header and the first 4 records, as if the run had been killed after its 4th point.
  std::istringstream in(slurp(jp));
  std::string line, partial;
  int units = 0;
  while (std::getline(in, line) && units < 4) {
    partial += line + "\n";
    units += line.rfind("unit ", 0) == 0;
  }
  std::ofstream(jp, std::ios::binary | std::ios::trunc) << partial;
  g_points_run = 0;
  opts.resume = true;
  CHECK(run_scenario(study, sc, budget(), opts).to_string() == reference);
  CHECK(g_points_run == 7);
  // Every point journaled now: nothing runs.
  g_points_run = 0;
  CHECK(run_scenario(study, sc, budget(), opts).to_string() == reference);
  CHECK(g_points_run == 0);
  // Another seed or trial count: refused (exit 2), not mixed.
  McBudget other = budget();
  other.seed = 12;
  CHECK_THROWS_AS(run_scenario(study, sc, other, opts), InputError);
  other = budget();
  other.trials = 36;
  CHECK_THROWS_AS(run_scenario(study, sc, other, opts), InputError);
  // Another scenario (one sweep value changed): refused.
  std::string text = kScenario;
  text.replace(text.find("[3,"), 3, "[4,");
  const Scenario sc2 = parse_scenario(text, "<toy>");
  try {
    (void)run_scenario(study, sc2, budget(), opts);
    FAIL("a journal of another scenario was accepted");
  } catch (const InputError& e) {
    CHECK(e.key() == "scenario_hash");
  }
  Journal::remove(jp.string());
}

TEST_CASE("the CSV is byte-identical for 1, 2 and 3 ranks (ranks as threads)", "[scaleout]") {
  const StudyDef study = toy_study();
  const Scenario sc = parse_scenario(kScenario, "<toy>");
  const std::string reference = run_scenario(study, sc, budget()).to_string();
  for (int ranks : {1, 2, 3}) {
    INFO(ranks << " ranks");
    g_points_run = 0;
    const auto res = run_ranks(ranks, study, sc);
    CHECK(res[0].error.empty());
    CHECK(res[0].csv == reference);
    CHECK(g_points_run == 11);  // every point reduced exactly once (by rank 0 or its owner)
    for (int r = 1; r < ranks; ++r) {
      CHECK(res[static_cast<std::size_t>(r)].csv.empty());
      CHECK(res[static_cast<std::size_t>(r)].code == 0);
    }
  }
  // A resumed 3-rank run from a 1-rank partial journal: the same bytes.
  const fs::path jp = scratch("toy3.journal");
  {
    RunOptions opts{jp.string(), false};
    (void)run_scenario(study, sc, budget(), opts);
    std::istringstream in(slurp(jp));
    std::string line, partial;
    int units = 0;
    while (std::getline(in, line) && units < 3) partial += line + "\n", units += line.rfind("unit ", 0) == 0;
    std::ofstream(jp, std::ios::binary | std::ios::trunc) << partial;
  }
  g_points_run = 0;
  const auto res = run_ranks(3, study, sc, RunOptions{jp.string(), true});
  CHECK(res[0].csv == reference);
  CHECK(g_points_run == 8);
  Journal::remove(jp.string());
}

TEST_CASE("a failure on one rank ends every rank: one error on rank 0, the same code everywhere", "[scaleout]") {
  const StudyDef study = toy_study();
  const Scenario sc = parse_scenario(kScenario, "<toy>");
  for (std::int64_t bad : {5000, 37, 3}) {  // the split point, a whole point of some rank, another
    INFO("failing point n = " << bad);
    g_fail_at_n = bad;
    const auto res = run_ranks(3, study, sc);
    CHECK(res[0].code == 3);
    CHECK(res[0].error.find("toy failure at n = " + std::to_string(bad)) != std::string::npos);
    CHECK(res[0].csv.empty());
    for (int r = 1; r < 3; ++r) {
      CHECK(res[static_cast<std::size_t>(r)].code == 3);
      CHECK(res[static_cast<std::size_t>(r)].error.empty());  // QuietExit: nothing printed
    }
  }
  g_fail_at_n = -1;
  // Bad input found by every rank: exit 2 everywhere, one message.
  const Scenario bad_sc = parse_scenario("study = \"toy.mean\"\n[params]\nn = 0\n", "<bad>");
  const auto res = run_ranks(2, study, bad_sc);
  CHECK(res[0].code == 2);
  CHECK(res[0].error.find("params.n") != std::string::npos);
  CHECK(res[1].code == 2);
  CHECK(res[1].error.empty());
}
