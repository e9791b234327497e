#include "moelab/scenario/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "moelab/core/distributed.hpp"
#include "moelab/core/error.hpp"
#include "moelab/core/interrupt.hpp"
#include "moelab/core/memory.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/core/version.hpp"

namespace moelab {

const StudyDef& study_for(const Scenario& sc, const std::vector<StudyDef>& known) {
  for (const auto& s : known)
    if (s.name == sc.study) return s;
  std::vector<std::string> names;
  for (const auto& s : known) names.push_back(s.name);
  const std::string near = closest_name(sc.study, names, 4);
  throw InputError(sc.path, 0, "study", fmt::format("unknown study '{}'{} (known: {})", sc.study,
                                                    near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                                                    fmt::join(names, ", ")));
}

RngKey point_key(std::uint64_t seed, const std::string& study, const SweepPoint& point) {
  RngKey k = RngKey::root(seed).with(study);
  for (const auto& [key, value] : point.coordinates) k = k.with(key + "=" + value);
  return k;
}

namespace {

// The frame's own memory per sweep point: the SweepPoint (coordinates, overrides), the prepared
// std::any and the rows (a CsvCell is 40 bytes, plus its CSV text and the string's copy). Checked:
// a 1e6-point sweep of sparsity.kstar (1 axis, 15 columns) peaked at 1.03 GB RSS against an
// estimate of 2.14 GB, so the estimate errs high by ~2x.
constexpr double kBytesPerPoint = 512, kBytesPerAxis = 192, kBytesPerCell = 96;
constexpr double kOpsPerSecond = 1e9;  // per thread, for the printed time estimate (order of magnitude)

std::any prepare_point(const StudyDef& study, const SweepPoint& pt, const std::string& path, Backend backend) {
  const ParamView view = pt.view(path);
  const PointParams params(view, study.params, backend);
  std::any point = study.prepare(params);
  view.check_all_used();
  return point;
}

/// Every point is validated before any runs, and every distinct error of the file is reported at
/// once (the first names the key and line; the others follow in the message, up to kMaxErrors), so a
/// user fixes a scenario in one round, not one error per run.
std::vector<std::any> prepare_points(const StudyDef& study, const Scenario& sc, const std::vector<SweepPoint>& points,
                                     Backend backend) {
  constexpr std::size_t kMaxErrors = 10;
  std::vector<std::any> prepared;
  std::optional<InputError> first;
  std::vector<std::string> others;  // distinct messages after the first (a base-table error repeats at every point)
  std::size_t more = 0;
  for (const auto& pt : points) {
    check_interrupted();
    try {
      prepared.push_back(prepare_point(study, pt, sc.path, backend));
    } catch (const InputError& e) {
      if (!first) {
        first = e;
      } else if (e.what() != std::string(first->what()) &&
                 std::find(others.begin(), others.end(), e.what()) == others.end()) {
        if (others.size() < kMaxErrors - 1) others.push_back(e.what());
        else ++more;
      }
    }
  }
  if (!first) return prepared;
  if (others.empty()) throw *first;
  std::string reason = first->reason() + fmt::format("\n  ... and {} more error(s) in this file:", others.size() + more);
  for (const auto& m : others) reason += "\n  " + m;
  if (more > 0) reason += fmt::format("\n  (and {} more)", more);
  throw InputError(first->file(), first->line(), first->key(), reason);
}

/// Restores the default thread count when a run ends, also by an exception (bad input found late,
/// an interrupt), so that a later run in the same process (the Python module) is not affected.
struct ThreadCountScope {
  explicit ThreadCountScope(int threads) : active(threads > 0) {
    if (active) set_num_threads(threads);
  }
  ~ThreadCountScope() {
    if (active) set_num_threads(0);
  }
  bool active;
};

}  // namespace

std::vector<std::any> prepare_scenario(const StudyDef& study, const Scenario& sc) {
  return prepare_points(study, sc, sc.points(), Backend::cpu);
}

JournalIdentity run_identity(const StudyDef& study, const Scenario& sc, const McBudget& budget, Backend backend) {
  // The scenario's content as the run sees it: the study's tables and every point's coordinates
  // (not the file's bytes: comments and layout do not change the rows).
  std::ostringstream text;
  text << sc.base << "\n";
  std::uint64_t points = 0;
  for (const auto& pt : sc.points()) {
    for (const auto& [k, v] : pt.coordinates) text << k << '=' << v << ';';
    text << '\n';
    ++points;
  }
  return {{"kind", "run"},
          {"tool", tool_provenance()},
          {"study", study.name},
          {"scenario_hash", fmt::format("{:016x}", fnv1a64(text.str()))},
          {"seed", fmt::format("{}", budget.seed)},
          {"trials", study.trial_unit.empty() ? std::string("none") : fmt::format("{}", budget.trials)},
          {"backend", to_string(backend)},
          {"points", fmt::format("{}", points)}};
}

namespace {

std::string point_label(const SweepPoint& p) {
  std::string s;
  for (const auto& [k, v] : p.coordinates) s += k + "=" + v + ";";
  return s;
}

/// A completed point as a journal record / message payload: its coordinates (checked on resume) and rows.
std::string encode_point(const SweepPoint& p, const std::vector<CsvRow>& rows) {
  ByteWriter w;
  w.str(point_label(p));
  put_rows(w, rows);
  return w.take();
}

std::vector<CsvRow> decode_point(const SweepPoint& p, const std::string& payload, const std::string& journal,
                                 std::uint64_t index) {
  ByteReader r(payload);
  const std::string label = r.str();
  if (label != point_label(p))
    throw InputError(journal, 0, "journal",
                     fmt::format("unit {} is the point '{}', but this run's point {} is '{}'; rerun without --resume",
                                 index, printable(label), index, point_label(p)));
  auto rows = get_rows(r);
  return rows;
}

/// Trials [begin, end) of rank `rank` among `ranks`: contiguous blocks, the first (trials % ranks)
/// one trial longer.
std::pair<std::int64_t, std::int64_t> trial_block(std::int64_t trials, int ranks, int rank) {
  const std::int64_t base = trials / ranks, extra = trials % ranks;
  const std::int64_t begin = rank * base + std::min<std::int64_t>(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

// run_scenario in three steps: plan (validation, cost refusal, the point list; every rank, before
// any work), shard (journal and resume, the missing points over ranks and threads; rank 0 collects
// every point's rows) and assemble (rows in point order into the CSV table with its metadata; the
// CLI writes it atomically).

/// What the plan settles before any work, the same on every rank: the backend, the trials per point,
/// every sweep point prepared, and each point's weight for sharing the points out over ranks.
struct RunPlan {
  Backend backend = Backend::cpu;
  std::int64_t trials = 0;
  std::vector<SweepPoint> points;
  std::vector<std::any> prepared;
  std::vector<double> weight;
};

/// Each sweep point's rows, once rank 0 has them (from the journal, its own work or another rank).
using PointRows = std::vector<std::optional<std::vector<CsvRow>>>;

// ---- plan ----

/// Throws InputError when the backend, the trials, the threads or any point is invalid, or when the
/// estimated memory is over the limit; sets the run's thread count (`threads`, kept by the caller
/// for the whole run) and prints the estimate (rank 0) when the run is long.
RunPlan plan_run(const StudyDef& study, const Scenario& sc, const McBudget& budget, int ranks, bool root,
                 std::optional<ThreadCountScope>& threads) {
  RunPlan plan;
  // The backend is resolved first so that points can check limits that depend on it.
  std::string why;
  const std::optional<Backend> backend = resolve_backend(budget.backend, study.cuda, &why);
  if (!backend)
    throw InputError(sc.path, 0, "monte_carlo.backend", fmt::format("cannot run study '{}' on cuda: {}", sc.study, why));
  plan.backend = *backend;
  const std::int64_t trials = study.trial_unit.empty() ? 0 : budget.trials;
  plan.trials = trials;
  if (!study.trial_unit.empty() && trials < study.min_trials)
    throw InputError(sc.path, 0, "monte_carlo.trials",
                     fmt::format("study '{}' needs at least {} {} per point, got {}", study.name, study.min_trials,
                                 study.trial_unit, trials));
  if (budget.threads > max_threads())
    throw InputError(sc.path, 0, "monte_carlo.threads",
                     fmt::format("must be at most {} (what this process can run), got {}", max_threads(), budget.threads));
  threads.emplace(budget.threads);
  const double limit = budget.max_memory > 0 ? budget.max_memory : machine_memory_bytes();
  const char* limit_name = budget.max_memory > 0 ? "the limit set by --max-memory / [monte_carlo] max_memory"
                                                 : "the memory this process can get (the machine's, a cgroup "
                                                   "limit, ulimit -v / -d)";
  RunEstimate est;
  double n_points = 1;
  for (const auto& axis : sc.axes) n_points *= static_cast<double>(axis.values.size());
  est.frame_bytes = n_points * (kBytesPerPoint + kBytesPerAxis * static_cast<double>(sc.axes.size()) +
                                kBytesPerCell * static_cast<double>(study.columns.size()));
  const auto refuse = [&](const std::string& what) {
    throw InputError(sc.path, 0, "monte_carlo.max_memory",
                     fmt::format("the run would need about {} ({}), more than {} ({}); lower the budget or the sizes, "
                                 "or raise --max-memory if the estimate is too high",
                                 format_bytes(est.peak()), what, limit_name, format_bytes(limit)));
  };
  if (est.peak() > limit) refuse(fmt::format("{:.3g} sweep points", n_points));
  plan.points = sc.points();
  plan.prepared = prepare_points(study, sc, plan.points, plan.backend);
  est.modelled = static_cast<bool>(study.cost);
  plan.weight.resize(plan.prepared.size());
  for (std::size_t i = 0; i < plan.prepared.size(); ++i) {
    const StudyCost c = study.cost ? study.cost(plan.prepared[i], trials) : StudyCost{};
    const double bytes = c.bytes + static_cast<double>(trials) * study.result_bytes_per_trial;
    if (bytes > est.point_bytes || !(bytes == bytes)) est.point_bytes = bytes, est.worst_point = i;
    est.work += c.work;
    est.seconds_one_thread += c.work / (c.ops_per_second > 0.0 ? c.ops_per_second : kOpsPerSecond);
    est.measured_rate = est.measured_rate || c.ops_per_second > 0.0;
    // A point's weight for sharing points out over ranks: its modelled operations, else its
    // progress units (trials); any positive number works, the bytes do not depend on it.
    plan.weight[i] = study.cost && c.work > 0 && std::isfinite(c.work)
                         ? c.work
                         : static_cast<double>(std::max<std::size_t>(1, study.work(plan.prepared[i], trials)));
  }
  const auto where = [&] {
    std::string at = fmt::format("{} trials", trials);
    for (const auto& [k, v] : plan.points[est.worst_point].coordinates) at += fmt::format(", {} = {}", k, v);
    return at;
  };
  if (!(est.peak() <= limit)) refuse(fmt::format("largest point: {}", where()));
  const double seconds = est.seconds_one_thread / (static_cast<double>(std::max(1, num_threads())) * ranks);
  const std::string rate = est.measured_rate ? std::string("the study's measured rate per thread")
                                             : fmt::format("{:g} op/s each", kOpsPerSecond);
  if (root && (seconds > 10 || est.peak() > 1e9))
    fmt::print(stderr, "moelab: estimate for {}: about {} of memory{}\n", sc.study, format_bytes(est.peak()),
               est.modelled ? fmt::format(", {:.3g} operations (~{:.0f} s on {} threads at {})", est.work, seconds,
                                          num_threads() * ranks, rate)
                            : std::string(" (the study declares no cost model: its own memory is not counted)"));
  return plan;
}

// ---- shard ----

/// Rank 0 with a journal: opens it (create, or --resume from an earlier run with the same identity)
/// and takes the rows of the points that run completed into `done`.
std::unique_ptr<Journal> open_journal(const StudyDef& study, const Scenario& sc, const McBudget& budget,
                                      const RunOptions& options, const RunPlan& plan, PointRows& done) {
  auto journal = std::make_unique<Journal>(options.journal, run_identity(study, sc, budget, plan.backend), options.resume);
  for (const auto& [unit, payload] : journal->records()) {
    if (unit >= plan.points.size())
      throw InputError(options.journal, 0, "journal",
                       fmt::format("unit {} is past this run's {} points; rerun without --resume", unit, plan.points.size()));
    done[unit] = decode_point(plan.points[unit], payload, options.journal, unit);
  }
  return journal;
}

/// This rank's share of the missing points (done_mask[i] == '0'): `collective`, the points whose
/// trials every rank splits (a point over 1/R of the work, for studies with trial blocks), and
/// `mine`, the whole points this rank runs (largest first to the least loaded rank; in point order).
struct Shares {
  std::vector<std::size_t> collective;
  std::vector<std::size_t> mine;
};

Shares share_points(const StudyDef& study, const RunPlan& plan, const std::string& done_mask, int ranks, int rank) {
  Shares s;
  std::vector<std::size_t> todo;
  double total = 0;
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    if (done_mask[i] == '0') todo.push_back(i), total += plan.weight[i];
  if (ranks == 1) {
    s.mine = todo;
    return s;
  }
  std::vector<std::size_t> whole;
  for (std::size_t i : todo) {
    if (study.trial_block && plan.trials >= ranks && plan.weight[i] * ranks > total) s.collective.push_back(i);
    else whole.push_back(i);
  }
  // Largest first to the least loaded rank (ties: lower index, lower rank): deterministic.
  std::stable_sort(whole.begin(), whole.end(), [&](std::size_t a, std::size_t b) { return plan.weight[a] > plan.weight[b]; });
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  for (std::size_t i : whole) {
    const auto r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[static_cast<std::size_t>(r)] += plan.weight[i];
    if (r == rank) s.mine.push_back(i);
  }
  std::sort(s.mine.begin(), s.mine.end());
  return s;
}

/// Runs the points `done` is missing: rank 0 says which (from the journal), each rank runs its share
/// (each point's trials in parallel over the threads), and rank 0 ends with every point's rows in
/// `done`, journaling each point as it arrives. A failure on any rank is thrown on every rank.
void run_shards(const StudyDef& study, const Scenario& sc, const McBudget& budget, const RunOptions& options,
                const RunPlan& plan, Journal* journal, PointRows& done) {
  Communicator& comm = world();
  const int ranks = comm.size(), rank = comm.rank();
  const bool root = rank == 0;
  const auto& points = plan.points;
  const std::int64_t trials = plan.trials;
  std::exception_ptr failure;

  // Which points are left (rank 0 knows from the journal), and who runs what.
  std::string done_mask(points.size(), '0');
  if (root)
    for (std::size_t i = 0; i < points.size(); ++i) done_mask[i] = done[i] ? '1' : '0';
  comm.broadcast(done_mask);
  Shares share = share_points(study, plan, done_mask, ranks, rank);
  const std::vector<std::size_t>& collective = share.collective;
  std::vector<std::size_t>& mine = share.mine;

  if (root && plan.backend == Backend::cuda && study.cuda == CudaPath::experimental)
    fmt::print(stderr, "moelab: warning: study '{}' runs on an experimental CUDA path (not yet validated against the CPU "
                       "reference on a device); compare with --backend cpu before trusting it\n", sc.study);
  std::size_t work = 0;
  for (std::size_t i : mine) work += study.work(plan.prepared[i], trials);
  if (!collective.empty()) {
    const auto [b, e] = trial_block(trials, ranks, rank);
    work += collective.size() * static_cast<std::size_t>(e - b);
  }
  Progress progress(work, ranks > 1 ? fmt::format("{} (rank 0 of {})", sc.name, ranks) : sc.name);
  const auto context = [&](std::size_t i) {
    return RunContext{point_key(budget.seed, study.name, points[i]), trials, plan.backend, &progress, {}};
  };
  const auto record = [&](std::size_t i, std::vector<CsvRow> rows, const std::string* payload) {
    if (journal) journal->append(i, payload ? *payload : encode_point(points[i], rows));
    done[i] = std::move(rows);
  };

  // 1. Points whose trials all ranks share, one after another.
  for (std::size_t i : collective) {
    std::string block;
    try {
      check_interrupted();
      const auto [b, e] = trial_block(trials, ranks, rank);
      block = study.trial_block(plan.prepared[i], context(i), b, e);
    } catch (...) {
      failure = std::current_exception();
    }
    agree_on_failure(failure);
    const auto blocks = comm.gather(block);
    if (root) {
      try {
        std::string all;
        for (const auto& part : blocks) all += part;
        RowSink rows(study.columns);
        study.reduce_block(plan.prepared[i], all, context(i), rows);
        record(i, rows.take(), nullptr);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    agree_on_failure(failure);
  }

  // 2. Whole points: each rank its own; ranks > 0 post each point's rows to rank 0 as it completes,
  // rank 0 journals them between its own points and, at the end, until every rank said it is done.
  ShardCollector collect(comm, failure, [&](std::uint64_t i, std::string payload) {
    MOELAB_EXPECT(i < points.size(), "a rank sent a point index past the sweep");
    record(static_cast<std::size_t>(i), decode_point(points[static_cast<std::size_t>(i)], payload, "<rank message>", i), &payload);
  });
  if (study.run_points && !mine.empty()) {
    // All of this rank's points as one batch (StudyDef::run_points): each point is journaled (rank 0)
    // as it completes; other ranks post their points' rows after the batch (their message calls stay
    // on this thread).
    std::vector<const std::any*> batch;
    std::vector<RunContext> contexts;
    for (std::size_t i : mine) {
      batch.push_back(&plan.prepared[i]);
      contexts.push_back(context(i));
      if (!options.journal.empty())
        contexts.back().state_path = options.journal + (comm.size() > 1 ? fmt::format(".rank{}", comm.rank()) : std::string()) + ".state";
    }
    std::vector<std::pair<std::size_t, std::string>> posts;
    try {
      check_interrupted();
      study.run_points(batch, contexts, [&](std::size_t m, std::vector<CsvRow> rows) {
        const std::size_t i = mine.at(m);
        if (root) record(i, std::move(rows), nullptr);
        else posts.emplace_back(i, encode_point(points[i], rows));
      });
    } catch (...) {
      failure = std::current_exception();
    }
    for (auto& [i, payload] : posts) collect.post(i, payload);
    mine.clear();
  }
  for (std::size_t i : mine) {
    if (failure) break;
    try {
      check_interrupted();
      RowSink sink(study.columns);
      study.run(plan.prepared[i], context(i), sink);
      auto rows = sink.take();
      if (root) {
        record(i, std::move(rows), nullptr);
        collect.poll();
      } else {
        collect.post(i, encode_point(points[i], rows));
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }
  collect.finish();  // rank 0: every other rank's points; then the failure agreement
  progress.finish();
}

// ---- assemble ----

/// Rank 0: the table of every point's rows in point order, with the run's metadata (tool, scenario,
/// study, seed, trials, backend, sweep axes) and the study's summary lines.
CsvTable assemble_table(const StudyDef& study, const Scenario& sc, const McBudget& budget, const RunPlan& plan,
                        PointRows& done) {
  CsvTable t;
  t.add_metadata("tool", tool_provenance());
  t.add_metadata("scenario", sc.path);
  t.add_metadata("study", sc.study);
  if (!sc.title.empty()) t.add_metadata("title", sc.title);
  t.add_metadata("seed", fmt::format("{}", budget.seed));
  t.add_metadata("trials", study.trial_unit.empty() ? std::string("none (deterministic)")
                                                    : fmt::format("{} {} per point", budget.trials, study.trial_unit));
  const bool experimental = plan.backend == Backend::cuda && study.cuda == CudaPath::experimental;
  t.add_metadata("backend", experimental ? "cuda (experimental path: not yet validated against the CPU on a device)"
                                         : to_string(plan.backend));
  for (const auto& axis : sc.axes) t.add_metadata("sweep", axis.key);
  t.columns = study.column_names();
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    MOELAB_EXPECT(done[i].has_value(), "every sweep point has its rows");
    for (auto& row : *done[i]) t.add_row(std::move(row));
  }
  if (study.summarize)
    for (auto& kv : study.summarize(TableView(t))) t.add_metadata(kv.first, kv.second);
  return t;
}

}  // namespace

CsvTable run_scenario(const StudyDef& study, const Scenario& sc, const McBudget& budget, const RunOptions& options) {
  Communicator& comm = world();
  const bool root = comm.rank() == 0;
  std::exception_ptr failure;
  std::optional<ThreadCountScope> threads;  // the run's thread count, restored when the run ends
  RunPlan plan;
  PointRows done;
  std::unique_ptr<Journal> journal;
  // Validate everything first, on every rank (the same checks give the same answer everywhere;
  // agree_on_failure makes sure of it): a bad value at the last sweep point must not cost a long run.
  try {
    plan = plan_run(study, sc, budget, comm.size(), root, threads);
    done.resize(plan.points.size());
    if (root && !options.journal.empty()) journal = open_journal(study, sc, budget, options, plan, done);
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(failure);
  run_shards(study, sc, budget, options, plan, journal.get(), done);
  if (!root) return CsvTable{};
  return assemble_table(study, sc, budget, plan, done);
}

CsvTable run_study_text(const StudyDef& study, const std::string& toml_text, const McBudget& budget) {
  const Scenario sc = parse_scenario(fmt::format("study = \"{}\"\n{}", study.name, toml_text), "<" + study.name + ">");
  return run_scenario(study, sc, budget);
}

}  // namespace moelab
