// The ensemble (moe/ensemble.hpp): a run's bytes alone and inside an ensemble of runs of other
// shapes, 1 and 2 threads, save mid-run + resume, the gradient of an ensemble step against the
// single-run model's backward on the same batch, a control that runs of different data seeds do not
// share data; and the study path (moe.teacher_student through StudyDef::run_points): the rows of the
// batched run equal the point-by-point run, for 1 and 2 threads, and a run resumed from a partial
// journal gives the same CSV. And the interface over both backends (moe/ensemble_trainer.hpp): the
// CPU trainer is Ensemble byte for byte, a saved state resumes to the uninterrupted bytes on every
// backend present, and the factory refuses the cuda backend naming the reason and --backend.
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "device_harness.hpp"
#include "moelab/core/journal.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/moe/ensemble.hpp"
#include "moelab/moe/ensemble_trainer.hpp"
#include "moelab/moe/granularity_experiment.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "topic_test_support.hpp"

namespace moelab::moe {
void add_studies(std::vector<StudyDef>& out);
}

using namespace moelab;
using namespace moelab::moe;
namespace fs = std::filesystem;

namespace {

TrainConfig base_config() {
  TrainConfig c;
  c.teacher.m = 4, c.teacher.k = 2, c.teacher.w = 8, c.teacher.d = 8, c.teacher.d_out = 8;
  c.student = c.teacher;
  c.student.w = 10;
  c.teacher_seed = 5, c.student_seed = 6, c.data_seed = 7;
  c.steps = 40;
  c.batch = 64;
  c.test_size = 256;
  c.opt.lr = 1e-2;
  return c;
}

/// Runs of different shapes, step counts, learning rates and data: two share their data with the
/// first (another learning rate; another student shape and seed), one has a fixed training set
/// (a partial last batch), one its own teacher and data.
std::vector<TrainConfig> mixed_runs() {
  std::vector<TrainConfig> runs;
  runs.push_back(base_config());
  TrainConfig lr = base_config();
  lr.opt.lr = 1e-3;
  runs.push_back(lr);
  TrainConfig shape = base_config();
  shape.student.m = 6, shape.student.k = 3, shape.student.w = 3, shape.student.router_bias = true;
  shape.student_seed = 11;
  shape.steps = 25;
  runs.push_back(shape);
  TrainConfig fixed = base_config();
  fixed.train_size = 150;
  fixed.opt.weight_decay = 1e-3;
  runs.push_back(fixed);
  TrainConfig other = base_config();
  other.teacher.m = 8, other.teacher.k = 1, other.teacher.w = 4;
  other.student.m = 2, other.student.k = 1, other.student.w = 16;
  other.teacher_seed = 21, other.data_seed = 22;
  runs.push_back(other);
  return runs;
}

/// Runs the device ensemble can take too (online, MLP experts, one d, batch, step count and test
/// size): two learning rates of one data group and a run with its own teacher, data and student shape.
std::vector<TrainConfig> device_runs() {
  std::vector<TrainConfig> runs{base_config(), base_config(), base_config()};
  runs[1].opt.lr = 1e-3;
  runs[2].teacher.m = 8, runs[2].teacher.k = 1, runs[2].teacher.w = 4;
  runs[2].student.m = 2, runs[2].student.k = 1, runs[2].student.w = 16;
  runs[2].teacher_seed = 21, runs[2].data_seed = 22, runs[2].student_seed = 23;
  return runs;
}

template <class V>
bool same_bytes(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(a[0]) * static_cast<std::size_t>(a.size())) == 0;
}

template <class S>
void require_same_run(const TeacherStudent<S>& a, const TeacherStudent<S>& b) {
  REQUIRE(a.step() == b.step());
  CHECK(same_bytes(a.losses(), b.losses()));
  CHECK(same_bytes(a.student().params(), b.student().params()));
  const double ea = a.test_nmse(), eb = b.test_nmse();
  CHECK(std::memcmp(&ea, &eb, sizeof ea) == 0);
}

std::string temp_prefix(const std::string& name) {
  return (fs::temp_directory_path() / ("moelab_ensemble_" + name + "_" + std::to_string(::getpid()) + "_")).string();
}

}  // namespace

TEST_CASE("a run's bytes are the same alone and inside an ensemble of runs of other shapes", "[moe][ensemble]") {
  const auto runs = mixed_runs();
  Ensemble<float> ens(runs);
  REQUIRE(ens.size() == runs.size());
  // Runs 0, 1, 2 share their data; 3 (fixed set) and 4 (own teacher and data) are groups of their own.
  CHECK(ens.groups() == 3);
  CHECK(ens.group_of(1) == ens.group_of(0));
  CHECK(ens.group_of(2) == ens.group_of(0));
  CHECK(ens.group_of(3) != ens.group_of(0));
  CHECK(ens.group_of(4) != ens.group_of(0));
  ens.train_until(1000);  // every run to its own step count
  for (std::size_t r = 0; r < runs.size(); ++r) {
    INFO("run " << r);
    TeacherStudent<float> alone(runs[r]);
    alone.train_until(runs[r].steps);
    require_same_run(ens.run(r), alone);
  }
  CHECK(ens.run(2).step() == 25);
  CHECK(ens.current_step() == 40);
}

TEST_CASE("ensemble steps one at a time equal one call to the end, and a lone run in a batch of one", "[moe][ensemble]") {
  const auto runs = mixed_runs();
  Ensemble<double> stepped(runs), whole(runs);
  std::int64_t calls = 0;
  while (stepped.current_step() < 40) {
    const std::int64_t before = stepped.current_step();
    stepped.step();
    REQUIRE(stepped.current_step() == before + 1);
    ++calls;
  }
  CHECK(calls == 40);
  whole.train_until(40);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    INFO("run " << r);
    require_same_run(stepped.run(r), whole.run(r));
  }
  Ensemble<double> single({runs[2]});
  single.train_until(40);
  require_same_run(single.run(0), whole.run(2));
}

TEST_CASE("the ensemble's bytes are identical for 1 and 2 threads, float and double", "[moe][ensemble][determinism]") {
  auto runs = mixed_runs();
  // A run whose expert loops run in parallel inside (2 n k |expert| >= 4e6 flops) when the groups
  // do not (a batch of one group).
  TrainConfig big = base_config();
  big.teacher.m = 8, big.teacher.k = 4, big.teacher.w = 16, big.teacher.d = 32, big.teacher.d_out = 32;
  big.student = big.teacher;
  big.student.m = 4, big.student.k = 2, big.student.w = 40;
  big.steps = 6, big.batch = 1024, big.test_size = 1024;
  auto check = [&](auto scalar, const std::vector<TrainConfig>& cfgs) {
    using S = decltype(scalar);
    set_num_threads(1);
    Ensemble<S> one(cfgs);
    one.train_until(1000);
    set_num_threads(2);
    Ensemble<S> two(cfgs);
    two.train_until(1000);
    set_num_threads(0);
    for (std::size_t r = 0; r < cfgs.size(); ++r) {
      INFO("run " << r << ", " << sizeof(S) << "-byte scalars");
      require_same_run(one.run(r), two.run(r));
    }
  };
  runs.push_back(big);
  check(0.0f, runs);
  check(0.0, runs);
  check(0.0f, std::vector<TrainConfig>{big});
}

TEST_CASE("an ensemble saved mid-run and resumed gives the uninterrupted ensemble's bytes", "[moe][ensemble][checkpoint]") {
  const auto runs = mixed_runs();
  Ensemble<float> whole(runs);
  whole.train_until(40);
  const std::string prefix = temp_prefix("resume");
  {
    Ensemble<float> first(runs);
    first.train_until(17);
    CHECK(first.current_step() == 17);
    first.save(prefix);
  }
  Ensemble<float> resumed(runs);
  resumed.load(prefix);
  CHECK(resumed.current_step() == 17);
  resumed.train_until(40);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    INFO("run " << r);
    require_same_run(resumed.run(r), whole.run(r));
    fs::remove(prefix + "run" + std::to_string(r) + ".ck");
  }
  // A checkpoint set of another ensemble (runs in another order) is refused by the fingerprint.
  auto swapped = runs;
  std::swap(swapped[0], swapped[4]);
  Ensemble<float> other(swapped);
  {
    Ensemble<float> again(runs);
    again.train_until(3);
    again.save(prefix);
  }
  CHECK_THROWS_AS(other.load(prefix), InputError);
  for (std::size_t r = 0; r < runs.size(); ++r) fs::remove(prefix + "run" + std::to_string(r) + ".ck");
}

TEST_CASE("an ensemble step's gradient is the single-run model's backward on the same batch", "[moe][ensemble][grad]") {
  const auto runs = mixed_runs();
  Ensemble<double> ens(runs);
  ens.train_until(5);
  // The parameters before step 5, the batch of step 5 from each run's own data, the model's
  // forward/backward: the gradient the ensemble step used must be these bytes.
  std::vector<Eigen::VectorXd> before;
  for (std::size_t r = 0; r < runs.size(); ++r) before.push_back(ens.run(r).student().params());
  ens.step();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    INFO("run " << r);
    MoeModel<double> model(runs[r].student);
    model.params() = before[r];
    Eigen::MatrixXd X, T, Y, dY;
    ens.run(r).data().batch_for_step(5, X, T);
    ForwardCache<double> cache;
    forward(model, X, nullptr, cache, Y);
    const double loss = mse_loss<double>(Y, T, &dY);
    Eigen::VectorXd grad;
    backward(model, cache, dY, grad);
    CHECK(same_bytes(grad, ens.run(r).last_gradient()));
    CHECK(std::memcmp(&loss, &ens.run(r).losses()[5], sizeof loss) == 0);
    // The gradient is not trivially zero (the comparison can fail).
    CHECK(grad.norm() > 1e-6);
  }
  // Control: the batch of another step gives another gradient (the comparison above sees the batch).
  MoeModel<double> model(runs[0].student);
  model.params() = before[0];
  Eigen::MatrixXd X, T, Y, dY;
  ens.run(0).data().batch_for_step(6, X, T);
  ForwardCache<double> cache;
  forward(model, X, nullptr, cache, Y);
  mse_loss<double>(Y, T, &dY);
  Eigen::VectorXd grad;
  backward(model, cache, dY, grad);
  CHECK_FALSE(same_bytes(grad, ens.run(0).last_gradient()));
}

TEST_CASE("control: runs of different data seeds are not grouped and train on different batches", "[moe][ensemble]") {
  TrainConfig a = base_config(), b = base_config();
  b.data_seed = a.data_seed + 1;
  Ensemble<float> ens({a, b});
  CHECK(ens.groups() == 2);
  ens.train_until(10);
  CHECK_FALSE(same_bytes(ens.run(0).losses(), ens.run(1).losses()));
  // Same data, another teacher seed: another group too (the teacher is part of the data).
  TrainConfig c = base_config();
  c.teacher_seed = a.teacher_seed + 1;
  CHECK(Ensemble<float>({a, c}).groups() == 2);
}

// ---------------------------------------------------------------------------------------------
// The study path: moe.teacher_student hands every point's trials to one ensemble.

namespace {

const StudyDef& ts_study() { return test::find_study_in(test::topic_studies<moe::add_studies>(), "moe.teacher_student"); }

const char* kSweep =
    "study = \"moe.teacher_student\"\n"
    "[params]\nd = 8\nteacher_active_neurons = 8\nstudent_active_neurons = 10\nlearning_rates = [1e-2, 1e-3]\n"
    "samples = 2048\nbatch = 64\ntest_samples = 256\n"
    "[sweep]\n\"params.teacher_k\" = [1, 2]\n\"params.student_k\" = [1, 2]\n";

McBudget sweep_budget(int threads) {
  McBudget b;
  b.trials = 3;
  b.seed = 9;
  b.threads = threads;
  return b;
}

/// The rows of every point through the study's per-point `run` (the path before the ensemble).
std::vector<CsvRow> point_by_point(const Scenario& sc, const McBudget& budget) {
  const StudyDef& s = ts_study();
  const auto prepared = prepare_scenario(s, sc);
  const auto points = sc.points();
  std::vector<CsvRow> rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const RunContext ctx{point_key(budget.seed, s.name, points[i]), budget.trials, Backend::cpu, nullptr};
    RowSink sink(s.columns);
    s.run(prepared[i], ctx, sink);
    for (auto& r : sink.take()) rows.push_back(std::move(r));
  }
  return rows;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("moe.teacher_student as one ensemble gives the point-by-point rows, for 1 and 2 threads", "[moe][ensemble][study]") {
  REQUIRE(static_cast<bool>(ts_study().run_points));
  const Scenario sc = parse_scenario(kSweep, "<ensemble>");
  const auto reference = point_by_point(sc, sweep_budget(1));
  REQUIRE(reference.size() == 4);
  const CsvTable one = run_scenario(ts_study(), sc, sweep_budget(1));
  const CsvTable two = run_scenario(ts_study(), sc, sweep_budget(2));
  CHECK(one.rows == reference);
  CHECK(two.rows == reference);
  CHECK(one.to_string() == two.to_string());
}

TEST_CASE("moe.teacher_student resumed from a partial journal gives the uninterrupted CSV", "[moe][ensemble][study]") {
  const Scenario sc = parse_scenario(kSweep, "<ensemble>");
  const std::string reference = run_scenario(ts_study(), sc, sweep_budget(2)).to_string();
  const fs::path jp = temp_prefix("journal") + "run.journal";
  RunOptions opts{jp.string(), false};
  CHECK(run_scenario(ts_study(), sc, sweep_budget(2), opts).to_string() == reference);
  // Keep the header and the first completed point, as if the run had been killed after it.
  std::istringstream in(slurp(jp));
  std::string line, partial;
  int units = 0;
  while (std::getline(in, line) && units < 1) {
    partial += line + "\n";
    units += line.rfind("unit ", 0) == 0;
  }
  REQUIRE(units == 1);
  std::ofstream(jp, std::ios::binary | std::ios::trunc) << partial;
  {
    Journal j(jp.string(), run_identity(ts_study(), sc, sweep_budget(2), Backend::cpu), true);
    REQUIRE(j.records().size() == 1);
  }
  opts.resume = true;
  CHECK(run_scenario(ts_study(), sc, sweep_budget(2), opts).to_string() == reference);
  // The same partial journal resumed under 1 thread (the journal does not record the thread count).
  std::ofstream(jp, std::ios::binary | std::ios::trunc) << partial;
  CHECK(run_scenario(ts_study(), sc, sweep_budget(1), opts).to_string() == reference);
  Journal::remove(jp.string());
}

// Timing (hidden, not in `make test`): one quick-Fig. 2 run pair (teacher 16e8a, student 8e4a,
// d = 32, kw = 32, k'w' = 40, batch 256, lr {1e-2, 1e-3}) trained one learning rate after the other
// (each with its own data, as before the ensemble) and as one data group; CPU seconds of each.
TEST_CASE("timing: a learning-rate pair alone vs as one data group", "[.][ensemble_timing]") {
  TrainConfig c;
  c.teacher.m = 16, c.teacher.k = 8, c.teacher.w = 4, c.teacher.d = 32, c.teacher.d_out = 32;
  c.student.m = 8, c.student.k = 4, c.student.w = 10, c.student.d = 32, c.student.d_out = 32;
  c.steps = 1000, c.batch = 256, c.test_size = 8192;
  TrainConfig c2 = c;
  c2.opt.lr = 1e-3;
  c.opt.lr = 1e-2;
  set_num_threads(1);
  const auto cpu = [] { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; };
  double t0 = cpu();
  for (const auto& cfg : {c, c2}) {
    TeacherStudent<float> ts(cfg);
    ts.train_until(cfg.steps);
  }
  const double apart = cpu() - t0;
  t0 = cpu();
  Ensemble<float> ens({c, c2});
  ens.train_until(c.steps);
  const double grouped = cpu() - t0;
  set_num_threads(0);
  std::printf("2 x %lld steps: one after another %.3f s, one data group %.3f s (CPU)\n", static_cast<long long>(c.steps), apart, grouped);
  CHECK(grouped > 0.0);
}

TEST_CASE("the ensemble's memory is counted per learning rate and an oversized run is refused before any work", "[moe][ensemble][study]") {
  GranularitySpec one;
  one.teacher = granularity_shape(4, 2, 8, 8, false);
  one.student = granularity_shape(6, 3, 12, 8, false);
  one.learning_rates = {1e-2};
  one.samples = 4096, one.batch = 64, one.test_size = 512;
  GranularitySpec two = one;
  two.learning_rates = {1e-2, 1e-3};
  // A second learning rate adds a student (4 x its parameters), its loss history and its step
  // workspace, but no second teacher or test set.
  const double s1 = granularity_job_bytes(one), s2 = granularity_job_bytes(two);
  CHECK(s2 > s1);
  CHECK(s2 < 2.0 * s1);
  const double f1 = granularity_job_flops(one), f2 = granularity_job_flops(two);
  CHECK(f2 > f1);
  CHECK(f2 < 2.0 * f1);  // the teacher's forward is counted once per trial
  // 10 kB is less than one trial's test set (256 x 8 inputs and targets): refused at validation,
  // before the journal (created after the estimate) exists.
  const Scenario sc = parse_scenario(kSweep, "<ensemble>");
  McBudget b = sweep_budget(2);
  b.max_memory = 1e4;
  const fs::path jp = temp_prefix("refused") + "run.journal";
  try {
    (void)run_scenario(ts_study(), sc, b, RunOptions{jp.string(), false});
    FAIL("a run over the memory limit was not refused");
  } catch (const InputError& e) {
    CHECK(e.key() == "monte_carlo.max_memory");
  }
  CHECK_FALSE(fs::exists(jp));
}

TEST_CASE("a CPU job resumes from its saved state under the run's state path, and ignores another job's", "[moe][ensemble][checkpoint]") {
  // run_granularity_ensemble with a state path: a job finds its learning rates' checkpoints at
  // granularity_job_state(path, job) + ".lr<i>" (written on an interrupt or once a minute), continues
  // from them to the uninterrupted bytes, and removes them when done.
  GranularitySpec spec;
  spec.teacher = granularity_shape(4, 2, 8, 8, false);
  spec.student = granularity_shape(4, 2, 10, 8, true);
  spec.learning_rates = {1e-2, 1e-3};
  spec.batch = 32, spec.samples = 32 * 20, spec.test_size = 200;
  const RngKey key = RngKey::root(3).with("state_test");
  const GranularityJob job{&spec, key, 0};
  const std::string prefix = temp_prefix("state");
  const std::string base = granularity_job_state(prefix, job);
  const auto file = [&](std::size_t i) { return base + ".lr" + std::to_string(i); };
  const GranularityRun ref = run_granularity_trial(spec, key, 0);
  const auto run_with_state = [&] {
    return run_granularity_ensemble(std::span<const GranularityJob>(&job, 1), [](std::size_t, const GranularityRun&) {}, prefix).front();
  };
  const auto same = [](const GranularityRun& a, const GranularityRun& b) {
    return std::memcmp(&a.best_nmse, &b.best_nmse, sizeof(double)) == 0 && a.best_lr == b.best_lr &&
           std::memcmp(&a.final_train_loss, &b.final_train_loss, sizeof(double)) == 0 && a.init_nmse == b.init_nmse;
  };
  SECTION("saved half-way: the resumed job gives the uninterrupted bytes, and its state is removed") {
    for (std::size_t i = 0; i < spec.learning_rates.size(); ++i) {
      TeacherStudent<float> ts(granularity_config(spec, key, 0, spec.learning_rates[i]));
      ts.train_until(10);
      ts.save(file(i));
    }
    CHECK(same(run_with_state(), ref));
    CHECK_FALSE(fs::exists(file(0)));
    CHECK_FALSE(fs::exists(file(1)));
  }
  SECTION("saved at the end with a marked last loss: the result comes from the state (it was read)") {
    // The checkpoint ends with the loss history (TeacherStudent::save): mark its last loss.
    for (std::size_t i = 0; i < spec.learning_rates.size(); ++i) {
      TeacherStudent<float> ts(granularity_config(spec, key, 0, spec.learning_rates[i]));
      ts.train_until(spec.steps());
      ts.save(file(i));
      const double mark = 12345.0 + static_cast<double>(i);
      std::fstream f(file(i), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(-static_cast<std::streamoff>(sizeof(double)), std::ios::end);
      f.write(reinterpret_cast<const char*>(&mark), sizeof mark);
    }
    const GranularityRun r = run_with_state();
    CHECK(std::memcmp(&r.best_nmse, &ref.best_nmse, sizeof(double)) == 0);
    const std::size_t best = r.best_lr == spec.learning_rates[0] ? 0 : 1;
    CHECK(r.final_train_loss == 12345.0 + static_cast<double>(best));
  }
  SECTION("control: another configuration's checkpoint at the job's path is ignored (training from the start)") {
    for (std::size_t i = 0; i < spec.learning_rates.size(); ++i) {
      TeacherStudent<float> ts(granularity_config(spec, key.with("other"), 0, spec.learning_rates[i]));
      ts.train_until(10);
      ts.save(file(i));
    }
    CHECK(same(run_with_state(), ref));
    CHECK_FALSE(fs::exists(file(0)));
  }
  for (std::size_t i = 0; i < 2; ++i) fs::remove(file(i));
}

// ---- the interface over both backends (ensemble_trainer.hpp) ----

TEST_CASE("the CPU ensemble trainer is Ensemble, byte for byte", "[moe][ensemble][backend]") {
  auto runs = device_runs();
  runs[2].steps = 25;  // another step count: step() is the smallest over the unfinished runs
  runs[1].train_size = 100;  // a fixed training set (the CPU takes any run)
  const auto trainer = make_ensemble_trainer<double>(Backend::cpu, runs);
  REQUIRE(trainer->backend() == Backend::cpu);
  REQUIRE(trainer->size() == runs.size());
  Ensemble<double> ref(runs);
  CHECK(trainer->steps() == 40);
  CHECK(trainer->step() == 0);
  const auto check_same = [&] {
    const std::vector<double> nmse = trainer->test_nmse();
    REQUIRE(nmse.size() == runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      INFO("run " << r);
      CHECK(trainer->config(r).opt.lr == runs[r].opt.lr);
      CHECK(same_bytes(trainer->losses(r), ref.run(r).losses()));
      const double e = ref.run(r).test_nmse();
      CHECK(std::memcmp(&nmse[r], &e, sizeof e) == 0);
      CHECK(same_bytes(trainer->student_params(r), ref.run(r).student().params()));
      CHECK(same_bytes(trainer->last_gradient(r), ref.run(r).last_gradient()));
    }
  };
  check_same();  // the initial students
  trainer->train_until(12);
  ref.train_until(12);
  CHECK(trainer->step() == 12);
  check_same();
  trainer->train_until(30);  // run 2 finishes at 25
  ref.train_until(30);
  CHECK(trainer->step() == 30);
  CHECK(trainer->losses(2).size() == 25);
  check_same();
  trainer->train_until(100);
  ref.train_until(100);
  CHECK(trainer->step() == 40);  // every run finished: the largest step
  check_same();
  // Control: the comparison sees a difference (an ensemble trained less).
  Ensemble<double> shorter(runs);
  shorter.train_until(39);
  CHECK_FALSE(same_bytes(trainer->student_params(0), shorter.run(0).student().params()));
}

TEST_CASE("an ensemble trainer resumed from its saved state gives the uninterrupted bytes on every backend", "[moe][ensemble][checkpoint][backend]") {
  const auto runs = device_runs();
  for (const Backend b : {Backend::cpu, Backend::cuda}) {
    if (!moelab::test::backend_present(b)) continue;
    INFO("backend " << to_string(b));
    const std::string path = temp_prefix(to_string(b));
    const auto whole = make_ensemble_trainer<float>(b, runs);
    whole->train_until(40);
    {
      const auto first = make_ensemble_trainer<float>(b, runs);
      CHECK_FALSE(first->load(path));  // nothing saved yet: nothing changed
      CHECK(first->step() == 0);
      first->train_until(17);
      first->save(path);
    }
    const auto resumed = make_ensemble_trainer<float>(b, runs);
    REQUIRE(resumed->load(path));
    CHECK(resumed->step() == 17);
    resumed->train_until(40);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      INFO("run " << r);
      CHECK(same_bytes(resumed->losses(r), whole->losses(r)));
      CHECK(same_bytes(resumed->student_params(r), whole->student_params(r)));
    }
    CHECK(same_bytes(resumed->test_nmse(), whole->test_nmse()));
    // Another ensemble's state (the runs in another order) is not restored: the CPU's per-run
    // fingerprints refuse it (InputError naming the file), the device's returns false.
    auto swapped = runs;
    std::swap(swapped[0], swapped[2]);
    const auto other = make_ensemble_trainer<float>(b, swapped);
    if (b == Backend::cpu)
      CHECK_THROWS_AS(other->load(path), InputError);
    else
      CHECK_FALSE(other->load(path));
    resumed->remove_saved(path);
    CHECK_FALSE(make_ensemble_trainer<float>(b, runs)->load(path));  // removed
  }
}

TEST_CASE("make_ensemble_trainer(cuda) refuses runs the device ensemble cannot take, on any machine, naming --backend", "[moe][ensemble][backend]") {
  auto runs = device_runs();
  runs[1].student.expert = ExpertKind::linear;
  CHECK_THROWS_WITH(make_ensemble_trainer<float>(Backend::cuda, runs),
                    Catch::Matchers::Contains("make_ensemble_trainer(cuda)") && Catch::Matchers::Contains("linear experts") &&
                        Catch::Matchers::Contains("--backend cpu"));
  CHECK(make_ensemble_trainer<float>(Backend::cpu, runs)->size() == runs.size());  // the CPU takes them
}

TEST_CASE("make_ensemble_trainer refuses the cuda backend where CUDA cannot run, naming --backend", "[moe][ensemble][backend]") {
  if (moelab::test::backend_present(Backend::cuda)) {
    CHECK(make_ensemble_trainer<float>(Backend::cuda, device_runs())->backend() == Backend::cuda);
    return;
  }
  CHECK_THROWS_WITH(make_ensemble_trainer<float>(Backend::cuda, device_runs()),
                    Catch::Matchers::Contains("make_ensemble_trainer(cuda)") && Catch::Matchers::Contains("--backend cpu"));
}
